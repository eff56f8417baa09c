// Package safetext makes untrusted text safe to show: in an error message or
// on a terminal. Text from files and servers (schema text, metadata values,
// names) may hold terminal escape sequences, bidirectional overrides or
// invalid UTF-8, and may be megabytes long; Escape and Truncate bound it and
// make every such byte visible instead of letting it act.
//
// The nested modules have generated copies of this package
// (internal/cmd/genshared).
package safetext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Escape returns s with every rune that is not a printable, non-formatting
// character escaped in Go's notation (\x1b, \n, \u202e, \xff for invalid
// UTF-8; a backslash stays as it is), cut to at most max bytes of output
// (max ≤ 0: no cut) with "… (N bytes)" appended when cut, N the length of
// s. The result holds no control or format characters.
func Escape(s string, max int) string {
	if safe(s) && (max <= 0 || len(s) <= max) {
		return s
	}
	var sb strings.Builder
	limit := len(s) * 4
	if max > 0 {
		limit = max
	}
	sb.Grow(min(limit, len(s)+16))
	cut := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		var piece string
		switch {
		case r == utf8.RuneError && n == 1:
			piece = `\x` + strconv.FormatUint(uint64(s[i])|0x100, 16)[1:]
		case printable(r):
			piece = s[i : i+n]
		default:
			q := strconv.QuoteRuneToASCII(r) // 'x' with the escape inside
			piece = q[1 : len(q)-1]
		}
		if max > 0 && sb.Len()+len(piece) > max {
			cut = true
			break
		}
		sb.WriteString(piece)
		i += n
	}
	if cut {
		sb.WriteString("… (")
		sb.WriteString(strconv.Itoa(len(s)))
		sb.WriteString(" bytes)")
	}
	return sb.String()
}

// Truncate is Escape with a limit: the form of untrusted text in error
// messages.
func Truncate(s string, max int) string { return Escape(s, max) }

// Safe reports whether s prints as itself: valid UTF-8 with no control or
// format characters.
func Safe(s string) bool { return safe(s) }

func safe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c >= 0x80 {
			// Fall back to the rune check for anything outside printable ASCII.
			for _, r := range s[i:] {
				if !printable(r) {
					return false
				}
			}
			return utf8.ValidString(s[i:])
		}
	}
	return true
}

// AppendJSONEscape appends r as a JSON \u escape, a surrogate pair outside
// the Basic Multilingual Plane: how writers of JSON write the characters
// that could act on a terminal, keeping the JSON value as it is.
func AppendJSONEscape(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	if r > 0xffff {
		r1, r2 := utf16.EncodeRune(r)
		return AppendJSONEscape(AppendJSONEscape(dst, r1), r2)
	}
	return append(dst, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
}

// AppendJSONChar appends the character that s, not empty, starts with (not
// ASCII) as it stands in a JSON string that is printed: as it is when it
// may reach a terminal as itself, as a \u escape ([AppendJSONEscape]) when
// it could act on one (C1 controls, format characters such as
// bidirectional overrides), and as U+FFFD when s does not start with valid
// UTF-8 (as JSON readers read it). It returns the bytes of s it stands for.
func AppendJSONChar(dst, s []byte) ([]byte, int) {
	r, n := utf8.DecodeRune(s)
	switch {
	case r == utf8.RuneError && n <= 1:
		return append(dst, "\ufffd"...), max(n, 1)
	case printable(r):
		return append(dst, s[:n]...), n
	}
	return AppendJSONEscape(dst, r), n
}

// printable reports whether r may reach a terminal as itself: a graphic
// character or a space, and not a format character (Cf: bidirectional
// overrides, zero-width joiners), which can make text read otherwise.
func printable(r rune) bool {
	if r == ' ' {
		return true
	}
	return unicode.IsGraphic(r) && !unicode.Is(unicode.Cf, r)
}

// Quote is Escape in double quotes, the form of untrusted names and values
// in error messages. A double quote inside is escaped too.
func Quote(s string, max int) string {
	return `"` + strings.ReplaceAll(Escape(s, max), `"`, `\"`) + `"`
}

// Error returns err with its message escaped and cut to max bytes as by
// Escape, for errors whose text quotes untrusted input (a parser's error on
// a file's bytes, say). errors.Is and errors.As still see err; err itself is
// returned when its message is already safe and short enough.
func Error(err error, max int) error {
	msg := err.Error()
	if safe(msg) && (max <= 0 || len(msg) <= max) {
		return err
	}
	return &escapedError{msg: Escape(msg, max), err: err}
}

type escapedError struct {
	msg string
	err error
}

func (e *escapedError) Error() string { return e.msg }
func (e *escapedError) Unwrap() error { return e.err }

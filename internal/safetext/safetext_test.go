package safetext

import (
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"plain text", 0, "plain text"},
		{"zstandard", 100, "zstandard"},
		{"\x1b[2J\x1b]0;pwned\x07", 0, `\x1b[2J\x1b]0;pwned\a`},
		{"line\nbreak\r", 0, `line\nbreak\r`},
		{"bidi \u202eevil", 0, `bidi \u202eevil`},
		{"bad \xff utf8", 0, `bad \xff utf8`},
		{"del\x7f", 0, `del\x7f`},
		{"csi \u009b", 0, `csi \u009b`},
		{"héllo wörld", 0, "héllo wörld"},
		{`back\slash`, 0, `back\slash`},
		{"abcdefghij", 4, "abcd… (10 bytes)"},
		{"\x1b\x1b\x1b", 5, `\x1b… (3 bytes)`},
		{"ééé", 3, "é… (6 bytes)"},
	} {
		if got := Escape(c.in, c.max); got != c.want {
			t.Errorf("Escape(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestEscapeBounded(t *testing.T) {
	big := strings.Repeat("\x1b[31m\xffé", 1<<20)
	got := Escape(big, 300)
	if len(got) > 300+len("… (12345678 bytes)") {
		t.Fatalf("%d bytes", len(got))
	}
	if !Safe(got) || !utf8.ValidString(got) {
		t.Fatalf("not safe: %q", got)
	}
}

func TestError(t *testing.T) {
	plain := errors.New("plain")
	if got := Error(plain, 100); got != plain {
		t.Errorf("a safe, short error is returned as it is: got %v", got)
	}
	hostile := &fs.PathError{Op: "open", Path: "\x1b]0;pwned\a" + strings.Repeat("x", 1000), Err: fs.ErrNotExist}
	got := Error(hostile, 50)
	if msg := got.Error(); !Safe(msg) || len(msg) > 50+len("… (1234 bytes)") || !strings.HasPrefix(msg, `open \x1b]0;pwned\a`) {
		t.Errorf("Error(hostile, 50) = %q: not escaped and bounded", msg)
	}
	var pe *fs.PathError
	if !errors.Is(got, fs.ErrNotExist) || !errors.As(got, &pe) || pe != hostile {
		t.Errorf("Error(hostile, 50) does not wrap the error: %#v", got)
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("\x1b[2J", 10)
	f.Add("\xff\xfe\u202e", 0)
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 1 << 16
		got := Escape(s, max)
		if !Safe(got) {
			t.Fatalf("Escape(%q) = %q is not safe", s, got)
		}
		if max > 0 && len(got) > max+len("… ( bytes)")+20 {
			t.Fatalf("Escape(%q, %d) = %d bytes", s, max, len(got))
		}
		if Safe(s) && (max <= 0 || len(s) <= max) && got != s {
			t.Fatalf("safe %q changed to %q", s, got)
		}
	})
}

// AppendJSONChar writes a printable character as it is, one that could act
// on a terminal as a \u escape (a surrogate pair beyond U+FFFF), and a byte
// that starts no valid UTF-8 as U+FFFD, using that one byte; what it writes
// reads back, as JSON, as the character (or U+FFFD).
func TestAppendJSONChar(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		n    int
	}{
		{"é and more", "é", 2},
		{"😀", "😀", 4},
		{"\u202eevil", `\u202e`, 3},
		{"\u0085", `\u0085`, 2},
		{"\U000e0001", `\udb40\udc01`, 4}, // a format character (language tag) beyond the BMP
		{"\xff\xfe", "\ufffd", 1},
		{"\xe2\x82", "\ufffd", 1},     // a cut sequence
		{"\xed\xa0\x80", "\ufffd", 1}, // a surrogate's UTF-8 form
	} {
		got, n := AppendJSONChar([]byte("x"), []byte(c.in))
		if string(got) != "x"+c.want || n != c.n {
			t.Errorf("AppendJSONChar(%q) = %q, %d; want %q, %d", c.in, got[1:], n, c.want, c.n)
		}
	}
}

// FuzzAppendJSONChar: for any bytes starting with a non-ASCII byte,
// AppendJSONChar writes only printable text, uses the bytes of one
// character (one byte of invalid UTF-8), and what it writes reads back as
// JSON string content (encoding/json) as that character, or U+FFFD.
func FuzzAppendJSONChar(f *testing.F) {
	for _, s := range []string{"é", "😀", "\u202e", "\u0085", "\U000e0001", "\xff", "\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\ufffd"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		if len(s) == 0 || s[0] < utf8.RuneSelf {
			return
		}
		got, n := AppendJSONChar(nil, s)
		want, wantN := "\ufffd", 1 // invalid UTF-8: one byte
		if r, size := utf8.DecodeRune(s); r != utf8.RuneError || size > 1 {
			want, wantN = string(s[:size]), size
		}
		if n != wantN {
			t.Fatalf("AppendJSONChar(%q) used %d bytes, want %d", s, n, wantN)
		}
		if !Safe(string(got)) {
			t.Fatalf("AppendJSONChar(%q) = %q is not safe to print", s, got)
		}
		var back string
		if err := json.Unmarshal([]byte(`"`+string(got)+`"`), &back); err != nil || back != want {
			t.Fatalf("AppendJSONChar(%q) = %q reads back as %q (%v), want %q", s, got, back, err, want)
		}
	})
}

package serde

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"github.com/protoavro/protoavro/kafka/internal/safetext"
)

// MaxRegistryResponse is the largest successful answer body (8 MiB) a
// [Registry] reads; a longer one fails the request with an error wrapping
// [ErrRegistry]. A schema with its references is far smaller. The limit
// bounds what one answer takes; what the caches keep of answers is bounded
// apart, by the size of their schema texts (256 MiB for each cache of
// schemas or of what is made of them, besides at most 10,000 values), so
// that together they keep a hostile or broken registry from exhausting
// memory.
const MaxRegistryResponse = 8 << 20

// Error answers are cut, not refused: their first maxErrorParse bytes are
// read, and the error code of a Confluent error answer is taken from them
// (errorFields) before they are cut to maxErrorBody bytes (errorBody), so
// that a long message does not hide it. The status code and the error code
// classify the error; the text an error message shows of the answer is
// escaped ([safetext.Escape]) and cut to maxErrorText bytes, so that a
// registry's answer can neither flood a log or a dead-letter header nor act
// on a terminal.
const (
	maxErrorParse = 1 << 20
	maxErrorBody  = 4 << 10
	maxErrorText  = 512
)

// errResponseTooLarge is the error of a successful answer longer than
// MaxRegistryResponse.
var errResponseTooLarge = fmt.Errorf("answer longer than %d bytes", MaxRegistryResponse)

// readError is an error of the connection while an answer's body was read:
// the answer was not received, which classify takes as a registry that is
// unavailable, unlike an answer received whole that does not decode.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// limitedTransport bounds the response bodies of the registry client: a
// successful answer to MaxRegistryResponse bytes (an error past it), an
// error answer as errorBody cuts it.
type limitedTransport struct {
	rt http.RoundTripper
}

// RoundTrip sends req and bounds the body of the answer.
func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if err := checkLocation(req, resp); err != nil {
		resp.Body.Close()
		return nil, err
	}
	if resp.StatusCode >= 300 {
		body, err := errorBody(resp.Body)
		if err != nil {
			return nil, err
		}
		resp.Body = body
		resp.ContentLength = -1
	} else {
		resp.Body = &limitedBody{rc: resp.Body, left: MaxRegistryResponse}
	}
	return resp, nil
}

// checkLocation refuses a redirect of resp, an answer to req, whose
// Location does not parse (net/http would fail the request with an untyped
// error) with a *redirectError: an answer no registry gives, which asking
// again does not change.
func checkLocation(req *http.Request, resp *http.Response) error {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		return nil
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil
	}
	if _, err := req.URL.Parse(loc); err != nil {
		return &redirectError{fmt.Errorf("the answer redirects to a Location that does not parse: %w", err)}
	}
	return nil
}

// confluentError is the body of a Confluent error answer.
type confluentError struct {
	ErrorCode int    `json:"error_code"`
	Message   string `json:"message"`
}

// errorBody reads and closes the body of an error answer, and returns it
// cut: its first maxErrorParse bytes are read. An answer with a Confluent
// error code (errorFields) that is longer than maxErrorBody bytes or is not
// valid JSON becomes one with the same error code and its message (or, when
// the message does not decode, the answer's start) cut to maxErrorBody
// bytes; any other answer is cut to its first maxErrorBody bytes. A failure
// to read it is a *readError.
func errorBody(rc io.ReadCloser) (io.ReadCloser, error) {
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxErrorParse))
	if err != nil {
		return nil, &readError{err}
	}
	code, msg, haveMsg := errorFields(b)
	switch {
	case code != 0 && (len(b) > maxErrorBody || !json.Valid(b)):
		if !haveMsg {
			msg = string(b[:min(len(b), maxErrorBody)])
		}
		// At most 6 bytes a byte of the message: bounded.
		b, _ = json.Marshal(confluentError{ErrorCode: code, Message: msg[:min(len(msg), maxErrorBody)]})
	case len(b) > maxErrorBody:
		b = b[:maxErrorBody]
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// errorFields returns the error_code and message of a Confluent error
// answer (a JSON object) from b, read member by member until one does not
// decode: b may be cut, or malformed past them. haveMsg reports whether the
// message decoded.
func errorFields(b []byte) (code int, msg string, haveMsg bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return 0, "", false
	}
	for d.More() {
		t, err := d.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			return code, msg, haveMsg
		}
		switch key {
		case "error_code":
			var n int
			if d.Decode(&n) != nil {
				return code, msg, haveMsg
			}
			code = n
		case "message":
			if d.Decode(&msg) != nil {
				return code, "", false
			}
			haveMsg = true
		default:
			var skip json.RawMessage
			if d.Decode(&skip) != nil {
				return code, msg, haveMsg
			}
		}
	}
	return code, msg, haveMsg
}

// limitedBody reads a body of at most left bytes and fails past it.
type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errResponseTooLarge
	}
	// One byte beyond the limit tells a body of exactly the limit from a
	// longer one.
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n + int(b.left), errResponseTooLarge
	}
	if err != nil && !errors.Is(err, io.EOF) {
		err = &readError{err}
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// schemeRE matches the start of a URL in text: its scheme and "://".
var schemeRE = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://`)

// RedactURLs returns s with the user information of every URL in it
// ("http://alice:secret@host") replaced by "xxxxx" ("http://xxxxx@host").
// The user information of a URL is taken as everything between its
// "scheme://" and the last "@" before the next white space (or the end of
// s), the rule NewRegistry reads registry URLs by: a password may hold "/",
// "?", "#", "@" or quotes. Text after a "@" of a URL's path is replaced too
// (over-redaction is safe); user information holding white space is not
// recognized in free text, which is why no message of this package quotes
// a URL that still holds its user information.
func RedactURLs(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	for {
		loc := schemeRE.FindStringIndex(s)
		if loc == nil {
			break
		}
		rest := s[loc[1]:]
		end := strings.IndexFunc(rest, unicode.IsSpace)
		if end < 0 {
			end = len(rest)
		}
		at := strings.LastIndexByte(rest[:end], '@')
		if at < 0 {
			b.WriteString(s[:loc[1]])
			s = rest
			continue
		}
		b.WriteString(s[:loc[1]])
		b.WriteString("xxxxx")
		b.WriteString(rest[at:end])
		s = rest[end:]
	}
	b.WriteString(s)
	return b.String()
}

// safeText is untrusted text (an error of the registry client, which may
// quote a registry's answer and a URL) as an error message shows it:
// URLs redacted, escaped, cut to maxErrorText bytes.
func safeText(s string) string {
	return safetext.Escape(RedactURLs(s), maxErrorText)
}

// splitUserinfo returns the registry URL raw, the n-th of count, without its
// user information, and that information, which url.Parse never sees.
//
// The scheme must be http or https (any case) followed by "//". A URL has a
// scheme when the text before its first ":" is a scheme name (a letter,
// then letters, digits, "+", "-" or ".") followed by "/", or is "http" or
// "https"; any other scheme, or one not followed by "//" ("httpss://",
// "ftp://", "https:/host", "https:host"), is refused with ErrRegistryURL
// rather than read as part of a host, so that a mistyped "https" never sends
// credentials over plain HTTP. A URL without a scheme is read as http
// ("host:8081"), as the sr client reads it.
//
// The user information is everything between "://" and the last "@" of the
// URL (see RedactURLs), so that a password may hold "/", "?", "#", "@",
// white space or leading digits, which url.Parse would read as the end of
// the user information or as a port; a path cannot hold a raw "@" (write
// %40). The user name ends at the first ":". Each part is percent-decoded
// when it is valid percent-encoding ("p%40ss" is "p@ss"), else taken as it
// is ("50%off"). An error never shows the user information: it names the
// URL by its position and shows it with the user information replaced.
func splitUserinfo(raw string, n, count int) (string, *url.Userinfo, error) {
	which := "registry URL"
	if count > 1 {
		which = fmt.Sprintf("registry URL %d of %d", n, count)
	}
	scheme, rest := "http://", raw
	if name, after, ok := cutScheme(raw); ok {
		lower := strings.ToLower(name)
		if (lower != "http" && lower != "https") || !strings.HasPrefix(after, "//") {
			return "", nil, fmt.Errorf("%w: %s \"%s\" does not start with http:// or https://", ErrRegistryURL, which, safeText(name+":"+hideUserinfo(after)))
		}
		scheme, rest = lower+"://", after[2:]
	}
	var ui *url.Userinfo
	shown := scheme + hideUserinfo(rest)
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		info := rest[:at]
		rest = rest[at+1:]
		user, pass, hasPass := strings.Cut(info, ":")
		user = unescapeUserinfo(user)
		if hasPass {
			ui = url.UserPassword(user, unescapeUserinfo(pass))
		} else {
			ui = url.User(user)
		}
	}
	u, err := url.Parse(scheme + rest)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		// The URL parsed holds no user information: its error is safe
		// to show.
		return "", nil, fmt.Errorf("%w: %s \"%s\" does not parse: %s", ErrRegistryURL, which, safeText(shown), safeText(err.Error()))
	}
	if u.Host == "" {
		return "", nil, fmt.Errorf("%w: %s \"%s\" has no host", ErrRegistryURL, which, safeText(shown))
	}
	return u.String(), ui, nil
}

// cutScheme returns the scheme name of a registry URL and the text after
// its ":", and whether raw has a scheme: the text before raw's first ":" is
// a scheme name (RFC 3986: a letter, then letters, digits, "+", "-" or ".")
// followed by "/", or is "http" or "https" in any case. "host:8081" and
// "user:password@host" have none.
func cutScheme(raw string) (name, after string, ok bool) {
	name, after, found := strings.Cut(raw, ":")
	if !found || name == "" {
		return "", "", false
	}
	for i, c := range name {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", "", false
		}
	}
	if strings.HasPrefix(after, "/") || strings.EqualFold(name, "http") || strings.EqualFold(name, "https") {
		return name, after, true
	}
	return "", "", false
}

// hideUserinfo returns the text of a URL after its scheme's ":" with the
// user information, everything after the leading slashes up to the last
// "@", replaced by "xxxxx".
func hideUserinfo(s string) string {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return s
	}
	slashes := len(s) - len(strings.TrimLeft(s, "/")) // before the "@"
	return s[:slashes] + "xxxxx" + s[at:]
}

// unescapeUserinfo returns s percent-decoded, or s itself when it is not
// valid percent-encoding.
func unescapeUserinfo(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

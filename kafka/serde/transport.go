package serde

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/protoavro/protoavro/kafka/internal/safetext"
)

// MaxRegistryResponse is the largest successful answer body (8 MiB) a
// [Registry] reads; a longer one fails the request with an error wrapping
// [ErrRegistry]. A schema with its references is far smaller; the limit
// keeps a hostile or broken registry from exhausting memory.
const MaxRegistryResponse = 8 << 20

// Error answers are cut, not refused: their first maxErrorBody bytes are
// read (the status code classifies the error), and the text an error
// message shows of them is escaped ([safetext.Escape]) and cut to
// maxErrorText bytes, so that a registry's answer can neither flood a log or
// a dead-letter header nor act on a terminal.
const (
	maxErrorBody = 4 << 10
	maxErrorText = 512
)

// errResponseTooLarge is the error of a successful answer longer than
// MaxRegistryResponse.
var errResponseTooLarge = fmt.Errorf("answer longer than %d bytes", MaxRegistryResponse)

// limitedTransport bounds the response bodies of the registry client: a
// successful answer to MaxRegistryResponse bytes (an error past it), an
// error answer to its first maxErrorBody bytes.
type limitedTransport struct {
	rt http.RoundTripper
}

// RoundTrip sends req and bounds the body of the answer.
func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		resp.Body = &cutBody{rc: resp.Body, left: maxErrorBody}
	} else {
		resp.Body = &limitedBody{rc: resp.Body, left: MaxRegistryResponse}
	}
	return resp, nil
}

// cutBody reads the first left bytes of a body and then ends.
type cutBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cutBody) Close() error { return b.rc.Close() }

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
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// userinfoRE matches the user information of a URL in text: what lies
// between "scheme://" and the last "@" before the host's end.
var userinfoRE = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^/?#\s"'@]*(?:@[^/?#\s"'@]*)*@`)

// RedactURLs returns s with the user information of every URL in it
// ("http://alice:secret@host") replaced by "xxxxx" ("http://xxxxx@host").
func RedactURLs(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	return userinfoRE.ReplaceAllString(s, "${1}xxxxx@")
}

// safeText is untrusted text (an error of the registry client, which may
// quote a registry's answer and a URL) as an error message shows it:
// URLs redacted, escaped, cut to maxErrorText bytes.
func safeText(s string) string {
	return safetext.Escape(RedactURLs(s), maxErrorText)
}

// splitUserinfo returns raw without its user information, and that
// information. A URL that does not parse is an error that shows it
// redacted.
func splitUserinfo(raw string) (string, *url.Userinfo, error) {
	if !strings.HasPrefix(raw, "http://") && !strings.HasPrefix(raw, "https://") {
		raw = "http://" + raw // as the sr client reads it
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", nil, fmt.Errorf("%w: registry URL %q: %v", ErrRegistry, safeText(raw), safeText(err.Error()))
	}
	ui := u.User
	u.User = nil
	return u.String(), ui, nil
}

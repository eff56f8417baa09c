package serde_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// hostileSecret is the password of the URLs of these tests: no output may
// hold it.
const hostileSecret = "S3CRETPW"

// hostile serves h on loopback and returns its base URL.
func hostile(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

// schemaByID asks the registry at url for schema id.
func schemaByID(t *testing.T, url string, id int) (serde.Schema, error) {
	t.Helper()
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, url)
	if err != nil {
		t.Fatal(err)
	}
	return reg.SchemaByID(ctx, id)
}

// checkBounded fails unless msg is one line of at most max bytes with no
// control character and without the test's password.
func checkBounded(t *testing.T, what, msg string, max int) {
	t.Helper()
	if len(msg) > max {
		t.Errorf("%s: error of %d bytes, want at most %d: %.200q…", what, len(msg), max, msg)
	}
	if i := strings.IndexFunc(msg, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }); i >= 0 {
		t.Errorf("%s: control character at byte %d of the error: %q", what, i, msg)
	}
	if strings.Contains(msg, hostileSecret) {
		t.Errorf("%s: the password is in the error: %q", what, msg)
	}
}

func TestHostileRegistryHugeErrorBody(t *testing.T) {
	var sent atomic.Int64
	url := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		chunk := bytes.Repeat([]byte("A"), 1<<20)
		for range 50 {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	_, err := schemaByID(t, url, 7)
	if !errors.Is(err, serde.ErrRegistryUnavailable) {
		t.Fatalf("a 500 with a 50 MB body: %v, want ErrRegistryUnavailable (the status decides)", err)
	}
	checkBounded(t, "50 MB error body", err.Error(), 1024)
	if !strings.Contains(err.Error(), "AAAA") || !strings.Contains(err.Error(), "bytes)") {
		t.Errorf("error %q: want the start of the body, cut, with its length", err)
	}
}

func TestHostileRegistryHugeAnswer(t *testing.T) {
	url := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"schema":"`))
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range 50 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		w.Write([]byte(`"}`))
	})
	_, err := schemaByID(t, url, 7)
	var re *serde.RegistryError
	if !errors.Is(err, serde.ErrRegistry) || errors.Is(err, serde.ErrRegistryUnavailable) || !errors.As(err, &re) || re.Temporary() {
		t.Fatalf("a 50 MB answer: %v, want a permanent ErrRegistry", err)
	}
	checkBounded(t, "50 MB answer", err.Error(), 1024)
	if !strings.Contains(err.Error(), "8388608") {
		t.Errorf("error %q does not name the limit", err)
	}

	// An answer of exactly the limit is read.
	exact := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		head, tail := `{"schema":"`, `"}`
		w.Write([]byte(head))
		w.Write(bytes.Repeat([]byte("x"), serde.MaxRegistryResponse-len(head)-len(tail)))
		w.Write([]byte(tail))
	})
	s, err := schemaByID(t, exact, 7)
	if err != nil || len(s.Text) != serde.MaxRegistryResponse-13 {
		t.Fatalf("an answer of exactly MaxRegistryResponse bytes: %d bytes of schema, %v", len(s.Text), err)
	}
}

func TestHostileRegistryEscapes(t *testing.T) {
	bodies := []string{
		// JSON whose message holds the sequences (the message is shown).
		`{"error_code":40403,"message":"\u001b[2J\u001b]0;owned\u0007forged\r\n2026/01/01 INFO all good"}`,
		// Not JSON: the raw body is shown.
		"\x1b[2J\x1b]0;owned\x07forged\r\n2026/01/01 INFO all good\u202e",
	}
	for _, body := range bodies {
		url := hostile(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(body))
		})
		_, err := schemaByID(t, url, 7)
		if err == nil {
			t.Fatal("no error")
		}
		checkBounded(t, "escape-laden body", err.Error(), 1024)
		if !strings.Contains(err.Error(), `\x1b[2J`) || !strings.Contains(err.Error(), `\r\n`) {
			t.Errorf("error %q: want the sequences shown escaped", err)
		}
	}
}

func TestRegistryPasswordInURL(t *testing.T) {
	// The credentials of the URL are sent as basic auth...
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:"+hostileSecret))
	fake := srfake.New(srfake.WithAuth(want))
	t.Cleanup(fake.Close)
	withPW := strings.Replace(fake.URL(), "http://", "http://alice:"+hostileSecret+"@", 1)
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, withPW)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := reg.Register(ctx, "s-value", serde.Schema{Text: `"string"`}); err != nil {
		t.Fatalf("basic auth from the URL: %v", err)
	}
	// ... and a wrong password is refused without showing it.
	wrong := strings.Replace(fake.URL(), "http://", "http://alice:"+hostileSecret+"x@", 1)
	reg, err = serde.NewRegistry(serde.RegistryOptions{}, wrong)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = reg.Register(ctx, "s-value", serde.Schema{Text: `"string"`})
	if !errors.Is(err, serde.ErrRegistryAccess) || !strings.Contains(err.Error(), `basic auth as user "alice"`) {
		t.Fatalf("wrong password: %v, want ErrRegistryAccess naming the user", err)
	}
	checkBounded(t, "wrong password", err.Error(), 1024)

	// A registry that is down: the client's error quotes the URL.
	addr := kafkatest.DeadAddr(t)
	for _, u := range []string{"http://alice:" + hostileSecret + "@" + addr, "alice:" + hostileSecret + "@" + addr} {
		_, err = schemaByID(t, u, 1)
		if !errors.Is(err, serde.ErrRegistryUnavailable) {
			t.Fatalf("registry down: %v", err)
		}
		checkBounded(t, "registry down", err.Error(), 1024)
	}
	// A URL that does not parse.
	_, err = serde.NewRegistry(serde.RegistryOptions{}, "http://alice:"+hostileSecret+"@host:port\x1b[2J/")
	if err == nil {
		t.Fatal("a bad URL: no error")
	}
	checkBounded(t, "bad URL", err.Error(), 1024)
}

// urlPasswords are passwords of registry URLs, as people paste them
// unescaped, with what is sent as the password: each holds hostileSecret
// after a character that ends the user information or the host as url.Parse
// reads a URL, or leading digits that it reads as a port.
var urlPasswords = []struct{ raw, sent string }{
	{"ab#" + hostileSecret, "ab#" + hostileSecret},
	{"ab/" + hostileSecret, "ab/" + hostileSecret},
	{"ab?" + hostileSecret, "ab?" + hostileSecret},
	{"ab " + hostileSecret, "ab " + hostileSecret},
	{"ab\t" + hostileSecret, "ab\t" + hostileSecret},
	{hostileSecret + "@x", hostileSecret + "@x"},
	{"a@b@" + hostileSecret, "a@b@" + hostileSecret},
	{"1234/" + hostileSecret, "1234/" + hostileSecret},
	{"99#" + hostileSecret, "99#" + hostileSecret},
	{"8081?" + hostileSecret + "#/x", "8081?" + hostileSecret + "#/x"},
	{`ab"` + hostileSecret + `'`, `ab"` + hostileSecret + `'`},
	{"ab:" + hostileSecret, "ab:" + hostileSecret},
	{"50%zz" + hostileSecret, "50%zz" + hostileSecret}, // not percent-encoding: as it is
	{"p%40" + hostileSecret + "%23", "p@" + hostileSecret + "#"},
}

// TestRegistryURLPasswordCharacters: a registry URL whose password holds
// characters URLs reserve reaches the registry's host, with the user and
// password as basic auth and nothing of the password in the request's URL;
// no error, of a registry that is down or of a URL that does not parse,
// shows the password.
func TestRegistryURLPasswordCharacters(t *testing.T) {
	type request struct{ host, auth, uri string }
	got := make(chan request, 1)
	url := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		got <- request{r.Host, r.Header.Get("Authorization"), r.RequestURI}
		w.Write([]byte(`{"schema":"\"string\""}`))
	})
	host := strings.TrimPrefix(url, "http://")
	dead := kafkatest.DeadAddr(t)
	for _, pw := range urlPasswords {
		for _, scheme := range []string{"http://", "HTTP://", ""} {
			raw := scheme + "alice:" + pw.raw + "@" + host
			reg, err := serde.NewRegistry(serde.RegistryOptions{}, raw)
			if err != nil {
				checkBounded(t, "NewRegistry", err.Error(), 1024)
				t.Errorf("password %q: %v", pw.raw, err)
				continue
			}
			s, err := reg.SchemaByID(ctx, 1)
			if err != nil {
				checkBounded(t, "SchemaByID", err.Error(), 1024)
				t.Errorf("password %q: %v", pw.raw, err)
				continue
			}
			if s.Text != `"string"` {
				t.Errorf("password %q: schema %q", pw.raw, s.Text)
			}
			r := <-got
			want := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:"+pw.sent))
			if r.host != host || r.auth != want || r.uri != "/schemas/ids/1" {
				t.Errorf("URL %q: request to host %q, %s, Authorization %q; want host %q, /schemas/ids/1, %q", raw, r.host, r.uri, r.auth, host, want)
			}
		}

		// Down, and unparsable, alone and second of two.
		for _, urls := range [][]string{
			{"http://alice:" + pw.raw + "@" + dead},
			{"alice:" + pw.raw + "@" + dead},
			{"http://alice:" + pw.raw + "@host:port\x1b[2J/"},
			{url, "http://alice:" + pw.raw + "@host:port/"},
			{"http://alice:" + pw.raw + "@"},
		} {
			reg, err := serde.NewRegistry(serde.RegistryOptions{}, urls...)
			if err == nil {
				_, err = reg.SchemaByID(ctx, 1)
				if !errors.Is(err, serde.ErrRegistryUnavailable) {
					t.Errorf("%q: %v, want ErrRegistryUnavailable", urls, err)
				}
			} else if !errors.Is(err, serde.ErrRegistry) {
				t.Errorf("%q: %v, want ErrRegistry", urls, err)
			}
			checkBounded(t, fmt.Sprintf("%q", urls), err.Error(), 1024)
		}
	}
	// An error of a URL that does not parse names it by its position and
	// shows it with the user information replaced.
	_, err := serde.NewRegistry(serde.RegistryOptions{}, url, "http://alice:1/"+hostileSecret+"@host:port/")
	if err == nil || !strings.Contains(err.Error(), `registry URL 2 of 2 "http://xxxxx@host:port/" does not parse`) {
		t.Errorf("a URL that does not parse: %v, want it named as registry URL 2 of 2, its user information replaced", err)
	}
	_, err = serde.NewRegistry(serde.RegistryOptions{}, "http://alice:"+hostileSecret+"@")
	if err == nil || !strings.Contains(err.Error(), "has no host") {
		t.Errorf("a URL without a host: %v, want an error saying so", err)
	}
}

func TestRedactURLs(t *testing.T) {
	for in, want := range map[string]string{
		`unable to GET "http://alice:S3CRETPW@host:8081/schemas/ids/1": refused`: `unable to GET "http://xxxxx@host:8081/schemas/ids/1": refused`,
		"https://a:b@c@d/x and http://e:f@g":                                     "https://xxxxx@d/x and http://xxxxx@g",
		"no url: alice@example.com":                                              "no url: alice@example.com",
		"http://host/path and alice@example.com":                                 "http://host/path and alice@example.com",
		`Get "http://alice:ab#S3CRETPW@host/x": refused`:                         `Get "http://xxxxx@host/x": refused`,
		`Get "http://alice:ab/S3?CRE#TPW@host/x"`:                                `Get "http://xxxxx@host/x"`,
		`"HTTP://alice:1234/S3CRETPW@host"`:                                      `"HTTP://xxxxx@host"`,
		`"http://alice:S3C\"RETPW'@host"`:                                        `"http://xxxxx@host"`,
		`http://alice:S3CRETPW%40@host`:                                          `http://xxxxx@host`,
		"http://alice:S3CRETPW@":                                                 "http://xxxxx@",
		"a http://alice:S3CRETPW@h1,https://bob:S3CRETPW@h2 b":                   "a http://xxxxx@h2 b",
		// A "@" of a path ends what is replaced: more than the user
		// information, never less.
		"http://host/path@x": "http://xxxxx@x",
	} {
		if got := serde.RedactURLs(in); got != want {
			t.Errorf("RedactURLs(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzRedactURLs(f *testing.F) {
	f.Add("alice", "S3CRETPW", "/schemas/ids/1")
	f.Add("a", "p@ss", "")
	f.Add("", "x:y", "?q=")
	f.Add("alice", "1234/S3C#RET?PW\"'", "/x")
	f.Fuzz(func(t *testing.T, user, pw, rest string) {
		if pw == "" || strings.ContainsFunc(user+pw+rest, unicode.IsSpace) || strings.Contains(rest, "@") {
			return // not the user information of one URL
		}
		in := "error at https://" + user + ":" + pw + "@host" + "/" + rest + " end"
		want := "error at https://xxxxx@host/" + rest + " end"
		if got := serde.RedactURLs(in); got != want {
			t.Fatalf("RedactURLs(%q) = %q, want %q", in, got, want)
		}
	})
}

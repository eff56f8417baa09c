package serde_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
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

// notFound returns the URL of a registry that answers every request 404
// with body, and the count of its requests.
func notFound(t *testing.T, contentType, body string) (string, *atomic.Int64) {
	var requests atomic.Int64
	url := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(body))
	})
	return url, &requests
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

// intRecord is an Avro record of n int fields, f0 of type f0.
func intRecord(n int, f0 string) string {
	var sb strings.Builder
	sb.WriteString(`{"type":"record","name":"P","fields":[`)
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		typ := "int"
		if i == 0 {
			typ = f0
		}
		fmt.Fprintf(&sb, `{"name":"f%d","type":%q}`, i, typ)
	}
	sb.WriteString(`]}`)
	return sb.String()
}

// versionsRegistry serves subject "s" at level, whose versions list is
// list and whose every version is schema ID 1 of text; it counts the
// requests for versions' schemas.
func versionsRegistry(t *testing.T, level, list, text string) (url string, fetches *atomic.Int64) {
	ans, _ := json.Marshal(map[string]any{"subject": "s", "version": 1, "id": 1, "schema": text})
	fetches = new(atomic.Int64)
	url = hostile(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/config"):
			fmt.Fprintf(w, `{"compatibilityLevel":%q}`, level)
		case r.URL.Path == "/subjects/s/versions":
			w.Write([]byte(list))
		case strings.HasPrefix(r.URL.Path, "/subjects/s/versions/"):
			fetches.Add(1)
			w.Write(ans)
		default:
			http.NotFound(w, r)
		}
	})
	return url, fetches
}

// versionList is the JSON list of versions from..to.
func versionList(from, to int) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for v := from; v <= to; v++ {
		if v > from {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(v))
	}
	return sb.String() + "]"
}

// TestHostileRegistryVersionLists: the compatibility gate refuses a
// versions list that is no list of a subject's versions (longer than
// 10,000, a version twice, a version below 1) with ErrRegistry, bounded,
// before it fetches any version.
func TestHostileRegistryVersionLists(t *testing.T) {
	for name, list := range map[string]string{
		"2,000 copies of version 1": "[" + strings.TrimSuffix(strings.Repeat("1,", 2_000), ",") + "]",
		"a version twice":           "[1,2,3,2]",
		"version 0":                 "[0,1]",
		"a negative version":        "[1,-2]",
		"10,001 versions":           versionList(1, 10_001),
	} {
		url, fetches := versionsRegistry(t, "FULL_TRANSITIVE", list, intRecord(200, "int"))
		reg, err := serde.NewRegistry(serde.RegistryOptions{}, url)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := reg.Check(ctx, "s", intRecord(200, "string"))
		if !errors.Is(err, serde.ErrRegistry) {
			n := 0
			if rep != nil {
				n = len(rep.Versions)
			}
			t.Fatalf("%s: %d versions checked, %v; want ErrRegistry", name, n, err)
		}
		checkBounded(t, name, err.Error(), 1024)
		if n := fetches.Load(); n != 0 {
			t.Errorf("%s: %d versions fetched, want none", name, n)
		}
	}
	// A list out of order is put in order.
	url, _ := versionsRegistry(t, "BACKWARD", "[3,1,2]", intRecord(1, "int"))
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, url)
	if err != nil {
		t.Fatal(err)
	}
	if vs, err := reg.Versions(ctx, "s"); err != nil || len(vs) != 3 || vs[0].Version != 1 || vs[2].Version != 3 {
		t.Fatalf("versions [3,1,2]: %v, %v", vs, err)
	}
}

// TestHostileRegistryLatestOnly: a level that is not TRANSITIVE compares
// with the latest version, and the gate fetches that one only, of 2,000;
// NONE fetches none.
func TestHostileRegistryLatestOnly(t *testing.T) {
	for level, want := range map[string]int64{"BACKWARD": 1, "FORWARD": 1, "FULL": 1, "NONE": 0} {
		url, fetches := versionsRegistry(t, level, versionList(1, 2_000), intRecord(1, "int"))
		reg, err := serde.NewRegistry(serde.RegistryOptions{}, url)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := reg.Check(ctx, "s", intRecord(1, "long"))
		if err != nil {
			t.Fatalf("%s: %v", level, err)
		}
		if n := fetches.Load(); n != want {
			t.Errorf("%s: %d versions fetched, want %d", level, n, want)
		}
		if want == 1 && (len(rep.Versions) != 1 || rep.Versions[0] != 2_000 || rep.Compatible() != (level == "BACKWARD")) {
			t.Errorf("%s: checked against %v, compatible %v", level, rep.Versions, rep.Compatible())
		}
	}
}

// TestHostileRegistryTransitiveOneSchema: 1,000 versions that all hold one
// schema ID, at FULL_TRANSITIVE: the schema is parsed and checked once, not
// once per version (a parse of its 200 fields allocates about 270 KB, 1,000
// of them far more than the bound), and the report's error lists 20 of its
// 2,000 problems, bounded.
func TestHostileRegistryTransitiveOneSchema(t *testing.T) {
	url, _ := versionsRegistry(t, "FULL_TRANSITIVE", versionList(1, 1_000), intRecord(200, "int"))
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, url)
	if err != nil {
		t.Fatal(err)
	}
	// Warm the HTTP client up.
	if _, err := reg.SchemaByVersion(ctx, "s", -1); err != nil {
		t.Fatal(err)
	}
	var rep *serde.Report
	n := testutil.Allocated(func() { rep, err = reg.Check(ctx, "s", intRecord(200, "string")) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1,000 versions of one schema: %.1f MiB allocated", float64(n)/(1<<20))
	if n > 64<<20 {
		t.Errorf("Check allocated %.1f MiB, want under 64 MiB", float64(n)/(1<<20))
	}
	if len(rep.Versions) != 1_000 || len(rep.Problems) != 2_000 {
		t.Fatalf("%d versions checked, %d problems; want 1,000 and 2,000", len(rep.Versions), len(rep.Problems))
	}
	msg := rep.Err().Error()
	if !errors.Is(rep.Err(), serde.ErrIncompatible) || !strings.Contains(msg, "... and 1980 more") {
		t.Errorf("error %.300q: want 20 problems and the number of the others", msg)
	}
	if len(msg) > 20*600 {
		t.Errorf("error of %d bytes", len(msg))
	}
}

// TestHostileRegistryManySchemas: a registry client that fetches 4,000
// schema IDs allocates in proportion: the second 2,000 no more than half as
// much again as the first (a cache copied whole for each new ID allocates
// nearly three times as much); its cache holds at most its bound, evicting
// the values not read since the last sweep.
func TestHostileRegistryManySchemas(t *testing.T) {
	var ones atomic.Int64 // requests for ID 1
	url := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/schemas/ids/")
		if id == "1" {
			ones.Add(1)
		}
		fmt.Fprintf(w, `{"schema":"{\"type\":\"fixed\",\"name\":\"F%s\",\"size\":1}"}`, id)
	})
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, url)
	if err != nil {
		t.Fatal(err)
	}
	fetch := func(from, to int) {
		for id := from; id <= to; id++ {
			if _, err := reg.SchemaByID(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	fetch(1, 100) // warm up
	first := testutil.Allocated(func() { fetch(101, 2_100) })
	second := testutil.Allocated(func() { fetch(2_101, 4_100) })
	t.Logf("IDs 101-2100: %.1f MiB allocated, 2101-4100: %.1f MiB", float64(first)/(1<<20), float64(second)/(1<<20))
	if second > first*3/2 || second > 64<<20 {
		t.Errorf("2,000 new IDs after 2,100 allocate %.1f MiB, after 100 %.1f MiB: want linear, under 64 MiB", float64(second)/(1<<20), float64(first)/(1<<20))
	}

	// The bound: 100 values, of which ID 1, read all along, stays.
	reg, err = serde.NewRegistry(serde.RegistryOptions{}, url)
	if err != nil {
		t.Fatal(err)
	}
	serde.SetCacheLimit(reg, 100)
	ones.Store(0)
	for id := 2; id <= 1_000; id++ {
		for _, id := range []int{1, id} {
			if _, err := reg.SchemaByID(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := serde.CachedSchemas(reg); n != 100 {
		t.Errorf("%d schemas cached, want the bound, 100", n)
	}
	if n := ones.Load(); n != 1 {
		t.Errorf("ID 1, read all along, was fetched %d times, want once", n)
	}
}

// TestHostileRegistryManyProtoIDs: records of 2,000 new schema IDs through
// ProtoDecoder.Decode allocate in proportion: the second 1,000 no more than
// half as much again as the first.
func TestHostileRegistryManyProtoIDs(t *testing.T) {
	dec := protoIDsDecoder(t, "")
	decode := func(from, to int) {
		for id := from; id <= to; id++ {
			rec := append(serde.AppendProtoHeader(nil, uint32(id), []int{0}), 0x08, 0x01)
			if _, err := dec.Decode(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	decode(1, 50)
	first := testutil.Allocated(func() { decode(51, 1_050) })
	second := testutil.Allocated(func() { decode(1_051, 2_050) })
	t.Logf("IDs 51-1050: %.1f MiB allocated, 1051-2050: %.1f MiB", float64(first)/(1<<20), float64(second)/(1<<20))
	if second > first*3/2 {
		t.Errorf("1,000 new IDs after 1,050 allocate %.1f MiB, after 50 %.1f MiB: want linear", float64(second)/(1<<20), float64(first)/(1<<20))
	}
}

// TestHostileRegistryHugeReferenceList: a schema answer within
// MaxRegistryResponse that lists a million references is refused with
// ErrBadSchema, as the walk of references would refuse it, is not cached
// and leaves the heap as it was (a million references kept would hold
// about 40 MB); 256 references are a schema.
func TestHostileRegistryHugeReferenceList(t *testing.T) {
	n := 1_000_000
	huge := `{"schema":"\"string\"","references":[` + strings.TrimSuffix(strings.Repeat("{},", n), ",") + `]}`
	ok := `{"schema":"\"string\"","references":[` + strings.TrimSuffix(strings.Repeat(`{"name":"a","subject":"a","version":1},`, 256), ",") + `]}`
	var requests atomic.Int64
	url := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		switch r.URL.Path {
		case "/schemas/ids/1":
			w.Write([]byte(huge))
		case "/schemas/ids/2":
			w.Write([]byte(ok))
		default: // a version: the huge answer with an ID
			w.Write([]byte(`{"subject":"s","version":1,"id":3,` + huge[1:]))
		}
	})
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, url)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 2 {
		_, err := reg.SchemaByID(ctx, 1)
		if !errors.Is(err, serde.ErrBadSchema) || !strings.Contains(err.Error(), "more than 256 references") {
			t.Fatalf("%d references: %v, want ErrBadSchema", n, err)
		}
		checkBounded(t, "references", err.Error(), 1024)
	}
	_, err = reg.SchemaByVersion(ctx, "s", 1)
	if !errors.Is(err, serde.ErrBadSchema) {
		t.Fatalf("%d references, by version: %v, want ErrBadSchema", n, err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if r := requests.Load(); r != 3 {
		t.Errorf("%d requests, want 3: the refusal is not cached", r)
	}
	if after.HeapInuse > before.HeapInuse+(16<<20) {
		t.Errorf("heap in use grew by %.1f MiB", float64(after.HeapInuse-before.HeapInuse)/(1<<20))
	}
	if s, err := reg.SchemaByID(ctx, 2); err != nil || len(s.References) != 256 {
		t.Fatalf("256 references: %d, %v", len(s.References), err)
	}
}

// TestRegistryURLScheme: a registry URL whose scheme is not http:// or
// https:// (a typo of https, another scheme, a slash missing) is refused
// with ErrRegistryURL naming it, without its password, and no request
// reaches the host it names; a URL without a scheme is still read as http.
func TestRegistryURLScheme(t *testing.T) {
	var requests atomic.Int64
	url := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Write([]byte(`{"schema":"\"string\""}`))
	})
	host := strings.TrimPrefix(url, "http://")
	for _, tc := range []struct{ raw, shown string }{
		{"httpss://alice:" + hostileSecret + "@" + host, "httpss://xxxxx@" + host},
		{"HTTPSS://alice:" + hostileSecret + "@" + host, "HTTPSS://xxxxx@" + host},
		{"ftp://alice:" + hostileSecret + "@" + host, "ftp://xxxxx@" + host},
		{"https:/alice:" + hostileSecret + "@" + host, "https:/xxxxx@" + host},
		{"https:alice:" + hostileSecret + "@" + host, "https:xxxxx@" + host},
		{"HTTP:alice:" + hostileSecret + "@" + host, "HTTP:xxxxx@" + host},
		{"svn+ssh://" + host, "svn+ssh://" + host},
		{"httpss://alice:" + hostileSecret + "\x1b[2J@" + host, "httpss://xxxxx@" + host},
	} {
		for _, urls := range [][]string{{tc.raw}, {url, tc.raw}} {
			which := "registry URL"
			if len(urls) == 2 {
				which = "registry URL 2 of 2"
			}
			reg, err := serde.NewRegistry(serde.RegistryOptions{}, urls...)
			if err == nil {
				_, err = reg.SchemaByID(ctx, 1)
				t.Errorf("%q: a client (SchemaByID: %v), want ErrRegistryURL", urls, err)
				continue
			}
			if !errors.Is(err, serde.ErrRegistryURL) || !errors.Is(err, serde.ErrRegistry) {
				t.Errorf("%q: %v, want ErrRegistryURL", urls, err)
			}
			want := which + ` "` + tc.shown + `" does not start with http:// or https://`
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q: %v, want an error saying %s", urls, err, want)
			}
			checkBounded(t, fmt.Sprintf("%q", urls), err.Error(), 1024)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the registry's host", n)
	}
	// Without a scheme: http.
	for _, raw := range []string{host, "alice:" + hostileSecret + "@" + host} {
		s, err := schemaByID(t, raw, 1)
		if err != nil || s.Text != `"string"` {
			t.Errorf("%q: %q, %v; want the schema over http", raw, s.Text, err)
		}
	}
}

// TestRegistryRedirectCredentials: a registry that redirects to another
// origin on the same host (another port) gets the credentials, but the
// redirect's target does not, nor any hop after it, even one back to the
// registry; a redirect within the registry's origin keeps them. Both for
// basic auth and a bearer token.
func TestRegistryRedirectCredentials(t *testing.T) {
	type request struct{ server, path, auth string }
	got := make(chan request, 16)
	var home, other string
	other = hostile(t, func(w http.ResponseWriter, r *http.Request) {
		got <- request{"other", r.URL.Path, r.Header.Get("Authorization")}
		if r.URL.Path == "/back" {
			http.Redirect(w, r, home+"/moved/3", http.StatusTemporaryRedirect)
			return
		}
		w.Write([]byte(`{"schema":"\"string\""}`))
	})
	home = hostile(t, func(w http.ResponseWriter, r *http.Request) {
		got <- request{"home", r.URL.Path, r.Header.Get("Authorization")}
		switch r.URL.Path {
		case "/schemas/ids/1": // to another port of the same host
			http.Redirect(w, r, other+"/moved/1", http.StatusTemporaryRedirect)
		case "/schemas/ids/2": // within the origin
			http.Redirect(w, r, "/moved/2", http.StatusTemporaryRedirect)
		case "/schemas/ids/3": // away and back
			http.Redirect(w, r, other+"/back", http.StatusTemporaryRedirect)
		default:
			w.Write([]byte(`{"schema":"\"string\""}`))
		}
	})
	hostOf := func(u string) string { return strings.Split(strings.TrimPrefix(u, "http://"), ":")[0] }
	if hostOf(home) != hostOf(other) || home == other {
		t.Fatalf("the servers %s and %s are not two ports of one host", home, other)
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:"+hostileSecret))
	for _, tc := range []struct {
		opts serde.RegistryOptions
		auth string
	}{
		{serde.RegistryOptions{Username: "alice", Password: hostileSecret}, basic},
		{serde.RegistryOptions{BearerToken: hostileSecret}, "Bearer " + hostileSecret},
	} {
		reg, err := serde.NewRegistry(tc.opts, home)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			id   int
			want []request
		}{
			{1, []request{{"home", "/schemas/ids/1", tc.auth}, {"other", "/moved/1", ""}}},
			{2, []request{{"home", "/schemas/ids/2", tc.auth}, {"home", "/moved/2", tc.auth}}},
			{3, []request{{"home", "/schemas/ids/3", tc.auth}, {"other", "/back", ""}, {"home", "/moved/3", ""}}},
		} {
			if _, err := reg.SchemaByID(ctx, c.id); err != nil {
				t.Fatalf("schema %d: %v", c.id, err)
			}
			for _, w := range c.want {
				if r := <-got; r != w {
					t.Errorf("schema %d: request %+v, want %+v", c.id, r, w)
				}
			}
			if len(got) != 0 {
				t.Errorf("schema %d: %d more requests", c.id, len(got))
			}
		}
	}
}

// protoIDsDecoder returns a ProtoDecoder of a registry that answers every
// schema ID with a .proto file of its own package (p<ID>) holding message M
// and the comment given.
func protoIDsDecoder(t *testing.T, comment string) *serde.ProtoDecoder {
	url := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/schemas/ids/")
		text := fmt.Sprintf("syntax = \"proto3\";\npackage p%s;\n// %s\nmessage M { int32 a = 1; }\n", id, comment)
		b, _ := json.Marshal(map[string]any{"schema": text, "schemaType": "PROTOBUF"})
		w.Write(b)
	})
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, url)
	if err != nil {
		t.Fatal(err)
	}
	return serde.NewProtoDecoder(reg, protoavro.Options{})
}

package serde_test

// Registry answers that are no valid answers: schema IDs out of range,
// bodies that do not decode, 404s without a registry's error code, and
// error codes behind long messages.

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
)

// idRegistry serves a registry that gives every schema registered, looked
// up or fetched by version the ID id, under subject "t-value".
func idRegistry(t *testing.T, id int64) string {
	return hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
		p := r.URL.Path
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(p, "/versions"): // register
			fmt.Fprintf(w, `{"id":%d}`, id)
		case strings.HasPrefix(p, "/schemas/ids/") && strings.HasSuffix(p, "/versions"): // its usages
			fmt.Fprint(w, `[{"subject":"t-value","version":1}]`)
		case strings.HasPrefix(p, "/subjects/"): // look up, or by version
			fmt.Fprintf(w, `{"subject":"t-value","version":1,"id":%d,"schema":"\"int\""}`, id)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error_code":40400,"message":"not here"}`)
		}
	})
}

// permanentRegistryError fails the test unless err is an ErrRegistry that
// is not ErrRegistryUnavailable nor temporary, bounded and escaped.
func permanentRegistryError(t *testing.T, what string, err error) {
	t.Helper()
	var re *serde.RegistryError
	if !errors.Is(err, serde.ErrRegistry) || errors.Is(err, serde.ErrRegistryUnavailable) || !errors.As(err, &re) || re.Temporary() {
		t.Errorf("%s: %v, want a permanent ErrRegistry", what, err)
		return
	}
	checkBounded(t, what, err.Error(), 1024)
}

// TestRegistrySchemaIDRange: an ID of a registry's answer outside 1 to
// 2^31-1, which a record's header cannot hold, is refused as a bad answer
// wherever it comes in (register, look up, by version), and no record is
// framed with it; the largest ID is framed as it is.
func TestRegistrySchemaIDRange(t *testing.T) {
	md := kafkatest.Person(t, "v2")
	m := kafkatest.NewPerson(md, 1)
	for _, id := range []int64{-1, 0, 1 << 31, 1<<32 + 5, 99999999999} {
		url := idRegistry(t, id)
		reg, err := serde.NewRegistry(serde.RegistryOptions{}, url)
		if err != nil {
			t.Fatal(err)
		}
		s := serde.Schema{Type: serde.TypeAvro, Text: `"int"`}
		_, _, err = reg.Register(ctx, "t-value", s)
		permanentRegistryError(t, fmt.Sprintf("register, ID %d", id), err)
		_, _, err = reg.Lookup(ctx, "t-value", s)
		permanentRegistryError(t, fmt.Sprintf("look up, ID %d", id), err)
		_, err = reg.SchemaByVersion(ctx, "t-value", 1)
		permanentRegistryError(t, fmt.Sprintf("by version, ID %d", id), err)
		_, err = serde.NewProtoEncoder(reg).Register(ctx, "t-value", `syntax = "proto3"; message M {}`, nil)
		permanentRegistryError(t, fmt.Sprintf("protobuf register, ID %d", id), err)
		for _, opts := range []serde.SerializerOptions{{}, {LookupOnly: true}, {Check: true}} {
			out, err := serde.NewSerializer(reg, opts).Encode(ctx, nil, "t", m)
			permanentRegistryError(t, fmt.Sprintf("encode %+v, ID %d", opts, id), err)
			if len(out) != 0 {
				t.Errorf("encode %+v, ID %d: framed % x", opts, id, out[:min(len(out), 5)])
			}
		}
	}

	reg, _ := serde.NewRegistry(serde.RegistryOptions{}, idRegistry(t, serde.MaxSchemaID))
	out, err := serde.NewSerializer(reg, serde.SerializerOptions{}).Encode(ctx, nil, "t", m)
	if err != nil || len(out) < 5 || string(out[:5]) != "\x00\x7f\xff\xff\xff" {
		t.Fatalf("ID 2^31-1: % x, %v; want it framed 00 7f ff ff ff", out[:min(len(out), 5)], err)
	}
}

// TestHostileRegistryMalformedAnswers: a successful answer that does not
// decode (not JSON, an unknown schema type) is the registry's error,
// ErrRegistry, not a registry that is down; an answer cut off by the
// connection is one that is down.
func TestHostileRegistryMalformedAnswers(t *testing.T) {
	for name, body := range map[string]string{
		"not JSON":            "{not json \x1b[2J",
		"unknown schema type": `{"schema":"syntax = \"proto3\";","schemaType":"XML\u001b[2J\nlevel=ERROR msg=forged"}`,
		"wrong JSON type":     `{"schema":12}`,
	} {
		url := hostile(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(body))
		})
		_, err := schemaByID(t, url, 7)
		permanentRegistryError(t, name+", schema by ID", err)
		reg, _ := serde.NewRegistry(serde.RegistryOptions{}, url)
		_, _, err = reg.Register(ctx, "t-value", serde.Schema{Type: serde.TypeAvro, Text: `"int"`})
		permanentRegistryError(t, name+", register", err)
	}

	cut := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"schema\":\"")
		buf.Flush()
	})
	_, err := schemaByID(t, cut, 7)
	if !errors.Is(err, serde.ErrRegistryUnavailable) {
		t.Errorf("an answer cut off: %v, want ErrRegistryUnavailable", err)
	}
}

// TestHostileRegistryNotFound: a 404 without a registry's error code (a
// gateway's page) is ErrRegistryURL, a configuration error, not an unknown
// ID; a 40403 whose message is longer than the part of an error answer
// kept is still ErrUnknownID, remembered as such, its message escaped and
// cut.
func TestHostileRegistryNotFound(t *testing.T) {
	html, requests := notFound(t, "text/html", "<html>Not Found \x1b[31mred\x1b[0m</html>")
	_, err := schemaByID(t, html, 7)
	if !errors.Is(err, serde.ErrRegistryURL) || !errors.Is(err, serde.ErrRegistry) || errors.Is(err, serde.ErrUnknownID) {
		t.Errorf("an HTML 404: %v, want ErrRegistryURL", err)
	}
	checkBounded(t, "HTML 404", err.Error(), 1024)

	// Messages of 100 bytes to past the part of the answer read (1 MiB),
	// escaped as JSON or raw control characters (no valid JSON).
	for _, size := range []int{100, 5000, 100_000, 3 << 20, -5000} {
		requests.Store(0)
		esc, n := `\u001b[2J\r\n`, size
		if size < 0 {
			esc, n = "\x1b[2J\r\n", -size
		}
		long := hostile(t, func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error_code":40403,"message":"Schema not found %slevel=ERROR msg=forged \u202e%s"}`, esc, strings.Repeat("A", n))
		})
		reg, _ := serde.NewRegistry(serde.RegistryOptions{}, long)
		for range 2 {
			_, err := reg.SchemaByID(ctx, 7)
			if !errors.Is(err, serde.ErrUnknownID) {
				t.Fatalf("a 40403 with a message of %d bytes: %v, want ErrUnknownID", size, err)
			}
			checkBounded(t, fmt.Sprintf("40403 of %d bytes", size), err.Error(), 1024)
			if !strings.Contains(err.Error(), "Schema not found") {
				t.Errorf("error %q does not quote the message", err)
			}
		}
		if n := requests.Load(); n != 1 {
			t.Errorf("a 40403 with a message of %d bytes: %d requests for two lookups, want 1 (the miss remembered)", size, n)
		}
		_, err = reg.SchemaByVersion(ctx, "s", 1)
		if !errors.Is(err, serde.ErrUnknownID) {
			t.Errorf("by version, a 40403 of %d bytes: %v", size, err)
		}
	}
}

package serde_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
)

// slowReferences serves schema ID 1 of type typ (for AVRO, of text),
// which references n schemas, each answered after delay (or when its
// request is given up), and counts the requests for references and the
// most under way at once.
func slowReferences(t *testing.T, typ, text string, n int, delay time.Duration) (url string, requests, most *atomic.Int64) {
	requests, most = new(atomic.Int64), new(atomic.Int64)
	var now atomic.Int64
	var refs []map[string]any
	if typ == "PROTOBUF" {
		text = "syntax = \"proto3\";\npackage main;\n"
	}
	for i := range n {
		refs = append(refs, map[string]any{"name": fmt.Sprintf("r%d.proto", i), "subject": fmt.Sprintf("s%d", i), "version": 1})
		if typ == "PROTOBUF" {
			text += fmt.Sprintf("import \"r%d.proto\";\n", i)
		}
	}
	if typ == "PROTOBUF" {
		text += "message M { int32 a = 1; }\n"
	}
	main, _ := json.Marshal(map[string]any{"schema": text, "schemaType": typ, "references": refs})
	url = hostile(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/schemas/ids/1" {
			w.Write(main)
			return
		}
		requests.Add(1)
		cur := now.Add(1)
		defer now.Add(-1)
		for m := most.Load(); cur > m && !most.CompareAndSwap(m, cur); m = most.Load() {
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		sub := strings.Split(strings.TrimPrefix(r.URL.Path, "/subjects/"), "/")[0]
		ref := fmt.Sprintf(`{"type":"fixed","name":"F%s","size":1}`, sub)
		if typ == "PROTOBUF" {
			ref = fmt.Sprintf("syntax = \"proto3\";\npackage %s;\nmessage R { int32 a = 1; }\n", sub)
		}
		b, _ := json.Marshal(map[string]any{"subject": sub, "version": 1, "id": 100, "schema": ref, "schemaType": typ})
		w.Write(b)
	})
	return url, requests, most
}

// TestReferencesFetchDeadline: the fetch of a schema with the schemas its
// references name has a deadline in all, past which it is a temporary
// ErrRegistryUnavailable (not the caller's context.DeadlineExceeded),
// before every reference is asked for; references are fetched a few at a
// time; asked again with time enough, the schema is read.
func TestReferencesFetchDeadline(t *testing.T) {
	const refs = 64
	person := kafkatest.Person(t, "v2")
	codec, err := protoavro.Options{}.Codec(person)
	if err != nil {
		t.Fatal(err)
	}
	avro, err := codec.Schema().JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"AVRO", "PROTOBUF"} {
		url, requests, most := slowReferences(t, typ, string(avro), refs, 100*time.Millisecond)
		reg, err := serde.NewRegistry(serde.RegistryOptions{}, url)
		if err != nil {
			t.Fatal(err)
		}
		// 64 references answered in 100 ms each take at least 800 ms
		// 8 at a time.
		serde.SetFetchTimeout(reg, 300*time.Millisecond)
		de, err := serde.NewDeserializer(reg, person, protoavro.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pd := serde.NewProtoDecoder(reg, protoavro.Options{})
		fetch := func() error {
			if typ == "AVRO" {
				_, err := de.Resolver(ctx, 1)
				return err
			}
			_, err := pd.File(ctx, 1)
			return err
		}
		err = fetch()
		var re *serde.RegistryError
		if !errors.Is(err, serde.ErrRegistryUnavailable) || !errors.As(err, &re) || !re.Temporary() || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: %v, want a temporary ErrRegistryUnavailable", typ, err)
		}
		checkBounded(t, typ, err.Error(), 1024)
		if !strings.Contains(err.Error(), "were not all fetched within 300ms") {
			t.Errorf("%s: %v, want it to say the deadline passed", typ, err)
		}
		if n := requests.Load(); n >= refs {
			t.Errorf("%s: %d references asked for, want fewer than %d", typ, n, refs)
		}
		serde.SetFetchTimeout(reg, time.Minute)
		if err := fetch(); err != nil {
			t.Fatalf("%s, asked again: %v", typ, err)
		}
		if m := most.Load(); m < 2 || m > 8 {
			t.Errorf("%s: at most %d requests under way at once, want 2 to 8", typ, m)
		}
	}
}

// TestRegistryCallerDeadline: a request cut short by the caller's context
// is a *RegistryError (its text escaped and bounded) that wraps the
// context's error, and no class of the registry's answers.
func TestRegistryCallerDeadline(t *testing.T) {
	url := hostile(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, url)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []error{context.DeadlineExceeded, context.Canceled} {
		c, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		if want == context.Canceled {
			cancel()
			c, cancel = context.WithCancel(ctx)
			time.AfterFunc(50*time.Millisecond, cancel)
		}
		_, err := reg.SchemaByVersion(c, "s\x1b[2J", 1)
		cancel()
		var re *serde.RegistryError
		if !errors.Is(err, want) || !errors.As(err, &re) || re.Temporary() || errors.Is(err, serde.ErrRegistry) {
			t.Errorf("%v: %v, want a *RegistryError wrapping it", want, err)
			continue
		}
		checkBounded(t, want.Error(), err.Error(), 1024)
	}
}

// TestRegistryHTTPClientWithoutTimeout: a registry client given an HTTP
// client without a Timeout still bounds each request (10 s): a registry
// that never answers is ErrRegistryUnavailable, not a caller waiting until
// its own deadline.
func TestRegistryHTTPClientWithoutTimeout(t *testing.T) {
	t.Parallel()
	url := hostile(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	reg, err := serde.NewRegistry(serde.RegistryOptions{HTTPClient: &http.Client{}}, url)
	if err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err = reg.SchemaByID(c, 1)
	if !errors.Is(err, serde.ErrRegistryUnavailable) || c.Err() != nil {
		t.Fatalf("a registry that never answers, through a client without a Timeout: %v, want ErrRegistryUnavailable", err)
	}
}

package bridge_test

// Records whose registered schema is poison: a schema that does not
// compile, an ID the registry does not know, a registry answering errors
// full of terminal escapes.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// hostile is text a hostile registry puts in its answers: a screen clear,
// a window title, a forged log line, a bidirectional override, and bulk.
var hostile = "\x1b[2J\x1b]0;owned\x07\r\nlevel=ERROR msg=forged \u202e" + strings.Repeat("A", 200_000)

// poisonID is the ID whose schema the test registry answers with
// protobuf text that does not compile (a field of an unknown type whose
// name is 200,000 bytes long, which the compiler's error repeats);
// unknownID is one it does not know; deepID is a chain of 2,000 nested
// messages, past the schema derivation's depth limit.
const poisonID, unknownID, deepID = 9001, 9002, 9003

// plain reports whether s is bounded, printable text: no control or format
// characters, at most about 1 KiB.
func plain(s string) bool {
	if len(s) > 1200 {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// poisonFixture serves, besides the Person schema, a protobuf schema that
// does not compile as poisonID, and produces a good record, one of each
// poison, and n more good ones.
func poisonFixture(t *testing.T, n int) *registryFixture {
	var good []*kgo.Record
	f := newRegistryFixture(t, serde.RegistryOptions{}, func(md protoreflect.MessageDescriptor, id uint32) []*kgo.Record {
		good = inputs(t, "in", md, id, 0, n+1)
		return append([]*kgo.Record{good[0],
			{Topic: "in", Key: []byte("poison"), Value: append(serde.AppendProtoHeader(nil, poisonID, []int{0}), 0x08, 0x01)},
			{Topic: "in", Key: []byte("unknown"), Value: append(serde.AppendProtoHeader(nil, unknownID, []int{0}), 0x08, 0x01)},
			{Topic: "in", Key: []byte("deep"), Value: append(serde.AppendProtoHeader(nil, deepID, []int{0}), 0x0a, 0x00)},
		}, good[1:]...)
	})
	body, _ := json.Marshal(map[string]string{"schemaType": "PROTOBUF",
		"schema": "syntax = \"proto3\";\nmessage M { Unknown" + strings.Repeat("A", 200_000) + " x = 1; }\n"})
	deep, _ := json.Marshal(map[string]string{"schemaType": "PROTOBUF", "schema": testutil.HostileProto(testutil.Chain, 2000)})
	f.fake.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet {
			return false
		}
		switch {
		case strings.HasPrefix(r.URL.Path, "/schemas/ids/9001"):
			w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
			w.Write(body)
		case strings.HasPrefix(r.URL.Path, "/schemas/ids/9003"):
			w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
			w.Write(deep)
		default:
			return false
		}
		return true
	})
	return f
}

// TestPoisonSchema: a record whose schema does not compile, or nests
// deeper than the derivation's limit, is dead-lettered as a schema error,
// one whose ID the registry does not know as unknown-id, with the reason escaped and bounded, and the bridge converts
// the records after them.
func TestPoisonSchema(t *testing.T) {
	const n = 300
	f := poisonFixture(t, n)
	_, sum, err := f.run(f.client(t, serde.RegistryOptions{}), "dlq", n+4)
	if err != nil || sum.Records != n+4 || sum.DeadLettered != 3 {
		t.Fatalf("%v, %v; want %d records, 3 dead-lettered", sum, err, n+4)
	}
	dead := kafkatest.ConsumeAll(t, f.brokers, "dlq", 3, time.Minute)
	want := map[string]string{"poison": "schema", "unknown": "unknown-id", "deep": "schema"}
	for _, r := range dead {
		h := map[string]string{}
		for _, kv := range r.Headers {
			h[kv.Key] = string(kv.Value)
		}
		if string(r.Key) == "deep" && !strings.Contains(h[bridge.HeaderError], "Limits.MaxDepth") {
			t.Errorf("deep: error %q does not name the depth limit", h[bridge.HeaderError])
		}
		if c := h[bridge.HeaderClass]; c != want[string(r.Key)] {
			t.Errorf("%s: class %q, want %q (%s)", r.Key, c, want[string(r.Key)], h[bridge.HeaderError])
		}
		// The compiler's error about the poison repeats its long name:
		// the header says it was cut.
		if e := h[bridge.HeaderError]; !plain(e) || e == "" || string(r.Key) == "poison" && !strings.HasSuffix(e, " bytes)") {
			t.Errorf("%s: error header of %d bytes not escaped and bounded: %q", r.Key, len(e), e[:min(len(e), 300)])
		}
	}
	if len(kafkatest.ConsumeAll(t, f.brokers, "out", n+1, time.Minute)) != n+1 {
		t.Error("the good records did not all come out")
	}
}

// TestPoisonSchemaWithoutDeadLetter: without a dead-letter topic the
// record whose schema does not compile stops the bridge cleanly, with an
// error that says where, is escaped and bounded, and is ErrBadSchema.
func TestPoisonSchemaWithoutDeadLetter(t *testing.T) {
	f := poisonFixture(t, 10)
	ctx, sum, err := f.run(f.client(t, serde.RegistryOptions{}), "", 13)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || err == nil {
		t.Fatalf("%v, %v (context %v); want a stop", sum, err, ctx.Err())
	}
	if !errors.Is(err, serde.ErrBadSchema) || !strings.Contains(err.Error(), "in[0] offset 1 (no dead-letter topic)") ||
		!plain(err.Error()) || !strings.HasSuffix(err.Error(), " bytes)") {
		t.Fatalf("error of %d bytes %q; want ErrBadSchema at offset 1, escaped and bounded", len(err.Error()), err.Error()[:min(300, len(err.Error()))])
	}
	if sum.Records != 0 {
		t.Errorf("%d records committed from the stopped batch", sum.Records)
	}
}

// TestRegistryWaitProgress: while the registry answers 500 (with hostile
// text), the bridge waits for it: the progress line says so, escaped and
// bounded, as do the /readyz probe and the registry_waiting figure; once
// the registry is back, every record comes out.
func TestRegistryWaitProgress(t *testing.T) {
	const n = 100
	f := newRegistryFixture(t, serde.RegistryOptions{}, func(md protoreflect.MessageDescriptor, id uint32) []*kgo.Record {
		return inputs(t, "in", md, id, 0, n)
	})
	f.fake.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(hostile))
		return true
	})
	m := bridge.NewMetrics()
	progress := &syncWriter{w: &strings.Builder{}}
	var log strings.Builder
	logw := &syncWriter{w: &log}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := runAsync(ctx, bridge.Config{Brokers: f.brokers, Group: "g", Inputs: []string{"in"}, Output: "out", DeadLetter: "dlq",
		Registry: f.client(t, serde.RegistryOptions{}), MaxRecords: n, Metrics: m, Logger: textLogger(logw),
		Progress: progress, ProgressEvery: 50 * time.Millisecond})
	waiting := func() bool {
		progress.mu.Lock()
		defer progress.mu.Unlock()
		return strings.Contains(progress.w.String(), "waiting on the schema registry")
	}
	for !waiting() {
		if ctx.Err() != nil {
			t.Fatal("no progress line said the bridge waits on the registry")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := scrape(t, m)["protoavro_bridge_registry_waiting"]; got != 1 {
		t.Errorf("registry_waiting %v while waiting", got)
	}
	f.fake.ClearInterceptors()
	res := <-done
	if res.err != nil || res.sum.Records != n || res.sum.DeadLettered != 0 {
		t.Fatalf("%v, %v", res.sum, res.err)
	}
	progress.mu.Lock()
	lines := strings.Split(strings.TrimSpace(progress.w.String()), "\n")
	progress.mu.Unlock()
	for _, line := range lines {
		if !plain(line) {
			t.Fatalf("progress line of %d bytes not escaped and bounded: %q", len(line), line[:min(300, len(line))])
		}
	}
	logw.mu.Lock()
	defer logw.mu.Unlock()
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if !plain(line) || strings.HasPrefix(line, "level=ERROR msg=forged") {
			t.Fatalf("log line of %d bytes not escaped and bounded: %q", len(line), line[:min(300, len(line))])
		}
	}
	if !strings.Contains(log.String(), "waiting on the schema registry") || !strings.Contains(log.String(), "schema registry back") {
		t.Errorf("log %q; want the wait and its end", log.String())
	}
	if got := scrape(t, m)["protoavro_bridge_registry_waiting"]; got != 0 {
		t.Errorf("registry_waiting %v after the wait", got)
	}
	de, _ := serde.NewDeserializer(f.reg, f.md, protoavro.Options{})
	verify(t, de, f.md, f.recs, kafkatest.ConsumeAll(t, f.brokers, "out", n, time.Minute))
}

// TestConversionPanic: a conversion that panics returns an error of class
// internal, to be dead-lettered, instead of crashing the bridge.
func TestConversionPanic(t *testing.T) {
	class, err := bridge.ConvertPanicking()
	if err == nil || class != "internal" || !strings.HasPrefix(err.Error(), "bridge: internal error: ") {
		t.Fatalf("%v, class %q; want an internal error", err, class)
	}
}

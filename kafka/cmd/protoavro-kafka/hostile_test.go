package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestHostileRegistryBridge runs the bridge on framed records whose schema
// a hostile registry on loopback, reached through a URL holding a
// password, answers with a 50 MB error body full of terminal escapes: each
// record is dead-lettered with a bounded, escaped error; no output holds
// the password or an escape.
func TestHostileRegistryBridge(t *testing.T) {
	const n = 5
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("{\"error_code\":40403,\"message\":\"\x1b[2J\x1b]0;owned\x07\r\nINFO forged line "))
		chunk := bytes.Repeat([]byte("\x1b[31mA"), 1<<18)
		for range 32 { // 50 MB
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(hostile.Close)
	_, brokers := kafkatest.Cluster(t, 1, "in", "out", "dlq")
	md := kafkatest.Person(t, "v2")
	var recs []*kgo.Record
	for i := range n {
		framed := serde.AppendProtoHeader(nil, 7, nil)
		framed = append(framed, kafkatest.Wire(t, kafkatest.NewPerson(md, i))...)
		recs = append(recs, &kgo.Record{Topic: "in", Key: []byte(strconv.Itoa(i)), Value: framed})
	}
	kafkatest.Produce(t, kafkatest.Client(t, brokers), recs)
	url := strings.Replace(hostile.URL, "http://", "http://alice:"+registryPass+"@", 1)
	code, stdout, stderr := runCLI(t, "bridge", "--brokers", brokers[0], "--registry", url, "--in", "in", "--out", "out",
		"--dlq", "dlq", "--max-records", strconv.Itoa(n), "--progress", "0")
	checkNoSecret(t, "hostile registry", stdout, stderr)
	if code != 0 {
		t.Fatalf("bridge: exit %d\n%s%s", code, stdout, stderr)
	}
	if strings.ContainsAny(stdout+stderr, "\x1b\x07\r") {
		t.Errorf("output holds control characters: %q", stdout+stderr)
	}
	got := kafkatest.ConsumeAll(t, brokers, "dlq", n, 30*time.Second)
	if len(got) != n {
		t.Fatalf("%d dead letters, want %d", len(got), n)
	}
	for _, r := range got {
		msg := ""
		for _, h := range r.Headers {
			if h.Key == bridge.HeaderError {
				msg = string(h.Value)
			}
		}
		checkNoSecret(t, "dead-letter header", msg)
		if len(msg) > 1024 || strings.IndexFunc(msg, unicode.IsControl) >= 0 || !strings.Contains(msg, `\x1b[2J`) {
			t.Errorf("record %s: error header of %d bytes, want a bounded, escaped one: %.300q", r.Key, len(msg), msg)
		}
	}
}

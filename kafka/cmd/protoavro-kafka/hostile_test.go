package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
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
	produceFramed(t, brokers, 7, n)
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
	for _, d := range deadLetters(t, brokers, n) {
		checkNoSecret(t, "dead-letter header", d.err)
		if len(d.err) > 1024 || strings.IndexFunc(d.err, unicode.IsControl) >= 0 || !strings.Contains(d.err, `\x1b[2J`) {
			t.Errorf("record %s: error header of %d bytes, want a bounded, escaped one: %.300q", d.key, len(d.err), d.err)
		}
	}
}

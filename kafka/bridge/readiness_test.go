package bridge_test

// Readiness that follows the brokers, a registry URL at which no registry
// answers, the end of a wait on a registry that never came back, and
// regular expressions whose topics are all left out.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// pollProbe polls url until its answer satisfies ok, and returns the last
// answer; it fails the test after a minute.
func pollProbe(t *testing.T, url string, ok func(code int, body string) bool) (int, string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		code, body := get(t, url)
		if ok(code, body) {
			return code, body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %d %q after a minute", url, code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReadyzBrokersGone: /readyz answers 200 while the brokers answer, and
// 503 naming the brokers once they are gone, while the bridge still runs
// (/healthz 200).
func TestReadyzBrokersGone(t *testing.T) {
	cluster, brokers := kafkatest.Cluster(t, 1, "in", "out")
	_, reg := kafkatest.Registry(t)
	m := bridge.NewMetrics()
	bridge.SetPingEvery(m, 20*time.Millisecond)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := runAsync(ctx, bridge.Config{Brokers: brokers, Group: "g", Inputs: []string{"in"}, Output: "out", Registry: reg, Metrics: m})
	pollProbe(t, srv.URL+"/readyz", func(code int, _ string) bool { return code == http.StatusOK })

	cluster.Close()
	_, body := pollProbe(t, srv.URL+"/readyz", func(code int, _ string) bool { return code == http.StatusServiceUnavailable })
	if !strings.HasPrefix(body, "the brokers do not answer: ") || !plain(strings.TrimSuffix(body, "\n")) {
		t.Errorf("/readyz without brokers: %q, want the brokers named as the reason", body)
	}
	if code, body := get(t, srv.URL+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d %q; the bridge should still run", code, body)
	}
	cancel()
	<-done
}

// TestRegistryNotFoundStops: a registry URL answering 404 without a
// registry's error code (a gateway's page for a wrong base path) stops the
// bridge with ErrRegistryURL, nothing dead-lettered or committed, rather
// than dead-lettering every record.
func TestRegistryNotFoundStops(t *testing.T) {
	const n = 20
	f := newRegistryFixture(t, serde.RegistryOptions{}, func(md protoreflect.MessageDescriptor, id uint32) []*kgo.Record {
		return inputs(t, "in", md, id, 0, n)
	})
	f.fake.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("<html><body>404 Not Found \x1b[2J</body></html>"))
		return true
	})
	_, sum, err := f.run(f.client(t, serde.RegistryOptions{}), "dlq", n)
	if !errors.Is(err, serde.ErrRegistryURL) || errors.Is(err, serde.ErrUnknownID) || sum.Records != 0 || sum.DeadLettered != 0 {
		t.Fatalf("%v, %v; want a stop with ErrRegistryURL, nothing committed", sum, err)
	}
	if !strings.Contains(err.Error(), "in[0] offset 0") || !plain(err.Error()) {
		t.Errorf("error does not say where, or is not escaped: %q", err)
	}
}

// TestRegistryWaitStopped: a bridge stopped while it waits for a registry
// that never comes back logs that it stopped waiting, not that the
// registry is back.
func TestRegistryWaitStopped(t *testing.T) {
	const n = 10
	f := newRegistryFixture(t, serde.RegistryOptions{}, func(md protoreflect.MessageDescriptor, id uint32) []*kgo.Record {
		return inputs(t, "in", md, id, 0, n)
	})
	f.fake.Intercept(kafkatest.Unavailable)
	var log strings.Builder
	logw := &syncWriter{w: &log}
	logged := func(s string) bool {
		logw.mu.Lock()
		defer logw.mu.Unlock()
		return strings.Contains(log.String(), s)
	}
	m := bridge.NewMetrics()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runAsync(ctx, bridge.Config{Brokers: f.brokers, Group: "g", Inputs: []string{"in"}, Output: "out", DeadLetter: "dlq",
		Registry: f.client(t, serde.RegistryOptions{}), MaxRecords: n, Metrics: m, Logger: textLogger(logw)})
	for deadline := time.Now().Add(time.Minute); !logged("waiting on the schema registry"); {
		if time.Now().After(deadline) {
			t.Fatal("the bridge did not log a wait on the registry")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	res := <-done
	if res.sum.Records != 0 {
		t.Errorf("%v, %v; want nothing committed", res.sum, res.err)
	}
	logw.mu.Lock()
	defer logw.mu.Unlock()
	if strings.Contains(log.String(), "schema registry back") || !strings.Contains(log.String(), "stopped waiting on the schema registry") {
		t.Errorf("log %q; want the wait's end without the registry back", log.String())
	}
}

// TestRegexReadsNothing: a regular expression whose topics are all left
// out, as named by the output topics or as the dead-letter topic, is told
// from the expressions; one that reads something, or whose topics cannot
// be told, is not.
func TestRegexReadsNothing(t *testing.T) {
	for _, tc := range []struct {
		expr, output, dlq string
		want              bool
	}{
		{"^in$", "{topic}", "", true},
		{"in", "{topic}", "", true},
		{".*", "{topic}{topic}", "", true},
		{"^a", "a{topic}", "", true},
		{"^ab", "a{topic}", "", true},
		{"-x$", "{topic}-x", "", true},
		{"^a-.*-x$", "a-{topic}-x", "", true},
		{"^in-x$", "{topic}-x", "", true},
		{"^dlq$", "{topic}-x", "dlq", true},
		{"^in$", "{topic}-x", "", false},
		{"^a", "{topic}-x", "", false},
		{"^b", "a{topic}", "", false},
		{"^(?i)a", "a{topic}", "", false},
		{"a", "a{topic}", "", false},
		{"^a-.*", "a-{topic}-x", "", false},
		{"^a$", "out", "", false},
		{"^a|^b", "a{topic}", "", false},
		{"^a.$", "{topic}-{topic}", "", false},
	} {
		cfg := bridge.Config{Output: tc.output, DeadLetter: tc.dlq, InputRegex: true}
		if got := bridge.ReadsNothing(cfg, tc.expr); got != tc.want {
			t.Errorf("%q with output %q, dead letters %q: reads nothing %v, want %v", tc.expr, tc.output, tc.dlq, got, tc.want)
		}
	}
}

package bridge_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kgo"
)

// scrape reads m's figures as Prometheus would, through its handler: the
// value of each series, by name and labels as the text format writes them.
func scrape(t testing.TB, m *bridge.Metrics) map[string]float64 {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	return kafkatest.Scrape(t, srv.URL+"/metrics")
}

func get(t testing.TB, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestMetrics scrapes the metrics endpoint during a run (at the last
// batch's commit, before the bridge stops): records in and out are what
// the test sent, by topic, the dead letters are counted by class, the
// lag, batch latency and registry lookups are there, and the probes say
// the bridge is live and ready; after the run, /healthz says it stopped.
func TestMetrics(t *testing.T) {
	const n = 3000
	_, brokers := kafkatest.Cluster(t, 2, "a", "b", "a-avro", "b-avro", "dlq")
	_, reg := kafkatest.Registry(t)
	id := kafkatest.RegisterPerson(t, reg, "a-value", "v2")
	md := kafkatest.Person(t, "v2")
	cl := kafkatest.Client(t, brokers)
	kafkatest.Produce(t, cl, inputs(t, "a", md, id, 0, n))
	kafkatest.Produce(t, cl, inputs(t, "b", md, id, 0, n/2))
	kafkatest.Produce(t, cl, []*kgo.Record{
		{Topic: "b", Value: []byte("plain text")},
		{Topic: "b", Value: serde.AppendProtoHeader(nil, 777, []int{0})},
	})
	m := bridge.NewMetrics()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	if code, body := get(t, srv.URL+"/healthz"); code != http.StatusServiceUnavailable || body != "not started\n" {
		t.Errorf("/healthz before the run: %d %q", code, body)
	}
	const total = n + n/2 + 2
	var during map[string]float64
	var health, ready int
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sum, err := bridge.Run(ctx, bridge.Config{
		Brokers: brokers, Group: "g", Inputs: []string{"a", "b"}, Output: "{topic}-avro", DeadLetter: "dlq",
		Registry: reg, MaxRecords: total, Metrics: m, BatchSize: 1000,
		OnCommit: func(s bridge.Summary) {
			if s.Records == total {
				during = scrape(t, m)
				health, _ = get(t, srv.URL+"/healthz")
				// Readiness needs the brokers' answer to a ping, which may
				// come after the last batch on a loaded machine.
				for ready != http.StatusOK && ctx.Err() == nil {
					if ready, _ = get(t, srv.URL+"/readyz"); ready != http.StatusOK {
						time.Sleep(10 * time.Millisecond)
					}
				}
			}
		},
	})
	if err != nil || sum.Records != total || sum.DeadLettered != 2 {
		t.Fatalf("%v, %v", sum, err)
	}
	if during == nil {
		t.Fatal("no scrape during the run")
	}
	for series, want := range map[string]float64{
		`protoavro_bridge_records_in_total{topic="a"}`:                 n,
		`protoavro_bridge_records_in_total{topic="b"}`:                 n/2 + 2,
		`protoavro_bridge_records_out_total{topic="a-avro"}`:           n,
		`protoavro_bridge_records_out_total{topic="b-avro"}`:           n / 2,
		`protoavro_bridge_dead_lettered_total{class="bad-header"}`:     1,
		`protoavro_bridge_dead_lettered_total{class="unknown-id"}`:     1,
		`protoavro_bridge_registry_lookups_total{outcome="not-found"}`: 1,
		`protoavro_bridge_lag_records{partition="0",topic="a"}`:        0,
		`protoavro_bridge_registry_waiting`:                            0,
	} {
		if got, ok := during[series]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", series, got, ok, want)
		}
	}
	if during[`protoavro_bridge_registry_lookups_total{outcome="ok"}`] < 2 || during["protoavro_bridge_batch_seconds_count"] < 2 {
		t.Errorf("registry lookups %v, batches %v; want at least 2 of each", during[`protoavro_bridge_registry_lookups_total{outcome="ok"}`], during["protoavro_bridge_batch_seconds_count"])
	}
	if health != http.StatusOK || ready != http.StatusOK {
		t.Errorf("probes during the run: /healthz %d, /readyz %d", health, ready)
	}
	if code, body := get(t, srv.URL+"/healthz"); code != http.StatusServiceUnavailable || body != "stopped\n" {
		t.Errorf("/healthz after the run: %d %q", code, body)
	}
	if code, _ := get(t, srv.URL+"/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz after the run: %d", code)
	}
}

package bridge_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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

// topicSeries returns the topic labels of the series of figure in a
// scrape, with their values summed over the other labels.
func topicSeries(scraped map[string]float64, figure string) map[string]float64 {
	out := map[string]float64{}
	for series, v := range scraped {
		rest, ok := strings.CutPrefix(series, figure+"{")
		if !ok {
			continue
		}
		_, topic, ok := strings.Cut(rest, `topic="`)
		if !ok {
			continue
		}
		topic, _, _ = strings.Cut(topic, `"`)
		out[topic] += v
	}
	return out
}

// TestMetricsTopicLabels: 1,500 input topics, each to its own output
// topic, committed one after another: the first 1,000 input topics and
// the first 1,000 output topics have a topic label (each kind has its own
// bound), and the records of the others are counted under "_other". The
// lag of the partitions of topics without a label is their sum in
// protoavro_bridge_lag_other_records, with no "_other" partition series,
// and forgetting one of them takes its lag out of the sum alone. A topic the
// bridge no longer holds keeps its label until a topic without one needs
// it; then its series are deleted and the label is the new topic's, and
// the lag of a partition counted in the sum moves to its own series.
func TestMetricsTopicLabels(t *testing.T) {
	const topics, labels = 1500, 1000
	m := bridge.NewMetrics()
	b := bridge.MetricsBridge{M: m}
	b.Start()
	name := func(i int) string { return fmt.Sprintf("t%04d", i) }
	for i := range topics {
		b.Hold(name(i), name(i)+"-avro")
		b.Commit(1, map[string]string{name(i): name(i) + "-avro"})
	}
	got := scrape(t, m)
	in, out := topicSeries(got, "protoavro_bridge_records_in_total"), topicSeries(got, "protoavro_bridge_records_out_total")
	if len(in) != labels+1 || in["_other"] != topics-labels || in[name(labels-1)] != 1 || len(out) != labels+1 || out["_other"] != topics-labels || out[name(labels-1)+"-avro"] != 1 {
		t.Fatalf("%d input topic labels (%v under _other), %d output topic labels (%v under _other); want %d each (with _other), %d records under _other",
			len(in), in["_other"], len(out), out["_other"], labels+1, topics-labels)
	}

	// Lag: one labelled partition, three without a label.
	b.SetLag(name(0), 0, 3)
	b.SetLag(name(1000), 0, 5)
	b.SetLag(name(1001), 0, 7)
	b.SetLag(name(1000), 1, 11)
	got = scrape(t, m)
	if lag := topicSeries(got, "protoavro_bridge_lag_records"); len(lag) != 1 || lag[name(0)] != 3 {
		t.Errorf("lag series by topic %v, want %s's alone", lag, name(0))
	}
	if got["protoavro_bridge_lag_other_records"] != 5+7+11 {
		t.Errorf("lag of the topics without a label %v, want %d", got["protoavro_bridge_lag_other_records"], 5+7+11)
	}
	b.ForgetLag(name(1001), 0)
	got = scrape(t, m)
	if got["protoavro_bridge_lag_other_records"] != 5+11 || got[`protoavro_bridge_lag_records{partition="0",topic="`+name(0)+`"}`] != 3 {
		t.Errorf("after one partition is forgotten: lag without a label %v, want %d; %s[0] %v, want 3",
			got["protoavro_bridge_lag_other_records"], 5+11, name(0), got[`protoavro_bridge_lag_records{partition="0",topic="`+name(0)+`"}`])
	}

	// A held topic's label is never taken: a new topic goes under _other.
	b.Hold(name(1500), name(1500)+"-avro")
	b.Commit(1, map[string]string{name(1500): name(1500) + "-avro"})
	if got := topicSeries(scrape(t, m), "protoavro_bridge_records_in_total"); got[name(1500)] != 0 || got["_other"] != topics-labels+1 {
		t.Errorf("a new topic while every label is held: %v under its name, %v under _other", got[name(1500)], got["_other"])
	}
	// Released, t0005 keeps its label and series until a topic needs it.
	b.Release(name(5), name(5)+"-avro")
	got = scrape(t, m)
	if in := topicSeries(got, "protoavro_bridge_records_in_total"); in[name(5)] != 1 {
		t.Errorf("a released topic's series went before its label was needed: %v", in[name(5)])
	}
	b.Hold(name(1501), name(1501)+"-avro")
	b.Commit(2, map[string]string{name(1501): name(1501) + "-avro"})
	got = scrape(t, m)
	in, out = topicSeries(got, "protoavro_bridge_records_in_total"), topicSeries(got, "protoavro_bridge_records_out_total")
	if _, ok := in[name(5)]; ok || in[name(1501)] != 2 || len(in) != labels+1 {
		t.Errorf("input labels after %s was released and %s came: %s %v (present %v), %s %v, %d labels; want %s's series gone and %s labelled",
			name(5), name(1501), name(5), in[name(5)], ok, name(1501), in[name(1501)], len(in), name(5), name(1501))
	}
	if _, ok := out[name(5)+"-avro"]; ok || out[name(1501)+"-avro"] != 2 || len(out) != labels+1 {
		t.Errorf("output labels after %s was released: %s-avro present %v, %s-avro %v, %d labels", name(5), name(5), ok, name(1501), out[name(1501)+"-avro"], len(out))
	}
	// The lag of a partition without a label moves to its own series
	// when its topic gets one: it is counted once.
	b.Release(name(6), name(6)+"-avro")
	b.SetLag(name(1000), 0, 5)
	got = scrape(t, m)
	if got[`protoavro_bridge_lag_records{partition="0",topic="`+name(1000)+`"}`] != 5 || got["protoavro_bridge_lag_other_records"] != 11 {
		t.Errorf("after %s got a label: its partition 0's series %v, want 5; lag without a label %v, want 11 (its partition 1)",
			name(1000), got[`protoavro_bridge_lag_records{partition="0",topic="`+name(1000)+`"}`], got["protoavro_bridge_lag_other_records"])
	}
}

// TestMetricsManyTopicsBridge: a bridge over six input topics, each to
// its {topic}-avro, with room for four topic labels: four input topics
// and four output topics are named (their budgets are separate), the rest
// counted under "_other", and no lag series is labelled "_other": the lag
// of the topics without a label is protoavro_bridge_lag_other_records.
func TestMetricsManyTopicsBridge(t *testing.T) {
	const n, labels = 200, 4
	var ins, all []string
	for i := range 6 {
		ins = append(ins, fmt.Sprintf("in%d", i))
		all = append(all, fmt.Sprintf("in%d", i), fmt.Sprintf("in%d-avro", i))
	}
	_, brokers := kafkatest.Cluster(t, 2, all...)
	_, reg := kafkatest.Registry(t)
	id := kafkatest.RegisterPerson(t, reg, "in0-value", "v2")
	md := kafkatest.Person(t, "v2")
	cl := kafkatest.Client(t, brokers)
	for _, topic := range ins {
		kafkatest.Produce(t, cl, inputs(t, topic, md, id, 0, n))
	}
	m := bridge.NewMetrics()
	bridge.SetTopicLabels(m, labels)
	var during map[string]float64
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	total := int64(len(ins) * n)
	sum, err := bridge.Run(ctx, bridge.Config{
		Brokers: brokers, Group: "g", Inputs: ins, Output: "{topic}-avro", Registry: reg, MaxRecords: total, Metrics: m, BatchSize: 100,
		OnCommit: func(s bridge.Summary) {
			if s.Records == total {
				during = scrape(t, m)
			}
		},
	})
	if err != nil || sum.Records != total {
		t.Fatalf("%v, %v", sum, err)
	}
	if during == nil {
		t.Fatal("no scrape during the run")
	}
	in, out := topicSeries(during, "protoavro_bridge_records_in_total"), topicSeries(during, "protoavro_bridge_records_out_total")
	if len(in) != labels+1 || in["_other"] != float64((len(ins)-labels)*n) || len(out) != labels+1 || out["_other"] != float64((len(ins)-labels)*n) {
		t.Errorf("records in by topic %v, out by topic %v; want %d topics named in each and %d records under _other", in, out, labels, (len(ins)-labels)*n)
	}
	lag := topicSeries(during, "protoavro_bridge_lag_records")
	if _, ok := lag["_other"]; ok || len(lag) > labels {
		t.Errorf("lag series by topic %v: want at most %d topics, none _other", lag, labels)
	}
	if _, ok := during["protoavro_bridge_lag_other_records"]; !ok {
		t.Error("no protoavro_bridge_lag_other_records")
	}
}

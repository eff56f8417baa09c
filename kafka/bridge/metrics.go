// metrics.go holds what a bridge shows a monitoring system: Metrics, its
// figures in Prometheus' text format, and the /healthz and /readyz probes.

package bridge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/protoavro/protoavro/kafka/internal/safetext"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kgo"
)

// defaultTopicLabels bounds the input topics the metrics name, and
// separately the output topics; the records of further topics are counted
// under the topic label otherTopic.
const defaultTopicLabels = 1000

// otherTopic is the topic label of the topics past the bound.
const otherTopic = "_other"

// Metrics collects the figures of a bridge (Config.Metrics) and serves
// them, with health probes, from Handler. The figures, in Prometheus' text
// format:
//
//	protoavro_bridge_records_in_total{topic}       input records committed, by input topic
//	protoavro_bridge_records_out_total{topic}      records converted (or tombstones forwarded) and committed, by output topic
//	protoavro_bridge_dead_lettered_total{class}    records dead-lettered, by class (HeaderClass)
//	protoavro_bridge_tombstones_total{topic}       tombstones (null values) forwarded as tombstones, by input topic
//	protoavro_bridge_lag_records{topic,partition}  records behind the end of the partition (Summary.Lag), for input topics with a label
//	protoavro_bridge_lag_other_records             the same, summed over the partitions of input topics without one
//	protoavro_bridge_registry_lookups_total{outcome}  schema lookups through the registry client
//	protoavro_bridge_batch_seconds                 time from a batch's poll to its commit
//	protoavro_bridge_registry_waiting              1 while the bridge waits for a registry that is down
//
// and the Go runtime's and the process's standard figures. A registry
// lookup is one the conversion workers could not answer from the schema
// of the record before; the registry client answers repeated ones from its
// cache. Its outcome is ok, unavailable (retried), refused (credentials),
// not-found, bad-schema, canceled or error.
//
// Labels are bounded: classes and outcomes are those of the lists above,
// and at most 1000 input topics and 1000 output topics have a topic label
// at a time, each the topic's name. The records of further topics are
// counted under the topic label "_other", and the lag of their partitions
// in protoavro_bridge_lag_other_records: a gauge of one partition's lag
// cannot stand for several. A topic keeps its label while the instance
// holds a partition of it (an output topic: of an input topic whose
// records go to it); once it holds none (they went to another instance, or
// the topic was deleted), the label stays with its series until a topic
// without one needs it: then its series are deleted and the label is the
// new topic's.
//
// A Metrics serves one bridge at a time. Its methods are safe for
// concurrent use.
type Metrics struct {
	reg                   *prometheus.Registry
	recordsIn, recordsOut *prometheus.CounterVec
	dead, lookups         *prometheus.CounterVec
	tombstones            *prometheus.CounterVec
	lag                   *prometheus.GaugeVec
	lagOther              prometheus.Gauge
	batch                 prometheus.Histogram
	waiting               prometheus.Gauge

	mu sync.Mutex
	// inputs and outputs give input and output topics their topic label.
	inputs, outputs *topicLabels
	// heldIn are the input topics the bridge holds a partition of, and
	// outRefs, by output topic, how many of them go to it.
	heldIn  map[string]bool
	outRefs map[string]int
	// otherLag is the lag of the partitions of input topics without a
	// label, otherLagSum their sum (lagOther).
	otherLag    map[topicPartition]int64
	otherLagSum int64
	state       string // "", "running" or "stopped"
	stopErr     string
	// brokers is whether the brokers answered the last ping;
	// brokersSeen whether they answered one since the run started (so
	// that not answering now is a loss, not a start), brokerErr the
	// last ping's error.
	brokers, brokersSeen bool
	brokerErr            string
	waitReg              bool
	pingEvery            time.Duration // watchBrokers' interval; 0: brokerPingEvery
}

// NewMetrics returns an empty Metrics.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		recordsIn: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "protoavro_bridge_records_in_total",
			Help: "Input records committed, by input topic."}, []string{"topic"}),
		recordsOut: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "protoavro_bridge_records_out_total",
			Help: "Records converted (or tombstones forwarded) and committed, by output topic."}, []string{"topic"}),
		dead: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "protoavro_bridge_dead_lettered_total",
			Help: "Records dead-lettered, by error class."}, []string{"class"}),
		tombstones: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "protoavro_bridge_tombstones_total",
			Help: "Tombstones (records with a null value) forwarded and committed, by input topic."}, []string{"topic"}),
		lookups: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "protoavro_bridge_registry_lookups_total",
			Help: "Schema lookups through the registry client, by outcome."}, []string{"outcome"}),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "protoavro_bridge_lag_records",
			Help: "Records behind the end of the partition at the last fetch, for input topics with a topic label."}, []string{"topic", "partition"}),
		lagOther: prometheus.NewGauge(prometheus.GaugeOpts{Name: "protoavro_bridge_lag_other_records",
			Help: "Records behind the end of the partitions at the last fetch, summed over the partitions of input topics without a topic label (past the bound of labelled topics)."}),
		batch: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "protoavro_bridge_batch_seconds",
			Help: "Time from a batch's poll to its commit.", Buckets: prometheus.ExponentialBuckets(0.005, 2, 14)}),
		waiting: prometheus.NewGauge(prometheus.GaugeOpts{Name: "protoavro_bridge_registry_waiting",
			Help: "1 while the bridge waits for a schema registry that is down."}),
		heldIn: map[string]bool{}, outRefs: map[string]int{}, otherLag: map[topicPartition]int64{},
	}
	m.inputs = newTopicLabels(defaultTopicLabels, func(t string) bool { return m.heldIn[t] }, m.recordsIn.MetricVec, m.tombstones.MetricVec, m.lag.MetricVec)
	m.outputs = newTopicLabels(defaultTopicLabels, func(t string) bool { return m.outRefs[t] > 0 }, m.recordsOut.MetricVec)
	m.reg.MustRegister(m.recordsIn, m.recordsOut, m.dead, m.tombstones, m.lookups, m.lag, m.lagOther, m.batch, m.waiting,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the figures at /metrics (Prometheus' text format), and the
// probes: /healthz answers 200 while a bridge runs and 503 before it starts
// and after it stopped (with the error it stopped with); /readyz answers
// 200 while a bridge runs, a broker answered its last ping (a metadata
// request, sent every 5 seconds, which fails after 10 seconds without an
// answer), and it is not waiting for a schema registry that is down, and
// 503 with the reason otherwise.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		m.mu.Lock()
		state, stopErr := m.state, m.stopErr
		m.mu.Unlock()
		switch {
		case state == "running":
			probe(w, http.StatusOK, "ok")
		case state == "":
			probe(w, http.StatusServiceUnavailable, "not started")
		case stopErr != "":
			probe(w, http.StatusServiceUnavailable, "stopped: "+stopErr)
		default:
			probe(w, http.StatusServiceUnavailable, "stopped")
		}
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		m.mu.Lock()
		state, brokers, seen, brokerErr, waiting := m.state, m.brokers, m.brokersSeen, m.brokerErr, m.waitReg
		m.mu.Unlock()
		switch {
		case state != "running":
			probe(w, http.StatusServiceUnavailable, "not running")
		case !brokers && seen:
			probe(w, http.StatusServiceUnavailable, "the brokers do not answer: "+brokerErr)
		case !brokers:
			probe(w, http.StatusServiceUnavailable, "waiting on the brokers")
		case waiting:
			probe(w, http.StatusServiceUnavailable, "waiting on the schema registry")
		default:
			probe(w, http.StatusOK, "ready")
		}
	})
	return mux
}

func probe(w http.ResponseWriter, code int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprintln(w, text)
}

// topicLabels gives topics their topic label, the topic's name (escaped),
// to at most max topics at a time; the others get otherTopic. A labelled
// topic the bridge does not hold (held) is idle: its label goes, its
// series deleted, to the next topic that needs one when there is no room.
// Its methods are called with Metrics.mu held.
type topicLabels struct {
	max      int
	held     func(topic string) bool
	vecs     []*prometheus.MetricVec // the figures labelled with these topics
	labelled map[string]bool
	idle     map[string]bool
}

func newTopicLabels(max int, held func(string) bool, vecs ...*prometheus.MetricVec) *topicLabels {
	return &topicLabels{max: max, held: held, vecs: vecs, labelled: map[string]bool{}, idle: map[string]bool{}}
}

// label returns the label of topic, giving it one when there is room, or
// an idle topic's.
func (l *topicLabels) label(topic string) string {
	if !l.labelled[topic] {
		if len(l.labelled) >= l.max && !l.evict() {
			return otherTopic
		}
		l.labelled[topic] = true
		if !l.held(topic) {
			l.idle[topic] = true
		}
	}
	return topicText(topic)
}

// existing returns the label of topic if it has one.
func (l *topicLabels) existing(topic string) (string, bool) {
	return topicText(topic), l.labelled[topic]
}

// evict takes the label of an idle topic back, deleting its series, and
// reports whether there was one.
func (l *topicLabels) evict() bool {
	for topic := range l.idle {
		delete(l.idle, topic)
		delete(l.labelled, topic)
		for _, v := range l.vecs {
			v.DeletePartialMatch(prometheus.Labels{"topic": topicText(topic)})
		}
		return true
	}
	return false
}

// setHeld notes whether the bridge holds topic now.
func (l *topicLabels) setHeld(topic string, held bool) {
	switch {
	case !l.labelled[topic]:
	case held:
		delete(l.idle, topic)
	default:
		l.idle[topic] = true
	}
}

// reset makes every labelled topic idle: a new run holds none yet.
func (l *topicLabels) reset() {
	for topic := range l.labelled {
		l.idle[topic] = true
	}
}

// topicText is a topic's name as a label: escaped and bounded.
func topicText(topic string) string { return safetext.Escape(topic, 256) }

// The methods below are the bridge's; each does nothing on a nil Metrics.

func (m *Metrics) started() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.state, m.stopErr, m.brokers, m.brokersSeen, m.brokerErr, m.waitReg = "running", "", false, false, "", false
	clear(m.heldIn)
	clear(m.outRefs)
	m.inputs.reset()
	m.outputs.reset()
	m.mu.Unlock()
}

func (m *Metrics) stopped(err error) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.state = "stopped"
	if err != nil {
		m.stopErr = safeErr(err)
	}
	m.mu.Unlock()
}

// brokerPingEvery is how often readiness pings the brokers, and
// brokerPingTimeout how long a ping may take before the brokers count as
// not answering.
const (
	brokerPingEvery   = 5 * time.Second
	brokerPingTimeout = 10 * time.Second
)

// watchBrokers pings the brokers of cl (a metadata request that any one
// broker answers) every pingEvery (brokerPingEvery by default) while the
// bridge runs, and notes for readiness whether the last ping was answered;
// it returns a function that stops it.
func (m *Metrics) watchBrokers(ctx context.Context, cl *kgo.Client) (stop func()) {
	if m == nil {
		return func() {}
	}
	every := m.pingEvery
	if every <= 0 {
		every = brokerPingEvery
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			pctx, done := context.WithTimeout(ctx, brokerPingTimeout)
			err := cl.Ping(pctx)
			done()
			if ctx.Err() != nil {
				return
			}
			m.mu.Lock()
			m.brokers, m.brokersSeen = err == nil, m.brokersSeen || err == nil
			if err != nil {
				m.brokerErr = safeErr(err)
			}
			m.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-time.After(every):
			}
		}
	})
	return func() { cancel(); wg.Wait() }
}

func (m *Metrics) committed(t *tally, elapsed time.Duration) {
	if m == nil {
		return
	}
	m.mu.Lock()
	for topic, n := range t.in {
		m.recordsIn.WithLabelValues(m.inputs.label(topic)).Add(float64(n))
	}
	for topic, n := range t.out {
		m.recordsOut.WithLabelValues(m.outputs.label(topic)).Add(float64(n))
	}
	for topic, n := range t.tombstones {
		m.tombstones.WithLabelValues(m.inputs.label(topic)).Add(float64(n))
	}
	m.mu.Unlock()
	for class, n := range t.dead {
		m.dead.WithLabelValues(class).Add(float64(n))
	}
	m.batch.Observe(elapsed.Seconds())
}

// hold notes that the bridge holds a partition of input topic in, whose
// records go to output topic out ("" for none), where it held none.
func (m *Metrics) hold(in, out string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.heldIn[in] = true
	m.inputs.setHeld(in, true)
	if out != "" {
		m.outRefs[out]++
		m.outputs.setHeld(out, true)
	}
}

// release notes that the bridge holds no partition of input topic in
// (whose records go to out) any longer, after hold.
func (m *Metrics) release(in, out string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.heldIn, in)
	m.inputs.setHeld(in, false)
	if out != "" {
		if m.outRefs[out]--; m.outRefs[out] <= 0 {
			delete(m.outRefs, out)
			m.outputs.setHeld(out, false)
		}
	}
}

func (m *Metrics) setLag(topic string, partition int32, lag int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	tp := topicPartition{topic, partition}
	old, other := m.otherLag[tp]
	if label := m.inputs.label(topic); label != otherTopic {
		m.lag.WithLabelValues(label, strconv.Itoa(int(partition))).Set(float64(lag))
		if other {
			delete(m.otherLag, tp)
			m.addOtherLag(-old)
		}
		return
	}
	m.otherLag[tp] = lag
	m.addOtherLag(lag - old)
}

func (m *Metrics) forgetLag(topic string, partition int32) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if label, ok := m.inputs.existing(topic); ok {
		m.lag.DeleteLabelValues(label, strconv.Itoa(int(partition)))
	}
	tp := topicPartition{topic, partition}
	if old, ok := m.otherLag[tp]; ok {
		delete(m.otherLag, tp)
		m.addOtherLag(-old)
	}
}

// addOtherLag adds d to the lag of the partitions without a label.
func (m *Metrics) addOtherLag(d int64) {
	m.otherLagSum += d
	m.lagOther.Set(float64(m.otherLagSum))
}

func (m *Metrics) setWaiting(waiting bool) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.waitReg = waiting
	m.mu.Unlock()
	if waiting {
		m.waiting.Set(1)
	} else {
		m.waiting.Set(0)
	}
}

// registryLookup counts a schema lookup with its outcome.
func (m *Metrics) registryLookup(err error) {
	if m == nil {
		return
	}
	m.lookups.WithLabelValues(lookupOutcome(err)).Inc()
}

func lookupOutcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, serde.ErrRegistryUnavailable):
		return "unavailable"
	case errors.Is(err, serde.ErrRegistryAccess):
		return "refused"
	case errors.Is(err, serde.ErrUnknownID), errors.Is(err, serde.ErrUnknownSubject):
		return "not-found"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "canceled"
	case errors.Is(err, serde.ErrRegistry):
		return "error"
	}
	return "bad-schema"
}

package bridge

import (
	"context"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// SetBatchTimeout sets how long a batch may take after the run's context is
// done, for the tests, and returns a function that restores it.
func SetBatchTimeout(d time.Duration) (restore func()) {
	old := batchTimeout
	batchTimeout = d
	return func() { batchTimeout = old }
}

// FetchErr is the bridge's verdict on a poll's errors under cfg: the
// informational errors counted, and the fatal error or nil.
func FetchErr(ctx context.Context, cfg Config, fs kgo.Fetches) (int64, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	b := &bridge{cfg: cfg}
	err := b.fetchErr(ctx, fs)
	return b.warnings.Load(), err
}

// ConvertPanicking converts a record with a bridge missing its state, so
// that the conversion panics, and returns the error's dead-letter class and
// the error.
func ConvertPanicking() (class string, err error) {
	b := &bridge{}
	var o kgo.Record
	err = b.convertSafely(context.Background(), &kgo.Record{Topic: "in"}, &o, &worker{})
	return errorClass(err), err
}

// SetPingEvery sets how often m's bridge pings its brokers for readiness.
func SetPingEvery(m *Metrics, d time.Duration) { m.pingEvery = d }

// ReadsNothing reports whether cfg refuses the regular expression expr as
// reading no topic.
func ReadsNothing(cfg Config, expr string) bool { return cfg.readsNothing(expr) }

// SetTopicLabels sets how many input topics, and how many output topics,
// m gives a topic label to.
func SetTopicLabels(m *Metrics, n int) { m.inputs.max, m.outputs.max = n, n }

// MetricsBridge drives m as a bridge does: Hold and Release as its
// partitions are assigned and revoked, Commit at a batch's commit, SetLag
// and ForgetLag as lag is measured and dropped.
type MetricsBridge struct{ M *Metrics }

func (b MetricsBridge) Start()                 { b.M.started() }
func (b MetricsBridge) Hold(in, out string)    { b.M.hold(in, out) }
func (b MetricsBridge) Release(in, out string) { b.M.release(in, out) }
func (b MetricsBridge) SetLag(topic string, partition int32, lag int64) {
	b.M.setLag(topic, partition, lag)
}
func (b MetricsBridge) ForgetLag(topic string, partition int32) { b.M.forgetLag(topic, partition) }

// Commit counts a batch of n records of each input topic, each to its
// output topic (outputs[input]).
func (b MetricsBridge) Commit(n int, outputs map[string]string) {
	t := &tally{in: map[string]int{}, out: map[string]int{}, dead: map[string]int{}, tombstones: map[string]int{}}
	for in, out := range outputs {
		t.in[in] += n
		t.out[out] += n
		t.records += n
	}
	b.M.committed(t, time.Millisecond)
}

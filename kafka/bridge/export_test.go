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

package bridge

import (
	"context"
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

// FetchErr is the bridge's verdict on a poll's errors under cfg: the fatal
// error, or nil, and the informational errors counted.
func FetchErr(ctx context.Context, cfg Config, fs kgo.Fetches) (error, int64) {
	b := &bridge{cfg: cfg}
	err := b.fetchErr(ctx, fs)
	return err, b.warnings.Load()
}

// summary.go holds what a bridge reports of itself: Summary, its running
// totals, the progress line, and the state of its waits on the schema
// registry.

package bridge

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// Summary reports what a bridge did.
type Summary struct {
	// Records is the number of input records committed. The records of a
	// batch whose commit the group refused (CommitWarnings) are not
	// counted, though their output was produced.
	Records int64
	// DeadLettered is how many of them went to the dead-letter topic.
	DeadLettered int64
	// Tombstones is how many of them were tombstones (a null value, a
	// compacted topic's delete marker), forwarded as tombstones.
	Tombstones int64
	// Elapsed is the running time.
	Elapsed time.Duration
	// Lag is the number of input records behind the last stable offsets
	// (the end of what a read-committed consumer can read; the high
	// watermarks when the broker reports none) at the last fetch, over the
	// instance's partitions. Transaction markers (which the bridge reads
	// as control records, and does not convert) and aborted records count
	// until the marker after them is read.
	Lag int64
	// FetchWarnings is the number of informational fetch errors the bridge
	// continued after (Config.Logger).
	FetchWarnings int64
	// CommitWarnings is the number of batches (at-least-once) whose offset
	// commit the group refused because it had moved on without this
	// member's generation (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID,
	// REBALANCE_IN_PROGRESS, STALE_MEMBER_EPOCH), which the bridge continued
	// after (Config.Logger): their output was produced, and their offsets
	// stay uncommitted until a later batch of the same partitions commits,
	// so whoever has the partitions next may read them again (duplicates,
	// as at-least-once allows). The client rejoins the group on its own.
	CommitWarnings int64
	// RegistryWait, when positive, is how long the bridge has been waiting
	// for a schema registry that is down (it retries until the registry is
	// back), and RegistryError the registry's last error, escaped and
	// bounded.
	RegistryWait  time.Duration
	RegistryError string
}

// Rate returns records per second.
func (s Summary) Rate() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Records) / s.Elapsed.Seconds()
}

// String formats the summary on one line.
func (s Summary) String() string {
	out := fmt.Sprintf("%d records (%d dead-lettered) in %s, %.0f records/s, lag %d",
		s.Records, s.DeadLettered, s.Elapsed.Round(time.Millisecond), s.Rate(), s.Lag)
	if s.Tombstones > 0 {
		out += fmt.Sprintf(", %d tombstones", s.Tombstones)
	}
	if s.FetchWarnings > 0 {
		out += fmt.Sprintf(", %d fetch warnings", s.FetchWarnings)
	}
	if s.CommitWarnings > 0 {
		out += fmt.Sprintf(", %d commit warnings", s.CommitWarnings)
	}
	if s.RegistryWait > 0 {
		out += fmt.Sprintf(", waiting on the schema registry for %s: %s", s.RegistryWait.Round(time.Second), s.RegistryError)
	}
	return out
}

func (b *bridge) summary() Summary {
	s := Summary{Records: b.records.Load(), DeadLettered: b.dead.Load(), Tombstones: b.tombstones.Load(), Elapsed: time.Since(b.start), Lag: b.totalLag(),
		FetchWarnings: b.warnings.Load(), CommitWarnings: b.commitWarnings.Load()}
	s.RegistryWait, s.RegistryError = b.regWait.state()
	return s
}

// logAttrs are the summary's figures as log attributes: the counts, the
// elapsed time and rate, the lag, and the warnings and registry wait when
// not zero.
func (s Summary) logAttrs() []any {
	attrs := []any{"records", s.Records, "dead_lettered", s.DeadLettered, "tombstones", s.Tombstones,
		"elapsed", s.Elapsed.Round(time.Millisecond).String(), "rate", math.Round(s.Rate()), "lag", s.Lag}
	if s.FetchWarnings > 0 {
		attrs = append(attrs, "fetch_warnings", s.FetchWarnings)
	}
	if s.CommitWarnings > 0 {
		attrs = append(attrs, "commit_warnings", s.CommitWarnings)
	}
	if s.RegistryWait > 0 {
		attrs = append(attrs, "registry_wait", s.RegistryWait.Round(time.Second).String(), "registry_error", s.RegistryError)
	}
	return attrs
}

// progress writes the progress line (Config.Progress), or logs it
// (Config.LogProgress), every Config.ProgressEvery until stop is called.
func (b *bridge) progress() (stop func()) {
	if b.cfg.Progress == nil && !b.cfg.LogProgress {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(b.cfg.ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if b.cfg.LogProgress {
					b.cfg.Logger.Info("progress", b.summary().logAttrs()...)
				} else {
					fmt.Fprintf(b.cfg.Progress, "protoavro-kafka: %s\n", b.summary())
				}
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// registryWait is the state of the conversion workers' waits for a schema
// registry that is down: how many wait, since when, the last error, and
// whether the registry answered one of them since the wait began.
type registryWait struct {
	mu       sync.Mutex
	waiting  int
	since    time.Time
	last     string
	answered bool
}

// begin notes a worker starting to wait after err; it reports whether it
// is the first.
func (w *registryWait) begin(err error) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waiting++
	w.last = safeErr(err)
	if w.waiting == 1 {
		w.since, w.answered = time.Now(), false
		return true
	}
	return false
}

// retry notes a further error of a waiting worker.
func (w *registryWait) retry(err error) {
	w.mu.Lock()
	w.last = safeErr(err)
	w.mu.Unlock()
}

// end notes a worker done waiting, after the registry answered it
// (answered) or because the worker stopped. It reports whether it was the
// last, for how long the workers waited, and whether the registry
// answered any of them since the wait began (it is back), and when it did
// not, the last error.
func (w *registryWait) end(answered bool) (last bool, d time.Duration, back bool, lastErr string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waiting--
	w.answered = w.answered || answered
	if w.waiting == 0 {
		return true, time.Since(w.since), w.answered, w.last
	}
	return false, 0, false, ""
}

// state returns how long the workers have been waiting (0: none waits) and
// the last error.
func (w *registryWait) state() (time.Duration, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiting == 0 {
		return 0, ""
	}
	return max(time.Since(w.since), time.Nanosecond), w.last
}

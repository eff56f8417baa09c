package protoavrobeam

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
)

// ErrWritesStopped is the error of a shard write or a finalization of
// this process that StopWrites stopped.
var ErrWritesStopped = errors.New("protoavrobeam: writes stopped")

// writes counts the shard writes and finalizations running in this
// process, for StopWrites.
var writes struct {
	stopped atomic.Bool
	mu      sync.Mutex
	running int
	idle    chan struct{} // closed when running drops to 0 after a stop
}

// startWrite registers a shard write or finalization; it fails once
// StopWrites was called. A nil error must be followed by endWrite.
func startWrite() error {
	writes.mu.Lock()
	defer writes.mu.Unlock()
	if writes.stopped.Load() {
		return ErrWritesStopped
	}
	writes.running++
	return nil
}

func endWrite() {
	writes.mu.Lock()
	defer writes.mu.Unlock()
	writes.running--
	if writes.running == 0 && writes.idle != nil {
		close(writes.idle)
		writes.idle = nil
	}
}

// checkWrite returns the error that stops a write in progress: ctx's
// error, or ErrWritesStopped after StopWrites.
func checkWrite(ctx context.Context) error {
	if writes.stopped.Load() {
		return ErrWritesStopped
	}
	return ctx.Err()
}

// StopWrites stops, for good, the shard writes and finalizations of
// WriteAvro and WriteDelimited that run in this process (the workers of
// an in-process or loopback run, as on prism), and waits until those under
// way have returned, or ctx is done. A shard write stops between blocks
// and a finalization before its next rename; both fail with
// ErrWritesStopped, and so does every later one.
//
// It is for a program that has cancelled its pipeline and is about to
// remove what the pipeline wrote (OutputSnapshot.Discard) and exit: once it
// returns nil, no worker of this process touches the output any more.
// Workers in other processes (Dataflow, Flink, Spark) are not affected.
func StopWrites(ctx context.Context) error {
	writes.mu.Lock()
	writes.stopped.Store(true)
	if writes.running == 0 {
		writes.mu.Unlock()
		return nil
	}
	if writes.idle == nil {
		writes.idle = make(chan struct{})
	}
	idle, running := writes.idle, writes.running
	writes.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("protoavrobeam: stop writes: %d still running: %w", running, ctx.Err())
	}
}

// fileStamp identifies a version of a file: its size and modification
// time.
type fileStamp struct {
	size int64
	mod  time.Time
}

// OutputSnapshot records the final shards of an output (of WriteAvro or
// WriteDelimited) as they are before a run, so that after a run that
// failed or was cancelled Discard can remove what the run left.
type OutputSnapshot struct {
	prefix, suffix string
	before         map[string]fileStamp
}

// SnapshotOutput records the final shards ShardName(prefix, i, n, suffix),
// of any number n, that exist now, by size and modification time (suffix
// is ".avro" for WriteAvro, ".delimited" for WriteDelimited).
func SnapshotOutput(ctx context.Context, prefix, suffix string) (*OutputSnapshot, error) {
	s := &OutputSnapshot{prefix: prefix, suffix: suffix, before: map[string]fileStamp{}}
	fs, err := filesystem.New(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("protoavrobeam: %w", err)
	}
	defer fs.Close()
	finals, err := s.finals(ctx, fs)
	if err != nil {
		return nil, err
	}
	for _, name := range finals {
		st, ok, err := stampOf(ctx, fs, name)
		if err != nil {
			return nil, err
		}
		if ok {
			s.before[name] = st
		}
	}
	return s, nil
}

// finals lists the final shards of the output that exist now.
func (s *OutputSnapshot) finals(ctx context.Context, fs filesystem.Interface) ([]string, error) {
	return listFinals(ctx, fs, s.prefix, s.suffix)
}

// listFinals lists the final shards of the output (prefix, suffix) that
// exist now, of any count: the names ShardName(prefix, i, n, suffix), and
// no other.
func listFinals(ctx context.Context, fs filesystem.Interface, prefix, suffix string) ([]string, error) {
	// Five digits each: every count is at most MaxShards.
	names, err := fs.List(ctx, quoteGlob(prefix)+"-?????-of-?????"+quoteGlob(suffix))
	if err != nil {
		return nil, fmt.Errorf("protoavrobeam: list the shards of %s: %w", prefix, err)
	}
	var finals []string
	for _, name := range names {
		if _, ok := shardCount(prefix, suffix, name); ok {
			finals = append(finals, name)
		}
	}
	return finals, nil
}

// removeOtherCounts removes the final shards of the output (prefix,
// suffix) whose count is not n, those of an earlier run, and returns their
// names.
func removeOtherCounts(ctx context.Context, fs filesystem.Interface, prefix, suffix string, n int) ([]string, error) {
	finals, err := listFinals(ctx, fs, prefix, suffix)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, name := range finals {
		if m, _ := shardCount(prefix, suffix, name); m == n {
			continue
		}
		if err := remove(ctx, fs, name); err != nil {
			return removed, err
		}
		removed = append(removed, name)
	}
	return removed, nil
}

// shardCount returns n when name is ShardName(prefix, i, n, suffix).
func shardCount(prefix, suffix, name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix+"-")
	if !ok {
		return 0, false
	}
	if rest, ok = strings.CutSuffix(rest, suffix); !ok {
		return 0, false
	}
	var i, n int
	if _, err := fmt.Sscanf(rest, "%05d-of-%05d", &i, &n); err != nil || ShardName(prefix, i, n, suffix) != name {
		return 0, false
	}
	return n, true
}

// stampOf returns the stamp of name, and false when it does not exist.
func stampOf(ctx context.Context, fs filesystem.Interface, name string) (fileStamp, bool, error) {
	if !exists(ctx, fs, name) {
		return fileStamp{}, false, nil
	}
	size, err := fs.Size(ctx, name)
	if err != nil {
		return fileStamp{}, false, fmt.Errorf("protoavrobeam: size of %s: %w", name, err)
	}
	st := fileStamp{size: size}
	if lm, ok := fs.(filesystem.LastModifiedGetter); ok {
		if st.mod, err = lm.LastModified(ctx, name); err != nil {
			return fileStamp{}, false, fmt.Errorf("protoavrobeam: modification time of %s: %w", name, err)
		}
	}
	return st, true, nil
}

// Gone returns, sorted, the final shards of the snapshot that no longer
// exist: after a successful run, the shards of an earlier run with another
// count, which the run's finalization removed.
func (s *OutputSnapshot) Gone(ctx context.Context) ([]string, error) {
	fs, err := filesystem.New(ctx, s.prefix)
	if err != nil {
		return nil, fmt.Errorf("protoavrobeam: %w", err)
	}
	defer fs.Close()
	var gone []string
	for name := range s.before {
		if !exists(ctx, fs, name) {
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	return gone, nil
}

// Discard removes what a failed or cancelled run left of the output: every
// temporary file, and every final shard the run created or replaced, with
// the other shards of the same count n (-of-NNNNN), since they no longer
// form one complete output. Final shards of a count the run did not touch
// (an earlier complete run's) are kept. It returns the names it removed.
//
// Call it only when no worker writes the output any more: after the job is
// cancelled or failed and, for in-process workers, after StopWrites.
func (s *OutputSnapshot) Discard(ctx context.Context) ([]string, error) {
	fs, err := filesystem.New(ctx, s.prefix)
	if err != nil {
		return nil, fmt.Errorf("protoavrobeam: %w", err)
	}
	defer fs.Close()
	removed, err := removeTemps(ctx, fs, s.prefix, s.suffix)
	if err != nil {
		return removed, err
	}
	present, err := s.finals(ctx, fs)
	if err != nil {
		return removed, err
	}
	touched := map[int]bool{} // shard counts of which the run changed a shard
	now := map[string]bool{}
	for _, name := range present {
		now[name] = true
		st, _, err := stampOf(ctx, fs, name)
		if err != nil {
			return removed, err
		}
		if old, had := s.before[name]; !had || !old.mod.Equal(st.mod) || old.size != st.size {
			n, _ := shardCount(s.prefix, s.suffix, name)
			touched[n] = true
		}
	}
	for name := range s.before {
		if !now[name] { // removed since: the earlier output is not whole
			n, _ := shardCount(s.prefix, s.suffix, name)
			touched[n] = true
		}
	}
	for _, name := range present {
		if n, _ := shardCount(s.prefix, s.suffix, name); !touched[n] {
			continue
		}
		if err := remove(ctx, fs, name); err != nil {
			return removed, err
		}
		removed = append(removed, name)
	}
	return removed, nil
}

// quoteGlob turns each glob metacharacter of name into "?", which matches
// that character among others: a pattern that finds name among others.
func quoteGlob(name string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(`*?[]{}\`, r) {
			return '?'
		}
		return r
	}, name)
}

// removeTemps removes every temporary file of the output (prefix, suffix)
// and returns their names.
//
// The prefix is a name, not a pattern: in the pattern listed, each glob
// metacharacter of it matches that character among others, and only the
// names that are temporary files of this very output are removed.
func removeTemps(ctx context.Context, fs filesystem.Interface, prefix, suffix string) ([]string, error) {
	stray, err := fs.List(ctx, quoteGlob(prefix+suffix+tempMarker)+"*")
	if err != nil {
		return nil, fmt.Errorf("protoavrobeam: list temporary files of %s: %w", prefix, err)
	}
	var removed []string
	for _, name := range stray {
		if !isTemp(prefix, suffix, name) {
			continue
		}
		if err := remove(ctx, fs, name); err != nil {
			return removed, err
		}
		removed = append(removed, name)
	}
	return removed, nil
}

// isTemp reports whether name is a temporary file of the output (prefix,
// suffix): prefix + suffix + tempMarker + 16 hex digits.
func isTemp(prefix, suffix, name string) bool {
	id, ok := strings.CutPrefix(name, prefix+suffix+tempMarker)
	if !ok || len(id) != 16 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}

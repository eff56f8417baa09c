package protoavrobeam

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// Discard after a run cut short removes the temporary shards; it keeps the
// final shards of an earlier run that the run did not touch, and removes
// every final shard once the run has written one of them.
func TestDiscard(t *testing.T) {
	ctx := context.Background()
	write := func(name string, data string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "out")
	shard := func(i int) string { return ShardName(prefix, i, 2, ".avro") }
	other := filepath.Join(dir, "out-00000-of-00003.avro") // another output
	write(other, "other")

	// An earlier complete output, and a run that stopped while writing.
	write(shard(0), "old 0")
	write(shard(1), "old 1")
	snap, err := SnapshotOutput(ctx, prefix, ".avro")
	if err != nil {
		t.Fatal(err)
	}
	write(tempName(prefix, ".avro"), "partial")
	write(tempName(prefix, ".avro"), "partial")
	removed, err := snap.Discard(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 2 {
		t.Errorf("removed %q, want the 2 temporary files", removed)
	}
	if got, want := dirFiles(t, dir), []string{"out-00000-of-00002.avro", "out-00000-of-00003.avro", "out-00001-of-00002.avro"}; !slices.Equal(got, want) {
		t.Fatalf("after a cut write: %q, want %q", got, want)
	}

	// A finalization cut short: shard 0 replaced, shard 1 still the old one
	// and its temporary file still there. Nothing of the output may stay.
	tmp := tempName(prefix, ".avro")
	write(tmp, "new 1")
	write(shard(0), "new shard 0")
	if removed, err = snap.Discard(ctx); err != nil {
		t.Fatal(err)
	}
	if len(removed) != 3 {
		t.Errorf("removed %q, want the temporary file and both shards", removed)
	}
	if got := dirFiles(t, dir); !slices.Equal(got, []string{"out-00000-of-00003.avro"}) {
		t.Fatalf("after a cut finalization: %q, want only the other output", got)
	}

	// No earlier output: a final shard the run renamed is removed.
	if snap, err = SnapshotOutput(ctx, prefix, ".avro"); err != nil {
		t.Fatal(err)
	}
	write(shard(1), "new 1")
	if _, err = snap.Discard(ctx); err != nil {
		t.Fatal(err)
	}
	if got := dirFiles(t, dir); !slices.Equal(got, []string{"out-00000-of-00003.avro"}) {
		t.Fatalf("after a cut finalization of a new output: %q", got)
	}
}

// StopWrites returns only once a write under way has ended (its count of
// running writes back to 0); the next write fails with ErrWritesStopped
// (failing the bundle), and so does a later finalization, which writes
// nothing.
func TestStopWrites(t *testing.T) {
	defer writes.stopped.Store(false) // for the tests after this one
	dir := t.TempDir()
	prefix := filepath.Join(dir, "out")
	// The write of the first record waits, inside the call, until
	// StopWrites has been called.
	started := make(chan struct{})
	testHookShardWritten = func(string) error {
		close(started)
		for !writes.stopped.Load() {
			runtime.Gosched()
		}
		return nil
	}
	defer func() { testHookShardWritten = nil }()
	fn := &writeDelimitedFn{Prefix: prefix, Run: randomID()}
	fn.StartBundle(context.Background(), nil)
	var writeErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		writeErr = fn.ProcessElement(context.Background(), []byte{8, 1}, nil)
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := StopWrites(ctx); err != nil {
		t.Fatal(err)
	}
	writes.mu.Lock()
	running := writes.running
	writes.mu.Unlock()
	if running != 0 {
		t.Errorf("StopWrites returned with %d writes running", running)
	}
	wg.Wait()
	if writeErr != nil {
		t.Errorf("the write under way: %v", writeErr)
	}
	if err := fn.ProcessElement(context.Background(), []byte{8, 1}, nil); !errors.Is(err, ErrWritesStopped) {
		t.Errorf("next write: %v, want ErrWritesStopped", err)
	}

	files := dirFiles(t, dir)
	fin := &finalizeFn{Prefix: prefix, Shards: 1, Suffix: ".delimited"}
	err := fin.ProcessElement(context.Background(), nil, iterOf[tempFile](), func(string) { t.Error("finalized after StopWrites") })
	if !errors.Is(err, ErrWritesStopped) {
		t.Errorf("finalize: %v, want ErrWritesStopped", err)
	}
	if got := dirFiles(t, dir); !slices.Equal(got, files) {
		t.Errorf("finalize after StopWrites changed the files: %q, then %q", files, got)
	}
}

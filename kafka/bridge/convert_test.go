package bridge

import (
	"bytes"
	"testing"
)

// fill appends values of n bytes to w's blocks as convert does, until k
// blocks were filled, and returns the values.
func fill(w *worker, n, k int) [][]byte {
	var vs [][]byte
	for range k * (arenaBlock / n) {
		v := append(w.dst(n), bytes.Repeat([]byte{byte(len(vs))}, n)...)
		vs = append(vs, w.keep(v))
	}
	return vs
}

func TestWorkerBlocksReused(t *testing.T) {
	w := &worker{}
	vs := fill(w, 100, 4)
	// The values of a batch in flight are never written over.
	for i, v := range vs {
		if !bytes.Equal(v, bytes.Repeat([]byte{byte(i)}, 100)) {
			t.Fatalf("value %d changed", i)
		}
	}
	if len(w.retired) < 3 || len(w.free) != 0 {
		t.Fatalf("%d blocks retired, %d free; want ≥ 3 and 0", len(w.retired), len(w.free))
	}
	w.recycle()
	if len(w.retired) != 0 || len(w.free) < 3 {
		t.Fatalf("after recycle: %d blocks retired, %d free", len(w.retired), len(w.free))
	}
	// Batch after batch of the same size, once recycled, allocates no block.
	allocs := testing.AllocsPerRun(20, func() {
		for range 2 * (arenaBlock / 100) {
			w.keep(append(w.dst(100), make([]byte, 100)...))
		}
		w.recycle()
	})
	if allocs != 0 {
		t.Errorf("%v allocations per batch of recycled blocks, want 0", allocs)
	}
	// A value larger than a block is its own allocation, never pooled.
	big := w.keep(append(w.dst(arenaBlock+1), make([]byte, arenaBlock+1)...))
	if len(big) != arenaBlock+1 {
		t.Fatalf("large value of %d bytes", len(big))
	}
	w.dst(arenaBlock) // retires the large block's remainder: not pooled
	for _, b := range w.retired {
		if cap(b) != arenaBlock {
			t.Errorf("a block of %d bytes retired, want only %d", cap(b), arenaBlock)
		}
	}
}

func TestWorkerRecordsReused(t *testing.T) {
	w := &worker{}
	rs := w.records(chunkRecords)
	rs[0].Key = []byte("k")
	w.recycle()
	if len(w.recsUsed) != 0 || len(w.recsFree) != 1 {
		t.Fatalf("after recycle: %d in use, %d free", len(w.recsUsed), len(w.recsFree))
	}
	again := w.records(10)
	if &again[0] != &rs[0] || again[0].Key != nil {
		t.Errorf("records not reused, or not cleared: key %q", again[0].Key)
	}
	allocs := testing.AllocsPerRun(20, func() {
		w.records(chunkRecords)
		w.records(chunkRecords)
		w.recycle()
	})
	if allocs != 0 {
		t.Errorf("%v allocations per batch of recycled records, want 0", allocs)
	}
}

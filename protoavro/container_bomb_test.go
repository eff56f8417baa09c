package protoavro

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"
)

// peakHeap runs f and returns the most heap in use while it ran, sampled
// every millisecond with the collector kept close behind (GOGC 10), so
// that it is about the live memory rather than the collector's slack.
func peakHeap(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak uint64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	return peak - min(peak, base.HeapAlloc)
}

// TestDeflateBombBlocks reads a file of four deflate bombs, blocks of
// 64 KB that decompress to 64 MiB each of valid records (4,096 of 16 KiB),
// with the sequential reader and with the parallel one (2 and 4 workers):
// each holds one such block decompressed at a time, in well under
// 256 MiB of heap, and reads every record.
func TestDeflateBombBlocks(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package bomb; message B { bytes b = 1; }`, "bomb.B")
	s := mustSchema(t, Options{}, md)
	const records, size = 4096, 16<<10 - 8
	rec := appendAvroBytes(nil, make([]byte, size))
	data := bytes.Repeat(rec, records)
	block, err := CompressionDeflate.Compress(nil, data)
	if err != nil {
		t.Fatal(err)
	}
	file := rawHeader(schemaEntry(s.Canonical()), codecEntry("deflate"))
	for range 4 {
		file = rawBlock(file, records, block)
	}
	t.Logf("file of %d bytes, %d MiB of records", len(file), 4*len(data)>>20)
	for _, workers := range []int{1, 2, 4} {
		var n int
		peak := peakHeap(func() { n, err = readContainerWith(file, md, workers) })
		t.Logf("%d workers: %d records, peak heap %d MiB", workers, n, peak>>20)
		if err != nil || n != 4*records {
			t.Fatalf("%d workers: %d records, %v", workers, n, err)
		}
		if peak > 256<<20 {
			t.Errorf("%d workers: peak heap %d MiB, over 256 MiB", workers, peak>>20)
		}
	}
}

// TestTinyRecordBlocks reads blocks of a million one-byte records (each an
// empty message) with the sequential reader and the parallel one: the
// parallel reader allocates a few bytes per record more than the
// sequential one (its blocks' wire bytes), nothing per record beyond, so
// that a file of a few KB cannot make it allocate gigabytes. The
// sequential reader is the baseline, which also holds what the race
// detector adds (its sync.Pool drops items at random).
func TestTinyRecordBlocks(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package bomb; message B { bytes b = 1; }`, "bomb.B")
	s := mustSchema(t, Options{}, md)
	const blocks, records = 4, 1 << 20
	block, err := CompressionDeflate.Compress(nil, make([]byte, records)) // records of one byte: an empty bytes
	if err != nil {
		t.Fatal(err)
	}
	file := rawHeader(schemaEntry(s.Canonical()), codecEntry("deflate"))
	for range blocks {
		file = rawBlock(file, records, block)
	}
	var sequential float64
	for _, workers := range []int{1, 2, 4} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n, err := readContainerWith(file, md, workers)
		runtime.ReadMemStats(&after)
		if err != nil || n != blocks*records {
			t.Fatalf("%d workers: %d records, %v", workers, n, err)
		}
		perRecord := float64(after.TotalAlloc-before.TotalAlloc) / (blocks * records)
		t.Logf("%d workers: %.2f bytes allocated per record", workers, perRecord)
		if workers == 1 {
			sequential = perRecord
		} else if perRecord > sequential+12 {
			t.Errorf("%d workers: %.2f bytes allocated per one-byte record, the sequential reader %.2f: want at most 12 more", workers, perRecord, sequential)
		}
	}
}

package main

import (
	"io"

	"github.com/protoavro/protoavro/internal/pool"
)

// Batches of records handed to worker goroutines close at batchBytes
// bytes or batchRecords records, whichever comes first.
const (
	batchBytes   = 256 << 10
	batchRecords = 1024
)

// runBatches is the loop of encode and decode that has records processed
// on workers in batches. add reads the next record into the current batch
// and returns the batch's records and bytes, or io.EOF after the last
// record; full batches go to workers goroutines that run work on them;
// take gets the processed batches in order. Batches come from fresh, or
// are reused after reset. It stops at the first error, or when done is
// closed. After an error of add, the batches before it are taken first, so
// that an earlier bad record is reported first.
func runBatches[B any](done <-chan struct{}, workers int, work func(B), fresh func() B, reset func(B),
	add func(B) (records, bytes int, err error), take func(B) error) error {
	p := pool.New(workers, func(b B) B {
		work(b)
		return b
	})
	defer p.Close()
	var free []B
	newBatch := func() B {
		var b B
		if n := len(free); n > 0 {
			b, free = free[n-1], free[:n-1]
		} else {
			b = fresh()
		}
		reset(b)
		return b
	}
	put := func(b B) error {
		free = append(free, b) // reused once take is done with it
		return take(b)
	}
	cur, n := newBatch(), 0
	for {
		if err := interrupted(done); err != nil {
			return err
		}
		records, size, err := add(cur)
		if err == io.EOF {
			break
		}
		if err != nil {
			if err := p.Drain(put); err != nil {
				return err
			}
			return err
		}
		n = records
		if size >= batchBytes || records >= batchRecords {
			if err := p.Put(cur, put); err != nil {
				return err
			}
			cur, n = newBatch(), 0
		}
	}
	if n > 0 {
		if err := p.Put(cur, put); err != nil {
			return err
		}
	}
	return p.Drain(put)
}

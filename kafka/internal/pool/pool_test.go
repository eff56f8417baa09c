package pool

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"
)

// TestOrder: results come back in submission order whatever order the
// workers finish in, and in-flight jobs stay bounded.
func TestOrder(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 8} {
		var running, peak atomic.Int64
		release := make(chan struct{})
		p := New(workers, func(i int) int {
			n := running.Add(1)
			for {
				m := peak.Load()
				if n <= m || peak.CompareAndSwap(m, n) {
					break
				}
			}
			if i%5 == 0 {
				<-release // some jobs wait until others finished
			}
			running.Add(-1)
			return i * i
		})
		var got []int
		take := func() {
			r, ok := p.Next()
			if !ok {
				t.Fatal("Next: no job in flight")
			}
			got = append(got, r)
		}
		const n = 200
		go func() {
			for range n / 5 { // one for each job that waits
				release <- struct{}{}
			}
		}()
		for i := range n {
			p.Submit(i)
			if p.Len() > max(workers, 1)+1 {
				t.Fatalf("%d jobs in flight with %d workers", p.Len(), workers)
			}
			for p.Full() {
				take()
			}
		}
		for p.Len() > 0 {
			take()
		}
		if _, ok := p.Next(); ok {
			t.Error("Next on an empty pool reported a result")
		}
		p.Close()
		p.Close()
		if len(got) != n {
			t.Fatalf("workers=%d: %d results, want %d", workers, len(got), n)
		}
		for i, r := range got {
			if r != i*i {
				t.Fatalf("workers=%d: result %d is %d, want %d", workers, i, r, i*i)
			}
		}
		if w := int64(max(workers, 1)); peak.Load() > w {
			t.Errorf("workers=%d: %d jobs ran at once", workers, peak.Load())
		}
	}
}

// TestPutDrain: Put and Drain hand the results over in order and stop at
// the first error of the handler.
func TestPutDrain(t *testing.T) {
	p := New(2, func(i int) int { return -i })
	defer p.Close()
	var got []int
	stop := errors.New("stop")
	handle := func(r int) error {
		got = append(got, r)
		if r == -7 {
			return stop
		}
		return nil
	}
	for i := range 5 {
		if err := p.Put(i, handle); err != nil {
			t.Fatal(err)
		}
		if p.Len() > 2 {
			t.Fatalf("%d jobs in flight after Put", p.Len())
		}
	}
	if err := p.Drain(handle); err != nil || p.Len() != 0 {
		t.Fatalf("Drain: %v, %d left", err, p.Len())
	}
	for i := 5; i < 10; i++ {
		p.Submit(i)
	}
	if err := p.Drain(handle); err != stop || p.Len() != 2 {
		t.Fatalf("Drain: %v, %d left; want the handler's error and 2 left", err, p.Len())
	}
	if want := []int{0, -1, -2, -3, -4, -5, -6, -7}; !slices.Equal(got, want) {
		t.Errorf("results %v, want %v", got, want)
	}
}

// TestCloseWaits: Close returns only after the jobs in flight have run, so
// that their buffers are free for the caller afterwards.
func TestCloseWaits(t *testing.T) {
	var done atomic.Int64
	p := New(2, func(b []byte) struct{} {
		for i := range b {
			b[i] = 1
		}
		done.Add(1)
		return struct{}{}
	})
	bufs := make([][]byte, 3)
	for i := range bufs {
		bufs[i] = make([]byte, 1<<16)
		p.Submit(bufs[i])
	}
	p.Close()
	if done.Load() != 3 {
		t.Fatalf("%d of 3 jobs done after Close", done.Load())
	}
	for _, b := range bufs {
		b[0] = 2 // the race detector reports this if a worker still writes
	}
}

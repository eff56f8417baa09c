package main

// orderedPool runs work on batches on worker goroutines and hands the
// finished batches back in the order they were submitted. Its methods must
// be called from one goroutine. At most workers+1 batches are in flight
// when the caller drains with [orderedPool.full] and [orderedPool.next]
// after each submit.
type orderedPool[B any] struct {
	jobs     chan *poolJob[B]
	inFlight []*poolJob[B] // submitted, oldest first
	workers  int
}

// poolJob is one batch in flight; done is closed when work has run on it.
type poolJob[B any] struct {
	b    B
	done chan struct{}
}

// newOrderedPool starts workers goroutines that run work.
func newOrderedPool[B any](workers int, work func(B)) *orderedPool[B] {
	p := &orderedPool[B]{jobs: make(chan *poolJob[B], workers), workers: workers}
	for range workers {
		go func() {
			for j := range p.jobs {
				work(j.b)
				close(j.done)
			}
		}()
	}
	return p
}

// submit queues b for a worker.
func (p *orderedPool[B]) submit(b B) {
	j := &poolJob[B]{b: b, done: make(chan struct{})}
	p.inFlight = append(p.inFlight, j)
	p.jobs <- j
}

// full reports whether more batches are in flight than there are workers:
// the caller should take finished ones with next before submitting more.
func (p *orderedPool[B]) full() bool { return len(p.inFlight) > p.workers }

// pending returns the number of batches in flight.
func (p *orderedPool[B]) pending() int { return len(p.inFlight) }

// next waits for the oldest batch in flight and returns it; ok is false
// when none is in flight.
func (p *orderedPool[B]) next() (b B, ok bool) {
	if len(p.inFlight) == 0 {
		return b, false
	}
	j := p.inFlight[0]
	<-j.done
	p.inFlight[0] = nil
	p.inFlight = p.inFlight[1:]
	return j.b, true
}

// close stops the workers once they have finished the batches in flight.
// Batches not taken with next are dropped.
func (p *orderedPool[B]) close() {
	close(p.jobs)
	p.inFlight = nil
}

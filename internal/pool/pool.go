// Package pool runs jobs on worker goroutines and hands back their results
// in the order the jobs were submitted.
//
// The nested modules have generated copies of this package
// (internal/cmd/genshared).
package pool

// Ordered is an ordered worker pool. Submit jobs, and take results with
// [Ordered.Next], oldest first, whenever [Ordered.Full] says so: the caller
// keeps at most Workers+1 jobs in flight, which bounds memory, while the
// workers run in parallel. Its methods must be called from one goroutine;
// work runs on the workers, so it must not touch what the caller uses
// meanwhile.
//
// A typical loop, with handle the caller's use of a result:
//
//	p := pool.New(workers, work)
//	defer p.Close()
//	for each job {
//		if err := p.Put(job, handle); err != nil {
//			return err
//		}
//	}
//	return p.Drain(handle)
type Ordered[J, R any] struct {
	jobs     chan *job[J, R]
	inFlight []*job[J, R] // submitted, oldest first
	workers  int
	closed   bool
}

// job is one job in flight; done is closed when its result is set.
type job[J, R any] struct {
	in   J
	out  R
	done chan struct{}
}

// New starts workers goroutines (at least one) that run work on the
// submitted jobs.
func New[J, R any](workers int, work func(J) R) *Ordered[J, R] {
	workers = max(workers, 1)
	p := &Ordered[J, R]{jobs: make(chan *job[J, R], workers), workers: workers}
	for range workers {
		go func() {
			for j := range p.jobs {
				j.out = work(j.in)
				close(j.done)
			}
		}()
	}
	return p
}

// Submit queues j for a worker. It blocks only while every worker is busy
// and the queue of Workers jobs is full.
func (p *Ordered[J, R]) Submit(j J) {
	jb := &job[J, R]{in: j, done: make(chan struct{})}
	p.inFlight = append(p.inFlight, jb)
	p.jobs <- jb
}

// Full reports whether more jobs are in flight than there are workers: the
// caller should take results with Next before submitting more.
func (p *Ordered[J, R]) Full() bool { return len(p.inFlight) > p.workers }

// Len returns the number of jobs in flight (submitted, result not taken).
func (p *Ordered[J, R]) Len() int { return len(p.inFlight) }

// Next waits for the oldest job in flight and returns its result; ok is
// false when no job is in flight.
func (p *Ordered[J, R]) Next() (r R, ok bool) {
	if len(p.inFlight) == 0 {
		return r, false
	}
	j := p.inFlight[0]
	<-j.done
	p.inFlight[0] = nil
	p.inFlight = p.inFlight[1:]
	return j.out, true
}

// Put submits j and then, while the pool is Full, hands the oldest result
// to f. It returns f's first error.
func (p *Ordered[J, R]) Put(j J, f func(R) error) error {
	p.Submit(j)
	for p.Full() {
		r, _ := p.Next()
		if err := f(r); err != nil {
			return err
		}
	}
	return nil
}

// Drain hands the result of every job in flight to f, oldest first. It
// returns f's first error, leaving the later jobs in flight.
func (p *Ordered[J, R]) Drain(f func(R) error) error {
	for p.Len() > 0 {
		r, _ := p.Next()
		if err := f(r); err != nil {
			return err
		}
	}
	return nil
}

// Close waits for the jobs in flight, drops their results and stops the
// workers. After Close, no work runs; calling it again does nothing.
func (p *Ordered[J, R]) Close() {
	if p.closed {
		return
	}
	p.closed = true
	for _, j := range p.inFlight {
		<-j.done
	}
	p.inFlight = nil
	close(p.jobs)
}

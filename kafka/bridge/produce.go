// produce.go holds the producing of a batch's output: records sent
// asynchronously, the first error kept, and the outputs the broker refused
// as too large set aside to be dead-lettered.

package bridge

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// producer produces a batch's records asynchronously and keeps the first
// error. A record costs it no allocation: every record shares one promise
// (done), and a chunk's records are counted as pending at once.
type producer struct {
	produce func(context.Context, *kgo.Record, func(*kgo.Record, error))
	// deadLetter is the dead-letter topic: a record refused on it is an
	// error, never dead-lettered again.
	deadLetter string
	done       func(*kgo.Record, error) // p.acknowledged
	pending    sync.WaitGroup
	mu         sync.Mutex
	err        error
	// chunks are the converted chunks sent, in the input's order: the
	// inputs of the outputs refused as too large are found in them.
	chunks []chunkResult
	// tooLarge are the outputs the broker refused as too large (the Avro
	// form of a record may be larger than its protobuf form), whose inputs
	// are to be dead-lettered; tooLargeErr is the first such refusal.
	tooLarge    []*kgo.Record
	tooLargeErr error
}

func newProducer(produce func(context.Context, *kgo.Record, func(*kgo.Record, error)), deadLetter string) *producer {
	p := &producer{produce: produce, deadLetter: deadLetter}
	p.done = p.acknowledged
	return p
}

// acknowledged is the promise of every record p sends.
func (p *producer) acknowledged(o *kgo.Record, err error) {
	if err != nil {
		p.mu.Lock()
		if o.Topic != p.deadLetter && errors.Is(err, kerr.MessageTooLarge) {
			p.tooLarge = append(p.tooLarge, o)
			if p.tooLargeErr == nil {
				p.tooLargeErr = err
			}
		} else if p.err == nil {
			// The topic is named: a missing output or dead-letter
			// topic says which.
			p.err = fmt.Errorf("to topic %q: %w", o.Topic, err)
		}
		p.mu.Unlock()
	}
	p.pending.Done()
}

// send produces the records of os.
func (p *producer) send(ctx context.Context, os []kgo.Record) {
	p.pending.Add(len(os))
	for i := range os {
		p.produce(ctx, &os[i], p.done)
	}
}

// inputsTooLarge returns the inputs of the outputs refused as too large, in
// the input's order; it is called after wait.
func (p *producer) inputsTooLarge() []*kgo.Record {
	if len(p.tooLarge) == 0 {
		return nil
	}
	refused := make(map[*kgo.Record]bool, len(p.tooLarge))
	for _, o := range p.tooLarge {
		refused[o] = true
	}
	ins := make([]*kgo.Record, 0, len(p.tooLarge))
	for _, c := range p.chunks {
		for i := range c.outs {
			if refused[&c.outs[i]] {
				ins = append(ins, c.recs[i])
			}
		}
	}
	return ins
}

// emit returns the function that sends the output records of a batch's
// converted chunks and counts them in t (dead letters not included).
func (b *bridge) emit(ctx context.Context, p *producer, t *tally) func(chunkResult) {
	return func(c chunkResult) {
		p.chunks = append(p.chunks, chunkResult{recs: c.recs, outs: c.outs})
		// Records of a chunk mostly share their topic: a run of them is
		// counted at once.
		topic, n := "", 0
		for i := range c.outs {
			if o := c.outs[i].Topic; o != topic {
				if n > 0 && topic != b.cfg.DeadLetter {
					t.out[topic] += n
				}
				topic, n = o, 0
			}
			n++
		}
		if n > 0 && topic != b.cfg.DeadLetter {
			t.out[topic] += n
		}
		p.send(ctx, c.outs)
	}
}

// wait flushes cl (no waiting out the linger) and waits for every record
// sent; it returns the first produce error.
func (p *producer) wait(ctx context.Context, cl *kgo.Client) error {
	ferr := cl.Flush(ctx)
	p.pending.Wait()
	if p.err != nil {
		return &bounded{fmt.Errorf("bridge: producing %w", p.err)}
	}
	if ferr != nil {
		return fmt.Errorf("bridge: producing: %w", ferr)
	}
	return nil
}

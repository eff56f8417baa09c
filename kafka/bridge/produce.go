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

// producer produces records asynchronously and keeps the first error.
type producer struct {
	produce func(context.Context, *kgo.Record, func(*kgo.Record, error))
	pending sync.WaitGroup
	mu      sync.Mutex
	err     error
	// tooLarge are the inputs whose output was refused as too large (the
	// Avro form of a record may be larger than its protobuf form), to be
	// dead-lettered; tooLargeErr is the first such refusal.
	tooLarge    []*kgo.Record
	tooLargeErr error
}

// send produces o, converted from in; in is nil for a dead letter.
func (p *producer) send(ctx context.Context, o, in *kgo.Record) {
	p.pending.Add(1)
	p.produce(ctx, o, func(o *kgo.Record, err error) {
		if err != nil {
			p.mu.Lock()
			if in != nil && errors.Is(err, kerr.MessageTooLarge) {
				p.tooLarge = append(p.tooLarge, in)
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
	})
}

// emit returns the function that sends the output records of a batch and
// counts them in t.
func (b *bridge) emit(ctx context.Context, p *producer, t *tally) func(o, in *kgo.Record) {
	return func(o, in *kgo.Record) {
		if o.Topic == b.cfg.DeadLetter {
			in = nil
		} else {
			t.out[o.Topic]++
		}
		p.send(ctx, o, in)
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

// run.go holds the run loop: polling batches, finishing the batch in
// flight after a stop, counting what each batch committed, and the
// at-least-once batch (produce, wait for every acknowledgement, commit).

package bridge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// batchTimeout bounds finishing one batch after ctx is done.
var batchTimeout = 2 * time.Minute

// errStopTimeout ends a batch not finished within batchTimeout of a stop.
var errStopTimeout = errors.New("bridge: batch not finished in time after the stop")

// batchContext returns the context of one batch: it is not cancelled with
// ctx, so that a clean stop finishes and commits the batch in flight, but it
// ends batchTimeout after ctx is done. While ctx is not done a batch has no
// deadline: a registry that is down is retried until it is back.
func batchContext(ctx context.Context) (context.Context, context.CancelFunc) {
	bctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(batchTimeout)
		defer t.Stop()
		select {
		case <-bctx.Done():
		case <-t.C:
			cancel(errStopTimeout)
		}
	})
	return bctx, func() { stop(); cancel(nil) }
}

func (b *bridge) done(ctx context.Context) bool {
	return ctx.Err() != nil || b.cfg.MaxRecords > 0 && b.records.Load() >= b.cfg.MaxRecords
}

// tally counts a batch's records: data records in by input topic, records
// out by output topic (dead letters not included), dead letters by class,
// tombstones (which are always forwarded) by input topic.
type tally struct {
	in, out, dead, tombstones map[string]int
	records                   int // data records in
}

func newTally(data []*kgo.Record) *tally {
	t := &tally{in: map[string]int{}, out: map[string]int{}, dead: map[string]int{}, tombstones: map[string]int{}, records: len(data)}
	for _, r := range data {
		t.in[r.Topic]++
		if r.Value == nil {
			t.tombstones[r.Topic]++
		}
	}
	return t
}

// total is the sum of a tally's counts.
func total(counts map[string]int) int {
	n := 0
	for _, k := range counts {
		n += k
	}
	return n
}

// committed counts a committed batch.
func (b *bridge) committed(t *tally, elapsed time.Duration) {
	b.records.Add(int64(t.records))
	b.dead.Add(int64(total(t.dead)))
	b.tombstones.Add(int64(total(t.tombstones)))
	b.cfg.Metrics.committed(t, elapsed)
	if b.cfg.OnCommit != nil {
		b.cfg.OnCommit(b.summary())
	}
}

// batchFunc produces and commits one batch: recs are the polled records,
// data those to convert (recs without transaction markers), t their tally,
// which it completes. committed is false when the transaction was aborted.
type batchFunc func(bctx, runCtx context.Context, recs, data []*kgo.Record, t *tally) (committed bool, err error)

// loop polls batches until the run is done and hands each to batch.
// Rebalances happen between batches only.
func (b *bridge) loop(ctx context.Context, poll func(context.Context, int) kgo.Fetches, allowRebalance func(), batch batchFunc) error {
	defer b.leaving.Store(true)
	for !b.done(ctx) {
		fs := poll(ctx, b.cfg.BatchSize)
		if err := b.fetchErr(ctx, fs); err != nil {
			return err
		}
		recs := fs.Records()
		if len(recs) == 0 {
			allowRebalance()
			continue
		}
		began := time.Now()
		b.noteLag(fs)
		// The batch is finished even when ctx is done: a clean stop commits
		// what it has produced.
		bctx, cancel := batchContext(ctx)
		data := dataRecords(recs)
		t := newTally(data)
		committed, err := batch(bctx, ctx, recs, data, t)
		cancel()
		if err != nil {
			return err
		}
		// Every record of the batch is acknowledged (or its transaction
		// aborted) and no conversion runs: the values' blocks are free.
		for _, w := range b.all {
			w.recycle()
		}
		if committed {
			b.committed(t, time.Since(began))
		}
		allowRebalance()
	}
	return nil
}

// dataRecords returns recs without the control records (transaction
// markers) among them: the records to convert. recs itself is returned when
// it has none.
func dataRecords(recs []*kgo.Record) []*kgo.Record {
	n := 0
	for _, r := range recs {
		if !r.Attrs.IsControl() {
			n++
		}
	}
	if n == len(recs) {
		return recs
	}
	data := make([]*kgo.Record, 0, n)
	for _, r := range recs {
		if !r.Attrs.IsControl() {
			data = append(data, r)
		}
	}
	return data
}

// leaveTimeout bounds leaving the group and closing the client once the
// loop has ended. Every batch is committed (or its transaction ended) by
// then, so leaving has nothing to save: it hands the member's partitions to
// the others at once rather than after its session. It is one request, but
// kgo sends it only once a join or sync in flight ends, which a member that
// vanished without leaving holds up until its session ends (45 s by
// default, past Kubernetes' default grace period of 30 s). Past
// leaveTimeout-lastLeaveTimeout the bridge stops waiting for kgo and sends
// the request itself, given lastLeaveTimeout.
var (
	leaveTimeout     = 10 * time.Second
	lastLeaveTimeout = 2 * time.Second
)

// clientContext returns the context the client runs under, which the run's
// context does not cancel (a stop finishes the batch in flight first), and
// its cancel function, which closing the client calls.
func clientContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithCancel(context.WithoutCancel(ctx))
}

// closeClient allows the rebalance the loop may hold back, leaves the
// group and closes cl within leaveTimeout: past
// leaveTimeout-lastLeaveTimeout it leaves by a request of its own and
// cancels cl's context (kill), which ends the join or sync kgo waits for.
func (b *bridge) closeClient(cl *kgo.Client, kill context.CancelFunc) {
	defer kill()
	t := time.AfterFunc(leaveTimeout-lastLeaveTimeout, func() {
		b.cfg.Logger.Warn("leaving the group is taking too long, closing without waiting", "waited", leaveTimeout-lastLeaveTimeout, "group", b.cfg.Group)
		b.leaveGroup(cl)
		kill()
	})
	defer t.Stop()
	cl.CloseAllowingRebalance()
}

// leaveGroup asks the group's coordinator, for lastLeaveTimeout at most, to
// drop the member, so that the group does not wait for its session to end.
// A static member does not leave: its partitions wait for its restart, as
// kgo's own leave keeps them.
func (b *bridge) leaveGroup(cl *kgo.Client) {
	member, _ := cl.GroupMetadata()
	if member == "" || b.cfg.InstanceID != "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), lastLeaveTimeout)
	defer cancel()
	req := kmsg.NewPtrLeaveGroupRequest()
	req.Group = b.cfg.Group
	req.MemberID = member
	m := kmsg.NewLeaveGroupRequestMember()
	m.MemberID = member
	m.Reason = kmsg.StringPtr("closing without waiting for the group's rebalance")
	req.Members = append(req.Members, m)
	if _, err := req.RequestWith(ctx, cl); err != nil {
		b.cfg.Logger.Warn("leaving the group", "group", b.cfg.Group, "error", safeErr(err))
	}
}

func (b *bridge) runAtLeastOnce(ctx context.Context, opts []kgo.Opt) error {
	cctx, kill := clientContext(ctx)
	cl, err := kgo.NewClient(append(opts, kgo.WithContext(cctx))...)
	if err != nil {
		kill()
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	defer b.closeClient(cl, kill)
	defer b.cfg.Metrics.watchBrokers(ctx, cl)()
	return b.loop(ctx, cl.PollRecords, cl.AllowRebalance, func(bctx, runCtx context.Context, recs, data []*kgo.Record, t *tally) (bool, error) {
		// Offsets are committed only once every record produced from the
		// batch is acknowledged; after an error nothing is committed. They
		// cover the batch's transaction markers too.
		p := newProducer(cl.Produce, b.cfg.DeadLetter)
		err := b.convertAll(bctx, runCtx, data, b.emit(bctx, p, t), t)
		if werr := p.wait(bctx, cl); err == nil {
			err = werr
		}
		if err == nil {
			err = b.deadLetterTooLarge(bctx, p, cl, t)
		}
		if err != nil {
			return false, err
		}
		if err := cl.CommitRecords(bctx, recs...); err != nil {
			return false, b.commitErr(err, recs)
		}
		return true, nil
	})
}

// txn.go holds exactly-once delivery: the transactional ID, and the batch
// produced and its offsets committed in one Kafka transaction.

package bridge

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// uniqueSuffix names this process among the instances of a group: its
// host, process ID and 8 random hex digits.
func uniqueSuffix() string {
	host, _ := os.Hostname()
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("%s-%d-%x", host, os.Getpid(), r)
}

func (b *bridge) runTransactional(ctx context.Context, opts []kgo.Opt) error {
	id := b.cfg.TransactionalID
	switch {
	case id != "":
	case b.cfg.InstanceID != "":
		id = "protoavro-bridge-" + b.cfg.Group + "-" + b.cfg.InstanceID
	default:
		// Instances of a group without static membership must not share a
		// transactional ID: each would fence the one before. Zombies are
		// fenced by the group's generation instead (KIP-447).
		id = "protoavro-bridge-" + b.cfg.Group + "-" + uniqueSuffix()
	}
	timeout := b.cfg.TransactionTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	cctx, kill := clientContext(ctx)
	opts = append(opts, kgo.TransactionalID(id), kgo.TransactionTimeout(timeout), kgo.WithContext(cctx))
	sess, err := kgo.NewGroupTransactSession(opts...)
	if err != nil {
		kill()
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	// As in the at-least-once path: a stop between a poll and its
	// AllowRebalance would otherwise leave Close waiting for a rebalance
	// that BlockRebalanceOnPoll holds back (seen: two instances stopping
	// at once, both blocked in LeaveGroup). By the time the loop returns,
	// every transaction is committed or aborted, but one whose End failed,
	// which the broker aborts after the transaction timeout.
	defer b.closeClient(sess.Client(), kill)
	defer b.cfg.Metrics.watchBrokers(ctx, sess.Client())()
	return b.loop(ctx, sess.PollRecords, sess.AllowRebalance, func(bctx, runCtx context.Context, _, data []*kgo.Record, t *tally) (bool, error) {
		if err := sess.Begin(); err != nil {
			return false, fmt.Errorf("bridge: beginning transaction: %w", err)
		}
		// The batch's records and its offsets are committed together, or
		// the transaction is aborted.
		p := newProducer(sess.Produce, b.cfg.DeadLetter)
		err := b.convertAll(bctx, runCtx, data, b.emit(bctx, p, t), t)
		if werr := p.wait(bctx, sess.Client()); err == nil {
			err = werr
		}
		if err == nil {
			err = b.deadLetterTooLarge(bctx, p, sess.Client(), t)
		}
		try := kgo.TryCommit
		if err != nil {
			try = kgo.TryAbort
		}
		committed, eerr := sess.End(bctx, try)
		if err != nil {
			return false, err
		}
		if eerr != nil {
			return false, &bounded{fmt.Errorf("bridge: ending transaction: %w", eerr)}
		}
		return committed, nil
	})
}

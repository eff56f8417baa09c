package bridge_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// commitFixture is a cluster of two input partitions whose group g's
// offset commits are refused with err (count: how many, -1 all), a
// registry, and a bridge of g run on it in the background.
type commitFixture struct {
	brokers []string
	produce func(from, n int)
	refused *kfake.FaultHandle
	syncs   *kfake.FaultHandle // observes g's SyncGroups: one per join
	log     strings.Builder
	done    <-chan commitResult
}

type commitResult struct {
	sum bridge.Summary
	err error
}

// runAsync runs a bridge of cfg in the background; its result comes on the
// channel.
func runAsync(ctx context.Context, cfg bridge.Config) <-chan commitResult {
	done := make(chan commitResult, 1)
	go func() {
		sum, err := bridge.Run(ctx, cfg)
		done <- commitResult{sum, err}
	}()
	return done
}

func newCommitFixture(t *testing.T, ctx context.Context, err *kerr.Error, count int, cfg bridge.Config) *commitFixture {
	c, brokers := kafkatest.Cluster(t, 2, "in", "out")
	_, reg := kafkatest.Registry(t)
	id, rerr := serde.NewProtoEncoder(reg).Register(context.Background(), "in-value", kafkatest.EvolutionSource(t, "v2"), nil)
	if rerr != nil {
		t.Fatal(rerr)
	}
	md := kafkatest.Person(t, "v2")
	cl := kafkatest.Client(t, brokers)
	f := &commitFixture{
		brokers: brokers,
		produce: func(from, n int) { kafkatest.Produce(t, cl, inputs(t, "in", md, id, from, n)) },
		refused: c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetCommit}, Group: "g", Err: err, Count: count}),
		syncs:   c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.SyncGroup}, Group: "g", Observe: true, Count: -1}),
	}
	cfg.Brokers, cfg.Group, cfg.Input, cfg.Output, cfg.Registry = brokers, "g", "in", "out", reg
	cfg.Log = &syncWriter{w: &f.log}
	f.produce(0, 50)
	f.done = runAsync(ctx, cfg)
	return f
}

// TestCommitRefused: at-least-once, the group refuses the bridge's first two
// offset commits as a group that moved on does (the member fenced by a new
// generation, removed, or the group rebalancing; and STALE_MEMBER_EPOCH, the
// KIP-848 consumer protocol's ILLEGAL_GENERATION, which used to stop it).
// The batches' output was produced, so the bridge logs each refusal, counts it, and goes on (kgo
// rejoins, at once after ILLEGAL_GENERATION and UNKNOWN_MEMBER_ID, which the
// test sees as a second SyncGroup): records produced after each refusal, to
// the partitions the member keeps, are converted too, and every input
// record comes out (some possibly twice). It used to stop with "bridge:
// committing offsets".
func TestCommitRefused(t *testing.T) {
	for _, refusal := range []*kerr.Error{kerr.IllegalGeneration, kerr.UnknownMemberID, kerr.RebalanceInProgress, kerr.StaleMemberEpoch} {
		t.Run(refusal.Message, func(t *testing.T) {
			const n = 50 // records per set
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			f := newCommitFixture(t, ctx, refusal, 2, bridge.Config{})
			for k := 1; k <= 2; k++ {
				// The k-th commit was refused and the bridge still runs.
				for f.refused.Hits() < k {
					select {
					case res := <-f.done:
						t.Fatalf("the bridge stopped after %d refused commits: %v (%v)\nlog: %s", f.refused.Hits(), res.err, res.sum, f.log.String())
					case <-ctx.Done():
						t.Fatalf("commit %d was never refused\nlog: %s", k, f.log.String())
					case <-time.After(10 * time.Millisecond):
					}
				}
				f.produce(k*n, n)
			}
			seen := converted(t, f.brokers, 3*n)
			cancel()
			res := <-f.done
			if res.err != nil {
				t.Fatalf("bridge: %v\nlog: %s", res.err, f.log.String())
			}
			t.Logf("bridge: %v; %d group syncs", res.sum, f.syncs.Hits())
			// kgo rejoins from the commit after these two; after the
			// others the heartbeat brings the news.
			if (refusal == kerr.IllegalGeneration || refusal == kerr.UnknownMemberID) && f.syncs.Hits() < 2 {
				t.Errorf("%d group syncs: the member never rejoined after %v", f.syncs.Hits(), refusal)
			}
			for i := range 3 * n {
				if seen[i] == 0 {
					t.Errorf("record %d never came out", i)
				}
			}
			log := f.log.String()
			if res.sum.CommitWarnings != 2 || res.sum.Records == 0 || !strings.Contains(res.sum.String(), "2 commit warnings") ||
				strings.Count(log, "committing offsets") != 2 || strings.Count(log, refusal.Message) != 2 || !strings.Contains(log, "(continuing") {
				t.Errorf("summary %v, log %q; want both refusals logged and counted, and later commits", res.sum, log)
			}
		})
	}
}

// TestCommitFatal: a commit error that going on cannot fix still stops the
// bridge with it, nothing counted: an authorization refusal, and
// FENCED_INSTANCE_ID (another instance took over the static membership ID;
// rejoining would fence it in turn).
func TestCommitFatal(t *testing.T) {
	for _, tc := range []struct {
		err  *kerr.Error
		cfg  bridge.Config
		says string
	}{
		{kerr.GroupAuthorizationFailed, bridge.Config{}, "committing offsets of 50 records"},
		{kerr.FencedInstanceID, bridge.Config{InstanceID: "i1"}, `another instance took over instance ID "i1"`},
	} {
		t.Run(tc.err.Message, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			f := newCommitFixture(t, ctx, tc.err, -1, tc.cfg)
			res := <-f.done
			if ctx.Err() != nil {
				t.Fatalf("the bridge ran until its context ended: %v", res.err)
			}
			if !errors.Is(res.err, tc.err) || !strings.Contains(res.err.Error(), tc.says) ||
				res.sum.Records != 0 || res.sum.CommitWarnings != 0 {
				t.Fatalf("%v, %v; want a stop with %v saying %q, nothing committed", res.sum, res.err, tc.err, tc.says)
			}
		})
	}
}

// converted reads the output topic until every record index below n is in
// it (or a minute passes) and returns how often each index came.
func converted(t *testing.T, brokers []string, n int) map[int]int {
	deadline := time.Now().Add(time.Minute)
	for want := n; ; {
		out := kafkatest.ConsumeAll(t, brokers, "out", want, time.Until(deadline))
		seen := map[int]int{}
		for _, r := range out {
			seen[index(t, r)]++
		}
		if len(seen) >= n || time.Now().After(deadline) {
			return seen
		}
		want = len(out) + n - len(seen)
	}
}

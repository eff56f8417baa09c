package bridge_test

import (
	"context"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestLagOpenTransaction: records of a transaction still open are not
// readable by the bridge (read committed) and are no lag: it is measured
// from the last stable offset, not the high watermark. 20 records
// committed, then 30 in an open transaction: the bridge reads the 20 and
// reports lag 0 (it reported 30).
func TestLagOpenTransaction(t *testing.T) {
	brokers, cl, reg, md, id := setup(t, 1)
	kafkatest.Produce(t, cl, inputs(t, "in", md, id, 0, 20))
	txn := kafkatest.Client(t, brokers, kgo.TransactionalID("upstream"), kgo.TransactionTimeout(time.Minute))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for _, r := range inputs(t, "in", md, id, 20, 30) {
		if err := txn.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	// The lag at the batch's commit, while the bridge runs.
	var last bridge.Summary
	if _, err := bridge.Run(ctx, bridge.Config{
		Brokers: brokers, Group: "g", Inputs: []string{"in"}, Output: "out", Registry: reg, MaxRecords: 20,
		OnCommit: func(s bridge.Summary) { last = s },
	}); err != nil {
		t.Fatal(err)
	}
	if last.Records != 20 || last.Lag != 0 {
		t.Errorf("summary at the commit %v: want 20 records and lag 0 (30 records in an open transaction are not readable)", last)
	}
	if err := txn.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
}

// TestLagAtStop: the final summary reports the lag the bridge left on its
// partitions when it stopped (it reported 0: leaving the group revoked the
// partitions, and their lag was dropped with them).
func TestLagAtStop(t *testing.T) {
	brokers, cl, reg, md, id := setup(t, 1)
	kafkatest.Produce(t, cl, inputs(t, "in", md, id, 0, 50))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sum, err := bridge.Run(ctx, bridge.Config{
		Brokers: brokers, Group: "g", Inputs: []string{"in"}, Output: "out", Registry: reg, MaxRecords: 20, BatchSize: 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Records != 20 || sum.Lag != 30 {
		t.Errorf("summary %v: want 20 records and lag 30", sum)
	}
}

// TestLagTrailingMarkers: a transactional producer ends each transaction
// with a marker, a control record after its last data record, which a
// consumer never gets as a record. 20 records in a committed transaction
// and then 10 in an aborted one: once the 20 are converted, the lag must
// reach 0 (it stayed 12, the aborted records and the two markers, for as
// long as no later record came), in both modes.
func TestLagTrailingMarkers(t *testing.T) { kafkatest.BothSemantics(t, lagTrailingMarkers) }

func lagTrailingMarkers(t *testing.T, eos bool) {
	brokers, _, reg, md, id := setup(t, 1)
	txn := kafkatest.Client(t, brokers, kgo.TransactionalID("upstream"), kgo.TransactionTimeout(time.Minute))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct {
		from, n int
		end     kgo.TransactionEndTry
	}{{0, 20, kgo.TryCommit}, {20, 10, kgo.TryAbort}} {
		if err := txn.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for _, r := range inputs(t, "in", md, id, tc.from, tc.n) {
			if err := txn.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if err := txn.EndTransaction(ctx, tc.end); err != nil {
			t.Fatal(err)
		}
	}
	// The bridge runs until it reports the 20 records with lag 0, or 30 s
	// end.
	bctx, stop := context.WithCancel(ctx)
	defer stop()
	sum, err := bridge.Run(bctx, bridge.Config{
		Brokers: brokers, Group: "g", Inputs: []string{"in"}, Output: "out", Registry: reg, ExactlyOnce: eos,
		OnCommit: func(s bridge.Summary) {
			if s.Records >= 20 && s.Lag == 0 {
				stop()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil || sum.Records != 20 || sum.Lag != 0 {
		t.Fatalf("summary %v (%v): want 20 records and lag 0 once they are converted", sum, ctx.Err())
	}
	if out := kafkatest.ConsumeAll(t, brokers, "out", 20, time.Minute); len(out) != 20 {
		t.Fatalf("%d records out, want 20", len(out))
	}
}

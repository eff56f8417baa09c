package bridge_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
)

// TestLagAfterRebalance: the lag is over the instance's partitions. An
// instance that had lag on partitions when a second one joined and took
// them reports none of it once everything is converted: both instances'
// lag ends at 0.
func TestLagAfterRebalance(t *testing.T) {
	const n = 8000
	brokers, cl, reg, md, id := setup(t, 4)
	kafkatest.Produce(t, cl, inputs(t, "in", md, id, 0, n))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var (
		wg      sync.WaitGroup
		total   [2]atomic.Int64
		sums    [2]bridge.Summary
		errs    [2]error
		started = make(chan struct{})
		once    sync.Once
	)
	run := func(k int) {
		defer wg.Done()
		sums[k], errs[k] = bridge.Run(ctx, bridge.Config{
			Brokers: brokers, Group: "g", Input: "in", Output: "out", Registry: reg,
			BatchSize: 50, SessionTimeout: 3 * time.Second,
			OnCommit: func(s bridge.Summary) {
				total[k].Store(s.Records)
				if s.Records >= 1000 && s.Lag > 0 {
					once.Do(func() { close(started) })
				}
				if total[0].Load()+total[1].Load() >= n {
					cancel()
				}
			},
		})
	}
	wg.Add(1)
	go run(0)
	select {
	case <-started: // the first instance has lag on its partitions
	case <-ctx.Done():
		t.Fatal("the first instance committed nothing")
	}
	wg.Add(1)
	go run(1)
	wg.Wait()
	for k := range 2 {
		if errs[k] != nil && ctx.Err() == nil {
			t.Errorf("instance %d: %v", k, errs[k])
		}
		t.Logf("instance %d: %v", k, sums[k])
	}
	if sums[0].Records+sums[1].Records != n {
		t.Fatalf("instances committed %d + %d records, want %d", sums[0].Records, sums[1].Records, n)
	}
	if sums[1].Records == 0 {
		t.Fatal("the second instance converted nothing: no rebalance took partitions")
	}
	if sums[0].Lag != 0 || sums[1].Lag != 0 {
		t.Errorf("lag %d and %d once everything is converted, want 0", sums[0].Lag, sums[1].Lag)
	}
}

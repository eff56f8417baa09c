package bridge_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestStopWhileJoiningBehindVanishedMember(t *testing.T) {
	kafkatest.BothSemantics(t, stopWhileJoiningBehindVanishedMember)
}

// stopWhileJoiningBehindVanishedMember stops a bridge whose join the group
// cannot complete: a member that joined and vanished without leaving, with
// a session of vanishedSession, holds the rebalance until its session ends
// (the bridge's rebalance timeout is as long, so that its join request does
// not end first). The bridge must return long before, out of the group,
// the offsets an earlier bridge committed unchanged.
func stopWhileJoiningBehindVanishedMember(t *testing.T, eos bool) {
	const (
		n               = 2000
		group           = "g"
		vanishedSession = 2 * time.Minute
	)
	brokers, cl, reg, md, id := setup(t, 4)
	kafkatest.Produce(t, cl, inputs(t, "in", md, id, 0, n))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := bridge.Config{
		Brokers: brokers, Group: group, Inputs: []string{"in"}, Output: "out", Registry: reg, ExactlyOnce: eos,
	}
	first := cfg
	first.MaxRecords = n
	if _, err := bridge.Run(ctx, first); err != nil {
		t.Fatal(err)
	}
	committed := committedOffsets(t, cl, group)
	if sum := sumOffsets(committed); sum != n {
		t.Fatalf("committed offsets %v sum to %d, want %d", committed, sum, n)
	}

	// The member that vanishes: it joins, is assigned every partition, and
	// its client's context ends, which stops its heartbeats and fails the
	// LeaveGroup its Close sends. Its session, which each of its requests
	// to the group renews, cannot end before sessionEnd.
	sessionEnd := time.Now().Add(vanishedSession)
	vctx, vanish := context.WithCancel(context.Background())
	vanished, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.WithContext(vctx),
		kgo.ConsumerGroup(group), kgo.ConsumeTopics("in"), kgo.DisableAutoCommit(),
		kgo.SessionTimeout(vanishedSession), kgo.RebalanceTimeout(vanishedSession))
	if err != nil {
		t.Fatal(err)
	}
	waitAssigned(t, cl, group, 1)
	vanish()
	vanished.Close()
	if g := describeGroup(t, cl, group); g.State != "Stable" || len(g.Members) != 1 {
		t.Fatalf("after the member vanished the group is %s with %d members, want Stable with 1", g.State, len(g.Members))
	}
	// Records the stopped bridge must leave to the next instance.
	kafkatest.Produce(t, cl, inputs(t, "in", md, id, n, 100))

	var log syncWriter
	log.w = &strings.Builder{}
	second := cfg
	second.Logger = textLogger(&log)
	second.KafkaOpts = []kgo.Opt{kgo.RebalanceTimeout(vanishedSession)}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	type result struct {
		sum bridge.Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := bridge.Run(runCtx, second)
		done <- result{sum, err}
	}()
	// The bridge's join waits for the vanished member to join again.
	deadline := time.Now().Add(2 * time.Minute)
	for g := describeGroup(t, cl, group); g.State != "PreparingRebalance"; g = describeGroup(t, cl, group) {
		if time.Now().After(deadline) {
			t.Fatalf("the group did not start rebalancing in 2 minutes (state %s)", g.State)
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	stopped := time.Now()
	var r result
	select {
	case r = <-done:
	case <-time.After(2 * vanishedSession):
		t.Fatalf("Run did not return within %v of the stop", 2*vanishedSession)
	}
	returned := time.Now()
	t.Logf("Run returned %v after the stop, %v before the vanished member's session could end; log:\n%s",
		returned.Sub(stopped).Round(time.Millisecond), sessionEnd.Sub(returned).Round(time.Millisecond), log.w.String())
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !returned.Before(sessionEnd) {
		t.Errorf("Run returned %v after the stop, once the vanished member's session could have ended", returned.Sub(stopped).Round(time.Millisecond))
	}
	if r.sum.Records != 0 {
		t.Errorf("the stopped bridge committed %d records without partitions", r.sum.Records)
	}
	if g := describeGroup(t, cl, group); len(g.Members) != 1 {
		t.Errorf("after the stop the group has %d members, want the vanished one only: the bridge did not leave", len(g.Members))
	}
	if got := committedOffsets(t, cl, group); fmt.Sprint(got) != fmt.Sprint(committed) {
		t.Errorf("committed offsets %v after the stop, want %v", got, committed)
	}
}

// describeGroup returns the group as the broker describes it.
func describeGroup(t *testing.T, cl *kgo.Client, group string) kmsg.DescribeGroupsResponseGroup {
	t.Helper()
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = []string{group}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Groups) != 1 {
		t.Fatalf("describing group %s: %d groups in the answer", group, len(resp.Groups))
	}
	return resp.Groups[0]
}

// committedOffsets returns the group's committed offsets of topic "in", by
// partition.
func committedOffsets(t *testing.T, cl *kgo.Client, group string) map[int32]int64 {
	t.Helper()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = group
	rt := kmsg.NewOffsetFetchRequestTopic()
	rt.Topic = "in"
	rt.Partitions = []int32{0, 1, 2, 3}
	req.Topics = append(req.Topics, rt)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		t.Fatalf("fetching the offsets of group %s: %v", group, err)
	}
	offsets := map[int32]int64{}
	add := func(partition int32, offset int64, code int16) {
		if err := kerr.ErrorForCode(code); err != nil {
			t.Fatalf("offset of in/%d: %v", partition, err)
		}
		offsets[partition] = offset
	}
	for _, rt := range resp.Topics {
		for _, p := range rt.Partitions {
			add(p.Partition, p.Offset, p.ErrorCode)
		}
	}
	for _, g := range resp.Groups {
		if err := kerr.ErrorForCode(g.ErrorCode); err != nil {
			t.Fatalf("fetching the offsets of group %s: %v", group, err)
		}
		for _, rt := range g.Topics {
			for _, p := range rt.Partitions {
				add(p.Partition, p.Offset, p.ErrorCode)
			}
		}
	}
	return offsets
}

func sumOffsets(offsets map[int32]int64) int64 {
	var sum int64
	for _, o := range offsets {
		sum += o
	}
	return sum
}

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
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestFetchErrors: the fetch errors kgo documents as informational (data
// loss it reset past, a group session lost and rejoined, a retriable broker
// error) are counted and logged and the bridge goes on; the others stop it,
// among them a session lost to another instance that took over the static
// membership ID (rejoining would fence that one in turn).
func TestFetchErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		fatal bool
	}{
		{"data loss", &kgo.ErrDataLoss{Topic: "in", Partition: 2, ConsumedTo: 50, ResetTo: 0}, false},
		{"group session lost", &kgo.ErrGroupSession{Err: kerr.UnknownMemberID}, false},
		{"group session unreachable", &kgo.ErrGroupSession{Err: errors.New("dial tcp: connection refused")}, false},
		{"retriable", kerr.NotLeaderForPartition, false},
		{"group authorization", &kgo.ErrGroupSession{Err: kerr.GroupAuthorizationFailed}, true},
		{"instance ID taken over", &kgo.ErrGroupSession{Err: kerr.FencedInstanceID}, true},
		{"topic authorization", kerr.TopicAuthorizationFailed, true},
		{"topic recreated", kerr.UnknownTopicID, true}, // retriable, but kgo surfaces it only for a recreated topic
		{"decompress too large", &kgo.ErrDecompressTooLarge{Topic: "in"}, true},
		{"batch parse failure", errors.New("invalid record batch: crc mismatch"), true},
	} {
		var log strings.Builder
		fs := kgo.Fetches{{Topics: []kgo.FetchTopic{{Topic: "in", Partitions: []kgo.FetchPartition{{Partition: 2, Err: tc.err}}}}}}
		warnings, err := bridge.FetchErr(context.Background(), bridge.Config{Log: &log}, fs)
		if tc.fatal {
			if err == nil || !errors.Is(err, tc.err) || !strings.Contains(err.Error(), "in[2]") || warnings != 0 {
				t.Errorf("%s: %v (%d warnings), want it fatal, naming in[2]", tc.name, err, warnings)
			}
			continue
		}
		if err != nil || warnings != 1 || !strings.Contains(log.String(), tc.err.Error()) {
			t.Errorf("%s: %v, %d warnings, log %q; want it informational", tc.name, err, warnings, log.String())
		}
	}
	// The end of the run is neither.
	fs := kgo.Fetches{{Topics: []kgo.FetchTopic{{Topic: "in", Partitions: []kgo.FetchPartition{{Err: context.Canceled}}}}}}
	if warnings, err := bridge.FetchErr(context.Background(), bridge.Config{}, fs); err != nil || warnings != 0 {
		t.Errorf("context canceled: %v, %d warnings", err, warnings)
	}
}

// TestDataLoss: the broker answers the bridge's fetch past the 50 records it
// has read with OFFSET_OUT_OF_RANGE, as a broker that lost data does; kgo
// resets to the start (ConsumeResetOffset) and reports *kgo.ErrDataLoss. The
// bridge logs it, counts it, and goes on: the 50 are read again
// (at-least-once) and the 50 produced after it come out too. It used to
// stop with the error.
func TestDataLoss(t *testing.T) {
	c, brokers := kafkatest.Cluster(t, 1, "in", "out")
	_, reg := kafkatest.Registry(t)
	id, err := serde.NewProtoEncoder(reg).Register(context.Background(), "in-value", kafkatest.EvolutionSource(t, "v2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	md := kafkatest.Person(t, "v2")
	cl := kafkatest.Client(t, brokers)
	kafkatest.Produce(t, cl, inputs(t, "in", md, id, 0, 50))
	lost := c.Fault(kfake.Fault{
		Keys:  []kmsg.Key{kmsg.Fetch},
		Topic: "in",
		Err:   kerr.OffsetOutOfRange,
		When: func(req kmsg.Request) bool {
			for _, rt := range req.(*kmsg.FetchRequest).Topics {
				for _, rp := range rt.Partitions {
					if rp.FetchOffset == 50 {
						return true
					}
				}
			}
			return false
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log strings.Builder
	done := runAsync(ctx, bridge.Config{
		Brokers: brokers, Group: "g", Input: "in", Output: "out",
		Registry: reg, MaxRecords: 150, Log: &syncWriter{w: &log},
	})
	if err := lost.Wait(ctx, 1); err != nil {
		t.Fatalf("the fetch at offset 50 was never answered out of range: %v", err)
	}
	kafkatest.Produce(t, cl, inputs(t, "in", md, id, 50, 50))
	res := <-done
	if res.err != nil {
		t.Fatalf("bridge stopped: %v\nlog: %s", res.err, log.String())
	}
	if res.sum.Records != 150 || res.sum.FetchWarnings != 1 || !strings.Contains(log.String(), "lost records") {
		t.Fatalf("summary %v, log %q; want 150 records and the data loss logged once", res.sum, log.String())
	}
	out := kafkatest.ConsumeAll(t, brokers, "out", 150, time.Minute)
	seen := map[int]int{}
	for _, r := range out {
		seen[index(t, r)]++
	}
	for i := range 100 {
		if want := 1 + btoi(i < 50); seen[i] != want {
			t.Errorf("record %d out %d times, want %d", i, seen[i], want)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

package bridge_test

// The bridge facing broker errors: commits refused (the group moved on, a
// fenced instance), fetch errors, an input topic deleted and recreated.

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"google.golang.org/protobuf/reflect/protoreflect"
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
	id := kafkatest.RegisterPerson(t, reg, "in-value", "v2")
	md := kafkatest.Person(t, "v2")
	cl := kafkatest.Client(t, brokers)
	f := &commitFixture{
		brokers: brokers,
		produce: func(from, n int) { kafkatest.Produce(t, cl, inputs(t, "in", md, id, from, n)) },
		refused: c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetCommit}, Group: "g", Err: err, Count: count}),
		syncs:   c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.SyncGroup}, Group: "g", Observe: true, Count: -1}),
	}
	cfg.Brokers, cfg.Group, cfg.Inputs, cfg.Output, cfg.Registry = brokers, "g", []string{"in"}, "out", reg
	cfg.Logger = textLogger(&syncWriter{w: &f.log})
	f.produce(0, 50)
	f.done = runAsync(ctx, cfg)
	return f
}

// TestCommitRefused: at-least-once, the group refuses the bridge's first two
// offset commits as a group that moved on does (the member fenced by a new
// generation, removed, or the group rebalancing; and STALE_MEMBER_EPOCH, the
// KIP-848 consumer protocol's ILLEGAL_GENERATION).
// The batches' output was produced, so the bridge logs each refusal, counts it, and goes on (kgo
// rejoins, at once after ILLEGAL_GENERATION and UNKNOWN_MEMBER_ID, which the
// test sees as a second SyncGroup): records produced after each refusal, to
// the partitions the member keeps, are converted too, and every input
// record comes out (some possibly twice), without the bridge stopping.
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
				strings.Count(log, "committing offsets") != 2 || strings.Count(log, refusal.Message) != 2 || !strings.Contains(log, "continuing after an error") {
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
		says *regexp.Regexp
	}{
		// The first batch may hold any part of the 50 records, as the
		// fetches brought them.
		{kerr.GroupAuthorizationFailed, bridge.Config{}, regexp.MustCompile(`committing offsets of ([1-9]|[1-4][0-9]|50) records`)},
		{kerr.FencedInstanceID, bridge.Config{InstanceID: "i1"}, regexp.MustCompile(regexp.QuoteMeta(`another instance took over instance ID "i1"`))},
	} {
		t.Run(tc.err.Message, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			f := newCommitFixture(t, ctx, tc.err, -1, tc.cfg)
			res := <-f.done
			if ctx.Err() != nil {
				t.Fatalf("the bridge ran until its context ended: %v", res.err)
			}
			if !errors.Is(res.err, tc.err) || !tc.says.MatchString(res.err.Error()) ||
				res.sum.Records != 0 || res.sum.CommitWarnings != 0 {
				t.Fatalf("%v, %v; want a stop with %v matching %q, nothing committed", res.sum, res.err, tc.err, tc.says)
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
		warnings, err := bridge.FetchErr(context.Background(), bridge.Config{Logger: textLogger(&log)}, fs)
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
// (at-least-once) and the 50 produced after it come out too; the bridge does
// not stop.
func TestDataLoss(t *testing.T) {
	c, brokers := kafkatest.Cluster(t, 1, "in", "out")
	_, reg := kafkatest.Registry(t)
	id := kafkatest.RegisterPerson(t, reg, "in-value", "v2")
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
		Brokers: brokers, Group: "g", Inputs: []string{"in"}, Output: "out",
		Registry: reg, MaxRecords: 150, Logger: textLogger(&syncWriter{w: &log}),
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

// recreate deletes topic and creates it again with one partition: a new
// topic of the same name, under a new topic ID.
func recreate(t *testing.T, cl *kgo.Client, topic string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	del := kmsg.NewPtrDeleteTopicsRequest()
	dt := kmsg.NewDeleteTopicsRequestTopic()
	dt.Topic = kmsg.StringPtr(topic)
	del.Topics, del.TopicNames = append(del.Topics, dt), []string{topic}
	dresp, err := del.RequestWith(ctx, cl)
	if err == nil {
		err = kerr.ErrorForCode(dresp.Topics[0].ErrorCode)
	}
	if err != nil {
		t.Fatalf("deleting %s: %v", topic, err)
	}
	create := kmsg.NewPtrCreateTopicsRequest()
	ct := kmsg.NewCreateTopicsRequestTopic()
	ct.Topic, ct.NumPartitions, ct.ReplicationFactor = topic, 1, 1
	create.Topics = append(create.Topics, ct)
	cresp, err := create.RequestWith(ctx, cl)
	if err == nil {
		err = kerr.ErrorForCode(cresp.Topics[0].ErrorCode)
	}
	if err != nil {
		t.Fatalf("creating %s again: %v", topic, err)
	}
}

// TestInputRecreated: the input topic is deleted and created again while
// the bridge runs, with a batch of it in flight (held in the registry) or
// between batches. kgo never reads the new topic of the old name (its
// README, "Topic recreation": it refuses the new instance until purged), and
// answers UNKNOWN_TOPIC_ID: to the commit of the old topic's offsets (as a
// broker does to an OffsetCommit of a topic ID it no longer has), or from
// the fetch. Going on would convert nothing more, so the bridge stops,
// naming the topic and what happened. Before, the commit stopped it with a
// bare UNKNOWN_TOPIC_ID, and between batches it logged a fetch warning per
// poll and went on reading nothing (UNKNOWN_TOPIC_ID is retriable).
func TestInputRecreated(t *testing.T) {
	for _, inFlight := range []bool{true, false} {
		name := "between batches"
		if inFlight {
			name = "batch in flight"
		}
		t.Run(name, func(t *testing.T) { inputRecreated(t, inFlight) })
	}
}

func inputRecreated(t *testing.T, inFlight bool) {
	var id uint32
	f := newRegistryFixture(t, serde.RegistryOptions{}, func(md protoreflect.MessageDescriptor, sid uint32) []*kgo.Record {
		id = sid
		return inputs(t, "in", md, id, 0, 20)
	})
	fake, brokers, md := f.fake, f.brokers, f.md
	// The bridge's registry client is new: its first record asks for the
	// schema, which (inFlight) waits until the topic is recreated.
	breg := f.client(t, serde.RegistryOptions{})
	held, release := make(chan struct{}), make(chan struct{})
	var once, unblock sync.Once
	releaseAll := func() { unblock.Do(func() { close(release) }) }
	t.Cleanup(releaseAll) // before the registry closes: it waits for its handlers
	if inFlight {
		fake.Intercept(func(_ http.ResponseWriter, r *http.Request) bool {
			if strings.HasPrefix(r.URL.Path, "/schemas/ids/") {
				once.Do(func() { close(held) })
				<-release
			}
			return false
		})
	}
	committed := make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log strings.Builder
	done := runAsync(ctx, bridge.Config{Brokers: brokers, Group: "g", Inputs: []string{"in"}, Output: "out",
		Registry: breg, Logger: textLogger(&syncWriter{w: &log}), OnCommit: func(bridge.Summary) { once.Do(func() { close(committed) }) }})
	wait := committed
	if inFlight {
		wait = held
	}
	select {
	case <-wait:
	case res := <-done:
		t.Fatalf("the bridge stopped before the topic was recreated: %v, %v", res.sum, res.err)
	case <-ctx.Done():
		t.Fatal("the bridge never got to its first batch")
	}
	recreate(t, kafkatest.Client(t, brokers), "in")
	// A new client: the fixture's produced to the old topic, and kgo
	// refuses to produce to its recreation.
	kafkatest.Produce(t, kafkatest.Client(t, brokers), inputs(t, "in", md, id, 20, 20))
	releaseAll()
	var res commitResult
	select {
	case res = <-done:
	case <-time.After(30 * time.Second):
		cancel()
		res = <-done
		t.Fatalf("the bridge went on after its input was recreated: %v, %v\nlog: %s", res.sum, res.err, log.String())
	}
	want := int64(20)
	if inFlight {
		want = 0
	}
	if !errors.Is(res.err, kerr.UnknownTopicID) || !strings.Contains(res.err.Error(), `topic "in" was deleted and recreated`) || res.sum.Records != want {
		t.Fatalf("%v, %v; want a stop naming the recreated topic, %d records committed\nlog: %s", res.sum, res.err, want, log.String())
	}
}

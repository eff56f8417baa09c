package bridge_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"google.golang.org/protobuf/reflect/protoreflect"
)

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
	done := runAsync(ctx, bridge.Config{Brokers: brokers, Group: "g", Input: "in", Output: "out",
		Registry: breg, Log: &syncWriter{w: &log}, OnCommit: func(bridge.Summary) { once.Do(func() { close(committed) }) }})
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

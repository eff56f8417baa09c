package bridge_test

// Many input topics: a regular expression or a list, each to the output
// topic the {topic} pattern names.

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestManyTopicsRegex: two input topics matched by a regular expression
// (and a topic it does not match, whose records stay where they are),
// 10,000 records each, arrive in their two output topics field by field,
// in both delivery modes; each output topic has its own subject.
func TestManyTopicsRegex(t *testing.T) { kafkatest.BothSemantics(t, manyTopicsRegex) }

func manyTopicsRegex(t *testing.T, eos bool) {
	const n = 10_000
	_, brokers := kafkatest.Cluster(t, 3, "orders.a", "orders.b", "orders.a-avro", "orders.b-avro", "payments", "dlq")
	_, reg := kafkatest.Registry(t)
	id := kafkatest.RegisterPerson(t, reg, "orders.a-value", "v2")
	md := kafkatest.Person(t, "v2")
	cl := kafkatest.Client(t, brokers)
	in := map[string][]*kgo.Record{}
	for _, topic := range []string{"orders.a", "orders.b", "payments"} {
		in[topic] = inputs(t, topic, md, id, 0, n)
		kafkatest.Produce(t, cl, in[topic])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	m := bridge.NewMetrics()
	sum, err := bridge.Run(ctx, bridge.Config{
		Brokers: brokers, Group: "g", Inputs: []string{`^orders\.[ab]$`}, InputRegex: true, Output: "{topic}-avro",
		DeadLetter: "dlq", Registry: reg, MaxRecords: 2 * n, ExactlyOnce: eos, BatchSize: 3000, Metrics: m,
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Records != 2*n || sum.DeadLettered != 0 {
		t.Fatalf("summary %v, want %d records, none dead-lettered", sum, 2*n)
	}
	de, _ := serde.NewDeserializer(reg, md, protoavro.Options{})
	for _, topic := range []string{"orders.a", "orders.b"} {
		verify(t, de, md, in[topic], kafkatest.ConsumeAll(t, brokers, topic+"-avro", n, time.Minute))
	}
	// The Avro schema is registered under each output topic's subject.
	for _, subject := range []string{"orders.a-avro-value", "orders.b-avro-value"} {
		if _, err := reg.SchemaByVersion(ctx, subject, -1); err != nil {
			t.Errorf("subject %s: %v", subject, err)
		}
	}
	// Nothing came from the topic the expression does not match.
	if got := scrape(t, m)[`protoavro_bridge_records_in_total{topic="payments"}`]; got != 0 {
		t.Errorf("%v records in from payments", got)
	}
}

// TestManyTopicsList: input topics given as a list, all to one output
// topic (no {topic} in it).
func TestManyTopicsList(t *testing.T) {
	const n = 500
	_, brokers := kafkatest.Cluster(t, 2, "a", "b", "out")
	_, reg := kafkatest.Registry(t)
	id := kafkatest.RegisterPerson(t, reg, "a-value", "v2")
	md := kafkatest.Person(t, "v2")
	cl := kafkatest.Client(t, brokers)
	recs := inputs(t, "", md, id, 0, 2*n)
	for i, r := range recs {
		r.Topic = []string{"a", "b"}[i%2]
	}
	kafkatest.Produce(t, cl, recs)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sum, err := bridge.Run(ctx, bridge.Config{Brokers: brokers, Group: "g", Inputs: []string{"a", "b"}, Output: "out",
		Registry: reg, MaxRecords: 2 * n})
	if err != nil || sum.Records != 2*n {
		t.Fatalf("%v, %v", sum, err)
	}
	de, _ := serde.NewDeserializer(reg, md, protoavro.Options{})
	verify(t, de, md, recs, kafkatest.ConsumeAll(t, brokers, "out", 2*n, time.Minute))
}

// TestOutputTopicRead: an output topic that is an input topic or the
// dead-letter topic stops the bridge with ErrConfig naming both. When the
// output topic is known without a record (a list of input topics, or a
// fixed output topic), Run refuses it before it asks the brokers for its
// group (no FindCoordinator, JoinGroup, SyncGroup or
// ConsumerGroupHeartbeat request), as it does a dead-letter topic among the
// inputs and a regular expression that does not compile; with a regular
// expression and {topic} in the output, at the first record whose output
// topic is the dead-letter topic.
func TestOutputTopicRead(t *testing.T) {
	cluster, brokers := kafkatest.Cluster(t, 1, "a", "a-x", "dlq")
	_, reg := kafkatest.Registry(t)
	id := kafkatest.RegisterPerson(t, reg, "a-value", "v2")
	md := kafkatest.Person(t, "v2")
	kafkatest.Produce(t, kafkatest.Client(t, brokers), inputs(t, "a", md, id, 0, 10))
	var groupRequests atomic.Int64
	for _, key := range []kmsg.Key{kmsg.FindCoordinator, kmsg.JoinGroup, kmsg.SyncGroup, kmsg.ConsumerGroupHeartbeat} {
		cluster.ControlKey(int16(key), func(kmsg.Request) (kmsg.Response, error, bool) {
			groupRequests.Add(1)
			return nil, nil, false // counted, then served as usual
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		inputs      []string
		regex       bool
		output, dlq string
		want        string
	}{
		{[]string{"a", "a-x"}, false, "{topic}-x", "", `the output topic "a-x" of input topic "a" is an input topic too`},
		{[]string{"a", "a-x"}, false, "a-x", "", `the output topic "a-x" of input topic "a" is an input topic too`},
		{[]string{"a"}, false, "dlq", "dlq", `the output topic "dlq" of input topic "a" is the dead-letter topic`},
		{[]string{"a"}, false, "{topic}-x", "a-x", `the output topic "a-x" of input topic "a" is the dead-letter topic`},
		{[]string{"^a$"}, true, "dlq", "dlq", `the output topic "dlq" is the dead-letter topic`},
		// Refused before the run too.
		{[]string{"a", "dlq"}, false, "out", "dlq", `the dead-letter topic "dlq" is an input topic`},
		{[]string{"a("}, true, "out", "", `input pattern "a("`},
		// A regular expression whose topics are all left out.
		{[]string{"^a$"}, true, "{topic}", "", `the regular expression "^a$" reads no topic`},
		{[]string{"^b$", "^a"}, true, "a{topic}", "", `the regular expression "^a" reads no topic`},
	} {
		sum, err := bridge.Run(ctx, bridge.Config{Brokers: brokers, Group: "g", Inputs: tc.inputs, InputRegex: tc.regex, Output: tc.output,
			DeadLetter: tc.dlq, Registry: reg})
		if !errors.Is(err, bridge.ErrConfig) || !strings.Contains(err.Error(), tc.want) || sum.Records != 0 {
			t.Errorf("%v → %s: %v, %v; want ErrConfig saying %s", tc.inputs, tc.output, sum, err, tc.want)
		}
	}
	if n := groupRequests.Load(); n != 0 {
		t.Errorf("%d group requests reached the brokers before the configuration was refused", n)
	}
	// The output topic of a topic a regular expression matches is known
	// at its first record.
	sum, err := bridge.Run(ctx, bridge.Config{Brokers: brokers, Group: "g", Inputs: []string{"^a$"}, InputRegex: true, Output: "{topic}-x",
		DeadLetter: "a-x", Registry: reg})
	want := `the output topic "a-x" of input topic "a" is the dead-letter topic`
	if !errors.Is(err, bridge.ErrConfig) || !strings.Contains(err.Error(), want) || sum.Records != 0 {
		t.Errorf("regular expression: %v, %v; want ErrConfig saying %s", sum, err, want)
	}
	if ctx.Err() != nil {
		t.Fatal("the bridge stopped only at the test's deadline")
	}
}

// TestMissingTopic: an output or dead-letter topic that does not exist
// stops the bridge with an error naming it, nothing committed.
func TestMissingTopic(t *testing.T) {
	_, brokers := kafkatest.Cluster(t, 1, "in", "out")
	_, reg := kafkatest.Registry(t)
	id := kafkatest.RegisterPerson(t, reg, "in-value", "v2")
	md := kafkatest.Person(t, "v2")
	recs := append(inputs(t, "in", md, id, 0, 5), &kgo.Record{Topic: "in", Value: []byte("plain text")})
	kafkatest.Produce(t, kafkatest.Client(t, brokers), recs)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, tc := range []struct{ output, dlq, missing string }{
		{"{topic}-missing", "out", "in-missing"},
		{"out", "no-such-dlq", "no-such-dlq"},
	} {
		sum, err := bridge.Run(ctx, bridge.Config{Brokers: brokers, Group: "g", Inputs: []string{"in"}, Output: tc.output,
			DeadLetter: tc.dlq, Registry: reg, MaxRecords: int64(len(recs))})
		if err == nil || !strings.Contains(err.Error(), `producing to topic "`+tc.missing+`"`) || sum.Records != 0 {
			t.Errorf("output %s, dead letters %s: %v, %v; want a stop naming %s", tc.output, tc.dlq, sum, err, tc.missing)
		}
	}
}

package bridge_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/encoding/protowire"
)

// bigSource is a message whose Avro form is much larger than its protobuf
// form: an empty Item is 2 protobuf bytes (tag and length) but 12 Avro
// bytes (every field written).
const bigSource = `syntax = "proto3";
package big;
message Item { string a = 1; string b = 2; string c = 3; int64 d = 4; double e = 5; }
message Person { string name = 1; repeated Item items = 2; }
`

// bigWire returns a Person named name with n empty items, as protobuf bytes.
func bigWire(name string, n int) []byte {
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	b = protowire.AppendString(b, name)
	for range n {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, nil)
	}
	return b
}

// TestOutputTooLarge: a record whose Avro form exceeds what the producer may
// send (its protobuf form fits) is dead-lettered with class too-large, as a
// record that cannot be converted, instead of failing its batch on every
// run; without a dead-letter topic it stops the bridge with an error naming
// it. Both semantics.
func TestOutputTooLarge(t *testing.T) { kafkatest.BothSemantics(t, outputTooLarge) }

func outputTooLarge(t *testing.T, eos bool) {
	_, brokers := kafkatest.Cluster(t, 1, "in", "out", "dlq")
	_, reg := kafkatest.Registry(t)
	md := kafkatest.PersonFrom(t, bigSource)
	var recs []*kgo.Record
	for i := range 5 {
		n := 10
		if i == 2 {
			n = 200_000 // 400 KB of protobuf, 2.4 MB of Avro
		}
		recs = append(recs, &kgo.Record{Topic: "in", Key: []byte("key-" + strconv.Itoa(i)), Value: bigWire("p"+strconv.Itoa(i), n)})
	}
	kafkatest.Produce(t, kafkatest.Client(t, brokers), recs)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := bridge.Config{Brokers: brokers, Group: "g", Inputs: []string{"in"}, Output: "out", Registry: reg, Type: md, MaxRecords: 5, ExactlyOnce: eos}
	sum, err := bridge.Run(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "in[0] offset 2") || sum.Records != 0 {
		t.Fatalf("run without a dead-letter topic: %v, %v; want an error naming offset 2", sum, err)
	}
	cfg.DeadLetter = "dlq"
	sum, err = bridge.Run(ctx, cfg)
	if err != nil || sum.Records != 5 || sum.DeadLettered != 1 {
		t.Fatalf("run with a dead-letter topic: %v, %v", sum, err)
	}
	dl := kafkatest.ConsumeAll(t, brokers, "dlq", 1, time.Minute)
	if len(dl) != 1 || string(dl[0].Key) != "key-2" || len(dl[0].Value) != len(recs[2].Value) || header(dl[0], bridge.HeaderClass) != "too-large" ||
		header(dl[0], bridge.HeaderOffset) != "2" {
		t.Fatalf("dead letters: %v", dl)
	}
	out := kafkatest.ConsumeAll(t, brokers, "out", 4, time.Minute)
	for _, r := range out {
		if string(r.Key) == "key-2" {
			t.Fatalf("the large record was produced")
		}
	}
	if len(out) < 4 {
		t.Fatalf("%d records out, want 4", len(out))
	}
}

func header(r *kgo.Record, key string) string {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}

// Helpers the command's tests share: the mapping options and message
// constructors of the tests, framed input records and the dead letters.

package main

import (
	"strconv"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

var protoavroOptions = protoavro.Options{}

func newMessage(md protoreflect.MessageDescriptor) *dynamicpb.Message {
	return dynamicpb.NewMessage(md)
}

func protoEqual(a, b proto.Message) bool { return proto.Equal(a, b) }

// produceFramed produces n v2 Person records to topic "in" of brokers, keyed
// by their number, each framed as Confluent's protobuf serializer frames a
// record of schema id.
func produceFramed(t *testing.T, brokers []string, id uint32, n int) {
	t.Helper()
	md := kafkatest.Person(t, "v2")
	var recs []*kgo.Record
	for i := range n {
		framed := serde.AppendProtoHeader(nil, id, nil)
		framed = append(framed, kafkatest.Wire(t, kafkatest.NewPerson(md, i))...)
		recs = append(recs, &kgo.Record{Topic: "in", Key: []byte(strconv.Itoa(i)), Value: framed})
	}
	kafkatest.Produce(t, kafkatest.Client(t, brokers), recs)
}

// deadLetter is a dead-lettered record: its key and its error header.
type deadLetter struct{ key, err string }

// deadLetters reads the n records of topic "dlq" of brokers.
func deadLetters(t *testing.T, brokers []string, n int) []deadLetter {
	t.Helper()
	got := kafkatest.ConsumeAll(t, brokers, "dlq", n, 30*time.Second)
	if len(got) != n {
		t.Fatalf("%d dead letters, want %d", len(got), n)
	}
	out := make([]deadLetter, len(got))
	for i, r := range got {
		out[i].key = string(r.Key)
		for _, h := range r.Headers {
			if h.Key == bridge.HeaderError {
				out[i].err = string(h.Value)
			}
		}
	}
	return out
}

package bridge_test

import (
	"context"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
)

// TestTombstones: a record with a null value, a compacted topic's delete
// marker for its key, comes out as a tombstone of the same key, headers and
// timestamp, in raw and in framed mode, under both semantics, counted in the
// summary and the metrics; it is neither converted nor dead-lettered. An
// empty value (no bytes, not null) is the empty protobuf message in raw
// mode, converted to a record of default values.
func TestTombstones(t *testing.T) {
	kafkatest.BothSemantics(t, func(t *testing.T, eos bool) {
		for _, raw := range []bool{true, false} {
			name := "framed"
			if raw {
				name = "raw"
			}
			t.Run(name, func(t *testing.T) { tombstones(t, eos, raw) })
		}
	})
}

func tombstones(t *testing.T, eos, raw bool) {
	brokers, cl, reg, md, id := setup(t, 1)
	var cfgType = md
	live := inputs(t, "in", md, id, 0, 1)[0]
	if raw {
		_, rest, _ := serde.ParseHeader(live.Value)
		_, live.Value, _ = serde.ParseIndexes(rest)
	} else {
		cfgType = nil
	}
	hdrs := []kgo.RecordHeader{{Key: "op", Value: []byte("delete")}}
	ts := time.UnixMilli(1_700_000_000_500)
	recs := []*kgo.Record{
		live,
		{Topic: "in", Key: []byte("key-0"), Value: nil, Headers: hdrs, Timestamp: ts},
	}
	if raw {
		recs = append(recs, &kgo.Record{Topic: "in", Key: []byte("empty"), Value: []byte{}, Timestamp: ts})
	}
	kafkatest.Produce(t, cl, recs)

	m := bridge.NewMetrics()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// No dead-letter topic: a record the bridge could not convert would
	// stop it with an error.
	sum, err := bridge.Run(ctx, bridge.Config{Brokers: brokers, Group: "g", Inputs: []string{"in"}, Output: "out",
		Registry: reg, Type: cfgType, MaxRecords: int64(len(recs)), ExactlyOnce: eos, Metrics: m})
	if err != nil || sum.Records != int64(len(recs)) || sum.DeadLettered != 0 || sum.Tombstones != 1 {
		t.Fatalf("%v, %v; want %d records, 1 tombstone", sum, err, len(recs))
	}
	got := scrape(t, m)
	if v := got[`protoavro_bridge_tombstones_total{topic="in"}`]; v != 1 {
		t.Errorf("protoavro_bridge_tombstones_total = %v, want 1", v)
	}
	if v := got[`protoavro_bridge_records_out_total{topic="out"}`]; v != float64(len(recs)) {
		t.Errorf("protoavro_bridge_records_out_total = %v, want %d", v, len(recs))
	}

	out := kafkatest.ConsumeAll(t, brokers, "out", len(recs), time.Minute)
	if len(out) != len(recs) {
		t.Fatalf("%d records out, want %d", len(out), len(recs))
	}
	de, err := serde.NewDeserializer(reg, md, protoavro.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := proto.MarshalOptions{Deterministic: true}.Marshal(kafkatest.NewPerson(md, 0))
	if err := kafkatest.CheckPerson(ctx, de, md, out[0].Value, 0, want, true); err != nil {
		t.Errorf("the live record: %v", err)
	}
	tomb := out[1]
	if tomb.Value != nil || string(tomb.Key) != "key-0" || !tomb.Timestamp.Equal(ts) ||
		len(tomb.Headers) != 1 || tomb.Headers[0].Key != "op" || string(tomb.Headers[0].Value) != "delete" {
		t.Errorf("tombstone out: key %q value %x (nil %v) headers %v timestamp %v", tomb.Key, tomb.Value, tomb.Value == nil, tomb.Headers, tomb.Timestamp)
	}
	if !raw {
		return
	}
	empty := out[2]
	if empty.Value == nil || string(empty.Key) != "empty" {
		t.Fatalf("empty value out: key %q value nil %v", empty.Key, empty.Value == nil)
	}
	msg := dynamicpb.NewMessage(md)
	if err := de.Decode(ctx, empty.Value, msg); err != nil || !proto.Equal(msg, dynamicpb.NewMessage(md)) {
		t.Errorf("empty value out: decodes to %v, %v; want the empty message", msg, err)
	}
}

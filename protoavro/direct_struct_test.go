package protoavro

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testpb/otlppb/commonpb"
	"github.com/protoavro/protoavro/internal/testpb/otlppb/tracepb"
)

// TestDirectOneofEdges: the direct writer reads oneof interfaces and message
// pointers in place (ifaceWords, plan offsets); every corner of a oneof must
// give the bytes of the wire path (proto.Marshal, then TranscodeToAvro), and
// the direct reader must give back the message proto.Unmarshal gives.
func TestDirectOneofEdges(t *testing.T) {
	c, err := Options{Cache: NewCache()}.Codec((&commonpb.AnyValue{}).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	if c.direct(&commonpb.AnyValue{}) == nil {
		t.Fatal("AnyValue takes no direct plan")
	}
	cases := map[string]*commonpb.AnyValue{
		"unset":             {},
		"typed nil wrapper": {Value: (*commonpb.AnyValue_StringValue)(nil)},
		"empty string":      {Value: &commonpb.AnyValue_StringValue{}},
		"string":            {Value: &commonpb.AnyValue_StringValue{StringValue: "héllo"}},
		"false":             {Value: &commonpb.AnyValue_BoolValue{}},
		"int":               {Value: &commonpb.AnyValue_IntValue{IntValue: -1 << 40}},
		"double":            {Value: &commonpb.AnyValue_DoubleValue{DoubleValue: -0.5}},
		"empty bytes":       {Value: &commonpb.AnyValue_BytesValue{BytesValue: []byte{}}},
		"nil bytes":         {Value: &commonpb.AnyValue_BytesValue{}},
		"bytes":             {Value: &commonpb.AnyValue_BytesValue{BytesValue: []byte{0, 1, 255}}},
		"empty array":       {Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{}}},
		"nil array message": {Value: &commonpb.AnyValue_ArrayValue{}},
		"nested": {Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: []*commonpb.AnyValue{
			{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{Values: []*commonpb.KeyValue{
				{Key: "k", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: 7}}},
				{Key: "none"},
			}}}},
			{},
			nil, // a nil element is written as the empty message, as proto.Marshal does
		}}}},
	}
	for name, m := range cases {
		wire, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		want, err := c.TranscodeToAvro(nil, wire)
		if err != nil {
			t.Fatalf("%s: TranscodeToAvro: %v", name, err)
		}
		got, err := c.Marshal(m)
		if err != nil {
			t.Fatalf("%s: Marshal: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: Marshal %x, wire path %x", name, got, want)
		}
		back := &commonpb.AnyValue{}
		if err := c.Unmarshal(got, back); err != nil {
			t.Fatalf("%s: Unmarshal: %v", name, err)
		}
		ref := &commonpb.AnyValue{}
		if err := proto.Unmarshal(wire, ref); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(back, ref) {
			t.Errorf("%s: Unmarshal gives %v, proto.Unmarshal %v", name, back, ref)
		}
		// The same bytes into a dynamicpb message: the reflective path.
		dm := dynamicpb.NewMessage(m.ProtoReflect().Descriptor())
		if err := c.Unmarshal(got, dm); err != nil {
			t.Fatalf("%s: Unmarshal into dynamicpb: %v", name, err)
		}
		dwire, err := proto.MarshalOptions{Deterministic: true}.Marshal(dm)
		if err != nil || !bytes.Equal(dwire, wire) {
			t.Errorf("%s: dynamicpb gives %x, want %x", name, dwire, wire)
		}
	}
}

// TestDirectOTLPBatch: the committed OTLP batch (the benchmark's datum)
// through the direct writer and reader equals the wire path both ways.
func TestDirectOTLPBatch(t *testing.T) {
	wire, err := os.ReadFile(filepath.Join("..", "testdata", "otlp_traces.pb"))
	if err != nil {
		t.Fatal(err)
	}
	msg := &tracepb.TracesData{}
	if err := proto.Unmarshal(wire, msg); err != nil {
		t.Fatal(err)
	}
	c, err := Options{Cache: NewCache()}.Codec(msg.ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	if c.direct(msg) == nil {
		t.Fatal("TracesData takes no direct plan")
	}
	got, err := c.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	want, err := c.TranscodeToAvro(nil, wire)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Marshal and TranscodeToAvro differ (%d and %d bytes)", len(got), len(want))
	}
	back := &tracepb.TracesData{}
	if err := c.Unmarshal(got, back); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(back, msg) {
		t.Fatal("Unmarshal(Marshal(batch)) differs from the batch")
	}
	// Every truncation of a span-sized prefix fails cleanly (no panic).
	for n := range min(len(got), 4096) {
		if err := c.Unmarshal(got[:n], &tracepb.TracesData{}); err == nil {
			t.Fatalf("Unmarshal of %d of %d bytes succeeded", n, len(got))
		}
	}
}

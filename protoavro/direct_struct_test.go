package protoavro

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/commonpb"
	"github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/tracepb"
	"github.com/protoavro/protoavro/internal/testutil"
)

// TestDirectOneofEdges: the direct writer reads oneof interfaces and message
// pointers in place (ifaceWords, plan offsets); every corner of a oneof must
// give the bytes of the wire path (proto.Marshal, then TranscodeToAvro), and
// the direct reader must give back the message proto.Unmarshal gives.
func TestDirectOneofEdges(t *testing.T) {
	c := mustCodec(t, Options{Cache: NewCache()}, &commonpb.AnyValue{})
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
	c := mustCodec(t, Options{Cache: NewCache()}, msg)
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

// TestDirectScalarBlock: the reader stores a message's pointer-free
// explicit scalars in one block; each field must still be a value of its
// own (writing through one pointer changes no other field), the message
// must equal the original, and Unmarshal must allocate no more than
// proto.Unmarshal of the same message (allocations counted, not timed).
func TestDirectScalarBlock(t *testing.T) {
	msg := testutil.AVRO2147Datum()
	c := mustCodec(t, Options{Cache: NewCache()}, msg)
	data, back := mustRoundTrip(t, c, msg)
	got := back.(*avro2147pb.Foo)
	*got.Int64, *got.Bool, *got.Float = -1, false, 0.25
	want := testutil.AVRO2147Datum()
	want.Int64, want.Bool, want.Float = proto.Int64(-1), proto.Bool(false), proto.Float32(0.25)
	if !proto.Equal(got, want) {
		t.Fatalf("after writes through three field pointers: %v, want %v", got, want)
	}
	wire := testutil.Wire(t, msg)
	ours := testing.AllocsPerRun(100, func() { _ = c.Unmarshal(data, &avro2147pb.Foo{}) })
	theirs := testing.AllocsPerRun(100, func() { _ = proto.Unmarshal(wire, &avro2147pb.Foo{}) })
	if ours > theirs {
		t.Errorf("Unmarshal makes %v allocations, proto.Unmarshal %v", ours, theirs)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = c.MarshalAppend(data[:0], msg) }); n != 0 {
		t.Errorf("MarshalAppend makes %v allocations", n)
	}
}

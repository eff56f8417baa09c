package protoavro

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
)

// carriedStructOptions are the ways a Value is carried whole: as JSON (a
// dynamic value, or a JSON carrier below the recursion bound) or as its
// wire bytes.
var carriedStructOptions = map[string]Options{
	"dynamic json":  {DynamicAsJSON: true},
	"carrier json":  {RecursionDepth: 1, RecursionCarrier: CarrierJSON},
	"carrier bytes": {RecursionDepth: 1, RecursionCarrier: CarrierBytes},
}

// carriedStructType is a message of a Value, and a repeated Value.
func carriedStructType(t testing.TB) protoreflect.MessageDescriptor {
	fd := testcompile.Sources(t, map[string]string{"cs.proto": `syntax = "proto3"; package cs;
		import "google/protobuf/struct.proto";
		message D { google.protobuf.Value v = 1; repeated google.protobuf.Struct s = 2; }`}, "cs.proto")[0]
	return fd.Messages().Get(0)
}

// TestCarriedStructMemory checks that a Value carried whole takes memory
// in proportion to its bytes, both ways, where a dynamicpb message took
// hundreds of bytes an element: a million-element list, a few times its
// wire bytes and no object an element.
func TestCarriedStructMemory(t *testing.T) {
	md := carriedStructType(t)
	const n = 1 << 20
	m := dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal([]byte(`{"v":[`+strings.Repeat("0,", n)+`0]}`), m); err != nil {
		t.Fatal(err)
	}
	wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for name, o := range carriedStructOptions {
		c, err := o.Codec(md)
		if err != nil {
			t.Fatal(err)
		}
		var avro, back []byte
		var err1, err2 error
		a1, n1 := testutil.Allocations(func() { avro, err1 = c.TranscodeToAvro(nil, wire) })
		a2, n2 := testutil.Allocations(func() { back, err2 = c.TranscodeToProto(nil, avro) })
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", name, err1, err2)
		}
		if !bytes.Equal(back, wire) {
			t.Fatalf("%s: the wire bytes do not come back", name)
		}
		size := uint64(len(wire) + len(avro))
		t.Logf("%s: %d bytes of wire, %d of Avro: encode allocates %d bytes in %d objects, decode %d in %d", name, len(wire), len(avro), a1, n1, a2, n2)
		if a1 > 8*size || a2 > 8*size {
			t.Errorf("%s: encode allocates %d bytes, decode %d, for %d bytes of wire and %d of Avro", name, a1, a2, len(wire), len(avro))
		}
		if n1 > 1000 || n2 > 1000 {
			t.Errorf("%s: encode makes %d allocations, decode %d, for %d elements", name, n1, n2, n)
		}
	}
}

// TestCarriedStructAgrees checks values carried whole against the
// parsing path: the same Avro and wire bytes, and the same refusals, for
// valid and invalid values of each carrier.
func TestCarriedStructAgrees(t *testing.T) {
	md := carriedStructType(t)
	jsons := []string{`{}`, `{"v":null}`, `{"v":1}`, `{"v":"x"}`, `{"v":{"b":[1,{"c":null}],"a":true}}`,
		`{"v":[[],[{}],"\u00e9"]}`, `{"s":[{},{"z":1,"y":{"x":[]}}]}`, `{"v":-0}`, `{"v":1e-320}`}
	// Wire values the fast paths decline or refuse: a Value of no kind,
	// NaN, bad UTF-8, two kinds, an unknown field, a truncated value.
	bad := [][]byte{{0x0a, 0x00}, {0x0a, 0x09, 0x11, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f}, {0x0a, 0x03, 0x1a, 0x01, 0xff},
		{0x0a, 0x04, 0x08, 0x00, 0x20, 0x01}, {0x0a, 0x04, 0x08, 0x00, 0x38, 0x01}, {0x0a, 0x02, 0x1a, 0x05},
		{0x12, 0x04, 0x0a, 0x02, 0x0a, 0x00}, {0x12, 0x06, 0x0a, 0x04, 0x0a, 0x00, 0x12, 0x00}}
	var wires [][]byte
	for _, j := range jsons {
		m := dynamicpb.NewMessage(md)
		if err := protojson.Unmarshal([]byte(j), m); err != nil {
			t.Fatal(err)
		}
		w, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		wires = append(wires, w)
	}
	for name, o := range carriedStructOptions {
		c, err := o.Codec(md)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range append(wires, bad...) {
			avro, err := c.TranscodeToAvro(nil, w)
			// The parsing path: Marshal of the message proto.Unmarshal reads.
			m := dynamicpb.NewMessage(md)
			var want []byte
			uerr := proto.Unmarshal(w, m)
			if uerr == nil {
				want, uerr = c.Marshal(m)
			}
			if (err == nil) != (uerr == nil) || err == nil && !bytes.Equal(avro, want) {
				t.Fatalf("%s: TranscodeToAvro(%x) = %x, %v; the parsing path gives %x, %v", name, w, avro, err, want, uerr)
			}
			if err != nil || i >= len(wires) {
				continue // JSON drops unknown fields: no round trip
			}
			back, err := c.TranscodeToProto(nil, avro)
			if err != nil {
				t.Fatalf("%s: TranscodeToProto: %v", name, err)
			}
			m2 := dynamicpb.NewMessage(md)
			if err := proto.Unmarshal(back, m2); err != nil || !proto.Equal(m, m2) {
				t.Fatalf("%s: %x comes back as %x (%v)", name, w, back, err)
			}
		}
	}
}

package pbjson

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
)

// structTypes are the types of struct.proto, as plan roots.
var structTypes = []protoreflect.MessageDescriptor{
	(&structpb.Value{}).ProtoReflect().Descriptor(),
	(&structpb.Struct{}).ProtoReflect().Descriptor(),
	(&structpb.ListValue{}).ProtoReflect().Descriptor(),
}

// TestStructMemory checks that a Value of a million elements takes memory
// in proportion to its bytes, in both directions, at the root and in a
// field: a few times the input and the output, where a dynamicpb message
// took hundreds of bytes an element.
func TestStructMemory(t *testing.T) {
	const n = 1 << 20
	var keys strings.Builder
	keys.WriteString("{")
	for i := range n {
		if i > 0 {
			keys.WriteString(",")
		}
		// Out of order: the entries are sorted.
		fmt.Fprintf(&keys, `"%08d":%d`, (i*7919)%n, i%10)
	}
	keys.WriteString("}")
	cases := map[string]string{
		"list":    "[" + strings.Repeat("0,", n) + "0]",
		"nested":  "[" + strings.Repeat("[],", n) + "[]]",
		"strings": "[" + strings.Repeat(`"ab",`, n) + `"ab"]`,
		"struct":  keys.String(),
	}
	field := structFields(t)
	for name, text := range cases {
		for _, root := range []bool{false, true} {
			md, in := structTypes[0], []byte(text)
			if !root {
				md, in = field, []byte(`{"`+field.Fields().Get(0).JSONName()+`":`+text+`}`)
			}
			p := Compile(md, Options{})
			var wire, back []byte
			var ok1, ok2 bool
			a1, n1 := testutil.Allocations(func() { wire, ok1 = p.AppendWire(nil, in) })
			a2, n2 := testutil.Allocations(func() { back, ok2 = p.AppendJSON(nil, wire) })
			if !ok1 || !ok2 {
				t.Errorf("%s (root %v): declined: %v %v", name, root, ok1, ok2)
				continue
			}
			// The output grows by a quarter at a time: five times its
			// size allocated on the way.
			size := uint64(len(in) + len(wire))
			t.Logf("%s (root %v): %d bytes of JSON, %d of wire: AppendWire allocates %d bytes in %d objects, AppendJSON %d in %d", name, root, len(in), len(wire), a1, n1, a2, n2)
			if a1 > 8*size || a2 > 8*size {
				t.Errorf("%s (root %v): AppendWire allocates %d bytes, AppendJSON %d, for %d bytes of JSON and %d of wire", name, root, a1, a2, len(in), len(wire))
			}
			// And no object an element: the allocations are those of the
			// growing output and scratch space.
			if n1 > 500 || n2 > 500 {
				t.Errorf("%s (root %v): AppendWire makes %d allocations, AppendJSON %d, for %d elements", name, root, n1, n2, n)
			}
			if name != "struct" && !bytes.Equal(back, in) {
				t.Fatalf("%s (root %v): JSON does not come back", name, root)
			}
		}
	}
}

// structFields returns a message type of fields of the types of
// struct.proto, a Value first.
func structFields(t testing.TB) protoreflect.MessageDescriptor {
	fd := testcompile.Sources(t, map[string]string{"sf.proto": `syntax = "proto3"; package sf;
		import "google/protobuf/struct.proto";
		message F {
			google.protobuf.Value v = 1; google.protobuf.Struct s = 2; google.protobuf.ListValue l = 3;
			repeated google.protobuf.Value vs = 4; map<string, google.protobuf.Value> m = 5;
			repeated google.protobuf.Struct ss = 6;
		}`}, "sf.proto")[0]
	return fd.Messages().Get(0)
}

package protoavro

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testutil"
)

// engineVariants are the preset and its variations whose round trips are
// tested: recursion depths 1, 2 and 5 with both carriers.
func engineVariants() []struct {
	name string
	opts Options
} {
	var vs []struct {
		name string
		opts Options
	}
	vs = append(vs, struct {
		name string
		opts Options
	}{"engine", EngineReady()})
	for _, depth := range []int{1, 2, 5} {
		for _, c := range []Carrier{CarrierBytes, CarrierJSON} {
			o := EngineReady()
			o.RecursionDepth, o.RecursionCarrier = depth, c
			vs = append(vs, struct {
				name string
				opts Options
			}{fmt.Sprintf("engine/depth=%d/%s", depth, c), o})
		}
	}
	return vs
}

// jsonSafe makes a random message representable as JSON, which
// DynamicAsJSON and the JSON carrier need: Any values pack a message the
// resolver knows, Values have a kind and hold no NaN or infinity (JSON has
// neither), and NaNs are the canonical one (JSON text keeps no payload bits).
func jsonSafe(m proto.Message) {
	var visit func(sub protoreflect.Message)
	visit = func(sub protoreflect.Message) {
		switch sub.Descriptor().FullName() {
		case "google.protobuf.Any":
			fds := sub.Descriptor().Fields()
			packed, err := anypb.New(durationpb.New(time.Duration(len(sub.Get(fds.ByNumber(2)).Bytes())) * time.Second))
			if err != nil {
				panic(err)
			}
			sub.Set(fds.ByNumber(1), protoreflect.ValueOfString(packed.TypeUrl))
			sub.Set(fds.ByNumber(2), protoreflect.ValueOfBytes(packed.Value))
		case "google.protobuf.Value":
			fds := sub.Descriptor().Fields()
			if fd := fds.ByName("number_value"); sub.Has(fd) {
				if f := sub.Get(fd).Float(); math.IsNaN(f) || math.IsInf(f, 0) {
					sub.Set(fd, protoreflect.ValueOfFloat64(0))
				}
			}
			if sub.WhichOneof(sub.Descriptor().Oneofs().ByName("kind")) == nil {
				sub.Set(fds.ByName("null_value"), protoreflect.ValueOfEnum(0))
			}
		}
		sub.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			canonicalNaNs(sub, fd, v)
			return true
		})
		testutil.WalkMessages(sub, visit)
	}
	visit(m.ProtoReflect())
}

// canonicalNaNs replaces the NaNs of a float or double field by math.NaN().
func canonicalNaNs(m protoreflect.Message, fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	if fd.Kind() != protoreflect.FloatKind && fd.Kind() != protoreflect.DoubleKind {
		if !fd.IsMap() || (fd.MapValue().Kind() != protoreflect.FloatKind && fd.MapValue().Kind() != protoreflect.DoubleKind) {
			return
		}
	}
	nan := protoreflect.ValueOfFloat64(math.NaN())
	if fd.Kind() == protoreflect.FloatKind || (fd.IsMap() && fd.MapValue().Kind() == protoreflect.FloatKind) {
		nan = protoreflect.ValueOfFloat32(float32(math.NaN()))
	}
	switch {
	case fd.IsMap():
		v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			if math.IsNaN(mv.Float()) {
				v.Map().Set(k, nan)
			}
			return true
		})
	case fd.IsList():
		for i := range v.List().Len() {
			if math.IsNaN(v.List().Get(i).Float()) {
				v.List().Set(i, nan)
			}
		}
	case math.IsNaN(v.Float()):
		m.Set(fd, nan)
	}
}

// TestEngineRoundTripRandom: under the preset and its depth and carrier
// variations, random messages of every test type survive Marshal/Unmarshal
// and both transcoders exactly (proto.Equal). A variation runs on the types
// whose schema it changes, those that reach a recursive type: on the
// others its schema is the preset's, byte for byte, and its round trips
// would be more of the preset's own.
func TestEngineRoundTripRandom(t *testing.T) {
	cfg := testutil.DefaultConfig
	cfg.Timestamps = testutil.Micros
	vs := engineVariants()
	for i, v := range vs {
		for _, md := range testutil.Messages() {
			if i > 0 && sameSchemaJSON(t, vs[0].opts, v.opts, md) {
				continue
			}
			t.Run(v.name+"/"+string(md.FullName()), func(t *testing.T) {
				t.Parallel()
				c := mustCodecFor(t, v.opts, md)
				key := testutil.SeedKey(v.name + "/" + string(md.FullName()))
				reuse := testutil.NewMessage(md, false)
				n := rtCount(engineRoundTrips, engineRoundTrips/20)
				if raceEnabled {
					n = engineRoundTrips / 100 // the full count runs without -race (.ci/run)
				}
				for i := range n {
					m := testutil.RandMessage(md, false, key, i, cfg)
					jsonSafe(m)
					if err := checkExactRoundTrip(c, m, reuse); err != nil {
						t.Fatalf("message %d (seed key %#x): %v\nmessage:\n%s", i, key, err, shortText(m))
					}
				}
			})
		}
	}
}

// sameSchemaJSON reports whether a and b give md the same schema, in its
// whole JSON form.
func sameSchemaJSON(t *testing.T, a, b Options, md protoreflect.MessageDescriptor) bool {
	t.Helper()
	sa, sb := mustSchema(t, a, md), mustSchema(t, b, md)
	return bytes.Equal(sa.root.JSON(), sb.root.JSON())
}

// engineRoundTrips is the number of random messages per type and variant.
const engineRoundTrips = 10000

// TestEngineReadyFinite: the reference mapping of Foo is recursive; the
// preset's schemas of every test message are finite, with nullable unions
// only of the form ["null", T] and timestamps in microseconds.
func TestEngineReadyFinite(t *testing.T) {
	foo := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	ref := mustSchema(t, Options{}, foo)
	if !recursive(ref.root) {
		t.Error("the default mapping of Foo is not recursive")
	}
	for _, v := range engineVariants() {
		for _, md := range append(testutil.Messages(), foo) {
			s, err := v.opts.Schema(md)
			if err != nil {
				t.Fatalf("%s %s: %v", v.name, md.FullName(), err)
			}
			if recursive(s.root) {
				t.Errorf("%s %s: recursive schema", v.name, md.FullName())
			}
			s.root.Walk(func(n *avroschema.Node) {
				switch {
				case n.Type == avroschema.Union && (len(n.Branches) != 2 || n.Branches[0].Type != avroschema.Null || n.Branches[1].Type == avroschema.Null):
					t.Errorf("%s %s: union %s", v.name, md.FullName(), n.JSON())
				case strings.HasPrefix(n.Logical, "timestamp-") && n.Logical != "timestamp-micros":
					t.Errorf("%s %s: %s", v.name, md.FullName(), n.Logical)
				}
			})
		}
	}
}

// recursive reports whether a schema tree refers to a record enclosing the
// reference, the recursion that engines cannot load.
func recursive(root *avroschema.Node) bool {
	var open []*avroschema.Node
	var walk func(n *avroschema.Node) bool
	walk = func(n *avroschema.Node) bool {
		if n.IsRef() {
			for _, o := range open {
				if o == n.Def {
					return true
				}
			}
			return false
		}
		if n.Type == avroschema.Record {
			open = append(open, n)
			defer func() { open = open[:len(open)-1] }()
		}
		for i := range n.Fields {
			if walk(n.Fields[i].Type) {
				return true
			}
		}
		for _, c := range append(append([]*avroschema.Node{}, n.Branches...), n.Items, n.Values) {
			if c != nil && walk(c) {
				return true
			}
		}
		return false
	}
	return walk(root)
}

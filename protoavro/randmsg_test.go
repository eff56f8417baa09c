package protoavro

import (
	"math"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The random messages of the round-trip tests come from testutil's
// generator (internal/testutil/randmsg.go).

// TestRandMessageCoverage checks the generator: over a few hundred
// messages of each test type, every field (each oneof member, map and list
// included) is set at least once, and the edge values occur somewhere.
func TestRandMessageCoverage(t *testing.T) {
	edges := map[string]bool{}
	note := func(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
		switch fd.Kind() {
		case protoreflect.DoubleKind, protoreflect.FloatKind:
			f := v.Float()
			k := fd.Kind().String()
			switch {
			case math.IsNaN(f):
				edges[k+" NaN"] = true
			case f == 0 && math.Signbit(f):
				edges[k+" -0"] = true
			case math.IsInf(f, 1):
				edges[k+" +Inf"] = true
			case math.IsInf(f, -1):
				edges[k+" -Inf"] = true
			}
		case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
			if v.Int() == math.MinInt64 {
				edges["int64 min"] = true
			}
		case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
			if v.Int() == math.MinInt32 {
				edges["int32 min"] = true
			}
		case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
			if v.Uint() == math.MaxUint64 {
				edges["uint64 max"] = true
			}
		case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
			if v.Uint() == math.MaxUint32 {
				edges["uint32 max"] = true
			}
		case protoreflect.StringKind:
			if v.String() == "" {
				edges["empty string"] = true
			}
			for _, c := range v.String() {
				if c >= 0x10000 {
					edges["astral string"] = true
				}
			}
		case protoreflect.BytesKind:
			if len(v.Bytes()) >= 128 {
				edges["large bytes"] = true
			}
		case protoreflect.EnumKind:
			if v.Enum() < 0 {
				edges["negative enum"] = true
			}
		}
	}
	var walk func(m protoreflect.Message, d int)
	walk = func(m protoreflect.Message, d int) {
		if d >= testutil.DefaultConfig.MaxDepth {
			edges["max depth"] = true
		}
		if m.Descriptor().FullName() == "google.protobuf.Timestamp" && m.Get(m.Descriptor().Fields().ByNumber(1)).Int() < 0 {
			edges["timestamp before 1970"] = true
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsMap():
				v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
					note(fd.MapKey(), k.Value())
					if fd.MapValue().Message() != nil {
						walk(mv.Message(), d+1)
					} else {
						note(fd.MapValue(), mv)
					}
					return true
				})
			case fd.IsList():
				for i := range v.List().Len() {
					if fd.Message() != nil {
						walk(v.List().Get(i).Message(), d+1)
					} else {
						note(fd, v.List().Get(i))
					}
				}
			case fd.Message() != nil:
				walk(v.Message(), d+1)
			default:
				note(fd, v)
			}
			return true
		})
	}
	for _, md := range testutil.Messages() {
		seen := map[protoreflect.Name]bool{}
		key := testutil.SeedKey("coverage/" + string(md.FullName()))
		for i := range 400 {
			m := testutil.RandMessage(md, i%2 == 1, key, i, testutil.DefaultConfig).ProtoReflect()
			if err := proto.CheckInitialized(m.Interface()); err != nil {
				t.Fatalf("%s: %v", md.FullName(), err)
			}
			m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
				seen[fd.Name()] = true
				return true
			})
			walk(m, 0)
		}
		for i := range md.Fields().Len() {
			if fd := md.Fields().Get(i); !seen[fd.Name()] {
				t.Errorf("%s: field %s never set", md.FullName(), fd.Name())
			}
		}
	}
	for _, e := range []string{"double NaN", "double -0", "double +Inf", "double -Inf", "float NaN", "float -0", "float +Inf", "float -Inf",
		"int64 min", "int32 min", "uint64 max", "uint32 max", "empty string", "astral string", "large bytes", "negative enum",
		"max depth", "timestamp before 1970"} {
		if !edges[e] {
			t.Errorf("no %s generated", e)
		}
	}
}

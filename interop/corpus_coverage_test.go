package interop

import (
	"math"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// TestCorpusCoverage checks the corpus itself, with no other
// implementation: in each profile, every field of every test message type
// (each oneof member, list and map included) is set in some message, and
// the edge values the interoperability tests promise occur.
func TestCorpusCoverage(t *testing.T) {
	setFields := map[protoreflect.FullName]bool{}
	edges := map[string]bool{}
	note := func(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
		switch fd.Kind() {
		case protoreflect.DoubleKind, protoreflect.FloatKind:
			f, k := v.Float(), fd.Kind().String()
			switch {
			case math.IsNaN(f):
				edges[k+" NaN"] = true
			case math.IsInf(f, 1):
				edges[k+" +Inf"] = true
			case math.IsInf(f, -1):
				edges[k+" -Inf"] = true
			case f == 0 && math.Signbit(f):
				edges[k+" -0"] = true
			case f != 0 && math.Abs(f) < 1e-300 && fd.Kind() == protoreflect.DoubleKind,
				f != 0 && math.Abs(f) < 1e-38 && fd.Kind() == protoreflect.FloatKind:
				edges[k+" subnormal"] = true
			}
		case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
			edges["int32 min"] = edges["int32 min"] || v.Int() == math.MinInt32
			edges["int32 max"] = edges["int32 max"] || v.Int() == math.MaxInt32
		case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
			edges["int64 min"] = edges["int64 min"] || v.Int() == math.MinInt64
			edges["int64 max"] = edges["int64 max"] || v.Int() == math.MaxInt64
		case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
			edges["uint32 max"] = edges["uint32 max"] || v.Uint() == math.MaxUint32
		case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
			edges["uint64 max"] = edges["uint64 max"] || v.Uint() == math.MaxUint64
		case protoreflect.StringKind:
			s := v.String()
			edges["empty string"] = edges["empty string"] || s == ""
			for _, c := range s {
				switch {
				case c == 0:
					edges["NUL in a string"] = true
				case c >= 0x10000:
					edges["non-BMP string"] = true
				case c >= 0x80:
					edges["non-ASCII string"] = true
				}
			}
		case protoreflect.BytesKind:
			edges["empty bytes"] = edges["empty bytes"] || len(v.Bytes()) == 0
			edges["large bytes"] = edges["large bytes"] || len(v.Bytes()) >= 4096
		case protoreflect.EnumKind:
			edges["negative enum"] = edges["negative enum"] || v.Enum() < 0
		}
	}
	// walk notes the message at depth d: recursion is the depth of a
	// message inside messages of its own type.
	var walk func(m protoreflect.Message, d int, same int)
	walk = func(m protoreflect.Message, d, same int) {
		if same >= 5 {
			edges["recursion 5 levels deep"] = true
		}
		sub := func(child protoreflect.Message) {
			s := 0
			if child.Descriptor() == m.Descriptor() {
				s = same + 1
			}
			walk(child, d+1, s)
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			setFields[fd.FullName()] = true
			switch {
			case fd.IsMap():
				if d > 0 {
					edges["nested map"] = true
				}
				v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
					note(fd.MapKey(), k.Value())
					if fd.MapValue().Message() != nil {
						sub(mv.Message())
					} else {
						note(fd.MapValue(), mv)
					}
					return true
				})
			case fd.IsList():
				if d > 0 {
					edges["nested list"] = true
				}
				for i := range v.List().Len() {
					if fd.Message() != nil {
						sub(v.List().Get(i).Message())
					} else {
						note(fd, v.List().Get(i))
					}
				}
			case fd.Message() != nil:
				sub(v.Message())
			default:
				note(fd, v)
			}
			return true
		})
	}
	for _, profile := range []string{"default", "java"} {
		clear(setFields)
		for _, c := range testCases(t, false) {
			if strings.HasPrefix(c.name, profile+"/") {
				for _, m := range c.msgs {
					walk(m.ProtoReflect(), 0, 0)
				}
			}
		}
		for _, md := range testutil.Messages() {
			for i := range md.Fields().Len() {
				if fd := md.Fields().Get(i); !setFields[fd.FullName()] {
					t.Errorf("%s profile: field %s is never set", profile, fd.FullName())
				}
			}
		}
	}
	for _, e := range []string{"double NaN", "double +Inf", "double -Inf", "double -0", "double subnormal",
		"float NaN", "float +Inf", "float -Inf", "float -0", "float subnormal", "int32 min", "int32 max", "int64 min", "int64 max",
		"uint32 max", "uint64 max", "empty string", "NUL in a string", "non-ASCII string", "non-BMP string", "empty bytes", "large bytes",
		"negative enum", "nested list", "nested map", "recursion 5 levels deep"} {
		if !edges[e] {
			t.Errorf("the corpus has no %s", e)
		}
	}
	n := 0
	for _, c := range testCases(t, false) {
		n += len(c.msgs)
	}
	t.Logf("%d cases, %d messages, %d fields set", len(testCases(t, false)), n, len(setFields))
}

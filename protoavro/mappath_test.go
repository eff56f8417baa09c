package protoavro

import (
	"errors"
	"io"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testutil"
)

// mapPathProto has maps of several key kinds, with enum and message
// values, and a Struct.
const mapPathProto = `syntax = "proto3";
package mappath;
import "google/protobuf/struct.proto";
enum Color { RED = 0; GREEN = 1; }
message Inner { repeated Color cs = 1; }
message M {
  map<int64, Color> m = 1;
  map<string, Inner> mi = 2;
  map<bool, Color> bm = 3;
  map<string, Color> sm = 4;
  map<sint32, Color> zm = 5;
  google.protobuf.Struct st = 6;
  map<string, M> deep = 7;
}
`

// TestWriteErrorNamesMapEntryByKey: an error inside a map entry names the
// entry by its key, as the readers do (`M.m."7"`), whichever its position
// on the wire and the key's kind (the key in its Avro text form), under
// both map mappings and on every write path (TranscodeToAvro, Marshal of
// a dynamic and of a generated message); a key that is not valid UTF-8 is
// shown escaped, an absent key as its default, a long one cut, and an
// entry whose bytes do not parse by its position, "[entry N]".
func TestWriteErrorNamesMapEntryByKey(t *testing.T) {
	md := compileMessage(t, mapPathProto, "mappath.M")
	tag := func(num protowire.Number, wt protowire.Type) []byte { return protowire.AppendTag(nil, num, wt) }
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	entry := func(num protowire.Number, body ...[]byte) []byte {
		return protowire.AppendBytes(tag(num, protowire.BytesType), cat(body...))
	}
	varint := func(num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(tag(num, protowire.VarintType), v)
	}
	str := func(num protowire.Number, s string) []byte {
		return protowire.AppendString(tag(num, protowire.BytesType), s)
	}
	long := strings.Repeat("k", 300)
	for _, c := range []struct {
		name string
		json string // the record as JSON, or
		wire []byte // as wire bytes
		path string
		// entries is the path under MapAsEntryArray, when not path: an
		// entry record names its value field.
		entries string
		err     error
	}{
		{name: "int64 key", json: `{"m":{"5":"GREEN","7":9}}`, path: `M.m."7"`, entries: `M.m."7".value`, err: ErrUnknownEnum},
		{name: "message value", json: `{"mi":{"b":{"cs":[1]},"zz":{"cs":[9]}}}`, path: `M.mi."zz".cs[0]`, err: ErrUnknownEnum},
		{name: "bool key", json: `{"bm":{"false":1,"true":7}}`, path: `M.bm."true"`, entries: `M.bm."true".value`, err: ErrUnknownEnum},
		{name: "sint32 key", json: `{"zm":{"-3":7}}`, path: `M.zm."-3"`, entries: `M.zm."-3".value`, err: ErrUnknownEnum},
		{name: "Struct", json: `{"st":{"a":1,"b":{"c":[true,{"d":null}]}}}`, wire: nil, path: "", err: nil},
		{name: "Struct value", wire: entry(6, entry(1, str(1, "a"), entry(2, varint(4, 1))), entry(1, str(1, "k"), entry(2, varint(1, 5)))), path: `M.st.fields."k".null_value`, err: ErrUnknownEnum},
		{name: "key not UTF-8", wire: entry(4, str(1, "a\xff"), varint(2, 1)), path: `M.sm."a\xff".key`, err: ErrMalformed},
		{name: "key with escapes", wire: entry(4, str(1, "\x1b[31m\u202e"), varint(2, 9)), path: `M.sm."\x1b[31m\u202e"`, err: ErrUnknownEnum},
		{name: "long key", wire: entry(4, str(1, long), varint(2, 9)), path: `M.sm."` + strings.Repeat("k", 64) + `… (300 bytes)"`, err: ErrUnknownEnum},
		{name: "no key", wire: cat(entry(1, varint(1, 1), varint(2, 1)), entry(1, varint(2, 9))), path: `M.m."0"`, entries: `M.m."0".value`, err: ErrUnknownEnum},
		{name: "no string key", wire: entry(4, varint(2, 9)), path: `M.sm.""`, err: ErrUnknownEnum},
		{name: "no bool key", wire: entry(3, varint(2, 9)), path: `M.bm."false"`, entries: `M.bm."false".value`, err: ErrUnknownEnum},
		{name: "key twice", wire: entry(1, varint(1, 1), varint(1, 2), varint(2, 9)), path: `M.m."2"`, entries: `M.m."2".value`, err: ErrUnknownEnum},
		{name: "entry cut short", wire: cat(entry(1, varint(1, 1)), entry(1, varint(1, 4), tag(2, protowire.VarintType))), path: `M.m[entry 1].#2`, err: ErrTruncated},
		{name: "nested", json: `{"deep":{"a":{"deep":{"b\"c":{"m":{"12":5}}}}}}`, path: `M.deep."a".deep."b\"c".m."12"`, entries: `M.deep."a".(2 more).m."12".value`, err: ErrUnknownEnum},
	} {
		wire := c.wire
		if c.json != "" {
			m := dynamicpb.NewMessage(md)
			if err := protojson.Unmarshal([]byte(c.json), m); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			var err error
			if wire, err = proto.Marshal(m); err != nil {
				t.Fatal(err)
			}
		}
		for _, o := range []Options{{}, {MapKeys: MapAsEntryArray}} {
			path := c.path
			if o.MapKeys == MapAsEntryArray && c.entries != "" {
				path = c.entries
			}
			codec := mustCodecFor(t, o, md)
			_, err := codec.TranscodeToAvro(nil, wire)
			var de *DataError
			switch {
			case c.err == nil:
				if err != nil {
					t.Errorf("%s, %v: %v", c.name, o.MapKeys, err)
				}
			case !errors.Is(err, c.err) || !errors.As(err, &de) || de.Path != path:
				t.Errorf("%s, %v: %v; want %v at %s", c.name, o.MapKeys, err, c.err, path)
			}
		}
	}

	// Marshal of a generated message: the direct writer writes maps by
	// the transcoder, in key order.
	m := &kitchenpb.Maps{Sint64ToEnum: map[int64]kitchenpb.Color{-3: 99, 1: kitchenpb.Color_COLOR_RED}, Fixed32ToNestedEnum: map[uint32]kitchenpb.Outer_OuterEnum{4294967295: 77}}
	_, err := mustCodec(t, Options{}, m).Marshal(m)
	var de *DataError
	if !errors.Is(err, ErrUnknownEnum) || !errors.As(err, &de) || de.Path != `Maps.sint64_to_enum."-3"` || de.Offset != -1 {
		t.Errorf("Marshal: %v; want ErrUnknownEnum at Maps.sint64_to_enum.\"-3\"", err)
	}
	m.Sint64ToEnum = nil
	if _, err := mustCodec(t, Options{}, m).Marshal(m); !errors.As(err, &de) || de.Path != `Maps.fixed32_to_nested_enum."4294967295"` {
		t.Errorf("Marshal: %v; want ErrUnknownEnum at Maps.fixed32_to_nested_enum.\"4294967295\"", err)
	}
}

// TestWriteMapPathBounded: an error deep in nested maps, under keys that
// escape to four times their length, has a short path, and building it
// costs no more than the datum justifies: the path is built once, not again
// by each level of the one-pass writer that gives up on the datum.
func TestWriteMapPathBounded(t *testing.T) {
	md := compileMessage(t, mapPathProto, "mappath.M")
	key := strings.Repeat("\x1b", 100)
	// M{deep: {key: M{deep: {key: ... M{m: {1: 9}}}}}}, 990 levels.
	wire := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte{8, 1, 16, 9})
	for range 990 {
		var e []byte
		e = protowire.AppendString(protowire.AppendTag(e, 1, protowire.BytesType), key)
		e = protowire.AppendBytes(protowire.AppendTag(e, 2, protowire.BytesType), wire)
		wire = protowire.AppendBytes(protowire.AppendTag(nil, 7, protowire.BytesType), e)
	}
	codec := mustCodecFor(t, Options{}, md)
	var err error
	n := testutil.Allocated(func() { _, err = codec.TranscodeToAvro(nil, wire) })
	if !errors.Is(err, ErrUnknownEnum) || len(err.Error()) > 2048 || !strings.Contains(err.Error(), "more)") {
		t.Errorf("an error of %d bytes: %.600v; want ErrUnknownEnum, short", len(err.Error()), err)
	}
	if n > 8<<20 {
		t.Errorf("TranscodeToAvro allocated %d MiB", n>>20)
	}
}

// TestMarshalNamesInvalidUTF8: a string that is not valid UTF-8 anywhere in
// a message that proto.Marshal refuses (a map key or value, a message or
// StringValue in a map, at any depth) is a DataError of class ErrMalformed
// with the path that TranscodeToAvro gives for the same bytes (an entry
// record of MapAsEntryArray and of the Java profile names its value field),
// whether the message is generated or dynamic, and through a ContainerWriter.
func TestMarshalNamesInvalidUTF8(t *testing.T) {
	const marker, bad = "<bad>", "\xff\xfe\xfd\xfc\xfb"
	for _, c := range []struct {
		name string
		m    proto.Message // holding marker where the bad bytes go
		path string        // under the default options
	}{
		{"map key", &kitchenpb.Maps{StringToString: map[string]string{"a": "b", "k" + marker: "v"}}, `Maps.string_to_string."k\xff\xfe\xfd\xfc\xfb".key`},
		{"map value", &kitchenpb.Maps{StringToString: map[string]string{"a": "b", "k": "v" + marker}}, `Maps.string_to_string."k"`},
		{"nested map", &kitchenpb.Tree{Label: "top", Named: map[string]*kitchenpb.Tree{"a": {Named: map[string]*kitchenpb.Tree{"b": {Label: marker}}}}}, `Tree.named."a".named."b".label`},
		{"StringValue in a map", &kitchenpb.WellKnown{MapStringWrapper: map[string]*wrapperspb.StringValue{"w": wrapperspb.String(marker)}}, `WellKnown.map_string_wrapper."w"`},
		{"int32 key", &kitchenpb.Maps{Int32ToString: map[int32]string{-5: "v" + marker, 7: "ok"}}, `Maps.int32_to_string."-5"`},
		{"bool key, message value", &kitchenpb.Maps{BoolToMessage: map[bool]*kitchenpb.Scalars{true: {StringField: marker}}}, `Maps.bool_to_message."true".string_field`},
		{"list", &kitchenpb.Tree{Children: []*kitchenpb.Tree{{}, {Label: marker}}}, `Tree.children[1].label`},
	} {
		good, err := proto.MarshalOptions{Deterministic: true}.Marshal(c.m)
		if err != nil {
			t.Fatal(err)
		}
		wire := []byte(strings.Replace(string(good), marker, bad, 1))
		gen := proto.Clone(c.m)
		setBad(gen.ProtoReflect(), marker, bad)
		dyn := dynamicpb.NewMessage(gen.ProtoReflect().Descriptor())
		proto.Merge(dyn, gen)
		for _, o := range []Options{{}, {MapKeys: MapAsEntryArray}, {Profile: JavaProfile}} {
			codec := mustCodecFor(t, o, gen.ProtoReflect().Descriptor())
			_, err := codec.TranscodeToAvro(nil, wire)
			var want *DataError
			if !errors.Is(err, ErrMalformed) || !errors.As(err, &want) {
				t.Fatalf("%s, %v: TranscodeToAvro: %v; want ErrMalformed", c.name, o.MapKeys, err)
			}
			if o == (Options{}) && want.Path != c.path {
				t.Errorf("%s: TranscodeToAvro names %s; want %s", c.name, want.Path, c.path)
			}
			for _, in := range []struct {
				name string
				m    proto.Message
			}{{"generated", gen}, {"dynamic", dyn}} {
				_, err := codec.Marshal(in.m)
				var de *DataError
				if !errors.Is(err, ErrMalformed) || !errors.As(err, &de) || de.Path != want.Path || de.Offset != -1 {
					t.Errorf("%s, %v: Marshal of a %s message: %v; want ErrMalformed at %s, offset -1", c.name, o.MapKeys, in.name, err, want.Path)
				}
				w, err := NewContainerWriter(io.Discard, gen.ProtoReflect().Descriptor(), ContainerOptions{Options: o})
				if err != nil {
					t.Fatal(err)
				}
				err = w.Write(in.m)
				if err == nil {
					err = w.Close()
				}
				if !errors.Is(err, ErrMalformed) || !errors.As(err, &de) || de.Path != want.Path {
					t.Errorf("%s, %v: ContainerWriter.Write of a %s message: %v; want ErrMalformed at %s", c.name, o.MapKeys, in.name, err, want.Path)
				}
			}
		}
	}
}

// setBad replaces marker by bad in the first string of m holding it: a
// field, a list element, a map key or value, at any depth.
func setBad(m protoreflect.Message, marker, bad string) bool {
	done := false
	fix := func(s string) (string, bool) {
		if !done && strings.Contains(s, marker) {
			done = true
			return strings.Replace(s, marker, bad, 1), true
		}
		return s, false
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			mp := v.Map()
			mp.Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if s, ok := fix(k.String()); ok && fd.MapKey().Kind() == protoreflect.StringKind {
					mp.Clear(k)
					mp.Set(protoreflect.ValueOfString(s).MapKey(), mv)
					return false
				}
				switch fd.MapValue().Kind() {
				case protoreflect.StringKind:
					if s, ok := fix(mv.String()); ok {
						mp.Set(k, protoreflect.ValueOfString(s))
					}
				case protoreflect.MessageKind:
					done = done || setBad(mv.Message(), marker, bad)
				}
				return !done
			})
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len() && !done; i++ {
				if fd.Kind() == protoreflect.MessageKind {
					done = setBad(l.Get(i).Message(), marker, bad)
				}
			}
		case fd.Kind() == protoreflect.StringKind:
			if s, ok := fix(v.String()); ok {
				m.Set(fd, protoreflect.ValueOfString(s))
			}
		case fd.Kind() == protoreflect.MessageKind:
			done = done || setBad(v.Message(), marker, bad)
		}
		return !done
	})
	return done
}

package protoavro

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

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

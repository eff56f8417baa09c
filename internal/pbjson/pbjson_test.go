package pbjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
)

// deterministic is how the command marshals what protojson reads.
var deterministic = proto.MarshalOptions{Deterministic: true}

// wantWire is the slow path of AppendWire: protojson.Unmarshal into a
// dynamic message, then deterministic proto.Marshal.
func wantWire(md protoreflect.MessageDescriptor, text []byte) ([]byte, error) {
	m := dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal(text, m); err != nil {
		return nil, err
	}
	return deterministic.Marshal(m)
}

// wantJSON is the slow path of AppendJSON: proto.Unmarshal into a dynamic
// message, then protojson.Marshal.
func wantJSON(md protoreflect.MessageDescriptor, wire []byte) (_ []byte, err error) {
	// protobuf-go (v1.36.12) panics in proto.Unmarshal into a dynamicpb
	// message on a map entry that repeats its key field with another wire
	// type (a fuzz find): that counts as protobuf refusing the input.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("proto.Unmarshal panicked: %v", r)
		}
	}()
	m := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(wire, m); err != nil {
		return nil, err
	}
	return protojson.Marshal(m)
}

// checkWire checks AppendWire on text against protojson: when the fast
// path accepts text, protojson accepts it too and the bytes are the same.
// It returns whether the fast path accepted.
func checkWire(t testing.TB, p *Plan, md protoreflect.MessageDescriptor, text []byte) bool {
	t.Helper()
	got, want, ok := fastAndSlow(t, md, "AppendWire", p.AppendWire, wantWire, text, short)
	if ok && !bytes.Equal(got, want) {
		t.Fatalf("%s: AppendWire(%s)\n got %s\nwant %s", md.FullName(), short(text), shortHex(got), shortHex(want))
	}
	return ok
}

// fastAndSlow calls fast, AppendWire or AppendJSON (called name), on in
// with a dst that holds a prefix, and checks that it keeps dst: appends
// after it when it accepts, leaves it unchanged when it declines. When
// fast accepts, so must slow, its slow path (wantWire or wantJSON); show
// (short or shortHex) writes in for the messages. It returns what fast
// appended, what slow made and whether fast accepted.
func fastAndSlow(t testing.TB, md protoreflect.MessageDescriptor, name string, fast func(dst, in []byte) ([]byte, bool), slow func(protoreflect.MessageDescriptor, []byte) ([]byte, error), in []byte, show func([]byte) string) (got, want []byte, ok bool) {
	t.Helper()
	prefix := []byte("prefix[")
	got, ok = fast(bytes.Clone(prefix), in)
	if !bytes.HasPrefix(got, prefix) {
		t.Fatalf("%s: %s lost dst", md.FullName(), name)
	}
	if !ok {
		if len(got) != len(prefix) {
			t.Fatalf("%s: %s declined but changed dst", md.FullName(), name)
		}
		return nil, nil, false
	}
	want, err := slow(md, in)
	if err != nil {
		t.Fatalf("%s: %s accepts %s, its slow path rejects it: %v", md.FullName(), name, show(in), err)
	}
	return got[len(prefix):], want, true
}

// checkJSON checks AppendJSON on wire against protojson: when the fast
// path accepts wire, proto.Unmarshal and protojson.Marshal accept it too
// and the JSON means the same. It returns whether the fast path accepted.
func checkJSON(t testing.TB, p *Plan, md protoreflect.MessageDescriptor, wire []byte) bool {
	t.Helper()
	text, want, ok := fastAndSlow(t, md, "AppendJSON", p.AppendJSON, wantJSON, wire, shortHex)
	// A Formatter writes the same bytes and declines the same input, on
	// its first use and again with its scratch space used.
	f := p.Formatter()
	for range 2 {
		if got, fok := f.AppendJSON(nil, wire); fok != ok || !bytes.Equal(got, text) {
			t.Fatalf("%s: Formatter.AppendJSON(%s) = %s, %v; Plan.AppendJSON gives %s, %v", md.FullName(), shortHex(wire), short(got), fok, short(text), ok)
		}
	}
	if !ok {
		return false
	}
	if bytes.ContainsAny(text, "\n\r") {
		t.Fatalf("%s: JSON spans lines: %s", md.FullName(), text)
	}
	// protojson varies its whitespace: compare by meaning.
	if g, w := testutil.JSONValue(t, text), testutil.JSONValue(t, want); !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: AppendJSON(%s)\n got %s\nwant %s", md.FullName(), shortHex(wire), short(text), short(want))
	}
	// And protojson reads it back as the same message, as it reads back
	// its own JSON of the message: the JSON form drops what JSON cannot
	// hold, such as the unknown fields inside a well-known wrapper (a fuzz
	// find). protojson cannot read its own JSON when two fields of a
	// message share a JSON name (a duplicate field); the meaning compared
	// above is then all there is to check.
	ref := dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal(want, ref); err != nil {
		return true
	}
	m := dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal(text, m); err != nil {
		t.Fatalf("%s: protojson cannot read %s: %v", md.FullName(), text, err)
	}
	if !proto.Equal(m, ref) && !hasNaN(ref) {
		t.Fatalf("%s: %s reads back as another message", md.FullName(), short(text))
	}
	return true
}

// short returns b, or its start and end when it is long, for messages.
func short(b []byte) string {
	if len(b) <= 600 {
		return string(b)
	}
	return fmt.Sprintf("%s ...(%d bytes)... %s", b[:300], len(b)-600, b[len(b)-300:])
}

// shortHex returns b in hex as short does.
func shortHex(b []byte) string {
	return short(fmt.Appendf(nil, "%x", b))
}

// hasNaN reports whether m holds a NaN, which proto.Equal never equals.
func hasNaN(m proto.Message) bool {
	b, _ := protojson.Marshal(m)
	return bytes.Contains(b, []byte(`"NaN"`))
}

// TestRandomMessages converts random and edge-value messages of every
// test type both ways and compares with protojson. For the types the fast
// paths support, they must take every message (none falls back).
func TestRandomMessages(t *testing.T) {
	n := 20
	if testing.Short() {
		n = 6
	}
	for _, md := range testTypes(t) {
		t.Run(string(md.FullName()), func(t *testing.T) {
			p := Compile(md, Options{})
			msgs := testutil.Corpus(md, testutil.CorpusConfig{Edges: 3, Random: n}, testutil.Nanos, "pbjson")
			for i := range n {
				cfg := testutil.DefaultConfig
				cfg.UnknownEnums = true
				msgs = append(msgs, testutil.RandMessage(md, true, testutil.SeedKey("pbjson-dyn/"+string(md.FullName())), i, cfg))
			}
			wireOK, wireValid, jsonOK, valid := 0, 0, 0, 0
			for _, m := range msgs {
				wire, err := deterministic.Marshal(m)
				if err != nil {
					t.Fatal(err)
				}
				if checkJSON(t, p, md, wire) {
					jsonOK++
				}
				if _, err := protojson.Marshal(m); err != nil {
					// An Any of a type that is not linked in has no JSON
					// form; checkJSON checked that the fast path declined.
					continue
				}
				valid++
				for _, opts := range []protojson.MarshalOptions{{}, {UseProtoNames: true}, {Multiline: true}} {
					text, err := opts.Marshal(m)
					if err != nil {
						t.Fatal(err)
					}
					if checkWire(t, p, md, text) {
						wireOK++
					}
					// protojson cannot read its own JSON when two
					// fields share a JSON name.
					if _, err := wantWire(md, text); err == nil {
						wireValid++
					}
				}
			}
			t.Logf("%d messages (%d with a JSON form): AppendJSON took %d, AppendWire %d of %d (supported: %v)", len(msgs), valid, jsonOK, wireOK, wireValid, p.Supported())
			if p.Supported() && (jsonOK != valid || wireOK != wireValid) {
				t.Errorf("the fast paths declined valid messages of a supported type: JSON %d of %d, wire %d of %d", jsonOK, valid, wireOK, wireValid)
			}
		})
	}
}

// kitchen is the test type with every kind of field.
func kitchen(t testing.TB) protoreflect.MessageDescriptor {
	for _, md := range testutil.Messages() {
		if md.FullName() == "protoavro.test.kitchen.KitchenSink" {
			return md
		}
	}
	t.Fatal("no KitchenSink")
	return nil
}

// TestJSONForms checks inputs that protojson accepts in several forms,
// and inputs that it rejects, against protojson, for each test type.
func TestJSONForms(t *testing.T) {
	took, valid := 0, 0
	for _, md := range testTypes(t) {
		p := Compile(md, Options{})
		cases := jsonCases(md)
		for _, text := range cases {
			if checkWire(t, p, md, []byte(text)) {
				took++
			}
			if _, err := wantWire(md, []byte(text)); err == nil && p.Supported() {
				valid++
			}
		}
	}
	t.Logf("%d valid cases of the supported types, %d taken by the fast path", valid, took)
	// The forms the fast path declines are rare ones (numbers with
	// exponents for integers, surrogate escapes): most valid cases are
	// taken.
	if took < valid*3/4 {
		t.Errorf("the fast path took %d of %d valid cases", took, valid)
	}
}

// jsonCases are JSON texts for md built from its fields: for each field,
// values of every JSON kind, valid and not.
func jsonCases(md protoreflect.MessageDescriptor) []string {
	values := []string{
		`null`, `true`, `false`, `0`, `-0`, `1`, `-1`, `01`, `1.0`, `1e2`, `1E+2`, `-1.5e-3`, `2147483648`,
		`-2147483649`, `4294967296`, `9223372036854775808`, `18446744073709551616`, `1e400`, `3.5e38`,
		`"1"`, `" 1"`, `"1 "`, `"-0"`, `"1e2"`, `"NaN"`, `"Infinity"`, `"-Infinity"`, `"nan"`, `""`,
		`"AQID"`, `"AQI"`, `"AQ=="`, `"AQ="`, `"-_8"`, `"+/8="`, `"AQ\nID"`, `"a\u00e9\ud83d\ude00"`,
		`"\ud800"`, `"\u0000"`, `"\x"`, `"é"`, "\"\xff\"", `"FOO"`, `"a"`, `[]`, `[1,2]`, `[null]`, `["a","b"]`,
		`[1,]`, `{}`, `{"a":1}`, `{"1":"x","01":"y"}`, `{"true":1}`, `{"":1}`, `{"k":null}`, `{"k":{}}`,
		`[{}]`, `[{},{}]`, `{"seconds":1}`, `"1970-01-01T00:00:00Z"`, `"1.5s"`, `truex`, `nul`, `1x`,
	}
	var out []string
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		for _, name := range []string{fd.JSONName(), string(fd.Name())} {
			for _, v := range values {
				out = append(out, fmt.Sprintf(`{%q:%s}`, name, v))
			}
		}
		switch {
		case fd.IsList():
			for _, v := range values {
				out = append(out, fmt.Sprintf(`{%q:[%s]}`, fd.JSONName(), v), fmt.Sprintf(`{%q:[%s,%s]}`, fd.JSONName(), v, v))
			}
		case fd.IsMap():
			for _, k := range mapKeys {
				for _, v := range values {
					out = append(out, fmt.Sprintf(`{%q:{%s:%s}}`, fd.JSONName(), k, v))
				}
				out = append(out, fmt.Sprintf(`{%q:{%s:{},"1":{}}}`, fd.JSONName(), k))
			}
		}
		if ev := fd.Enum(); ev != nil && ev.Values().Len() > 0 {
			out = append(out, fmt.Sprintf(`{%q:%q}`, fd.JSONName(), ev.Values().Get(ev.Values().Len()-1).Name()))
			out = append(out, fmt.Sprintf(`{%q:[%q]}`, fd.JSONName(), ev.Values().Get(0).Name()))
		}
		if i+1 < fields.Len() {
			g := fields.Get(i + 1)
			out = append(out, fmt.Sprintf(`{%q:null,%q:null}`, fd.JSONName(), g.JSONName()))
			out = append(out, fmt.Sprintf(`{%q:null,%q:null}`, fd.JSONName(), fd.TextName()))
		}
	}
	out = append(out, ``, ` `, `{`, `}`, `{}x`, `{} `, ` {}`, `{"unknown":1}`, `{,}`, `[]`, `null`, `{"a" 1}`)
	return out
}

// mapKeys are the JSON map keys of jsonCases: valid and not for each kind
// of key.
var mapKeys = []string{`"1"`, `"+1"`, `"-0"`, `"01"`, `" 1"`, `"1e2"`, `"true"`, `"True"`, `"4294967296"`,
	`"-2147483649"`, `"\u0031"`, `""`, `"9223372036854775808"`, `"18446744073709551615"`}

// FuzzAppendWire checks AppendWire against protojson on any input, for
// each test type: the fast path may decline, but what it accepts,
// protojson accepts with the same wire bytes.
func FuzzAppendWire(f *testing.F) {
	mds, plans := fuzzTypes(f, 2, protojson.Marshal)
	k := kitchen(f)
	for _, text := range jsonCases(k)[:200] {
		f.Add(uint8(indexOf(mds, k)), []byte(text))
	}
	f.Fuzz(func(t *testing.T, typ uint8, text []byte) {
		i := int(typ) % len(mds)
		checkWire(t, plans[i], mds[i], text)
	})
}

// FuzzAppendJSON checks AppendJSON against proto.Unmarshal and protojson on
// any input, for each test type.
func FuzzAppendJSON(f *testing.F) {
	mds, plans := fuzzTypes(f, 1, deterministic.Marshal)
	scalars := indexOf(mds, findType(f, mds, "protoavro.test.kitchen.Scalars"))
	for _, wire := range wireForms {
		f.Add(uint8(scalars), wire)
	}
	enumMaps := indexOf(mds, findType(f, mds, "enums2.EnumMaps"))
	for _, wire := range enumMapWires {
		f.Add(uint8(enumMaps), wire)
	}
	// Maps whose keys repeat: string, int32 and bool keys.
	mapsType := indexOf(mds, findType(f, mds, "protoavro.test.kitchen.Maps"))
	var dup []byte
	for _, k := range []string{"b", "a", "b", "", "a"} {
		dup = appendEntry(dup, 12, protowire.BytesType, []byte(k), []byte(k+"v"))
	}
	for _, k := range []byte{5, 1, 5, 0} {
		dup = appendEntry(dup, 1, protowire.VarintType, []byte{k}, nil)
	}
	for _, k := range []byte{1, 0, 2, 0} {
		dup = appendEntry(dup, 11, protowire.VarintType, []byte{k}, []byte{k})
	}
	f.Add(uint8(mapsType), dup)
	f.Fuzz(func(t *testing.T, typ uint8, wire []byte) {
		i := int(typ) % len(mds)
		checkJSON(t, plans[i], mds[i], wire)
	})
}

// fuzzTypes returns the test types and their plans, for a fuzz target of
// (type, input) that picks the type by its index modulo their number. It
// seeds f with a corpus of each type, edge values and random messages of
// it, marshalled by marshal.
func fuzzTypes(f *testing.F, random int, marshal func(proto.Message) ([]byte, error)) ([]protoreflect.MessageDescriptor, []*Plan) {
	mds := testTypes(f)
	plans := make([]*Plan, len(mds))
	for i, md := range mds {
		for _, m := range testutil.Corpus(md, testutil.CorpusConfig{Edges: 1, Random: random}, testutil.Nanos, "fuzz") {
			in, _ := marshal(m)
			f.Add(uint8(i), in)
		}
		plans[i] = Compile(md, Options{})
	}
	return mds, plans
}

// extraProtos hold test types that the generated test protos lack:
// fields whose JSON names clash, which proto2 and editions with json_format
// LEGACY_BEST_EFFORT allow, and a proto2 enum whose first value is not 0.
var extraProtos = map[string]string{
	"clash2.proto": `syntax = "proto2"; package clash2;
		message Clash { optional int32 foo_bar = 1; optional int32 fooBar = 2; optional int32 z = 3; }`,
	"clash2023.proto": `edition = "2023"; package clash2023;
		message Clash { option features.json_format = LEGACY_BEST_EFFORT; int32 foo_bar = 1; int32 fooBar = 2; int32 z = 3; }`,
	"enums2.proto": `syntax = "proto2"; package enums2;
		enum E { B = 1; A = 0; }
		enum F { Z = 0; Y = 1; }
		message EnumMaps { map<string, E> e = 1; map<int32, F> f = 2; map<bool, string> s = 3; repeated E l = 4; optional E o = 5; }`,
}

// testTypes are the message types that the tests and the fuzz targets
// check: those of testutil, then those of extraProtos (after, so that the
// type bytes of the fuzz corpus keep their types).
func testTypes(t testing.TB) []protoreflect.MessageDescriptor {
	mds := testutil.Messages()
	for _, fd := range testcompile.Sources(t, extraProtos, slices.Sorted(maps.Keys(extraProtos))...) {
		mds = append(mds, testutil.AllMessages(fd)...)
	}
	return mds
}

// findType returns the type of mds named name.
func findType(t testing.TB, mds []protoreflect.MessageDescriptor, name protoreflect.FullName) protoreflect.MessageDescriptor {
	t.Helper()
	for _, md := range mds {
		if md.FullName() == name {
			return md
		}
	}
	t.Fatalf("no type %s", name)
	return nil
}

func indexOf(mds []protoreflect.MessageDescriptor, md protoreflect.MessageDescriptor) int {
	for i, m := range mds {
		if m == md {
			return i
		}
	}
	return 0
}

// TestJSONNameConflict checks messages whose fields share a JSON name
// (extraProtos): protojson reads the name as the first such field (and
// the other's name as its own), so a key names the first field, and the
// name twice is a duplicate field.
func TestJSONNameConflict(t *testing.T) {
	mds := testTypes(t)
	for _, name := range []protoreflect.FullName{"clash2.Clash", "clash2023.Clash"} {
		md := findType(t, mds, name)
		p := Compile(md, Options{})
		for _, text := range []string{`{"fooBar":1}`, `{"z":3,"fooBar":1}`, `{"foo_bar":5,"fooBar":1}`,
			`{"fooBar":1,"fooBar":2}`, `{"z":3,"foo_bar":1}`, `{"fooBar":1,"foo_bar":2}`} {
			checkWire(t, p, md, []byte(text))
		}
		for _, wire := range [][]byte{{0x08, 1}, {0x10, 1}, {0x10, 2, 0x18, 3}, {0x08, 1, 0x10, 2}} {
			checkJSON(t, p, md, wire)
		}
	}
}

// TestWireForms checks AppendJSON on valid wire forms that deterministic
// proto.Marshal does not write, against proto.Unmarshal and protojson.
func TestWireForms(t *testing.T) {
	md := testutil.FindMessage(kitchen(t).ParentFile(), "protoavro.test.kitchen.Scalars")
	p := Compile(md, Options{})
	for _, wire := range wireForms {
		checkJSON(t, p, md, wire)
	}
}

// wireForms are wire bytes of a protoavro.test.kitchen.Scalars in forms
// that deterministic proto.Marshal does not write.
var wireForms = [][]byte{
	{0x72, 0x80, 0x00},       // string_field "", its length a 2-byte varint
	{0x7a, 0x80, 0x80, 0x00}, // bytes_field empty, a 3-byte length
	{0x18, 0x80, 0x00},       // int32_field 0 in 2 bytes
	{0x98, 0x80, 0x00, 0x01}, // a 3-byte tag: int32_field 1
	{0x72, 0x81, 0x00, 'a'},  // string_field "a", a 2-byte length
}

// TestMapEntryDefaults checks AppendJSON on map entries without a key or
// value: proto.Unmarshal gives them the field's default, which for an
// enum is its first value, not always 0 in proto2 (enums2.EnumMaps).
func TestMapEntryDefaults(t *testing.T) {
	md := findType(t, testTypes(t), "enums2.EnumMaps")
	p := Compile(md, Options{})
	for _, wire := range enumMapWires {
		checkJSON(t, p, md, wire)
	}
}

// enumMapWires are wire bytes of an enums2.EnumMaps with map entries that
// lack their key or value.
var enumMapWires = [][]byte{
	{0x0a, 0x03, 0x0a, 0x01, 'k'}, // e: key "k", no value
	{0x0a, 0x00},                  // e: no key, no value
	{0x0a, 0x02, 0x10, 0x00},      // e: no key, value A
	{0x12, 0x02, 0x08, 0x05},      // f: key 5, no value
	{0x1a, 0x00},                  // s: no key, no value
}

// TestMapDuplicateKeys checks AppendJSON on maps whose keys appear more
// than once, of every kind of key, against proto.Unmarshal and protojson
// byte for byte: the last entry of a key wins (a missing key is the
// default, the same key as an explicit one; a message value replaces the
// earlier one, it is not merged), in protojson's order of keys. A replaced
// entry that proto.Unmarshal refuses is declined.
func TestMapDuplicateKeys(t *testing.T) {
	kfd := kitchen(t).ParentFile()
	mapsMD := testutil.FindMessage(kfd, "protoavro.test.kitchen.Maps")
	tree := testutil.FindMessage(kfd, "protoavro.test.kitchen.Tree")
	v := func(n uint64) []byte { return protowire.AppendVarint(nil, n) }
	zz := func(n int64) []byte { return v(protowire.EncodeZigZag(n)) }
	f32 := func(n uint32) []byte { return protowire.AppendFixed32(nil, n) }
	f64 := func(n uint64) []byte { return protowire.AppendFixed64(nil, n) }
	s := func(s string) []byte { return []byte(s) }
	neg := func(n int64) []byte { return v(uint64(n)) }
	// entries appends map entries of field num with keys of wire type kt
	// and values of wire type vt: pairs of key and value, nil for none.
	entries := func(num protowire.Number, kt, vt protowire.Type, kv ...[]byte) []byte {
		var out []byte
		for i := 0; i < len(kv); i += 2 {
			var e []byte
			e = appendEntryField(e, 1, kt, kv[i])
			e = appendEntryField(e, 2, vt, kv[i+1])
			out = protowire.AppendTag(out, num, protowire.BytesType)
			out = protowire.AppendBytes(out, e)
		}
		return out
	}
	point := func(x, y uint64) []byte {
		var b []byte
		if x != 0 {
			b = append(protowire.AppendTag(b, 1, protowire.VarintType), v(x)...)
		}
		if y != 0 {
			b = append(protowire.AppendTag(b, 2, protowire.VarintType), v(y)...)
		}
		return b
	}
	const vi, by, i32, i64 = protowire.VarintType, protowire.BytesType, protowire.Fixed32Type, protowire.Fixed64Type
	accepted := []struct {
		name string
		md   protoreflect.MessageDescriptor
		wire []byte
	}{
		{"int32 keys", mapsMD, entries(1, vi, by, v(5), s("a"), neg(-1), s("b"), v(5), s("c"), neg(-1), s("d"))},
		{"int32 key missing, then 0", mapsMD, entries(1, vi, by, nil, s("z"), v(0), s("y"), v(3), s("x"))},
		{"int32 key 0, then missing", mapsMD, entries(1, vi, by, v(0), s("y"), nil, s("z"))},
		{"int32 keys in other forms", mapsMD, entries(1, vi, by, v(1<<32|7), s("high bits"), v(7), s("seven"), []byte{0x80, 0x00}, s("long zero"), nil, nil)},
		{"int64 keys", mapsMD, entries(2, vi, vi, neg(-9), v(1), v(9), v(2), neg(-9), v(3), nil, v(4), v(0), nil)},
		{"uint32 keys", mapsMD, entries(3, vi, vi, v(1<<32-1), v(1), v(1), v(2), v(1<<32-1), v(3))},
		{"uint64 keys", mapsMD, entries(4, vi, vi, v(1<<64-1), v(1), v(2), v(2), v(1<<64-1), v(3), v(2), v(4))},
		{"sint32 keys", mapsMD, entries(5, vi, vi, zz(-3), zz(1), zz(3), zz(2), zz(-3), zz(-5))},
		{"sint64 keys", mapsMD, entries(6, vi, vi, zz(-1<<63), zz(1), zz(1<<63-1), zz(2), zz(-1<<63), zz(3))},
		{"fixed32 keys", mapsMD, entries(7, i32, i32, f32(9), f32(1), f32(9), f32(2), nil, f32(3), f32(0), f32(4))},
		{"fixed64 keys", mapsMD, entries(8, i64, i64, f64(1<<63), f64(1), f64(1<<63), f64(2))},
		{"sfixed32 keys", mapsMD, entries(9, i32, i32, f32(1<<32-2), f32(1), f32(2), f32(2), f32(1<<32-2), f32(3))},
		{"sfixed64 keys", mapsMD, entries(10, i64, i64, f64(1<<64-2), f64(1), f64(1<<64-2), f64(2))},
		{"bool keys", mapsMD, entries(11, vi, vi, v(1), v(0), v(0), v(1), v(2), v(1), nil, v(0), v(1), nil)},
		{"bool keys, true twice", mapsMD, entries(11, vi, vi, v(1), v(1), v(1), v(0))},
		{"string keys", mapsMD, entries(12, by, by, s("b"), s("1"), s("a"), s("2"), s("b"), s("3"), s(""), s("4"), nil, s("5"), s("a"), nil)},
		{"string keys, escaped", mapsMD, entries(12, by, by, s("\"\n"), s("1"), s("é"), s("2"), s("\"\n"), s("3"))},
		{"string keys, double values", mapsMD, entries(13, by, i64, s("x"), f64(0x7ff8000000000001), s("x"), f64(0x3ff0000000000000))},
		{"string keys, bytes values", mapsMD, entries(16, by, by, s("x"), s("\xff\xfe"), s("x"), s("\x00"))},
		{"message values replace", mapsMD, entries(21, by, by, s("p"), point(1, 0), s("q"), point(5, 6), s("p"), point(0, 2))},
		{"message value then none", mapsMD, entries(21, by, by, s("p"), point(1, 2), s("p"), nil)},
		{"int32 keys, message values", mapsMD, entries(22, vi, by, v(2), point(1, 1), v(1), point(2, 2), v(2), point(3, 3))},
		{"bool keys, message values", mapsMD, entries(23, vi, by, v(1), nil, v(1), s("\x18\x01"))},
		{"string keys, enum values", mapsMD, entries(31, by, vi, s("c"), v(1), s("c"), v(2), s("d"), v(99), s("d"), v(0))},
		{"sint64 keys, enum values", mapsMD, entries(32, vi, vi, zz(-2), v(2), zz(-2), nil)},
		{"two maps", mapsMD, append(entries(12, by, by, s("k"), s("1"), s("k"), s("2")), entries(11, vi, vi, v(0), v(1), v(0), v(0))...)},
		{"nested maps", tree, entries(4, by, by,
			s("a"), append(s("\x0a\x01x"), entries(4, by, by, s("b"), s("\x0a\x01y"), s("b"), s("\x0a\x01z"))...),
			s("c"), nil,
			s("a"), entries(4, by, by, s("d"), nil, s("d"), s("\x0a\x01w")))},
	}
	for _, c := range accepted {
		t.Run(c.name, func(t *testing.T) {
			p := Compile(c.md, Options{})
			want, err := wantJSON(c.md, c.wire)
			if err != nil {
				t.Fatalf("protobuf refuses %s: %v", shortHex(c.wire), err)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, want); err != nil {
				t.Fatal(err)
			}
			got, ok := p.Formatter().AppendJSON(nil, c.wire)
			if !ok {
				t.Fatalf("AppendJSON declined %s", shortHex(c.wire))
			}
			if !bytes.Equal(got, compact.Bytes()) {
				t.Errorf("AppendJSON(%s)\n got %s\nwant %s", shortHex(c.wire), got, compact.Bytes())
			}
			checkJSON(t, p, c.md, c.wire)
		})
	}
	// A replaced entry that proto.Unmarshal refuses (a proto3 string not
	// UTF-8, a message value cut short) makes the record refused: the fast
	// path declines it.
	declined := [][]byte{
		entries(12, by, by, s("k"), s("\xff"), s("k"), s("ok")),
		entries(12, by, by, s("k\xff"), s("1"), s("k\xff"), s("2")),
		entries(21, by, by, s("p"), s("\x08"), s("p"), point(1, 1)),
	}
	p := Compile(mapsMD, Options{})
	for _, wire := range declined {
		if _, err := wantJSON(mapsMD, wire); err == nil {
			t.Errorf("protobuf accepts %s", shortHex(wire))
		}
		if checkJSON(t, p, mapsMD, wire) {
			t.Errorf("AppendJSON accepts %s", shortHex(wire))
		}
	}
}

// TestMapDuplicateKeyMemory formats maps of a million entries whose keys
// repeat (all one key; distinct keys but one) and counts the bytes
// allocated: the entries' scratch space, 8 bytes an entry, within 16.
func TestMapDuplicateKeyMemory(t *testing.T) {
	md := testutil.FindMessage(kitchen(t).ParentFile(), "protoavro.test.kitchen.Maps")
	p := Compile(md, Options{})
	const n = 1 << 20
	// key appends the key of entry i, "k" and i in 7 digits.
	key := func(dst []byte, i int) []byte {
		dst = append(dst, "k0000000"...)
		for j := len(dst) - 1; i > 0; j, i = j-1, i/10 {
			dst[j] = '0' + byte(i%10)
		}
		return dst
	}
	for _, c := range []struct {
		name       string
		wire, want func() []byte
	}{
		{"one key",
			func() (w []byte) {
				for i := range n {
					w = appendEntry(w, 12, protowire.BytesType, []byte("a"), []byte{'0' + byte(i%10)})
				}
				return w
			},
			func() []byte { return fmt.Appendf(nil, `{"stringToString":{"a":"%d"}}`, (n-1)%10) }},
		{"one key twice",
			func() (w []byte) {
				var k []byte
				for i := range n - 1 {
					k = key(k[:0], i)
					w = appendEntry(w, 12, protowire.BytesType, k, []byte("v"))
				}
				return appendEntry(w, 12, protowire.BytesType, key(nil, n/2), []byte("last"))
			},
			func() []byte {
				b := []byte(`{"stringToString":{`)
				for i := range n - 1 {
					if i > 0 {
						b = append(b, ',')
					}
					b = append(key(append(b, '"'), i), `":"v"`...)
					if i == n/2 {
						b = append(b[:len(b)-2], `last"`...)
					}
				}
				return append(b, "}}"...)
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wire, want := c.wire(), c.want()
			dst := make([]byte, 0, len(want))
			f := p.Formatter()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got, ok := f.AppendJSON(dst, wire)
			runtime.ReadMemStats(&after)
			perEntry := float64(after.TotalAlloc-before.TotalAlloc) / n
			t.Logf("%.1f bytes allocated an entry", perEntry)
			if perEntry > 16 {
				t.Errorf("formatting a map of %d entries allocated %.1f bytes an entry, want at most 16", n, perEntry)
			}
			if !ok {
				t.Fatal("AppendJSON declined")
			}
			if !bytes.Equal(got, want) {
				t.Errorf("AppendJSON = %s, want %s", short(got), short(want))
			}
		})
	}
}

// TestJSONNameNotUTF8: a json_name that is not UTF-8 (descriptors are
// untrusted) makes no JSON key: the plan declines its type, as protojson
// refuses to write it, rather than write a key that is not JSON.
func TestJSONNameNotUTF8(t *testing.T) {
	fdp := &descriptorpb.FileDescriptorProto{
		Name: proto.String("jn.proto"), Package: proto.String("jn"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("M"),
			Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("a"), Number: proto.Int32(1), JsonName: proto.String("\xff\xfe"),
				Type: descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
			}},
		}},
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Skipf("protodesc refuses the json_name itself: %v", err)
	}
	md := fd.Messages().Get(0)
	p := Compile(md, Options{})
	if p.Supported() {
		t.Fatal("the plan supports a type whose json_name is not UTF-8")
	}
	wire := []byte{0x08, 1}
	if out, ok := p.AppendJSON(nil, wire); ok {
		t.Fatalf("AppendJSON wrote %q", out)
	}
	if _, err := wantJSON(md, wire); err == nil {
		t.Fatal("protojson writes the name: the plan need not decline")
	}
}

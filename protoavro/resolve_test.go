package protoavro

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testpb/legacypb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// resolveDatum resolves the writer schema text against md's default codec
// and unmarshals datum with the resolver into a new dynamic message.
func resolveDatum(t *testing.T, md protoreflect.MessageDescriptor, writer string, datum []byte) (*dynamicpb.Message, error) {
	t.Helper()
	return resolveDatumWith(t, Options{}, md, writer, datum)
}

// resolveDatumWith is resolveDatum with o's codec.
func resolveDatumWith(t *testing.T, o Options, md protoreflect.MessageDescriptor, writer string, datum []byte) (*dynamicpb.Message, error) {
	t.Helper()
	r, err := resolveText(t, o, md, writer)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	m := dynamicpb.NewMessage(md)
	return m, r.Unmarshal(datum, m)
}

// resolveText resolves the writer schema text against md's codec of o.
func resolveText(t *testing.T, o Options, md protoreflect.MessageDescriptor, writer string) (*Resolver, error) {
	t.Helper()
	c := mustCodecFor(t, o, md)
	ws, err := ParseSchema([]byte(writer))
	if err != nil {
		t.Fatal(err)
	}
	return c.Resolve(ws)
}

// A writer long read as a float is rounded once, to the nearest float32,
// as Java's (float) conversion does; rounding to a double first rounds
// 2^60+2^36+1 down to the tie 2^60+2^36, which then rounds to even (2^60).
func TestResolveLongToFloatRoundsOnce(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p; message M { float f = 1; repeated float fs = 2; }`, "p.M")
	const x = int64(1)<<60 | int64(1)<<36 | 1
	datum := appendLong(nil, x)
	datum = appendLong(datum, 1) // one item
	datum = appendLong(datum, x)
	datum = appendLong(datum, 0)
	m, err := resolveDatum(t, md, `{"type":"record","name":"M","fields":[{"name":"f","type":"long"},{"name":"fs","type":{"type":"array","items":"long"}}]}`, datum)
	if err != nil {
		t.Fatal(err)
	}
	want := float32(x)
	if want != float32(1<<60+1<<37) {
		t.Fatalf("test premise: float32(%d) = %g", x, want)
	}
	if got := float32(m.Get(md.Fields().ByName("f")).Float()); got != want {
		t.Errorf("f = %g (bits %#x), want %g (bits %#x)", got, math.Float32bits(got), want, math.Float32bits(want))
	}
	if got := float32(m.Get(md.Fields().ByName("fs")).List().Get(0).Float()); got != want {
		t.Errorf("fs[0] = %g, want %g", got, want)
	}
}

// A writer's optional array or map (["null", array], ["null", map]), as
// other Avro writers commonly declare them, resolves against a repeated or
// map field: by Avro's rules a writer union is resolved branch by branch,
// and the array branch matches the reader's array. null reads as empty.
func TestResolveWriterUnionOfArrayAndMap(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p;
		message E { int32 v = 1; }
		message M { repeated int32 xs = 1; map<string, int32> m = 2; repeated E es = 3; map<int32, string> im = 4; }`, "p.M")
	writer := `{"type":"record","name":"M","fields":[
		{"name":"xs","type":["null",{"type":"array","items":"int"}]},
		{"name":"m","type":["null",{"type":"map","values":"int"}]},
		{"name":"es","type":["null",{"type":"array","items":{"type":"record","name":"E","fields":[{"name":"v","type":"int"}]}}]},
		{"name":"im","type":[{"type":"map","values":"string"},"null"]}]}`
	var d []byte
	d = appendLong(d, 1) // xs: the array branch
	d = appendLong(d, 2)
	d = appendLong(d, 7)
	d = appendLong(d, -3)
	d = appendLong(d, 0)
	d = appendLong(d, 1) // m: the map branch
	d = appendLong(d, 1)
	d = appendAvroBytes(d, []byte("k"))
	d = appendLong(d, 9)
	d = appendLong(d, 0)
	d = appendLong(d, 1) // es: the array branch
	d = appendLong(d, 1)
	d = appendLong(d, 5)
	d = appendLong(d, 0)
	d = appendLong(d, 0) // im: the map branch
	d = appendLong(d, 1)
	d = appendAvroBytes(d, []byte("-4"))
	d = appendAvroBytes(d, []byte("four"))
	d = appendLong(d, 0)
	m, err := resolveDatum(t, md, writer, d)
	if err != nil {
		t.Fatal(err)
	}
	fs := md.Fields()
	if xs := m.Get(fs.ByName("xs")).List(); xs.Len() != 2 || xs.Get(0).Int() != 7 || xs.Get(1).Int() != -3 {
		t.Errorf("xs = %v, want [7 -3]", xs)
	}
	if mm := m.Get(fs.ByName("m")).Map(); mm.Len() != 1 || mm.Get(protoreflect.ValueOfString("k").MapKey()).Int() != 9 {
		t.Errorf("m = %v, want {k: 9}", mm)
	}
	if es := m.Get(fs.ByName("es")).List(); es.Len() != 1 || es.Get(0).Message().Get(md.Fields().ByName("es").Message().Fields().ByName("v")).Int() != 5 {
		t.Errorf("es = %v, want [{v: 5}]", es)
	}
	if im := m.Get(fs.ByName("im")).Map(); im.Len() != 1 || im.Get(protoreflect.ValueOfInt32(-4).MapKey()).String() != "four" {
		t.Errorf("im = %v, want {-4: four}", im)
	}

	// Every union null: the fields stay empty.
	d = []byte{0, 0, 0, 2}
	m, err = resolveDatum(t, md, writer, d)
	if err != nil {
		t.Fatal(err)
	}
	for i := range fs.Len() {
		if m.Has(fs.Get(i)) {
			t.Errorf("%s set from a null union", fs.Get(i).Name())
		}
	}

	// A map carried as an array of entry records, behind a union.
	o := Options{MapKeys: MapAsEntryArray}
	text, err := mustSchema(t, o, md).JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `"name": "p.M.ImEntry"`) {
		t.Fatalf("test premise: no ImEntry record in\n%s", text)
	}
	writer = `{"type":"record","name":"M","fields":[
		{"name":"im","type":["null",{"type":"array","items":{"type":"record","name":"ImEntry","fields":[
			{"name":"key","type":"int"},{"name":"value","type":"string"}]}}]}]}`
	d = appendLong([]byte{2, 2}, -4) // the array branch, one entry
	d = appendAvroBytes(d, []byte("four"))
	d = append(d, 0)
	if m, err = resolveDatumWith(t, o, md, writer, d); err != nil {
		t.Fatal(err)
	}
	if im := m.Get(fs.ByName("im")).Map(); im.Len() != 1 || im.Get(protoreflect.ValueOfInt32(-4).MapKey()).String() != "four" {
		t.Errorf("entries im = %v, want {-4: four}", im)
	}
}

// A writer enum symbol the reader lacks reads as the reader enum's default
// symbol (Avro's rule; Java's ResolvingGrammarGenerator), which under the
// Java profile is the explicit default of the field that defines the enum,
// not necessarily its first value.
func TestResolveUnknownSymbolReadsReaderEnumDefault(t *testing.T) {
	md := compileMessage(t, `syntax = "proto2"; package p;
		enum Color { RED = 0; GREEN = 1; BLUE = 2; }
		message M { optional Color c = 1 [default = BLUE]; optional int32 n = 2; }`, "p.M")
	o := Options{Profile: JavaProfile}
	if e := mustSchema(t, o, md).root.Deref().Fields[0].Type.Deref(); e.EnumDefault != "BLUE" {
		t.Fatalf("test premise: the reader enum's default is %q, not BLUE", e.EnumDefault)
	}
	m, err := resolveDatumWith(t, o, md, `{"type":"record","name":"M","fields":[
		{"name":"c","type":{"type":"enum","name":"Color","symbols":["RED","GREEN","BLUE","PURPLE"]}},
		{"name":"n","type":"int"}]}`, []byte{3 << 1, 2}) // PURPLE, n = 1
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Get(md.Fields().ByName("c")).Enum(); got != 2 {
		t.Errorf("c = %d, want BLUE (2), the reader enum's default", got)
	}
}

// A writer field of type null resolves against a reader field whose union
// holds null (Avro: a reader union takes the first branch matching the
// writer's type), so data whose writer declared a field "null" reads with
// the field unset; a reader field that cannot be null still refuses it.
func TestResolveWriterNullIntoNullable(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p;
		message E { int32 v = 1; }
		message M { optional int32 n = 1; E e = 2; int32 k = 3; }`, "p.M")
	m, err := resolveDatum(t, md, `{"type":"record","name":"M","fields":[
		{"name":"n","type":"null"},{"name":"e","type":"null"},{"name":"k","type":"int"}]}`, []byte{6})
	if err != nil {
		t.Fatal(err)
	}
	fs := md.Fields()
	if m.Has(fs.ByName("n")) || m.Has(fs.ByName("e")) || m.Get(fs.ByName("k")).Int() != 3 {
		t.Errorf("got %v, want only k = 3", m)
	}
	if _, err := resolveText(t, Options{}, md, `{"type":"record","name":"M","fields":[{"name":"k","type":"null"}]}`); !errors.Is(err, ErrIncompatible) {
		t.Errorf("null read as a plain int: %v, want ErrIncompatible", err)
	}
}

// A list of records that take no bytes although they have fields (proto2
// Marker holds only a required empty message) decodes through the direct
// struct reader as through the transcoder: the block count of such items is
// not bounded by the bytes left, since they take none.
func TestUnmarshalStructZeroSizeRecordsWithFields(t *testing.T) {
	m := &legacypb.Markers{After: proto.Int32(7)}
	for range 5 {
		m.Markers = append(m.Markers, &legacypb.Marker{Nothing: &legacypb.Nothing{}})
	}
	c := mustCodec(t, Options{}, m)
	data, err := c.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.directPlan(m); !d.readable {
		t.Fatal("test premise: Markers does not take the direct reader")
	}
	got := &legacypb.Markers{}
	if err := c.Unmarshal(data, got); err != nil {
		t.Fatalf("Unmarshal of %x: %v", data, err)
	}
	if !proto.Equal(got, m) {
		t.Errorf("got %v, want %v", got, m)
	}
	dyn := dynamicpb.NewMessage(m.ProtoReflect().Descriptor())
	if err := c.Unmarshal(data, dyn); err != nil || !proto.Equal(dyn, m) {
		t.Errorf("transcoder: %v, %v", dyn, err)
	}
}

// Non-string map keys are parsed back strictly, as docs/mapping.md says:
// only the canonical text the writers write ("12", "-12", "true"), so that
// two Avro keys never merge into one protobuf key ("12" and "012", the
// second silently replacing the first).
func TestMapKeysParsedStrictly(t *testing.T) {
	c := mustCodec(t, Options{}, &kitchenpb.Maps{})
	md := (&kitchenpb.Maps{}).ProtoReflect().Descriptor()
	for _, tc := range []struct {
		field string
		key   string
		ok    bool
	}{
		{"int32_to_string", "12", true}, {"int32_to_string", "-12", true}, {"int32_to_string", "0", true},
		{"int32_to_string", "012", false}, {"int32_to_string", "+12", false}, {"int32_to_string", "-0", false},
		{"int64_to_int64", "-9223372036854775808", true}, {"int64_to_int64", "00", false},
		{"uint32_to_uint32", "4294967295", true}, {"uint32_to_uint32", "+1", false},
		{"uint64_to_uint64", "18446744073709551615", true}, {"uint64_to_uint64", "007", false},
		{"bool_to_bool", "true", true}, {"bool_to_bool", "True", false}, {"bool_to_bool", "1", false},
	} {
		// One entry in the field, every other field empty.
		var data []byte
		for i := range md.Fields().Len() {
			fd := md.Fields().Get(i)
			if string(fd.Name()) != tc.field {
				data = append(data, 0)
				continue
			}
			data = appendLong(data, 1)
			data = appendAvroBytes(data, []byte(tc.key))
			switch fd.MapValue().Kind() {
			case protoreflect.StringKind:
				data = appendAvroBytes(data, []byte("v"))
			case protoreflect.BoolKind:
				data = append(data, 1)
			default:
				data = appendLong(data, 1)
			}
			data = append(data, 0)
		}
		for _, m := range []proto.Message{&kitchenpb.Maps{}, dynamicpb.NewMessage(md)} {
			err := c.Unmarshal(data, m)
			if tc.ok && err != nil {
				t.Errorf("%s key %q into %T: %v", tc.field, tc.key, m, err)
			}
			if !tc.ok && !errors.Is(err, ErrMalformed) {
				t.Errorf("%s key %q into %T: %v, want ErrMalformed", tc.field, tc.key, m, err)
			}
		}
	}
}

// Every promotion of Avro's resolution rules, in each place a value can
// be: a singular field, an array item, a map value and a union branch
// (a writer ["null", T] read into a plain field).
func TestResolvePromotionsEverywhere(t *testing.T) {
	const big = int64(1)<<60 | int64(1)<<36 | 1
	cases := []struct {
		from, to string // Avro writer type, protobuf reader type
		enc      []byte // the writer value
		want     any    // the reader value
	}{
		{"int", "int64", appendLong(nil, -5), int64(-5)},
		{"int", "float", appendLong(nil, 16777217), float32(16777217)},
		{"int", "double", appendLong(nil, math.MinInt32), float64(math.MinInt32)},
		{"long", "float", appendLong(nil, big), float32(big)},
		{"long", "double", appendLong(nil, big), float64(big)},
		{"float", "double", binary.LittleEndian.AppendUint32(nil, math.Float32bits(-0.1)), float64(float32(-0.1))},
		{"string", "bytes", appendAvroBytes(nil, []byte("é")), []byte("é")},
		{"bytes", "string", appendAvroBytes(nil, []byte("é")), "é"},
	}
	for _, tc := range cases {
		md := compileMessage(t, fmt.Sprintf(`syntax = "proto3"; package p;
			message M { %[1]s one = 1; repeated %[1]s list = 2; map<string, %[1]s> vals = 3; %[1]s opt = 4; }`, tc.to), "p.M")
		writer := fmt.Sprintf(`{"type":"record","name":"M","fields":[{"name":"one","type":"%[1]s"},
			{"name":"list","type":{"type":"array","items":"%[1]s"}},{"name":"vals","type":{"type":"map","values":"%[1]s"}},
			{"name":"opt","type":["null","%[1]s"]}]}`, tc.from)
		var d []byte
		d = append(d, tc.enc...)
		d = append(appendLong(d, 2), tc.enc...)
		d = append(append(d, tc.enc...), 0)
		d = appendAvroBytes(appendLong(d, 1), []byte("k"))
		d = append(append(d, tc.enc...), 0)
		d = append(append(d, 2), tc.enc...)
		m, err := resolveDatum(t, md, writer, d)
		if err != nil {
			t.Errorf("%s → %s: %v", tc.from, tc.to, err)
			continue
		}
		fs := md.Fields()
		want := protoreflect.ValueOf(tc.want)
		got := map[string]protoreflect.Value{
			"one": m.Get(fs.ByName("one")), "opt": m.Get(fs.ByName("opt")),
			"vals[k]": m.Get(fs.ByName("vals")).Map().Get(protoreflect.ValueOfString("k").MapKey()),
		}
		if l := m.Get(fs.ByName("list")).List(); l.Len() == 2 {
			got["list[0]"], got["list[1]"] = l.Get(0), l.Get(1)
		} else {
			t.Errorf("%s → %s: list of %d", tc.from, tc.to, l.Len())
		}
		for where, g := range got {
			if !g.Equal(want) {
				t.Errorf("%s → %s: %s = %v, want %v", tc.from, tc.to, where, g, want)
			}
		}
	}
}

// A null item of a writer's array of unions (Spark writes nullable
// elements as ["T", "null"]) has no place in a repeated field: it fails
// with the item's path, as Java's "Found null, expecting int", instead of
// vanishing from the list and moving the items after it; an array without
// nulls reads whole.
func TestResolveNullListItem(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p;
		message E { int32 v = 1; }
		message M { repeated int32 xs = 1; repeated E es = 2; }`, "p.M")
	writer := `{"type":"record","name":"M","fields":[
		{"name":"xs","type":{"type":"array","items":["int","null"]}},
		{"name":"es","type":{"type":"array","items":["null",{"type":"record","name":"E","fields":[{"name":"v","type":"int"}]}]}}]}`
	item := func(d []byte, null bool, v int64, nullIndex int64) []byte {
		if null {
			return appendLong(d, nullIndex)
		}
		return appendLong(appendLong(d, 1-nullIndex), v)
	}
	datum := func(xsNull, esNull bool) []byte {
		d := appendLong(nil, 3)
		for i := range int64(3) {
			d = item(d, xsNull && i == 1, i+1, 1)
		}
		d = appendLong(appendLong(d, 0), 2)
		for i := range int64(2) {
			d = item(d, esNull && i == 0, i+5, 0)
		}
		return appendLong(d, 0)
	}
	m, err := resolveDatum(t, md, writer, datum(false, false))
	if err != nil {
		t.Fatal(err)
	}
	if xs, es := m.Get(md.Fields().ByName("xs")).List(), m.Get(md.Fields().ByName("es")).List(); xs.Len() != 3 || xs.Get(2).Int() != 3 || es.Len() != 2 {
		t.Errorf("got %v, want 3 xs and 2 es", m)
	}
	for _, tc := range []struct {
		xsNull, esNull bool
		path           string
	}{{true, false, "M.xs[1]"}, {false, true, "M.es[0]"}} {
		m, err := resolveDatum(t, md, writer, datum(tc.xsNull, tc.esNull))
		var de *DataError
		if !errors.Is(err, ErrIncompatible) || !errors.As(err, &de) || de.Path != tc.path {
			t.Errorf("null at %s: %v (read %v), want ErrIncompatible at %s", tc.path, err, m, tc.path)
		}
	}
}

// A writer enum whose name is not the reader enum's does not resolve, as
// Avro's rules say (both enums, their unqualified names equal) and as the
// records' names are checked, rather than match the symbols by name and
// turn every symbol the reader lacks into its default, silently.
func TestResolveEnumNameMismatch(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p; enum Color { RED = 0; GREEN = 1; } message M { Color c = 1; }`, "p.M")
	for _, c := range []struct {
		enum string
		ok   bool
	}{
		{`{"type":"enum","name":"Color","symbols":["GREEN","RED"]}`, true},
		{`{"type":"enum","name":"other.ns.Color","symbols":["GREEN","RED"]}`, true},
		{`{"type":"enum","name":"Shade","symbols":["DARK","GREEN"]}`, false},
	} {
		writer := `{"type":"record","name":"M","fields":[{"name":"c","type":` + c.enum + `}]}`
		_, err := resolveText(t, Options{}, md, writer)
		if c.ok && err != nil {
			t.Errorf("%s: %v", c.enum, err)
		}
		if !c.ok && !errors.Is(err, ErrIncompatible) {
			t.Errorf("%s: Resolve = %v, want ErrIncompatible", c.enum, err)
		}
	}
}

// A writer decimal of another scale is not read as a uint64 of the
// decimal(20,0) mapping: its unscaled integer is another number (1.23 of
// decimal(20,2) is 123 unscaled), so Avro's rules match decimals only of the
// same scale, rather than read the unscaled integer, 100 times the value.
// Another precision of scale 0 reads; so does plain bytes, whose value is
// taken as the reader's decimal. (In a writer union, the branch fails when
// data uses it, as other branches the reader cannot take.)
func TestResolveDecimalScale(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p;
		import "google/protobuf/wrappers.proto";
		message M { uint64 u = 1; repeated fixed64 fs = 2; google.protobuf.UInt64Value w = 3; }`, "p.M")
	o := Options{Uint64: Uint64AsDecimal}
	record := func(u, fs, w string) string {
		return `{"type":"record","name":"M","fields":[{"name":"u","type":` + u +
			`},{"name":"fs","type":{"type":"array","items":` + fs +
			`}},{"name":"w","type":` + w + `}]}`
	}
	dec := func(p, s int) string {
		return fmt.Sprintf(`{"type":"bytes","logicalType":"decimal","precision":%d,"scale":%d}`, p, s)
	}
	for _, c := range []struct{ name, u, fs, w, field string }{
		{"scalar", dec(20, 2), dec(20, 0), dec(20, 0), "p.M.u"},
		{"repeated", dec(20, 0), dec(20, 3), dec(20, 0), "p.M.fs"},
		{"wrapper", dec(20, 0), dec(20, 0), dec(18, 1), "p.M.w"},
	} {
		_, err := resolveText(t, o, md, record(c.u, c.fs, c.w))
		if !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), "scale") {
			t.Errorf("%s: Resolve: %v, want ErrIncompatible naming %s and the scale", c.name, err, c.field)
		}
	}
	// 123 as decimal(10,0), as plain bytes, and as decimal(20,0).
	datum := appendLong(nil, 1)
	datum = append(datum, 123)
	datum = appendLong(datum, 1) // one item
	datum = appendLong(datum, 1)
	datum = append(datum, 123)
	datum = appendLong(datum, 0)
	datum = appendLong(datum, 1) // the union's second branch
	datum = appendLong(datum, 1)
	datum = append(datum, 123)
	m, err := resolveDatumWith(t, o, md, record(dec(10, 0), `"bytes"`, `["null",`+dec(20, 0)+`]`), datum)
	if err != nil {
		t.Fatal(err)
	}
	f := md.Fields()
	if u, fs, w := m.Get(f.ByName("u")).Uint(), m.Get(f.ByName("fs")).List(), m.Get(f.ByName("w")).Message(); u != 123 || fs.Len() != 1 || fs.Get(0).Uint() != 123 || w.Get(w.Descriptor().Fields().ByName("value")).Uint() != 123 {
		t.Errorf("read %v, want u, fs and w 123", m)
	}
}

// A writer record that does not resolve is refused wherever it is used: a
// union branch defers the refusal to the data that uses the branch, but the
// record's half-compiled program must not serve a later plain use of the
// same record (it has fields with neither decoder nor skip program): the
// plain use is ErrIncompatible when the resolver is compiled, naming its path, and the
// union branch fails when data uses it, also in a recursive record that
// refers to itself through a union while it is being compiled.
func TestResolveFailedRecordNotReused(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p;
		message R { int32 x = 1; R next = 2; }
		message M { R a = 1; R b = 2; }`, "p.M")
	r := `{"type":"record","name":"R","fields":[{"name":"next","type":["null","R"]},{"name":"x","type":"string"}]}`
	// b a plain R after the union of a.
	_, err := resolveText(t, Options{}, md, `{"type":"record","name":"M","fields":[{"name":"a","type":["null",`+r+`]},{"name":"b","type":"R"}]}`)
	if !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "p.M.b") || !strings.Contains(err.Error(), "p.R.x") {
		t.Errorf("Resolve: %v, want ErrIncompatible naming p.M.b and p.R.x", err)
	}
	// Both unions: each fails when data uses it.
	res, err := resolveText(t, Options{}, md, `{"type":"record","name":"M","fields":[{"name":"a","type":["null",`+r+`]},{"name":"b","type":["null","R"]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, datum := range [][]byte{
		{2, 0, 2, 'x', 0},  // a: R{next: null, x: "x"}, b: null
		{0, 2, 2, 0, 0, 0}, // a: null, b: R{next: R{next: null, x: ""}, x: ""}
	} {
		m := dynamicpb.NewMessage(md)
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("Unmarshal(%x) panicked: %v", datum, p)
				}
			}()
			err = res.Unmarshal(datum, m)
		}()
		var de *DataError
		if !errors.Is(err, ErrIncompatible) || !errors.As(err, &de) || !strings.HasPrefix(de.Path, "M.") {
			t.Errorf("Unmarshal(%x): %v, want ErrIncompatible with the field path", datum, err)
		}
	}
	// B, compiled while A was, holds A, which fails after B is done; a
	// plain B resolves and fails when its data holds an A.
	md = compileMessage(t, `syntax = "proto3"; package p;
		message A { B b = 1; int32 bad = 2; } message B { A a = 1; } message M { A a = 1; B c = 2; }`, "p.M")
	writer := `{"type":"record","name":"M","fields":[{"name":"a","type":["null",{"type":"record","name":"A","fields":[
		{"name":"b","type":{"type":"record","name":"B","fields":[{"name":"a","type":["null","A"]}]}},{"name":"bad","type":"string"}]}]},
		{"name":"c","type":"B"}]}`
	if _, err := resolveDatum(t, md, writer, []byte{0, 0}); err != nil {
		t.Errorf("c without an A: %v", err)
	}
	_, err = resolveDatum(t, md, writer, []byte{0, 2, 0, 0}) // c: B{a: A{b: B{a: null}, bad: ""}}
	var de *DataError
	if !errors.Is(err, ErrIncompatible) || !errors.As(err, &de) || de.Path != "M.c.a.bad" {
		t.Errorf("c holding an A: %v, want ErrIncompatible at M.c.a.bad", err)
	}
}

// A reader field without a default in the reader's schema, missing from
// the writer record, does not resolve (Avro: "if the reader's record
// schema has a field with no default value, and writer's schema does not
// have a field with the same name, an error is signalled"). The key and
// value of a map entry record (MapAsEntryArray) have no default, so an entry
// record without its value, or without its key, does not resolve.
func TestResolveEntryFieldWithoutDefault(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p; message M { map<int32, string> im = 1; }`, "p.M")
	o := Options{MapKeys: MapAsEntryArray}
	entry := func(fields string) string {
		return `{"type":"record","name":"M","fields":[{"name":"im","type":{"type":"array","items":{"type":"record","name":"ImEntry","fields":[` + fields + `]}}}]}`
	}
	for _, c := range []struct{ fields, missing string }{
		{`{"name":"key","type":"int"}`, "value"},
		{`{"name":"value","type":"string"}`, "key"},
	} {
		_, err := resolveText(t, o, md, entry(c.fields))
		if !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "p.M.im") || !strings.Contains(err.Error(), "ImEntry."+c.missing) {
			t.Errorf("entry without %s: Resolve: %v, want ErrIncompatible naming p.M.im and the field", c.missing, err)
		}
	}
	// With both, and another field, it reads.
	m, err := resolveDatumWith(t, o, md, entry(`{"name":"extra","type":"long"},{"name":"value","type":"string"},{"name":"key","type":"int"}`),
		[]byte{2, 6, 2, 'v', 4, 0})
	if im := m.Get(md.Fields().ByName("im")).Map(); err != nil || im.Len() != 1 || im.Get(protoreflect.ValueOfInt32(2).MapKey()).String() != "v" {
		t.Errorf("got %v, %v, want {2: v}", m, err)
	}
}

// A Java-profile field whose proto2 default has no JSON form (inf, nan)
// gets no Avro default, as ProtobufData writes it; a writer without the
// field does not resolve, as in Java's resolution.
func TestResolveJavaFieldWithoutDefault(t *testing.T) {
	md := compileMessage(t, `syntax = "proto2"; package p; message M { optional int32 n = 1; optional float f = 2 [default = inf]; }`, "p.M")
	o := Options{Profile: JavaProfile}
	if d := mustSchema(t, o, md).root.Deref().Fields[1].Default; d != nil {
		t.Fatalf("test premise: f has the default %s", d)
	}
	_, err := resolveText(t, o, md, `{"type":"record","name":"M","fields":[{"name":"n","type":"int"}]}`)
	if !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "p.M.f") {
		t.Errorf("Resolve: %v, want ErrIncompatible naming p.M.f", err)
	}
}

// A writer union's null branch resolves as a writer null does (Avro: the
// branch the data selects is resolved against the reader's type): it leaves
// a nullable field unset, and, as the union of a writer's optional array or
// map, a list or map empty; a value that cannot be null (a proto3 scalar,
// a required field, a Java-profile field, a map value) fails when data uses
// it, as a writer "null" field is refused, rather than read as the field's
// default.
func TestResolveNullBranchIntoValueWithoutNull(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p;
		message E { int32 v = 1; }
		message M { int32 k = 1; map<string, int32> mv = 2; map<string, E> me = 3; optional int32 o = 4; E e = 5; }`, "p.M")
	writer := `{"type":"record","name":"M","fields":[{"name":"k","type":["null","int"]},
		{"name":"mv","type":{"type":"map","values":["null","int"]}},
		{"name":"me","type":{"type":"map","values":["null",{"type":"record","name":"E","fields":[{"name":"v","type":"int"}]}]}},
		{"name":"o","type":["int","null"]},{"name":"e","type":["null","E"]}]}`
	var de *DataError
	for _, c := range []struct {
		datum []byte
		path  string
	}{
		{[]byte{2, 14, 0, 0, 2, 0}, ""},                        // k: 7, o: null, e: null
		{[]byte{0, 0, 0, 2, 0}, "M.k"},                         // k: null
		{[]byte{2, 2, 2, 2, 'a', 0, 0, 0, 2, 0}, "M.mv.\"a\""}, // mv: {a: null}
		{[]byte{2, 2, 0, 2, 2, 'b', 0, 0, 2, 0}, "M.me.\"b\""}, // me: {b: null}
	} {
		m, err := resolveDatum(t, md, writer, c.datum)
		if c.path == "" {
			if err != nil || m.Get(md.Fields().ByName("k")).Int() != 7 || m.Has(md.Fields().ByName("o")) || m.Has(md.Fields().ByName("e")) {
				t.Errorf("%x: read %v, %v, want k 7 and o, e unset", c.datum, m, err)
			}
			continue
		}
		if !errors.Is(err, ErrIncompatible) || !errors.As(err, &de) || de.Path != c.path {
			t.Errorf("%x: read %v, %v, want ErrIncompatible at %s", c.datum, m, err, c.path)
		}
	}
	// A required field, and a Java-profile field with a proto2 default.
	md = compileMessage(t, `syntax = "proto2"; package p; message M { required int32 r = 1; optional int32 d = 2 [default = 5]; }`, "p.M")
	writer = `{"type":"record","name":"M","fields":[{"name":"r","type":["null","int"]},{"name":"d","type":["null","int"]}]}`
	for _, c := range []struct {
		o     Options
		datum []byte
		path  string
	}{{Options{}, []byte{0, 0}, "M.r"}, {Options{Profile: JavaProfile}, []byte{2, 2, 0}, "M.d"}} {
		m, err := resolveDatumWith(t, c.o, md, writer, c.datum)
		if !errors.Is(err, ErrIncompatible) || !errors.As(err, &de) || de.Path != c.path {
			t.Errorf("%v %x: read %v, %v, want ErrIncompatible at %s", c.o.Profile, c.datum, m, err, c.path)
		}
	}
}

// Two members of one oneof set in a writer's record (two nullable fields
// of a foreign writer, which the reader joined in a oneof): the last in the
// data wins, as proto.Unmarshal and Java's ProtobufDatumReader take them,
// in Resolver.Unmarshal and in TranscodeToProto (and ContainerReader, which
// reads through it) alike, not the last in field-number order.
func TestResolveOneofLastMemberWins(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p; message M { int64 n = 3; oneof o { int32 a = 2; string b = 1; } }`, "p.M")
	writer := `{"type":"record","name":"M","fields":[{"name":"a","type":["null","int"]},{"name":"b","type":["null","string"]},{"name":"n","type":"long"}]}`
	datum := []byte{2, 2, 2, 2, 'z', 8} // a: 1, b: "z", n: 4
	r, err := resolveText(t, Options{}, md, writer)
	if err != nil {
		t.Fatal(err)
	}
	m := dynamicpb.NewMessage(md)
	if err := r.Unmarshal(datum, m); err != nil {
		t.Fatal(err)
	}
	wire, err := r.TranscodeToProto(nil, datum)
	if err != nil {
		t.Fatal(err)
	}
	viaWire := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(wire, viaWire); err != nil {
		t.Fatal(err)
	}
	for how, got := range map[string]*dynamicpb.Message{"Unmarshal": m, "TranscodeToProto": viaWire} {
		if b := md.Fields().ByName("b"); !got.Has(b) || got.Get(b).String() != "z" || got.Get(md.Fields().ByName("n")).Int() != 4 {
			t.Errorf("%s: %v, want b: z (the last member in the data) and n: 4", how, got)
		}
	}
}

// A writer date is read into a Timestamp as midnight UTC of the day, not as
// a count of the reader's unit (19000 days as 19000 µs). A time of day (time-millis, time-micros) is no instant: it is
// refused rather than read as one.
func TestResolveDateIntoTimestamp(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p;
		import "google/protobuf/timestamp.proto";
		message M { google.protobuf.Timestamp t = 1; repeated google.protobuf.Timestamp ts = 2; google.protobuf.Timestamp u = 3; }`, "p.M")
	record := func(t, ts, u string) string {
		return `{"type":"record","name":"M","fields":[{"name":"t","type":` + t +
			`},{"name":"ts","type":{"type":"array","items":` + ts +
			`}},{"name":"u","type":["null",` + u + `]}]}`
	}
	const date = `{"type":"int","logicalType":"date"}`
	for _, prec := range []TimestampPrecision{TimestampMillis, TimestampMicros, TimestampNanos} {
		datum := appendLong(nil, 19000) // 2022-01-08
		datum = appendLong(datum, 1)    // one item
		datum = appendLong(datum, -1)   // 1969-12-31
		datum = appendLong(datum, 0)
		datum = appendLong(datum, 1) // the union's date
		datum = appendLong(datum, 0) // 1970-01-01
		m, err := resolveDatumWith(t, Options{Timestamps: prec}, md, record(date, date, date), datum)
		if err != nil {
			t.Fatalf("%v: %v", prec, err)
		}
		f := md.Fields()
		secs := func(v protoreflect.Message) int64 { return v.Get(v.Descriptor().Fields().ByName("seconds")).Int() }
		if got, ts := secs(m.Get(f.ByName("t")).Message()), m.Get(f.ByName("ts")).List(); got != 19000*86400 || ts.Len() != 1 || secs(ts.Get(0).Message()) != -86400 || !m.Has(f.ByName("u")) || secs(m.Get(f.ByName("u")).Message()) != 0 {
			t.Errorf("%v: read %v, want t 2022-01-08, ts [1969-12-31], u 1970-01-01", prec, m)
		}
	}
	for _, c := range []struct{ name, t, ts, u, field string }{
		{"time-millis", `{"type":"int","logicalType":"time-millis"}`, date, date, "field p.M.t:"},
		{"time-micros item", date, `{"type":"long","logicalType":"time-micros"}`, date, "field p.M.ts:"},
		{"time-millis in a union", date, date, `{"type":"int","logicalType":"time-millis"}`, "M.u at byte"},
	} {
		r, err := resolveText(t, Options{}, md, record(c.t, c.ts, c.u))
		if c.name == "time-millis in a union" && err == nil {
			// A writer union branch fails when data uses it.
			m := dynamicpb.NewMessage(md)
			datum := appendLong(appendLong(appendLong(appendLong(nil, 0), 0), 1), 5)
			err = r.Unmarshal(datum, m)
		}
		if !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), "time of day") {
			t.Errorf("%s: %v, want ErrIncompatible naming %s and a time of day", c.name, err, c.field)
		}
	}
}

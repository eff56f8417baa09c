package avrojson

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro/ocf"
	twmb "github.com/twmb/avro"
)

// rawText writes the escapes of testutil.AllAvroTypesDatums as AppendJSON
// does: printable characters from U+0080 on as they are, controls
// (U+0080) escaped.
var rawText = strings.NewReplacer(`\u00e9`, "\u00e9", `\u00ff`, "\u00ff", `\u00fe`, "\u00fe")

func TestRoundTrip(t *testing.T) {
	s := testutil.MustParseAvro(t, testutil.AllAvroTypes)
	indep, err := twmb.Parse(testutil.AllAvroTypes)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range testutil.AllAvroTypesDatums {
		bin, err := AppendBinary(nil, s, []byte(text))
		if err != nil {
			t.Fatalf("AppendBinary(%s): %v", text, err)
		}
		// The binary is a datum of the schema for an independent decoder.
		var v any
		if rest, err := indep.Decode(bin, &v); err != nil || len(rest) != 0 {
			t.Fatalf("twmb/avro decodes %x: %v, %d bytes left", bin, err, len(rest))
		}
		got, n, err := AppendJSON(nil, s, append(bin, 0xee))
		if err != nil {
			t.Fatalf("AppendJSON(%x): %v", bin, err)
		}
		if n != len(bin) {
			t.Errorf("consumed %d bytes, want %d", n, len(bin))
		}
		if want := rawText.Replace(text); string(got) != want {
			t.Errorf("round trip:\n got %s\nwant %s", got, want)
		}
	}
}

func TestDefaults(t *testing.T) {
	s := testutil.MustParseAvro(t, testutil.AllAvroTypes)
	in := `{"n":null,"b":true,"i":1,"l":2,"f":1,"d":2,"s":"","by":"","fx":"abcd","e":"RED","a":[],"m":{},"nulls":[],"empties":{},"u":null}`
	bin, err := AppendBinary(nil, s, []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := AppendJSON(nil, s, bin)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"dflt":{"int":7},"rec":{"x":3}}`; !strings.HasSuffix(string(got), want) {
		t.Errorf("defaults: got %s, want suffix %s", got, want)
	}
}

func TestJSONErrors(t *testing.T) {
	s := testutil.MustParseAvro(t, testutil.AllAvroTypes)
	base := `"n":null,"b":true,"i":1,"l":2,"f":1,"d":2,"s":"","by":"","fx":"abcd","e":"RED","a":[],"m":{},"nulls":[],"empties":{}`
	for _, c := range []struct{ in, want string }{
		{`{` + base + `,"u":5}`, "u: "},
		{`{` + base + `,"u":{"long":5}}`, `no branch "long"`},
		{`{` + base + `,"u":{"int":1.5}}`, "u<int>: "},
		{`{` + base + `,"u":{"array":[1,"x"]}}`, "u<array>[1]: "},
		{`{` + base + `,"u":null,"zz":1}`, `no field "zz"`},
		{`{"n":null}`, "b: "},
		{strings.Replace(`{`+base+`,"u":null}`, `"fx":"abcd"`, `"fx":"abc"`, 1), "fixed ns.F4 has 4 bytes, got 3"},
		{strings.Replace(`{`+base+`,"u":null}`, `"by":""`, `"by":"Ā"`, 1), "code points 0-255"},
		{strings.Replace(`{`+base+`,"u":null}`, `"e":"RED"`, `"e":"BLUE"`, 1), "not a symbol"},
		{strings.Replace(`{`+base+`,"u":null}`, `"i":1`, `"i":2147483648`, 1), "outside the range of int"},
		{strings.Replace(`{`+base+`,"u":null}`, `"f":1`, `"f":"1"`, 1), "want a number"},
		{`{` + base + `,"u":null} {}`, "data after"},
		// A key twice: implementations keep different ones (Java the
		// first, encoding/json the last), so the datum is ambiguous.
		{`{` + base + `,"u":null,"i":3}`, `key "i" twice`},
		{strings.Replace(`{`+base+`,"u":null}`, `"m":{}`, `"m":{"k":{"string":"a"},"k":null}`, 1), `key "k" twice`},
		{`{` + base + `,"u":{"int":1,"int":2}}`, `key "int" twice`},
		{`{` + base + `,"u":{"ns.All":{` + base + `,"u":null,"n":null}}}`, `key "n" twice`},
		{`{`, "JSON value"},
		// encoding/json would read U+FFFD in place of what these hold.
		{strings.Replace(`{`+base+`,"u":null}`, `"s":""`, "\"s\":\"a\xffb\"", 1), "not UTF-8 at byte"},
		{strings.Replace(`{`+base+`,"u":null}`, `"s":""`, `"s":"\ud800"`, 1), `surrogate \ud800 at byte`},
		{strings.Replace(`{`+base+`,"u":null}`, `"s":""`, `"s":"x\udc00"`, 1), `surrogate \udc00`},
		{strings.Replace(`{`+base+`,"u":null}`, `"s":""`, `"s":"\ud800\u0041"`, 1), `surrogate \ud800`},
		{strings.Replace(`{`+base+`,"u":null}`, `"m":{}`, `"m":{"\udbff":{"string":"a"}}`, 1), `surrogate \udbff`},
	} {
		_, err := AppendBinary(nil, s, []byte(c.in))
		if err == nil || !errors.Is(err, ErrJSON) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AppendBinary(%s) = %v, want ErrJSON with %q", c.in, err, c.want)
		}
	}
}

func TestBinaryErrors(t *testing.T) {
	for _, c := range testutil.BadAvroDatums {
		s := testutil.MustParseAvro(t, c.Schema)
		data, _ := hex.DecodeString(c.Hex)
		_, _, err := AppendJSON(nil, s, data)
		if !errors.Is(err, c.Class) || !strings.Contains(err.Error(), c.Want) {
			t.Errorf("%s %s: got %v, want %v with %q", c.Schema, c.Hex, err, c.Class, c.Want)
		}
	}
}

// TestDepthLimitBothWays: a datum of records nested as deep as AppendJSON
// allows, 1,001 records (1,000 of them nested), converts back with
// AppendBinary, and one record more is refused both ways: the limit counts
// records alone, not the unions and arrays between them, as protoavro's
// codecs count nesting.
func TestDepthLimitBothWays(t *testing.T) {
	s := testutil.MustParseAvro(t, `{"type":"record","name":"R","fields":[{"name":"n","type":["int",{"type":"array","items":"R"}]}]}`)
	// n records: each but the last holds an array of the next (branch 1, a
	// block of one item, then the end of the array after it); the last
	// holds the int 1.
	chain := func(n int) []byte {
		b := bytes.Repeat([]byte{2, 2}, n-1)
		b = append(b, 0, 2)
		return append(b, bytes.Repeat([]byte{0}, n-1)...)
	}
	bin := chain(DefaultMaxDepth + 1)
	js, n, err := AppendJSON(nil, s, bin)
	if err != nil || n != len(bin) {
		t.Fatalf("AppendJSON of %d records: %d of %d bytes, %v", DefaultMaxDepth+1, n, len(bin), err)
	}
	again, err := AppendBinary(nil, s, js)
	if err != nil || !bytes.Equal(again, bin) {
		t.Fatalf("AppendBinary of AppendJSON's output: %x, %v; want %x", again, err, bin)
	}
	// One record more is refused both ways.
	const msg = "more than 1000 nested records"
	if _, _, err := AppendJSON(nil, s, chain(DefaultMaxDepth+2)); !errors.Is(err, ocf.ErrLimit) || !strings.Contains(err.Error(), msg) {
		t.Errorf("AppendJSON of %d records: %v, want ErrLimit with %q", DefaultMaxDepth+2, err, msg)
	}
	js = append(append([]byte(`{"n":{"array":[`), js...), "]}}"...)
	if _, err := AppendBinary(nil, s, js); !errors.Is(err, ocf.ErrLimit) || !strings.Contains(err.Error(), msg) {
		t.Errorf("AppendBinary of %d records: %v, want ErrLimit with %q", DefaultMaxDepth+2, err, msg)
	}
}

// TestEmptyLimitBothWays: AppendJSON and AppendBinary count the same
// zero-size values against Limits.MaxEmptyItems (array items that take no
// bytes, and the other nested records that take none: map values, fields,
// union branches; not the datum itself), so a datum at the limit converts
// both ways and one more value is refused both ways. AppendDatum returns the
// count.
func TestEmptyLimitBothWays(t *testing.T) {
	s := testutil.MustParseAvro(t, `{"type":"record","name":"R","fields":[
		{"name":"list","type":{"type":"array","items":{"type":"record","name":"E","fields":[]}}},
		{"name":"nulls","type":{"type":"array","items":"null"}},
		{"name":"map","type":{"type":"map","values":"E"}},
		{"name":"one","type":"E"},
		{"name":"opt","type":["null","E"]},
		{"name":"pair","type":{"type":"record","name":"P","fields":[{"name":"a","type":"E"},{"name":"b","type":"E"}]}}]}`)
	// 3 list items, 2 nulls, 2 map values, one, opt, pair and its two
	// fields: 12.
	js := []byte(`{"list":[{},{},{}],"nulls":[null,null],"map":{"a":{},"b":{}},"one":{},"opt":{"E":{}},"pair":{"a":{},"b":{}}}`)
	const want = 12
	bin, n, err := Limits{MaxEmptyItems: want}.Compile(s).AppendDatum(nil, js)
	if err != nil || n != want {
		t.Fatalf("AppendDatum: %d zero-size values, %v; want %d", n, err, want)
	}
	back, _, err := Limits{MaxEmptyItems: want}.Compile(s).AppendJSON(nil, bin)
	if err != nil || !bytes.Equal(back, js) {
		t.Fatalf("AppendJSON at the limit: %s, %v", back, err)
	}
	if _, _, err := (Limits{MaxEmptyItems: want - 1}).Compile(s).AppendDatum(nil, js); !errors.Is(err, ocf.ErrLimit) || !strings.Contains(err.Error(), "zero-size") {
		t.Errorf("AppendBinary over the limit: %v, want ErrLimit", err)
	}
	if _, _, err := (Limits{MaxEmptyItems: want - 1}).Compile(s).AppendJSON(nil, bin); !errors.Is(err, ocf.ErrLimit) || !strings.Contains(err.Error(), "zero-size") {
		t.Errorf("AppendJSON over the limit: %v, want ErrLimit", err)
	}
	// A record that takes bytes is not counted, nor the datum itself.
	for _, c := range []struct{ schema, json string }{
		{`{"type":"record","name":"E","fields":[]}`, `{}`},
		{`{"type":"array","items":{"type":"record","name":"I","fields":[{"name":"x","type":"int"}]}}`, `[{"x":1},{"x":2}]`},
	} {
		if _, n, err := (Limits{}).Compile(testutil.MustParseAvro(t, c.schema)).AppendDatum(nil, []byte(c.json)); err != nil || n != 0 {
			t.Errorf("%s %s: %d zero-size values, %v; want 0", c.schema, c.json, n, err)
		}
	}
}

// TestSharedEmptyRecords: records nested 30 deep with 3 fields each, all
// empty at the bottom (a 2 KB schema, as a container header may hold), are
// converted both ways at once: whether a value can take no bytes is
// memoized per record, so the work is linear in the schema's size, not in
// the 3^30 paths through it.
func TestSharedEmptyRecords(t *testing.T) {
	schema := `{"type":"record","name":"R30","fields":[]}`
	for i := 29; i >= 0; i-- {
		schema = fmt.Sprintf(`{"type":"record","name":"R%d","fields":[{"name":"a","type":%s},{"name":"b","type":"R%d"},{"name":"c","type":"R%d"}]}`, i, schema, i+1, i+1)
	}
	s := testutil.MustParseAvro(t, `{"type":"array","items":`+schema+`}`)
	c := Limits{}.Compile(s)
	// Two items; each holds 3^30 nested empty records, over the limit of
	// zero-size values, so the datum is refused, at once.
	if _, _, err := c.AppendJSON(nil, []byte{4, 0}); !errors.Is(err, ocf.ErrLimit) {
		t.Errorf("AppendJSON: %v, want ErrLimit", err)
	}
	if _, _, err := c.AppendJSON(nil, []byte{0}); err != nil {
		t.Errorf("AppendJSON of an empty array: %v", err)
	}
	if _, _, err := c.AppendDatum(nil, []byte(`[]`)); err != nil {
		t.Errorf("AppendDatum of an empty array: %v", err)
	}
}

// TestDefaultsExpansionBounded: field defaults of nested record types can
// expand a JSON value of 2 bytes into many records (here 3^10; the schema
// parser refuses defaults that expand much further); AppendDatum stops
// after Limits.MaxDefaultValues values from defaults in a datum.
func TestDefaultsExpansionBounded(t *testing.T) {
	const depth = 10
	schema := fmt.Sprintf(`{"type":"record","name":"R%d","fields":[{"name":"x","type":"int","default":7}]}`, depth)
	for i := depth - 1; i >= 0; i-- {
		schema = fmt.Sprintf(`{"type":"record","name":"R%d","fields":[{"name":"x","type":"int","default":7},{"name":"a","type":%s,"default":{}},{"name":"b","type":"R%d","default":{}},{"name":"c","type":"R%d","default":{}}]}`, i, schema, i+1, i+1)
	}
	s := testutil.MustParseAvro(t, schema)
	// A default record R_k is itself and its x, and three default records
	// R_k+1: v(depth) = 2, v(k) = 2 + 3 v(k+1). The value {} of R0 takes x
	// and three default R1 from defaults.
	v := int64(2)
	for k := depth - 1; k >= 1; k-- {
		v = 2 + 3*v
	}
	want := 1 + 3*v
	bin, _, err := Limits{MaxDefaultValues: want}.Compile(s).AppendDatum(nil, []byte(`{}`))
	if err != nil {
		t.Fatalf("AppendDatum at the limit of %d: %v", want, err)
	}
	if js, _, err := AppendJSON(nil, s, bin); err != nil || int64(strings.Count(string(js), `"x":7`)) != (want+2)/2 {
		t.Errorf("the defaults written: %d of x, %v; want %d", strings.Count(string(js), `"x":7`), err, (want+2)/2)
	}
	if _, _, err := (Limits{MaxDefaultValues: want - 1}).Compile(s).AppendDatum(nil, []byte(`{}`)); !errors.Is(err, ocf.ErrLimit) || !strings.Contains(err.Error(), "values from field defaults") {
		t.Errorf("AppendDatum one over the limit: %v, want ErrLimit", err)
	}
	// The default limit (2^20) holds 5 such values, not 6.
	arr := testutil.MustParseAvro(t, `{"type":"array","items":`+schema+`}`)
	if _, err := AppendBinary(nil, arr, []byte(`[{},{},{},{},{}]`)); err != nil {
		t.Errorf("AppendBinary of 5: %v", err)
	}
	if _, err := AppendBinary(nil, arr, []byte(`[{},{},{},{},{},{}]`)); !errors.Is(err, ocf.ErrLimit) {
		t.Errorf("AppendBinary of 6: %v, want ErrLimit", err)
	}
}

// TestJSONSizeBounded: a zero-size record whose field has a long name, in
// an array of many, asks for name × items of JSON from a few bytes; the
// JSON stops at Limits.MaxJSONSize.
func TestJSONSizeBounded(t *testing.T) {
	name := strings.Repeat("n", 1<<20)
	s := testutil.MustParseAvro(t, `{"type":"array","items":{"type":"record","name":"R","fields":[{"name":"`+name+`","type":"null"}]}}`)
	data := []byte{0xfe, 0xff, 0x7f, 0} // one block of 1,048,575 items: a TiB of JSON
	_, _, err := Limits{MaxJSONSize: 8 << 20}.Compile(s).AppendJSON(nil, data)
	if !errors.Is(err, ocf.ErrLimit) || !strings.Contains(err.Error(), "JSON exceeds") {
		t.Fatalf("AppendJSON: %v, want ErrLimit", err)
	}
	// Within the limit, the same items print.
	js, _, err := Limits{MaxJSONSize: 8 << 20}.Compile(s).AppendJSON(nil, []byte{6, 0})
	if err != nil || strings.Count(string(js), name) != 3 {
		t.Errorf("3 items: %d bytes, %v", len(js), err)
	}
}

func TestNegativeBlockCount(t *testing.T) {
	s := testutil.MustParseAvro(t, `{"type":"array","items":"int"}`)
	// A block of -2 items with its byte size (2), then the end.
	got, n, err := AppendJSON(nil, s, []byte{0x03, 0x04, 0x02, 0x04, 0x00})
	if err != nil || string(got) != "[1,2]" || n != 5 {
		t.Errorf("got %s, %d, %v", got, n, err)
	}
}

// FuzzAppendJSON decodes arbitrary bytes with arbitrary schemas. A datum it
// accepts must convert back to binary and decode to the same JSON, but for
// the order of map entries.
func FuzzAppendJSON(f *testing.F) {
	testutil.AddAvroSeeds(f, AppendBinary)
	f.Add(`{"type":"array","items":["float","double"]}`, []byte{4, 0, 0, 0, 0, 0x80, 2, 0, 0, 0, 0, 0, 0, 0, 0x80, 0})
	f.Add(`{"type":"map","values":["int","long","string","bytes"]}`, []byte{4, 2, 0xff, 6, 2, 0x61, 2, 0, 0, 1, 0})
	f.Fuzz(func(t *testing.T, schema string, data []byte) {
		s, err := avroschema.Parse([]byte(schema))
		if err != nil {
			return
		}
		js, _, err := AppendJSON(nil, s, data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error is not an *Error: %v", err)
			}
			return
		}
		bin, err := AppendBinary(nil, s, js)
		if err != nil {
			t.Fatalf("AppendBinary of AppendJSON's output %s: %v", js, err)
		}
		// AppendBinary writes map entries in key order, so the JSON is
		// compared by meaning, map entries in any order.
		again, n, err := AppendJSON(nil, s, bin)
		if err != nil || n != len(bin) || !reflect.DeepEqual(testutil.JSONValue(t, again), testutil.JSONValue(t, js)) {
			t.Fatalf("second round trip: %s (%d of %d bytes, %v), want %s", again, n, len(bin), err, js)
		}
	})
}

// FuzzAppendDatum encodes arbitrary JSON text with arbitrary schemas, as
// fromjson does with a user's file. A refusal must be an *Error; a datum it
// accepts must decode (AppendJSON) in full, and encode again to the same
// bytes.
func FuzzAppendDatum(f *testing.F) {
	for _, text := range testutil.AllAvroTypesDatums {
		f.Add(testutil.AllAvroTypes, text)
		f.Add(testutil.AllAvroTypes, text[:len(text)/2])
	}
	f.Add(`{"type":"array","items":"null"}`, `[null,null,null]`)
	f.Add(`{"type":"record","name":"R","fields":[{"name":"next","type":["null","R"],"default":null}]}`, `{"next":{"R":{"next":{"R":{}}}}}`)
	f.Add(`{"type":"map","values":{"type":"fixed","name":"F","size":2}}`, `{"a":"\u00ff\u0000","b":"xy"}`)
	f.Add(`["null","int",{"type":"enum","name":"E","symbols":["A","B"]}]`, `{"E":"B"}`)
	f.Add(`{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}`, `"\u0001\u0002"`)
	f.Add(`"double"`, `1e400`)
	f.Add(`"int"`, `2147483648`)
	f.Add(`"string"`, `"\ud800"`)
	f.Add(`{"type":"array","items":"float"}`, `[-0.0,-0,1e-46,3.4028236e38,16777217,1.0000000596046448]`)
	f.Add(`{"type":"array","items":"long"}`, `[9007199254740993,-9223372036854775808,1.0,1e2,-0]`)
	f.Add(`{"type":"map","values":"bytes"}`, `{"":"","\u0000":"\u0000\u00ff","é😀":"\u007f\u0080","a":"x","a":"y"}`)
	f.Add(`{"type":"record","name":"a.R","fields":[{"name":"u","type":["int","long","string","bytes",{"type":"record","name":"A","fields":[]},{"type":"record","name":"b.A","fields":[]}]}]}`, `{"u":{"b.A":{}}}`)
	f.Add(`{"type":"record","name":"R","fields":[{"name":"x","type":"int"},{"name":"u","type":["null","int","string"],"default":"d"}]}`, `{"x":1,"x":2}`)
	f.Add(`["null",{"type":"long","logicalType":"timestamp-millis"},{"type":"fixed","name":"D","size":2,"logicalType":"decimal","precision":4}]`, `{"D":"\u0000\u00ff"}`)
	// Numbers beyond their type's range.
	f.Add(`"double"`, `1e309`)
	f.Add(`"double"`, `-1`+strings.Repeat("0", 400))
	f.Add(`"float"`, `3.5e38`)
	f.Add(`["null","float"]`, `{"float":-1e39}`)
	f.Add(`"long"`, `9223372036854775808`)
	f.Add(`"int"`, `1`+strings.Repeat("0", 400))
	f.Add(`{"type":"record","name":"R","fields":[{"name":"d","type":"double"},{"name":"f","type":"float"}]}`, `{"d":1e-400,"f":1e-50}`)
	f.Fuzz(func(t *testing.T, schema, text string) {
		s, err := avroschema.Parse([]byte(schema))
		if err != nil {
			return
		}
		c := Limits{}.Compile(s)
		bin, _, err := c.AppendDatum(nil, []byte(text))
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error is not an *Error: %v", err)
			}
			return
		}
		js, n, err := c.AppendJSON(nil, bin)
		if err != nil || n != len(bin) {
			t.Fatalf("AppendJSON of AppendDatum's output %x: %d of %d bytes, %v", bin, n, len(bin), err)
		}
		// An infinity is written only where the text spells one: a
		// number beyond the range of its type is refused.
		if !strings.Contains(text, "Infinity") && !strings.Contains(text, `\u`) && strings.Contains(string(js), `Infinity"`) {
			t.Fatalf("%s gave an infinity: %s", text, js)
		}
		again, _, err := c.AppendDatum(nil, js)
		if err != nil || !bytes.Equal(again, bin) {
			t.Fatalf("second round trip of %s: %x, %v; want %x", js, again, err, bin)
		}
	})
}

// TestNegativeZero: a float or double -0 prints as -0.0, not -0, so that
// JSON readers that take an integer token as an integer (Java Avro's
// JsonDecoder, so avro-tools fromjson; Python's json) read it as -0, not +0
// (interop.TestJavaAvroJSON). Both -0 and -0.0 read back as -0.
func TestNegativeZero(t *testing.T) {
	for _, c := range []struct{ schema, hex, json string }{
		{`"float"`, "00000080", "-0.0"},
		{`"double"`, "0000000000000080", "-0.0"},
		{`"float"`, "00000000", "0"},
		{`["null","double"]`, "020000000000000080", `{"double":-0.0}`},
	} {
		s := testutil.MustParseAvro(t, c.schema)
		bin, _ := hex.DecodeString(c.hex)
		js, _, err := AppendJSON(nil, s, bin)
		if err != nil || string(js) != c.json {
			t.Errorf("%s %s: AppendJSON = %s, %v; want %s", c.schema, c.hex, js, err, c.json)
		}
		for _, text := range []string{c.json, strings.Replace(c.json, "-0.0", "-0", 1)} {
			if back, err := AppendBinary(nil, s, []byte(text)); err != nil || !bytes.Equal(back, bin) {
				t.Errorf("%s %s: AppendBinary = %x, %v; want %x", c.schema, text, back, err, bin)
			}
		}
	}
}

// TestUnionDefaultAnyBranch: the specification (from Avro 1.12; AVRO-3649)
// lets a union field's default match any branch, and the schema parser
// (twmb/avro) accepts such defaults; a missing field takes the default in
// the first branch it matches, as twmb/avro's schema resolution fills it.
// AppendDatum tried the first branch only and refused the datum ("want
// null, got a number").
func TestUnionDefaultAnyBranch(t *testing.T) {
	const reader = `{"type":"record","name":"R","fields":[
		{"name":"a","type":["null","int"],"default":3},
		{"name":"b","type":["int","long"],"default":2147483648},
		{"name":"c","type":["null","bytes","string"],"default":"\u00e9"},
		{"name":"d","type":["string","null"],"default":null},
		{"name":"e","type":["null",{"type":"record","name":"S","fields":[{"name":"x","type":"int"}]},
			{"type":"record","name":"T","fields":[{"name":"y","type":["null","long"],"default":5}]}],"default":{}},
		{"name":"f","type":{"type":"array","items":["null","double"]},"default":[null,1.5]},
		{"name":"g","type":["int","null"],"default":4}
	]}`
	s := testutil.MustParseAvro(t, reader)
	got, err := AppendBinary(nil, s, []byte(`{}`))
	if err != nil {
		t.Fatalf("AppendBinary({}): %v", err)
	}
	// What twmb/avro's resolution fills in when a writer has none of the
	// fields.
	w, err := twmb.Parse(`{"type":"record","name":"R","fields":[]}`)
	if err != nil {
		t.Fatal(err)
	}
	r, err := twmb.Parse(reader)
	if err != nil {
		t.Fatal(err)
	}
	res, err := twmb.Resolve(w, r)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if _, err := res.Decode(nil, &v, twmb.TaggedUnions()); err != nil {
		t.Fatal(err)
	}
	want, err := r.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		js, _, _ := AppendJSON(nil, s, got)
		wantJS, _, _ := AppendJSON(nil, s, want)
		t.Errorf("AppendBinary({}) = %x\n%s\nwant %x\n%s", got, js, want, wantJS)
	}
}

// dupKeyOracle is duplicateKey by encoding/json's tokens: the first key
// an object of text has twice, or "" and false.
func dupKeyOracle(text []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(text))
	type open struct {
		keys   map[string]bool // nil for an array
		hasKey bool
	}
	var stack []open
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, open{keys: map[string]bool{}})
				continue
			case '[':
				stack = append(stack, open{})
				continue
			}
			stack = stack[:len(stack)-1]
		case string:
			if n := len(stack) - 1; n >= 0 && stack[n].keys != nil && !stack[n].hasKey {
				if stack[n].keys[t] {
					return t, true
				}
				stack[n].keys[t], stack[n].hasKey = true, true
				continue
			}
		}
		if n := len(stack) - 1; n >= 0 {
			stack[n].hasKey = false
		}
	}
}

var dupKeySeeds = []string{
	`{"a":1,"b":2}`,
	`{"a":1,"a":2}`,
	`{"a":1,"\u0061":2}`,
	`{"a\"b":1,"a\u0022b":2}`,
	`{"x\\":1,"x\\\\":2,"x\\":3}`,
	`{"a":{"a":1},"b":{"a":2}}`,
	`{"a":{"b":1},"b":2}`,
	`[{"a":1},{"a":1}]`,
	`{"a":"b","b":"a","s":"{\"a\":1,\"a\":2}"}`,
	`{"a":[{"k":1,"k":2}]}`,
	`{"m":{"é":1,"\u00e9":2}}`,
	`"{\"a\":1,\"a\":2}"`,
	`{"":1,"":2}`,
	` { "a" : 1 , "a" : 2 } `,
	"{\"\xff\":1,\"\xfe\":2}", // both decode to U+FFFD
	"{\"\xff\":1,\"\ufffd\":2}",
}

func TestDuplicateKey(t *testing.T) {
	var wide bytes.Buffer // past the linear comparison: keys k0..k99, then k57
	wide.WriteByte('{')
	for i := range 100 {
		fmt.Fprintf(&wide, `"k%d":%d,`, i, i)
	}
	wide.WriteString(`"k57":0}`)
	for _, text := range append(dupKeySeeds, wide.String(), strings.Replace(wide.String(), `"k57":0}`, `"k100":0}`, 1)) {
		key, off, ok := duplicateKey([]byte(text))
		want, wantOK := dupKeyOracle([]byte(text))
		if key != want || ok != wantOK {
			t.Errorf("duplicateKey(%s) = %q, %v; want %q, %v", text, key, ok, want, wantOK)
		}
		if ok && (off >= len(text) || text[off] != '"') {
			t.Errorf("duplicateKey(%s): offset %d is not a key's quote", text, off)
		}
	}
}

// FuzzDuplicateKey: on valid JSON, duplicateKey finds what the tokens of
// encoding/json show.
func FuzzDuplicateKey(f *testing.F) {
	for _, s := range dupKeySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if !json.Valid(text) {
			return
		}
		key, _, ok := duplicateKey(text)
		if want, wantOK := dupKeyOracle(text); key != want || ok != wantOK {
			t.Fatalf("duplicateKey(%q) = %q, %v; want %q, %v", text, key, ok, want, wantOK)
		}
	})
}

// TestManyNames: records, enums and unions with more names than
// indexedNames are looked up through Schema's index, with fewer by a scan;
// both find every name and refuse unknown ones alike.
func TestManyNames(t *testing.T) {
	for _, n := range []int{3, indexedNames, indexedNames + 1, 300} {
		var fields, symbols, branches, values []string
		for i := range n {
			symbols = append(symbols, fmt.Sprintf("S%d", i))
			branches = append(branches, fmt.Sprintf(`{"type":"fixed","name":"F%d","size":1}`, i))
		}
		for i := range n {
			fields = append(fields, fmt.Sprintf(`{"name":"f%d","type":"int"}`, i))
			values = append(values, fmt.Sprintf(`"f%d":%d`, i, i))
		}
		fields = append(fields, fmt.Sprintf(`{"name":"e","type":{"type":"enum","name":"E","symbols":["%s"]}}`, strings.Join(symbols, `","`)),
			fmt.Sprintf(`{"name":"u","type":["null",%s]}`, strings.Join(branches, ",")))
		schema := fmt.Sprintf(`{"type":"record","name":"R","fields":[%s]}`, strings.Join(fields, ","))
		c := Limits{}.Compile(testutil.MustParseAvro(t, schema))
		indep, err := twmb.Parse(schema)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{0, n / 2, n - 1} {
			text := fmt.Sprintf(`{%s,"e":"S%d","u":{"F%d":"\u0007"}}`, strings.Join(values, ","), k, k)
			bin, _, err := c.AppendDatum(nil, []byte(text))
			if err != nil {
				t.Fatalf("%d names, %s: %v", n, text, err)
			}
			var got map[string]any
			if rest, err := indep.Decode(bin, &got); err != nil || len(rest) != 0 {
				t.Fatalf("%d names: twmb/avro decodes %x: %v, %d bytes left", n, bin, err, len(rest))
			}
			if got["e"] != fmt.Sprintf("S%d", k) || got[fmt.Sprintf("f%d", n-1)] != int32(n-1) {
				t.Errorf("%d names, symbol %d: decoded %v", n, k, got)
			}
			back, _, err := AppendJSON(nil, c.root, bin)
			if err != nil {
				t.Fatal(err)
			}
			var want, again any
			if err := json.Unmarshal([]byte(text), &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(back, &again); err != nil || !reflect.DeepEqual(want, again) {
				t.Errorf("%d names: %s back as %s (%v)", n, text, back, err)
			}
		}
		for _, c2 := range []struct{ text, want string }{
			{`{"nope":1}`, `record R has no field "nope"`},
			{fmt.Sprintf(`{%s,"e":"S%d","u":null}`, strings.Join(values, ","), n), fmt.Sprintf(`"S%d" is not a symbol of enum E`, n)},
			{fmt.Sprintf(`{%s,"e":"S0","u":{"F%d":"\u0007"}}`, strings.Join(values, ","), n), fmt.Sprintf(`the union has no branch "F%d"`, n)},
		} {
			if _, _, err := c.AppendDatum(nil, []byte(c2.text)); err == nil || !strings.Contains(err.Error(), c2.want) {
				t.Errorf("%d names: %.60s...: %v, want %q", n, c2.text, err, c2.want)
			}
		}
	}
}

// BenchmarkAppendDatumManyNames converts a record of n fields, each an enum
// of n symbols: the time per field stays flat as n grows when names are
// looked up through the index.
func BenchmarkAppendDatumManyNames(b *testing.B) {
	for _, n := range []int{10, 1000, 4000} {
		var symbols, fields, values []string
		for i := range n {
			symbols = append(symbols, fmt.Sprintf("S%d", i))
		}
		for i := range n {
			typ := `"E"`
			if i == 0 {
				typ = fmt.Sprintf(`{"type":"enum","name":"E","symbols":["%s"]}`, strings.Join(symbols, `","`))
			}
			fields = append(fields, fmt.Sprintf(`{"name":"f%d","type":%s}`, i, typ))
			values = append(values, fmt.Sprintf(`"f%d":"S%d"`, i, n-1-i))
		}
		c := Limits{}.Compile(testutil.MustParseAvro(b, fmt.Sprintf(`{"type":"record","name":"R","fields":[%s]}`, strings.Join(fields, ","))))
		text := []byte("{" + strings.Join(values, ",") + "}")
		b.Run(fmt.Sprintf("fields=%d", n), func(b *testing.B) {
			var buf []byte
			for b.Loop() {
				var err error
				if buf, _, err = c.AppendDatum(buf[:0], text); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/field")
		})
	}
}

// TestSurrogatePairs: an escaped surrogate pair is one character, and an
// escaped backslash before "u" starts no escape: both are read as written.
func TestSurrogatePairs(t *testing.T) {
	s := testutil.MustParseAvro(t, `{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}`)
	bin, err := AppendBinary(nil, s, []byte(`{"s":"\ud83d\ude00 \\ud800 \\\ud83d\ude00"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "😀 \\ud800 \\😀"
	if got := string(bin[1:]); got != want || int(bin[0]) != 2*len(want) {
		t.Errorf("the string %q (length byte %d), want %q", got, bin[0], want)
	}
}

// TestTerminalSafeJSON: the characters of strings and bytes that could act
// on a terminal (C1 controls, bidirectional overrides, other format
// characters) are written as \u escapes, printable text as it is, and the
// JSON reads back as the same datum.
func TestTerminalSafeJSON(t *testing.T) {
	s := testutil.MustParseAvro(t, `{"type":"record","name":"R","fields":[{"name":"s","type":"string"},{"name":"b","type":"bytes"}]}`)
	str := "é中😀\u009b[2J\u202eevil\u2066\U000E0001"
	raw := []byte{'a', 0x9b, 0x85, 0xad, 0xa0, 0xe9}
	datum := appendBin(appendBin(nil, []byte(str)), raw)
	js, _, err := AppendJSON(nil, s, datum)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"s":"é中😀\u009b[2J\u202eevil\u2066\udb40\udc01","b":"a\u009b\u0085\u00ad` + "\u00a0é" + `"}`
	if string(js) != want {
		t.Errorf("AppendJSON\n got %s\nwant %s", js, want)
	}
	back, err := AppendBinary(nil, s, js)
	if err != nil || !bytes.Equal(back, datum) {
		t.Errorf("read back: %x, %v; want %x", back, err, datum)
	}
}

// appendBin appends b as Avro bytes or string.
func appendBin(dst, b []byte) []byte {
	return append(binary.AppendVarint(dst, int64(len(b))), b...)
}

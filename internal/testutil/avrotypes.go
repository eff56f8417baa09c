package testutil

import (
	"bytes"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avroschema"
)

// Avro schemas and datums of every Avro type, shared by the tests of
// internal/avrobin, internal/avrojson and interop.

// AvroPrimitiveFields are the record fields n, b, i, l, f, d, s and by, one
// of each primitive Avro type in that order, for the fields of a schema of
// every Avro type (without the brackets around them, nor a comma after).
const AvroPrimitiveFields = ` {"name":"n","type":"null"},
 {"name":"b","type":"boolean"},
 {"name":"i","type":"int"},
 {"name":"l","type":"long"},
 {"name":"f","type":"float"},
 {"name":"d","type":"double"},
 {"name":"s","type":"string"},
 {"name":"by","type":"bytes"}`

// AllAvroTypes is a schema with every Avro type, a recursive record, named
// types in a union, maps and arrays of values that take no bytes, and
// defaults.
const AllAvroTypes = `{"type":"record","name":"ns.All","fields":[
` + AvroPrimitiveFields + `,
 {"name":"fx","type":{"type":"fixed","name":"F4","size":4}},
 {"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},
 {"name":"a","type":{"type":"array","items":"long"}},
 {"name":"m","type":{"type":"map","values":["null","string"]}},
 {"name":"nulls","type":{"type":"array","items":"null"}},
 {"name":"empties","type":{"type":"map","values":{"type":"record","name":"E","fields":[]}}},
 {"name":"u","type":["null","int","string","F4","Color",{"type":"array","items":"int"},"All"]},
 {"name":"dflt","type":["int","null"],"default":7},
 {"name":"rec","type":{"type":"record","name":"Sub","fields":[{"name":"x","type":"int","default":3}]},"default":{}}
]}`

// AllAvroTypesDatums are JSON values of AllAvroTypes in the form
// avrojson.AppendJSON writes them, but for the printable characters from
// U+0080 on, escaped here.
var AllAvroTypesDatums = []string{
	`{"n":null,"b":true,"i":-1,"l":9223372036854775807,"f":1.5,"d":-0.1,"s":"h\u00e9\"\\\n\u0001","by":"\u0000\u00ff\u0080A","fx":"abcd","e":"GREEN","a":[1,-2,3],"m":{"k":{"string":"v"},"z":null},"nulls":[null,null],"empties":{"a":{},"b":{}},"u":null,"dflt":{"int":7},"rec":{"x":3}}`,
	`{"n":null,"b":false,"i":2147483647,"l":-9223372036854775808,"f":"NaN","d":"-Infinity","s":"","by":"","fx":"\u00ff\u00fe\u0000\u0001","e":"RED","a":[],"m":{},"nulls":[],"empties":{},"u":{"ns.All":{"n":null,"b":false,"i":0,"l":0,"f":0,"d":1e+300,"s":"x","by":"","fx":"0000","e":"RED","a":[],"m":{},"nulls":[null],"empties":{},"u":{"ns.F4":"wxyz"},"dflt":null,"rec":{"x":0}}},"dflt":null,"rec":{"x":-5}}`,
	`{"n":null,"b":false,"i":0,"l":0,"f":3.4028235e+38,"d":5e-324,"s":"日本","by":"b","fx":"abcd","e":"RED","a":[0],"m":{"":{"string":""}},"nulls":[],"empties":{},"u":{"array":[1,2]},"dflt":null,"rec":{"x":1}}`,
	`{"n":null,"b":false,"i":0,"l":0,"f":"Infinity","d":0.000001,"s":"s","by":"b","fx":"abcd","e":"RED","a":[],"m":{},"nulls":[],"empties":{},"u":{"ns.Color":"GREEN"},"dflt":null,"rec":{"x":1}}`,
}

// MustParseAvro parses the Avro schema text, failing t on an error.
func MustParseAvro(t testing.TB, text string) *avroschema.Node {
	t.Helper()
	n, err := avroschema.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// AddAvroSeeds adds to f, a fuzz target of (schema text, binary datum),
// every datum of AllAvroTypesDatums in binary (encode turns JSON into it:
// avrojson.AppendBinary, which this package cannot import), whole and cut
// in half, and datums that stress the bounds: a block of 2,147,483,647 null
// items, records nested 1,100 deep and a map of fixed values of size 0.
func AddAvroSeeds(f *testing.F, encode func(dst []byte, s *avroschema.Node, json []byte) ([]byte, error)) {
	f.Helper()
	s := MustParseAvro(f, AllAvroTypes)
	for _, text := range AllAvroTypesDatums {
		bin, err := encode(nil, s, []byte(text))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(AllAvroTypes, bin)
		f.Add(AllAvroTypes, bin[:len(bin)/2])
	}
	f.Add(`{"type":"array","items":"null"}`, []byte{0xfe, 0xff, 0xff, 0xff, 0x0f})
	f.Add(`{"type":"record","name":"R","fields":[{"name":"next","type":["null","R"]}]}`, bytes.Repeat([]byte{2}, 1100))
	f.Add(`{"type":"map","values":{"type":"fixed","name":"F","size":0}}`, []byte{0x7f, 0, 0})
}

// BadAvroDatum is a binary datum, in hex, of the schema text Schema that
// the readers of the Avro binary encoding refuse with an error of Class,
// one of avrobin's, whose message holds Want.
type BadAvroDatum struct {
	Schema, Hex string
	Class       error
	Want        string
}

// BadAvroDatums are datums that avrobin's Skipper and avrojson.AppendJSON
// refuse, each with the same error.
var BadAvroDatums = []BadAvroDatum{
	{`"int"`, "", avrobin.ErrTruncated, "datum at byte 0"},
	{`"int"`, "8080808010", avrobin.ErrMalformed, "out of 32-bit range"},
	{`"long"`, "ffffffffffffffffff7f", avrobin.ErrMalformed, "overflows"},
	{`"boolean"`, "02", avrobin.ErrMalformed, "boolean byte"},
	{`"string"`, "03", avrobin.ErrMalformed, "negative length"},
	{`"string"`, "0a41", avrobin.ErrTruncated, "length 5 exceeds"},
	{`{"type":"array","items":"long"}`, "feffffff0f", avrobin.ErrTruncated, "items exceeds"},
	{`{"type":"array","items":"null"}`, "feffffff0f", avrobin.ErrLimit, "zero-size items"},
	{`{"type":"array","items":"string"}`, "0600000a", avrobin.ErrTruncated, "[2] at byte 3"},
	{`{"type":"array","items":"int"}`, "040204", avrobin.ErrTruncated, "datum at byte 3"},
	{`{"type":"map","values":"int"}`, "020261", avrobin.ErrTruncated, `["a"] at byte 3`},
	{`{"type":"record","name":"R","fields":[{"name":"paths","type":{"type":"array","items":"string"}}]}`, "01c801026100", avrobin.ErrTruncated, "paths at byte 1: truncated input: block size 100 exceeds the 3 bytes left"},
	{`["null","int"]`, "04", avrobin.ErrMalformed, "branch 2 out of range"},
	{`["null",{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}]`, "02", avrobin.ErrTruncated, "<R>.x at byte 1"},
	{`{"type":"enum","name":"E","symbols":["A"]}`, "02", avrobin.ErrMalformed, "index 1 out of range"},
	{`{"type":"record","name":"R","fields":[{"name":"next","type":["null","R"]}]}`, strings.Repeat("02", 2000), avrobin.ErrLimit, "more than 1000 nested records"},
}

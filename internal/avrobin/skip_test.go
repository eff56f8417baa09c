package avrobin_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avrojson"
	"github.com/protoavro/protoavro/internal/avroschema"
)

// skipSchema has every Avro type, a recursive record, named types in a
// union, maps and arrays of values that take no bytes.
const skipSchema = `{"type":"record","name":"ns.All","fields":[
 {"name":"n","type":"null"},
 {"name":"b","type":"boolean"},
 {"name":"i","type":"int"},
 {"name":"l","type":"long"},
 {"name":"f","type":"float"},
 {"name":"d","type":"double"},
 {"name":"s","type":"string"},
 {"name":"by","type":"bytes"},
 {"name":"fx","type":{"type":"fixed","name":"F4","size":4}},
 {"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},
 {"name":"a","type":{"type":"array","items":"long"}},
 {"name":"m","type":{"type":"map","values":["null","string"]}},
 {"name":"nulls","type":{"type":"array","items":"null"}},
 {"name":"empties","type":{"type":"map","values":{"type":"record","name":"E","fields":[]}}},
 {"name":"u","type":["null","int","string","F4","Color",{"type":"array","items":"int"},"All"]}
]}`

// skipDatums are JSON values of skipSchema.
var skipDatums = []string{
	`{"n":null,"b":true,"i":-1,"l":9223372036854775807,"f":1.5,"d":-0.1,"s":"h\u00e9","by":"\u0000\u00ff","fx":"abcd","e":"GREEN","a":[1,-2,3],"m":{"k":{"string":"v"},"z":null},"nulls":[null,null],"empties":{"a":{},"b":{}},"u":null}`,
	`{"n":null,"b":false,"i":0,"l":0,"f":0,"d":0,"s":"","by":"","fx":"wxyz","e":"RED","a":[],"m":{},"nulls":[],"empties":{},"u":{"ns.All":{"n":null,"b":false,"i":0,"l":0,"f":0,"d":1e+300,"s":"x","by":"","fx":"0000","e":"RED","a":[],"m":{},"nulls":[null],"empties":{},"u":{"ns.F4":"wxyz"}}}}`,
	`{"n":null,"b":false,"i":7,"l":8,"f":0,"d":0,"s":"s","by":"b","fx":"abcd","e":"RED","a":[0],"m":{"":{"string":""}},"nulls":[],"empties":{},"u":{"array":[1,2]}}`,
}

func mustParse(t testing.TB, text string) *avroschema.Node {
	t.Helper()
	n, err := avroschema.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSkipper: the skipper ends each datum where it ends, and refuses bad
// ones with an *Error at the path and offset AppendJSON reports.
func TestSkipper(t *testing.T) {
	s := mustParse(t, skipSchema)
	k := avrobin.NewSkipper(s, 0)
	var stream []byte
	var ends []int
	for _, text := range skipDatums {
		bin, err := avrojson.AppendBinary(nil, s, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		stream = append(stream, bin...)
		ends = append(ends, len(stream))
	}
	r := avrobin.Reader{Buf: stream}
	for i, end := range ends {
		r.Empty = avrobin.Budget{}
		if err := k.Skip(&r); err != nil || r.Pos != end {
			t.Fatalf("datum %d: ends at %d, %v; want %d", i, r.Pos, err, end)
		}
	}

	for _, c := range []struct {
		schema, hex string
		class       error
		want        string
	}{
		{`"int"`, "", avrobin.ErrTruncated, "datum at byte 0"},
		{`"int"`, "8080808010", avrobin.ErrMalformed, "out of 32-bit range"},
		{`"long"`, "ffffffffffffffffff7f", avrobin.ErrMalformed, "overflows"},
		{`"boolean"`, "02", avrobin.ErrMalformed, "boolean byte"},
		{`"string"`, "0a41", avrobin.ErrTruncated, "length 5 exceeds"},
		{`{"type":"array","items":"null"}`, "feffffff0f", avrobin.ErrLimit, "zero-size items"},
		{`{"type":"array","items":"string"}`, "0600000a", avrobin.ErrTruncated, "[2] at byte 3"},
		{`{"type":"map","values":"int"}`, "020261", avrobin.ErrTruncated, `["a"] at byte 3`},
		{`{"type":"record","name":"R","fields":[{"name":"paths","type":{"type":"array","items":"string"}}]}`, "01c801026100", avrobin.ErrTruncated, "paths at byte 1: truncated input: block size 100 exceeds the 3 bytes left"},
		{`["null","int"]`, "04", avrobin.ErrMalformed, "branch 2 out of range"},
		{`["null",{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}]`, "02", avrobin.ErrTruncated, "<R>.x at byte 1"},
		{`{"type":"enum","name":"E","symbols":["A"]}`, "02", avrobin.ErrMalformed, "index 1 out of range"},
		{`{"type":"record","name":"R","fields":[{"name":"next","type":["null","R"]}]}`, strings.Repeat("02", 2000), avrobin.ErrLimit, "more than 1000 nested records"},
	} {
		s := mustParse(t, c.schema)
		data, _ := hex.DecodeString(c.hex)
		r := avrobin.Reader{Buf: data}
		err := avrobin.NewSkipper(s, 0).Skip(&r)
		if !errors.Is(err, c.class) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Skip %s %s: got %v, want %v with %q", c.schema, c.hex, err, c.class, c.want)
		}
		_, _, jerr := avrojson.AppendJSON(nil, s, data)
		if jerr == nil || jerr.Error() != err.Error() {
			t.Errorf("%s %s: AppendJSON's error %v, the skipper's %v", c.schema, c.hex, jerr, err)
		}
	}
}

// FuzzSkipper reads arbitrary bytes with arbitrary schemas through the
// skipper and through avrojson's AppendJSON, both on the one bounded
// reader: they accept the same datums, ending at the same byte, and refuse
// the others with the same error, but where the JSON alone is over its
// size limit.
func FuzzSkipper(f *testing.F) {
	s := mustParse(f, skipSchema)
	for _, text := range skipDatums {
		bin, err := avrojson.AppendBinary(nil, s, []byte(text))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(skipSchema, bin)
		f.Add(skipSchema, bin[:len(bin)/2])
	}
	f.Add(`{"type":"array","items":"null"}`, []byte{0xfe, 0xff, 0xff, 0xff, 0x0f})
	f.Add(`{"type":"record","name":"R","fields":[{"name":"next","type":["null","R"]}]}`, bytes.Repeat([]byte{2}, 1100))
	f.Add(`{"type":"map","values":{"type":"fixed","name":"F","size":0}}`, []byte{0x7f, 0, 0})
	f.Add(`{"type":"record","name":"FieldMask","fields":[{"name":"paths","type":{"type":"array","items":"string"}}]}`, []byte{0x01, 0xc8, 0x01, 0x02, 0x61, 0x00})
	f.Add(`{"type":"array","items":"long"}`, []byte{0x03, 0x04, 0x02, 0x04, 0x00})
	f.Add(`"long"`, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})
	f.Fuzz(func(t *testing.T, schema string, data []byte) {
		s, err := avroschema.Parse([]byte(schema))
		if err != nil {
			return
		}
		r := avrobin.Reader{Buf: data}
		serr := avrobin.NewSkipper(s, 0).Skip(&r)
		_, n, jerr := avrojson.AppendJSON(nil, s, data)
		if jerr != nil && strings.Contains(jerr.Error(), "JSON exceeds") {
			return
		}
		switch {
		case serr == nil && jerr == nil:
			if r.Pos != n {
				t.Fatalf("the skipper ends at %d, AppendJSON at %d", r.Pos, n)
			}
		case serr == nil || jerr == nil:
			t.Fatalf("the skipper: %v; AppendJSON: %v", serr, jerr)
		default:
			var e *avrobin.Error
			if !errors.As(serr, &e) {
				t.Fatalf("the skipper's error is not an *Error: %v", serr)
			}
			if serr.Error() != jerr.Error() {
				t.Fatalf("the skipper: %v; AppendJSON: %v", serr, jerr)
			}
		}
	})
}

package avrobin_test

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avrojson"
	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/testutil"
)

// TestSkipper: the skipper ends each datum where it ends, and refuses bad
// ones with an *Error at the path and offset AppendJSON reports.
func TestSkipper(t *testing.T) {
	s := testutil.MustParseAvro(t, testutil.AllAvroTypes)
	k := avrobin.NewSkipper(s, 0)
	var stream []byte
	var ends []int
	for _, text := range testutil.AllAvroTypesDatums {
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
		s := testutil.MustParseAvro(t, c.schema)
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
	testutil.AddAvroSeeds(f, avrojson.AppendBinary)
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

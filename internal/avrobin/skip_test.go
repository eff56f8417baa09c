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

	for _, c := range testutil.BadAvroDatums {
		s := testutil.MustParseAvro(t, c.Schema)
		data, _ := hex.DecodeString(c.Hex)
		r := avrobin.Reader{Buf: data}
		err := avrobin.NewSkipper(s, 0).Skip(&r)
		if !errors.Is(err, c.Class) || !strings.Contains(err.Error(), c.Want) {
			t.Errorf("Skip %s %s: got %v, want %v with %q", c.Schema, c.Hex, err, c.Class, c.Want)
		}
		_, _, jerr := avrojson.AppendJSON(nil, s, data)
		if jerr == nil || jerr.Error() != err.Error() {
			t.Errorf("%s %s: AppendJSON's error %v, the skipper's %v", c.Schema, c.Hex, jerr, err)
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

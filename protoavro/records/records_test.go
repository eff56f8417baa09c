package records

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// delimited frames msgs as length-delimited records.
func delimited(msgs ...[]byte) []byte {
	var b []byte
	for _, m := range msgs {
		b = protowire.AppendVarint(b, uint64(len(m)))
		b = append(b, m...)
	}
	return b
}

// readDelimited reads every record of d, with its offset.
func readDelimited(t *testing.T, d *Delimited) (recs [][]byte, offs []int64) {
	t.Helper()
	for {
		rec, off, err := d.Next()
		if err == io.EOF {
			return recs, offs
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, bytes.Clone(rec))
		offs = append(offs, off)
	}
}

func TestDelimited(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte{0x08, 0x01}, bufferSize) // larger than the buffer
	in := delimited([]byte("a"), nil, big, []byte{0x08, 0x96, 0x01})
	d := NewDelimited(bytes.NewReader(in))
	got, offs := readDelimited(t, d)
	if len(got) != 4 || string(got[0]) != "a" || len(got[1]) != 0 || !bytes.Equal(got[2], big) || d.Index() != 4 || d.Offset() != int64(len(in)) {
		t.Fatalf("got %d records, index %d, offset %d", len(got), d.Index(), d.Offset())
	}
	if offs[0] != 0 || offs[1] != 2 || offs[2] != 3 {
		t.Errorf("offsets %v", offs)
	}
}

func TestDelimitedErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		input []byte
		want  string
	}{
		{"truncated prefix", append(delimited([]byte("ab")), 0x80), "record 1 (input byte 3): truncated: the input ends inside the length prefix"},
		{"truncated record", append(delimited([]byte("ab")), 5, 1), "record 1 (input byte 3): truncated: the length prefix says 5 bytes, 1 remain"},
		{"truncated large record", protowire.AppendVarint(nil, bufferSize+10), "record 0 (input byte 0): truncated: the length prefix says 1048586 bytes, 0 remain"},
		{"oversized", protowire.AppendVarint(nil, MaxRecordSize+1), "exceeds the limit of 67108864 bytes"},
		{"bad varint", bytes.Repeat([]byte{0xff}, 10), "length prefix is not a valid varint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDelimited(bytes.NewReader(tt.input))
			var err error
			for err == nil {
				_, _, err = d.Next()
			}
			var re *Error
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want an *Error containing %q", err, tt.want)
			}
		})
	}
}

func TestLines(t *testing.T) {
	t.Parallel()
	in := "{\"a\":1}\n\n  \r\n{\"b\":2}\r\n{\"c\":3}"
	l := NewLines(strings.NewReader(in))
	type rec struct {
		raw       string
		off, line int64
	}
	var got []rec
	for {
		raw, off, line, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec{string(raw), off, line})
	}
	want := []rec{{"{\"a\":1}\n", 0, 1}, {"{\"b\":2}\r\n", 13, 4}, {"{\"c\":3}", 22, 5}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	long := NewLines(io.MultiReader(strings.NewReader("{}\n"), io.LimitReader(repeatReader('x'), MaxRecordSize+2)))
	if _, _, _, err := long.Next(); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := long.Next(); err == nil || !strings.Contains(err.Error(), "record 1 (line 2, input byte 3): line longer than") {
		t.Errorf("long line: %v", err)
	}
}

// repeatReader yields one byte forever.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestSniff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Format
	}{
		{"", FormatUnknown},
		{"  \n", FormatUnknown},
		{`{"a":1}` + "\n", FormatJSONLines},
		{"\n\n  {\"a\": \"é\"}\n{", FormatJSONLines},
		{string(delimited([]byte{0x08, 0x01})), FormatDelimited},
		{"{\x08\x01\x12", FormatDelimited},    // a 123-byte message with binary tags
		{"{\"a\":\"\xff\"}", FormatDelimited}, // not UTF-8
		{"[1,2]", FormatDelimited},
		{"{" + strings.Repeat("a", sniffLen-2) + "\xc3", FormatJSONLines}, // a rune cut at the window's end
	}
	for _, tt := range tests {
		if got := Sniff([]byte(tt.in)); got != tt.want {
			t.Errorf("Sniff(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// Moved from cmd/protoavro with the reader.
// TestDelimitedLargeRecord reads records larger than the reader's
// buffer.
func TestDelimitedLargeRecord(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte{'x'}, 3<<20)
	var in []byte
	for _, rec := range [][]byte{[]byte("ab"), big, []byte("c")} {
		in = protowire.AppendVarint(in, uint64(len(rec)))
		in = append(in, rec...)
	}
	recs, offs := readDelimited(t, NewDelimited(bufio.NewReaderSize(bytes.NewReader(in), 16)))
	if len(recs) != 3 || !bytes.Equal(recs[1], big) {
		t.Errorf("large record differs")
	}
	if want := []int64{0, 3, 3 + 4 + 3<<20}; !slices.Equal(offs, want) {
		t.Errorf("offsets = %v, want %v", offs, want)
	}
}

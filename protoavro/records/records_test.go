package records

import (
	"bufio"
	"bytes"
	"encoding/binary"
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

// TestDelimited reads records of both framings, varint and 4-byte
// big-endian sizes: an empty one, one larger than the buffer, and their
// offsets.
func TestDelimited(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte{0x08, 0x01}, bufferSize) // larger than the buffer
	msgs := [][]byte{[]byte("a"), nil, big, {0x08, 0x96, 0x01}}
	for _, f := range []struct {
		name  string
		frame func(...[]byte) []byte
		open  func(io.Reader) *Delimited
		offs  []int64
	}{
		{"varint", delimited, NewDelimited, []int64{0, 2, 3, 3 + int64(protowire.SizeVarint(uint64(len(big)))) + int64(len(big))}},
		{"size32", size32, NewSize32, []int64{0, 5, 9, 9 + 4 + int64(len(big))}},
	} {
		in := f.frame(msgs...)
		d := f.open(bytes.NewReader(in))
		got, offs := readDelimited(t, d)
		if len(got) != 4 || string(got[0]) != "a" || len(got[1]) != 0 || !bytes.Equal(got[2], big) || !bytes.Equal(got[3], msgs[3]) ||
			d.Index() != 4 || d.Offset() != int64(len(in)) {
			t.Fatalf("%s: got %d records, index %d, offset %d", f.name, len(got), d.Index(), d.Offset())
		}
		if !slices.Equal(offs, f.offs) {
			t.Errorf("%s: offsets = %v, want %v", f.name, offs, f.offs)
		}
	}
}

func TestDelimitedErrors(t *testing.T) {
	t.Parallel()
	tests := []framingError{
		{"truncated prefix", append(delimited([]byte("ab")), 0x80), "record 1 (input byte 3): truncated: the input ends inside the length prefix"},
		{"truncated record", append(delimited([]byte("ab")), 5, 1), "record 1 (input byte 3): truncated: the length prefix says 5 bytes, 1 remain"},
		{"truncated large record", protowire.AppendVarint(nil, bufferSize+10), "record 0 (input byte 0): truncated: the length prefix says 1048586 bytes, 0 remain"},
		{"oversized", protowire.AppendVarint(nil, MaxRecordSize+1), "exceeds the limit of 67108864 bytes"},
		{"bad varint", bytes.Repeat([]byte{0xff}, 10), "length prefix is not a valid varint"},
	}
	framingErrors(t, tests, NewDelimited)
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

// size32 frames msgs each after its size as 4 bytes, big-endian.
func size32(msgs ...[]byte) []byte {
	var b []byte
	for _, m := range msgs {
		b = binary.BigEndian.AppendUint32(b, uint32(len(m)))
		b = append(b, m...)
	}
	return b
}

// TestSize32ReadAsDelimited: what a 4-byte big-endian size below 2^24
// looks like read as varints, three empty records, which is why the
// formats are not guessed from each other.
func TestSize32ReadAsDelimited(t *testing.T) {
	t.Parallel()
	recs, _ := readDelimited(t, NewDelimited(bytes.NewReader(size32([]byte{0x08, 0x01}))))
	if len(recs) != 4 || len(recs[0]) != 0 || len(recs[1]) != 0 || len(recs[2]) != 0 || len(recs[3]) != 2 {
		t.Errorf("records %q", recs)
	}
}

func TestSize32Errors(t *testing.T) {
	t.Parallel()
	tests := []framingError{
		{"prefix cut after 1 byte", append(size32([]byte("ab")), 0), "record 1 (input byte 6): truncated: the input ends inside the 4-byte length prefix"},
		{"prefix cut after 3 bytes", []byte{0, 0, 0}, "record 0 (input byte 0): truncated: the input ends inside the 4-byte length prefix"},
		{"truncated record", append(size32([]byte("ab")), 0, 0, 0, 5, 1), "record 1 (input byte 6): truncated: the length prefix says 5 bytes, 1 remain"},
		{"truncated large record", binary.BigEndian.AppendUint32(nil, bufferSize+10), "record 0 (input byte 0): truncated: the length prefix says 1048586 bytes, 0 remain"},
		{"oversized", binary.BigEndian.AppendUint32(nil, MaxRecordSize+1), "record 0 (input byte 0): 4-byte length prefix 67108865 exceeds the limit of 67108864 bytes (64 MiB); does each message follow its size as 4 bytes, big-endian?"},
		// 2 written little-endian is 2^25 read big-endian, within the limit.
		{"little-endian", append(binary.LittleEndian.AppendUint32(nil, 2), 'a', 'b'), "record 0 (input byte 0): truncated: the length prefix says 33554432 bytes, 2 remain"},
		{"little-endian oversized", append(binary.LittleEndian.AppendUint32(nil, 300), 'a', 'b'), "4-byte length prefix 738263040 exceeds the limit of 67108864 bytes (64 MiB); read little-endian it would be 300: are the sizes little-endian? (they are read big-endian)"},
		{"varint sizes", delimited(bytes.Repeat([]byte{'x'}, 300)), "4-byte length prefix 2885843064 exceeds the limit of 67108864 bytes (64 MiB); does each message"},
	}
	framingErrors(t, tests, NewSize32)
}

// TestKubernetesEnvelope: an input that starts with the magic of the
// Kubernetes protobuf encoding, or whose first length-prefixed record
// does, is refused before any record is returned, in both framings.
func TestKubernetesEnvelope(t *testing.T) {
	t.Parallel()
	envelope := []byte("k8s\x00\x0a\x09\x0a\x02v1\x12\x03Pod\x12\x04\x0a\x02\x0a\x00")
	const inputErr = `record 0 (input byte 0): the input starts with the Kubernetes protobuf envelope (the magic "k8s\x00", then a runtime.Unknown message)`
	const recordErr = `record 0 (input byte 0): the first record starts with the Kubernetes protobuf envelope`
	for _, c := range []struct {
		name string
		d    *Delimited
		want string
	}{
		{"delimited input", NewDelimited(bytes.NewReader(envelope)), inputErr},
		{"size32 input", NewSize32(bytes.NewReader(envelope)), inputErr},
		{"delimited record", NewDelimited(bytes.NewReader(delimited(envelope))), recordErr},
		{"size32 record", NewSize32(bytes.NewReader(size32(envelope))), recordErr},
	} {
		rec, _, err := c.d.Next()
		var re *Error
		if !errors.As(err, &re) || re.Index != 0 || re.Offset != 0 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: record %q, error %v, want %q", c.name, rec, err, c.want)
		}
	}
	// Only the start of the input, and the first record, are looked at.
	recs, _ := readDelimited(t, NewDelimited(bytes.NewReader(delimited([]byte{0x08, 0x01}, envelope))))
	if len(recs) != 2 {
		t.Errorf("an envelope in record 1: %d records", len(recs))
	}
}

// TestLinesByteOrderMark: a UTF-8 byte-order mark is skipped at the very
// start of the input only; UTF-16 and UTF-32 input is refused.
func TestLinesByteOrderMark(t *testing.T) {
	t.Parallel()
	l := NewLines(strings.NewReader("\xef\xbb\xbf{\"a\":1}\n\xef\xbb\xbf{\"b\":2}\n"))
	raw, off, line, err := l.Next()
	if err != nil || string(raw) != "{\"a\":1}\n" || off != 3 || line != 1 {
		t.Errorf("first line %q at %d, line %d, %v", raw, off, line, err)
	}
	raw, off, line, err = l.Next()
	if err != nil || string(raw) != "\xef\xbb\xbf{\"b\":2}\n" || off != 11 || line != 2 {
		t.Errorf("second line %q at %d, line %d, %v", raw, off, line, err)
	}
	if _, _, _, err := NewLines(strings.NewReader("\xef\xbb\xbf")).Next(); err != io.EOF {
		t.Errorf("a lone byte-order mark: %v, want EOF", err)
	}
	for _, c := range []struct{ in, want string }{
		{"\xff\xfe{\x00}\x00", "record 0 (line 1, input byte 0): the input is UTF-16 (little-endian) text (it starts with its byte-order mark): JSON Lines must be UTF-8; convert it first, e.g. with iconv -f UTF-16 -t UTF-8"},
		{"\xfe\xff\x00{\x00}", "the input is UTF-16 (big-endian) text"},
		{"\xff\xfe\x00\x00{\x00\x00\x00", "the input is UTF-32 (little-endian) text (it starts with its byte-order mark): JSON Lines must be UTF-8; convert it first, e.g. with iconv -f UTF-32 -t UTF-8"},
		{"\x00\x00\xfe\xff\x00\x00\x00{", "the input is UTF-32 (big-endian) text"},
	} {
		_, _, _, err := NewLines(strings.NewReader(c.in)).Next()
		var re *Error
		if !errors.As(err, &re) || re.Index != 0 || re.Offset != 0 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an *Error containing %q", c.in, err, c.want)
		}
	}
}

func TestSniffByteOrderMark(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want Format
	}{
		{"\xef\xbb\xbf{\"a\":1}\n", FormatJSONLines},
		{"\xef\xbb\xbf\r\n", FormatJSONLines},
		{"\xef\xbb\xbf", FormatJSONLines},
		{"\xef\xbb\xbf[{\"a\":1}]", FormatDelimited},
		{" \xef\xbb\xbf{\"a\":1}\n", FormatDelimited}, // only at the very start
		{"\xef\xbb\xbf{" + strings.Repeat("a", sniffLen-5) + "\xc3", FormatJSONLines},
	} {
		if got := Sniff([]byte(c.in)); got != c.want {
			t.Errorf("Sniff(%.20q) = %v, want %v", c.in, got, c.want)
		}
	}
	if FormatSize32.String() != "size32" {
		t.Errorf("FormatSize32 is %q", FormatSize32)
	}
}

// framingError is an input whose framing is bad, and what its error says.
type framingError struct {
	name  string
	input []byte
	want  string
}

// framingErrors reads each input to its end with a reader of open's
// framing, and checks that it ends with an *Error saying what it should.
func framingErrors(t *testing.T, tests []framingError, open func(io.Reader) *Delimited) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := open(bytes.NewReader(tt.input))
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

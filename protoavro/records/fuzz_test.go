package records

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// FuzzDelimited checks that any input splits into records, each its
// varint length prefix and that many bytes of the input, one after the
// other, and that reading stops at the end or with an *Error at the
// offset where the bad record starts.
func FuzzDelimited(f *testing.F) {
	f.Add([]byte{})
	f.Add(delimited([]byte("abc"), nil, []byte{0x08, 0x96, 0x01}))
	f.Add([]byte{0x80})
	f.Add([]byte{0x05, 0x01})
	f.Add(bytes.Repeat([]byte{0xff}, 11))
	f.Add(protowire.AppendVarint(nil, MaxRecordSize+1))
	f.Add([]byte(`{"a":1}` + "\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		d := NewDelimited(bytes.NewReader(in))
		var pos int64 // where the next record starts
		for {
			rec, off, err := d.Next()
			if err == io.EOF {
				if pos != int64(len(in)) || d.Offset() != pos {
					t.Fatalf("EOF at %d of %d", pos, len(in))
				}
				return
			}
			if err != nil {
				var re *Error
				if !errors.As(err, &re) || re.Offset != pos || re.Index != d.Index() {
					t.Fatalf("error %v at offset %d, record %d", err, pos, d.Index())
				}
				return
			}
			end := d.Offset()
			prefixEnd := end - int64(len(rec))
			size, n := protowire.ConsumeVarint(in[pos:prefixEnd])
			if off != pos || len(rec) > MaxRecordSize || n != int(prefixEnd-pos) || size != uint64(len(rec)) ||
				!bytes.Equal(rec, in[prefixEnd:end]) {
				t.Fatalf("record at %d (want %d): prefix %x, %d bytes", off, pos, in[pos:prefixEnd], len(rec))
			}
			pos = end
		}
	})
}

// FuzzLines checks that the lines returned, with the blank lines skipped,
// are the input, and that offsets and line numbers count correctly.
func FuzzLines(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("{\"a\":1}\n\n{\"b\":2}\r\n{\"c\":3}"))
	f.Add([]byte("\n\n\n"))
	f.Add([]byte("x"))
	f.Fuzz(func(t *testing.T, in []byte) {
		l := NewLines(bytes.NewReader(in))
		var off, lines int64
		for {
			raw, o, line, err := l.Next()
			if err == io.EOF {
				rest := in[off:]
				if len(bytes.TrimSpace(rest)) != 0 || l.Offset() != int64(len(in)) {
					t.Fatalf("EOF at %d of %d with %q left", off, len(in), rest)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v", err) // inputs are far below MaxRecordSize
			}
			skipped := in[off:o]
			if len(bytes.TrimSpace(skipped)) != 0 {
				t.Fatalf("skipped non-blank %q", skipped)
			}
			lines += int64(bytes.Count(skipped, []byte{'\n'})) + 1
			if !bytes.Equal(raw, in[o:o+int64(len(raw))]) || line != lines || len(bytes.TrimSpace(raw)) == 0 {
				t.Fatalf("line %d at %d: %q", line, o, raw)
			}
			if i := bytes.IndexByte(raw, '\n'); i >= 0 && i != len(raw)-1 {
				t.Fatalf("line contains a newline: %q", raw)
			}
			off = o + int64(len(raw))
		}
	})
}

// FuzzSniff checks that Sniff never panics and that an input it calls
// JSON Lines starts, after blanks, with "{".
func FuzzSniff(f *testing.F) {
	f.Add([]byte(`{"a":1}`))
	f.Add([]byte{0x7b, 0x08})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		if Sniff(in) == FormatJSONLines && bytes.TrimLeft(in, " \t\r\n")[0] != '{' {
			t.Fatalf("JSON Lines without a brace: %q", in)
		}
	})
}

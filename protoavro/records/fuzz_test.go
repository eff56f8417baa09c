package records

import (
	"bytes"
	"encoding/binary"
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
	f.Add([]byte("k8s\x00\x0a\x00"))
	f.Add(delimited([]byte("k8s\x00\x0a\x00")))
	f.Add(size32([]byte{0x08, 0x01}, nil))
	f.Fuzz(func(t *testing.T, in []byte) {
		checkFraming(t, NewDelimited(bytes.NewReader(in)), in, func(p []byte) (uint64, int) {
			return protowire.ConsumeVarint(p)
		})
	})
}

// FuzzSize32 checks what FuzzDelimited checks for 4-byte big-endian
// length prefixes.
func FuzzSize32(f *testing.F) {
	f.Add([]byte{})
	f.Add(size32([]byte("abc"), nil, []byte{0x08, 0x96, 0x01}))
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{0, 0, 0, 5, 1})
	f.Add(binary.BigEndian.AppendUint32(nil, MaxRecordSize+1))
	f.Add(binary.LittleEndian.AppendUint32(nil, 3))
	f.Add(delimited([]byte("abc")))
	f.Add([]byte("k8s\x00\x0a\x00"))
	f.Add(size32([]byte("k8s\x00\x0a\x00")))
	f.Fuzz(func(t *testing.T, in []byte) {
		checkFraming(t, NewSize32(bytes.NewReader(in)), in, func(p []byte) (uint64, int) {
			if len(p) != 4 {
				return 0, -1
			}
			return uint64(binary.BigEndian.Uint32(p)), 4
		})
	})
}

// checkFraming reads d, a reader of in, to its end or first error, and
// checks that each record is its length prefix, which prefix decodes
// (giving the size and the prefix's length), then that many bytes of in,
// one after the other; that the end comes at the end of in; and that an
// error is an *Error at the offset and index of the bad record, the
// Kubernetes envelope's where in starts with it, or else its first record,
// and nowhere else.
func checkFraming(t *testing.T, d *Delimited, in []byte, prefix func([]byte) (uint64, int)) {
	t.Helper()
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
			kubernetes := bytes.Contains([]byte(err.Error()), []byte("Kubernetes"))
			if kubernetes && (pos != 0 || !bytes.Contains(in[:min(len(in), 16)], []byte(kubernetesMagic))) ||
				!kubernetes && bytes.HasPrefix(in, []byte(kubernetesMagic)) {
				t.Fatalf("error %v at %d of %q", err, pos, in[:min(len(in), 16)])
			}
			return
		}
		end := d.Offset()
		prefixEnd := end - int64(len(rec))
		size, n := prefix(in[pos:prefixEnd])
		if off != pos || len(rec) > MaxRecordSize || n != int(prefixEnd-pos) || size != uint64(len(rec)) ||
			!bytes.Equal(rec, in[prefixEnd:end]) {
			t.Fatalf("record at %d (want %d): prefix %x, %d bytes", off, pos, in[pos:prefixEnd], len(rec))
		}
		if pos == 0 && bytes.HasPrefix(in, []byte(kubernetesMagic)) || d.Index() == 1 && bytes.HasPrefix(rec, []byte(kubernetesMagic)) {
			t.Fatalf("Kubernetes envelope read as a record: %q", in[:min(len(in), 16)])
		}
		pos = end
	}
}

// FuzzLines checks that the lines returned, with the blank lines skipped,
// are the input, after a UTF-8 byte-order mark at its start, and that
// offsets and line numbers count correctly; input that starts with the
// byte-order mark of UTF-16 or UTF-32 is refused at once.
func FuzzLines(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("{\"a\":1}\n\n{\"b\":2}\r\n{\"c\":3}"))
	f.Add([]byte("\n\n\n"))
	f.Add([]byte("x"))
	f.Add([]byte("\xef\xbb\xbf{\"a\":1}\n\xef\xbb\xbf\n"))
	f.Add([]byte("\xef\xbb"))
	f.Add([]byte("\xff\xfe{\x00}\x00"))
	f.Add([]byte("\x00\x00\xfe\xff\x00\x00\x00{"))
	f.Fuzz(func(t *testing.T, in []byte) {
		l := NewLines(bytes.NewReader(in))
		var off, lines int64
		if enc, _ := otherEncoding(in); enc != "" {
			_, _, _, err := l.Next()
			var re *Error
			if !errors.As(err, &re) || re.Index != 0 || re.Offset != 0 || re.Line != 1 {
				t.Fatalf("%s input: %v", enc, err)
			}
			return
		}
		if bytes.HasPrefix(in, []byte(utf8BOM)) {
			off = int64(len(utf8BOM))
		}
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
// JSON Lines starts, after a UTF-8 byte-order mark and blanks, with "{",
// or is that mark and blanks.
func FuzzSniff(f *testing.F) {
	f.Add([]byte(`{"a":1}`))
	f.Add([]byte{0x7b, 0x08})
	f.Add([]byte{})
	f.Add([]byte("\xef\xbb\xbf{\"a\":1}"))
	f.Add([]byte("\xef\xbb\xbf \n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if Sniff(in) != FormatJSONLines {
			return
		}
		bom := bytes.HasPrefix(in, []byte(utf8BOM))
		t2 := bytes.TrimLeft(bytes.TrimPrefix(in, []byte(utf8BOM)), " \t\r\n")
		if len(t2) > 0 && t2[0] != '{' || len(t2) == 0 && !bom {
			t.Fatalf("JSON Lines without a brace: %q", in)
		}
	})
}

// Package records splits streams of protobuf messages into records, as the
// protoavro command and the Beam module's sources read them:
// length-delimited protobuf (a varint size before each message, as Go's
// protodelim and Java's writeDelimitedTo write it) with [Delimited], and
// JSON Lines (one protojson object per line) with [Lines]. [Sniff] tells
// the two apart from the first bytes of a stream.
//
// Unlike protodelim, a reader gives each record's bytes without decoding
// them (to hand them to a [github.com/protoavro/protoavro/protoavro.Codec]
// or to workers), and where they start in the input. It reads untrusted
// bytes: every record is bounded by [MaxRecordSize], and every error names
// the record's index and input offset ([Error]).
package records

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"
)

// MaxRecordSize bounds one input record: a length prefix or a JSON line
// beyond it is an error, so a corrupt prefix cannot make a reader allocate
// without bound.
const MaxRecordSize = 64 << 20

// Error reports a bad input record: its 0-based index and the byte offset
// where it starts (its length prefix, or its line).
type Error struct {
	// Index is the 0-based index of the record in its input.
	Index int64
	// Offset is the input offset where the record starts.
	Offset int64
	// Line is the 1-based line number of a JSON line, or 0.
	Line int64
	// Err is the underlying error.
	Err error
}

// Error describes the record and the error, as "record 3 (input byte 120):
// ..." or "record 3 (line 4, input byte 120): ...".
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("record %d (line %d, input byte %d): %v", e.Index, e.Line, e.Offset, e.Err)
	}
	return fmt.Sprintf("record %d (input byte %d): %v", e.Index, e.Offset, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// bufferSize is the read buffer of the readers; records up to this size
// are returned without a copy.
const bufferSize = 1 << 20

// Delimited splits length-delimited protobuf into records.
type Delimited struct {
	r *bufio.Reader
	// off is the input offset of the next unread byte.
	off int64
	// index is the index of the next record.
	index int64
	// buf holds records larger than r's buffer.
	buf bytes.Buffer
}

// NewDelimited reads records from r, which it buffers.
func NewDelimited(r io.Reader) *Delimited {
	return &Delimited{r: bufio.NewReaderSize(r, bufferSize)}
}

// Offset returns the input offset of the next unread byte.
func (d *Delimited) Offset() int64 { return d.off }

// Index returns the index of the next record: the number of records read.
func (d *Delimited) Index() int64 { return d.index }

// Next returns the next record's message bytes, valid until the next call,
// and the input offset where its length prefix starts. It returns io.EOF
// at the end of the input, and an *Error for a length prefix that is not a
// varint, larger than [MaxRecordSize], or that claims more bytes than
// remain.
func (d *Delimited) Next() ([]byte, int64, error) {
	start := d.off
	fail := func(format string, args ...any) error {
		return &Error{Index: d.index, Offset: start, Err: fmt.Errorf(format, args...)}
	}
	var size uint64
	for i := 0; ; i++ {
		c, err := d.r.ReadByte()
		if err == io.EOF {
			if i == 0 {
				return nil, start, io.EOF
			}
			return nil, start, fail("truncated: the input ends inside the length prefix")
		}
		if err != nil {
			return nil, start, fmt.Errorf("read input: %w", err)
		}
		d.off++
		if i == 9 && c > 1 {
			return nil, start, fail("length prefix is not a valid varint (is the input length-delimited protobuf?)")
		}
		size |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			break
		}
	}
	if size > MaxRecordSize {
		return nil, start, fail("length prefix %d exceeds the limit of %d bytes (64 MiB); is the input length-delimited protobuf?", size, MaxRecordSize)
	}
	n := int(size)
	if n <= d.r.Size() {
		p, err := d.r.Peek(n)
		if len(p) < n {
			d.off += int64(len(p))
			_, _ = d.r.Discard(len(p))
			if err == io.EOF {
				return nil, start, fail("truncated: the length prefix says %d bytes, %d remain", n, len(p))
			}
			return nil, start, fmt.Errorf("read input: %w", err)
		}
		_, _ = d.r.Discard(n)
		d.off += int64(n)
		d.index++
		return p, start, nil
	}
	d.buf.Reset()
	m, err := io.CopyN(&d.buf, d.r, int64(n)) // grows as data arrives
	d.off += m
	if err == io.EOF {
		return nil, start, fail("truncated: the length prefix says %d bytes, %d remain", n, m)
	}
	if err != nil {
		return nil, start, fmt.Errorf("read input: %w", err)
	}
	d.index++
	return d.buf.Bytes(), start, nil
}

// Lines splits JSON Lines into records. Blank lines are skipped.
type Lines struct {
	r *bufio.Reader
	// off is the input offset of the next unread byte.
	off int64
	// line is the number of lines read.
	line int64
	// index is the index of the next record.
	index int64
	buf   []byte
}

// NewLines reads lines from r, which it buffers.
func NewLines(r io.Reader) *Lines {
	return &Lines{r: bufio.NewReaderSize(r, bufferSize)}
}

// Offset returns the input offset of the next unread byte.
func (l *Lines) Offset() int64 { return l.off }

// Index returns the index of the next record: the number of non-blank
// lines read.
func (l *Lines) Index() int64 { return l.index }

// Next returns the next non-blank line as it was in the input (with its
// line ending if it had one), valid until the next call, with its input
// offset and its 1-based line number. It returns io.EOF at the end of the
// input, and an *Error for a line longer than [MaxRecordSize].
func (l *Lines) Next() (raw []byte, offset, line int64, err error) {
	for {
		offset = l.off
		l.buf = l.buf[:0]
		for {
			chunk, err := l.r.ReadSlice('\n')
			l.buf = append(l.buf, chunk...)
			l.off += int64(len(chunk))
			if len(l.buf) > MaxRecordSize {
				return nil, offset, l.line + 1, &Error{Index: l.index, Offset: offset, Line: l.line + 1,
					Err: fmt.Errorf("line longer than %d bytes (64 MiB)", MaxRecordSize)}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				if len(l.buf) == 0 {
					return nil, offset, l.line, io.EOF
				}
				break
			}
			if err != nil {
				return nil, offset, l.line, fmt.Errorf("read input: %w", err)
			}
			break
		}
		l.line++
		if len(bytes.TrimSpace(l.buf)) == 0 {
			continue
		}
		l.index++
		return l.buf, offset, l.line, nil
	}
}

// Format is the format of a record stream.
type Format int

// The formats [Sniff] tells apart.
const (
	// FormatUnknown is an empty input, or one too short to tell.
	FormatUnknown Format = iota
	// FormatDelimited is length-delimited protobuf (binary).
	FormatDelimited
	// FormatJSONLines is text that starts like a JSON object.
	FormatJSONLines
)

// String returns "delimited", "jsonl" or "unknown".
func (f Format) String() string {
	switch f {
	case FormatDelimited:
		return "delimited"
	case FormatJSONLines:
		return "jsonl"
	}
	return "unknown"
}

// sniffLen is how much of the input [Sniff] looks at.
const sniffLen = 4096

// Sniff guesses the format of a record stream from its first bytes: text
// (valid UTF-8 without control characters other than whitespace) whose
// first non-blank character is "{" is JSON Lines; anything else that is
// not empty or blank is length-delimited protobuf. A length-delimited
// stream looks like JSON only if its first message is 123 bytes of
// printable text, which protobuf's binary tags and lengths rule out in
// practice.
func Sniff(prefix []byte) Format {
	p := prefix[:min(len(prefix), sniffLen)]
	t := bytes.TrimLeft(p, " \t\r\n")
	if len(t) == 0 {
		if len(p) == 0 {
			return FormatUnknown
		}
		if len(p) < len(prefix) {
			return FormatDelimited // a long blank run: not JSON Lines we can tell
		}
		return FormatUnknown
	}
	if t[0] != '{' {
		return FormatDelimited
	}
	// A rune cut at the end of the window is not an error.
	for len(t) > 0 {
		r, size := utf8.DecodeRune(t)
		if r == utf8.RuneError && size <= 1 {
			if len(t) < utf8.UTFMax && len(p) == sniffLen {
				break
			}
			return FormatDelimited
		}
		if r < 0x20 && r != '\t' && r != '\r' && r != '\n' || r == 0x7f {
			return FormatDelimited
		}
		t = t[size:]
	}
	return FormatJSONLines
}

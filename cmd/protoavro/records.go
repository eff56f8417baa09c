package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxRecordSize bounds one input record: a length prefix or a JSON line
// beyond it is an error, so a corrupt prefix cannot make the command
// allocate without bound.
const maxRecordSize = 64 << 20

// recordFormat is the format of the protobuf records that encode reads and
// decode writes.
type recordFormat int

const (
	// formatDelimited is length-delimited protobuf: each message's size as
	// a varint, then the message (protodelim, Java's writeDelimitedTo).
	formatDelimited recordFormat = iota
	// formatJSONL is JSON Lines: one protojson object per line.
	formatJSONL
)

// formatFlag is a --format flag.
type formatFlag struct {
	f recordFormat
}

// String returns the format name.
func (f *formatFlag) String() string {
	if f.f == formatJSONL {
		return "jsonl"
	}
	return "delimited"
}

// Set parses a format name.
func (f *formatFlag) Set(v string) error {
	switch v {
	case "delimited":
		f.f = formatDelimited
	case "jsonl":
		f.f = formatJSONL
	default:
		return errors.New("want delimited or jsonl")
	}
	return nil
}

// recordError reports a bad input record: its 0-based index and the byte
// offset where it starts (its length prefix, or its line).
type recordError struct {
	index  int64
	offset int64
	// line is the 1-based line number of a JSON line, or 0.
	line int64
	err  error
}

func (e *recordError) Error() string {
	if e.line > 0 {
		return fmt.Sprintf("record %d (line %d, input byte %d): %v", e.index, e.line, e.offset, e.err)
	}
	return fmt.Sprintf("record %d (input byte %d): %v", e.index, e.offset, e.err)
}

func (e *recordError) Unwrap() error { return e.err }

// delimitedReader splits length-delimited protobuf into records.
type delimitedReader struct {
	r *bufio.Reader
	// off is the input offset of the next unread byte.
	off int64
	// index is the index of the next record.
	index int64
	// buf holds records larger than r's buffer.
	buf bytes.Buffer
}

// newDelimitedReader reads records from r.
func newDelimitedReader(r io.Reader) *delimitedReader {
	return &delimitedReader{r: bufio.NewReaderSize(r, 1<<20)}
}

// next returns the next record's message bytes, valid until the next call,
// and the input offset where its length prefix starts. It returns io.EOF
// at the end of the input, and a *recordError for a length prefix that is
// not a varint, larger than 64 MiB, or that claims more bytes than remain.
func (d *delimitedReader) next() ([]byte, int64, error) {
	start := d.off
	fail := func(format string, args ...any) error {
		return &recordError{index: d.index, offset: start, err: fmt.Errorf(format, args...)}
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
	if size > maxRecordSize {
		return nil, start, fail("length prefix %d exceeds the limit of %d bytes (64 MiB); is the input length-delimited protobuf?", size, maxRecordSize)
	}
	n := int(size)
	if n <= d.r.Size() {
		p, err := d.r.Peek(n)
		if len(p) < n {
			d.off += int64(len(p))
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

// lineReader splits JSON Lines into records. Blank lines are skipped.
type lineReader struct {
	r *bufio.Reader
	// off is the input offset of the next unread byte.
	off int64
	// line is the number of lines read.
	line int64
	// index is the index of the next record.
	index int64
	buf   []byte
}

// newLineReader reads lines from r.
func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 1<<20)}
}

// next returns the next non-blank line as it was in the input (with its
// line ending if it had one), valid until the next call, with its input
// offset and its 1-based line number. It returns io.EOF at the end of the
// input, and a *recordError for a line longer than 64 MiB.
func (l *lineReader) next() (raw []byte, offset, line int64, err error) {
	for {
		offset = l.off
		l.buf = l.buf[:0]
		for {
			chunk, err := l.r.ReadSlice('\n')
			l.buf = append(l.buf, chunk...)
			l.off += int64(len(chunk))
			if len(l.buf) > maxRecordSize {
				return nil, offset, l.line + 1, &recordError{index: l.index, offset: offset, line: l.line + 1,
					err: fmt.Errorf("line longer than %d bytes (64 MiB)", maxRecordSize)}
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

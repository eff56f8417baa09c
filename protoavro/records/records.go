package records

import (
	"bufio"
	"bytes"
	"encoding/binary"
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

// kubernetesMagic starts the protobuf encoding of a Kubernetes object as
// the API server sends it and etcd stores it: the magic, then a
// runtime.Unknown message whose raw field holds the object.
const kubernetesMagic = "k8s\x00"

// kubernetesError is the error of an input, or a first record (what), that
// starts with [kubernetesMagic]. Such bytes are no protobuf message: "k"
// opens a group of field 13, and the zero byte after "8s" is the tag of
// field 0.
func kubernetesError(what string) error {
	return fmt.Errorf(`the %s starts with the Kubernetes protobuf envelope (the magic "k8s\x00", then a runtime.Unknown message): the object's own bytes are the raw field (2) of the Unknown; unwrap them first`, what)
}

// Delimited splits length-prefixed protobuf into records: each message
// preceded by its size as a varint ([NewDelimited]) or as 4 bytes,
// big-endian ([NewSize32]).
//
// Input that starts with the Kubernetes protobuf envelope (the magic
// "k8s\x00", then a runtime.Unknown message), or whose first record does,
// is refused with an *Error for record 0: it is no protobuf message of the
// object's type.
type Delimited struct {
	r *bufio.Reader
	// off is the input offset of the next unread byte.
	off int64
	// index is the index of the next record.
	index int64
	// buf holds records larger than r's buffer.
	buf bytes.Buffer
	// size32 says that the sizes are 4-byte big-endian numbers, not
	// varints.
	size32 bool
}

// NewDelimited reads length-delimited records from r, which it buffers:
// each message preceded by its size as a varint (Go's protodelim, Java's
// writeDelimitedTo).
func NewDelimited(r io.Reader) *Delimited {
	return &Delimited{r: bufio.NewReaderSize(r, bufferSize)}
}

// NewSize32 reads records from r, which it buffers, each message preceded
// by its size as a 4-byte big-endian number: the framing of the
// OpenTelemetry Collector's file exporter (format proto, or json with
// compression) and of Java's DataOutputStream.writeInt before each
// message. Sizes beyond [MaxRecordSize] are errors, as varint sizes are.
func NewSize32(r io.Reader) *Delimited {
	return &Delimited{r: bufio.NewReaderSize(r, bufferSize), size32: true}
}

// Offset returns the input offset of the next unread byte.
func (d *Delimited) Offset() int64 { return d.off }

// Index returns the index of the next record: the number of records read.
func (d *Delimited) Index() int64 { return d.index }

// Next returns the next record's message bytes, valid until the next call,
// and the input offset where its length prefix starts. It returns io.EOF
// at the end of the input, and an *Error for a length prefix that is not a
// varint (or is cut short), larger than [MaxRecordSize], or that claims
// more bytes than remain, and for the Kubernetes envelope.
func (d *Delimited) Next() ([]byte, int64, error) {
	start := d.off
	fail := func(format string, args ...any) error {
		return &Error{Index: d.index, Offset: start, Err: fmt.Errorf(format, args...)}
	}
	if start == 0 {
		if p, _ := d.r.Peek(len(kubernetesMagic)); string(p) == kubernetesMagic {
			return nil, start, &Error{Index: d.index, Offset: start, Err: kubernetesError("input")}
		}
	}
	var size uint64
	var err error
	if d.size32 {
		size, err = d.prefix32(fail)
	} else {
		size, err = d.varint(fail)
	}
	if err != nil {
		return nil, start, err
	}
	rec, err := d.record(size, fail)
	if err != nil {
		return nil, start, err
	}
	if d.index == 0 && bytes.HasPrefix(rec, []byte(kubernetesMagic)) {
		return nil, start, &Error{Index: d.index, Offset: start, Err: kubernetesError("first record")}
	}
	d.index++
	return rec, start, nil
}

// varint reads a varint length prefix; io.EOF before its first byte is
// the end of the input.
func (d *Delimited) varint(fail func(string, ...any) error) (uint64, error) {
	var size uint64
	for i := 0; ; i++ {
		c, err := d.r.ReadByte()
		if err == io.EOF {
			if i == 0 {
				return 0, io.EOF
			}
			return 0, fail("truncated: the input ends inside the length prefix")
		}
		if err != nil {
			return 0, fmt.Errorf("read input: %w", err)
		}
		d.off++
		if i == 9 && c > 1 {
			return 0, fail("length prefix is not a valid varint (is the input length-delimited protobuf?)")
		}
		size |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			break
		}
	}
	if size > MaxRecordSize {
		return 0, fail("length prefix %d exceeds the limit of %d bytes (64 MiB); is the input length-delimited protobuf?", size, MaxRecordSize)
	}
	return size, nil
}

// prefix32 reads a 4-byte big-endian length prefix; io.EOF before its
// first byte is the end of the input.
func (d *Delimited) prefix32(fail func(string, ...any) error) (uint64, error) {
	p, err := d.r.Peek(4)
	if len(p) < 4 {
		if err != io.EOF {
			return 0, fmt.Errorf("read input: %w", err)
		}
		if len(p) == 0 {
			return 0, io.EOF
		}
		d.off += int64(len(p))
		_, _ = d.r.Discard(len(p))
		return 0, fail("truncated: the input ends inside the 4-byte length prefix")
	}
	size := binary.BigEndian.Uint32(p)
	// A size below 2^24 written little-endian ends with a zero byte.
	little := binary.LittleEndian.Uint32(p)
	_, _ = d.r.Discard(4)
	d.off += 4
	if size > MaxRecordSize {
		if p[3] == 0 && little <= MaxRecordSize {
			return 0, fail("4-byte length prefix %d exceeds the limit of %d bytes (64 MiB); read little-endian it would be %d: are the sizes little-endian? (they are read big-endian)", size, MaxRecordSize, little)
		}
		return 0, fail("4-byte length prefix %d exceeds the limit of %d bytes (64 MiB); does each message follow its size as 4 bytes, big-endian?", size, MaxRecordSize)
	}
	return uint64(size), nil
}

// record reads the size bytes of a record after its length prefix.
func (d *Delimited) record(size uint64, fail func(string, ...any) error) ([]byte, error) {
	n := int(size)
	if n <= d.r.Size() {
		p, err := d.r.Peek(n)
		if len(p) < n {
			d.off += int64(len(p))
			_, _ = d.r.Discard(len(p))
			if err == io.EOF {
				return nil, fail("truncated: the length prefix says %d bytes, %d remain", n, len(p))
			}
			return nil, fmt.Errorf("read input: %w", err)
		}
		_, _ = d.r.Discard(n)
		d.off += int64(n)
		return p, nil
	}
	d.buf.Reset()
	m, err := io.CopyN(&d.buf, d.r, int64(n)) // grows as data arrives
	d.off += m
	if err == io.EOF {
		return nil, fail("truncated: the length prefix says %d bytes, %d remain", n, m)
	}
	if err != nil {
		return nil, fmt.Errorf("read input: %w", err)
	}
	return d.buf.Bytes(), nil
}

// Lines splits JSON Lines into records. Blank lines are skipped. JSON
// Lines are UTF-8: a UTF-8 byte-order mark (EF BB BF) at the very start of
// the input is skipped, and an input that starts with the byte-order mark
// of UTF-16 or UTF-32 is refused with an *Error for record 0.
type Lines struct {
	r *bufio.Reader
	// off is the input offset of the next unread byte.
	off int64
	// line is the number of lines read.
	line int64
	// index is the index of the next record.
	index int64
	buf   []byte
	// started says that the start of the input was looked at for a
	// byte-order mark.
	started bool
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
// input, and an *Error for a line longer than [MaxRecordSize], or for an
// input in UTF-16 or UTF-32.
func (l *Lines) Next() (raw []byte, offset, line int64, err error) {
	if !l.started {
		if err := l.start(); err != nil {
			return nil, 0, 1, err
		}
	}
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

// utf8BOM is the byte-order mark of UTF-8, which some Windows programs
// write at the start of a text file.
const utf8BOM = "\xef\xbb\xbf"

// byteOrderMarks are the byte-order marks of the encodings that JSON Lines
// are not in, longest first.
var byteOrderMarks = []struct{ bom, name, iconv string }{
	{"\xff\xfe\x00\x00", "UTF-32 (little-endian)", "UTF-32"},
	{"\x00\x00\xfe\xff", "UTF-32 (big-endian)", "UTF-32"},
	{"\xff\xfe", "UTF-16 (little-endian)", "UTF-16"},
	{"\xfe\xff", "UTF-16 (big-endian)", "UTF-16"},
}

// start skips a UTF-8 byte-order mark at the start of the input, and
// refuses one of UTF-16 or UTF-32. A read error is left to the first read.
func (l *Lines) start() error {
	l.started = true
	p, _ := l.r.Peek(4)
	if enc, iconv := otherEncoding(p); enc != "" {
		return &Error{Index: 0, Offset: 0, Line: 1, Err: fmt.Errorf("the input is %s text (it starts with its byte-order mark): JSON Lines must be UTF-8; convert it first, e.g. with iconv -f %s -t UTF-8", enc, iconv)}
	}
	if bytes.HasPrefix(p, []byte(utf8BOM)) {
		_, _ = l.r.Discard(len(utf8BOM))
		l.off += int64(len(utf8BOM))
	}
	return nil
}

// otherEncoding returns the name of the encoding whose byte-order mark p
// starts with, UTF-16 or UTF-32, and its name for iconv; "" for none.
// A UTF-32 mark is told from a UTF-16 one only when p holds 4 bytes.
func otherEncoding(p []byte) (name, iconv string) {
	for _, m := range byteOrderMarks {
		if bytes.HasPrefix(p, []byte(m.bom)) {
			return m.name, m.iconv
		}
	}
	return "", ""
}

// Format is the format of a record stream.
type Format int

// The formats of record streams. [Sniff] tells FormatDelimited and
// FormatJSONLines apart; it never returns FormatSize32.
const (
	// FormatUnknown is an empty input, or one too short to tell.
	FormatUnknown Format = iota
	// FormatDelimited is length-delimited protobuf (binary), read by
	// [NewDelimited].
	FormatDelimited
	// FormatJSONLines is text that starts like a JSON object, read by
	// [NewLines].
	FormatJSONLines
	// FormatSize32 is protobuf messages each preceded by its size as 4
	// bytes, big-endian, read by [NewSize32].
	FormatSize32
)

// String returns "delimited", "jsonl", "size32" or "unknown".
func (f Format) String() string {
	switch f {
	case FormatDelimited:
		return "delimited"
	case FormatJSONLines:
		return "jsonl"
	case FormatSize32:
		return "size32"
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
// practice. A UTF-8 byte-order mark at the start marks text: it is
// skipped, and with nothing but blanks after it the stream is JSON Lines
// (without records).
func Sniff(prefix []byte) Format {
	p := prefix[:min(len(prefix), sniffLen)]
	// full says that the window is full: a character may be cut at its end.
	full := len(prefix) >= sniffLen
	bom := bytes.HasPrefix(p, []byte(utf8BOM))
	if bom {
		p = p[len(utf8BOM):]
	}
	t := bytes.TrimLeft(p, " \t\r\n")
	if len(t) == 0 && bom {
		return FormatJSONLines
	}
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
			if len(t) < utf8.UTFMax && full {
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

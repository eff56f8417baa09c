package avrojson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/protoavro/protoavro/internal/avrobin"
)

// DefaultMaxValueSize bounds one JSON value a [ValueReader] reads: 64 MiB,
// twice the Avro encoding of the largest record protoavro's writers write
// (limits.RecordSize), so that JSON's longer spelling of the same values
// fits.
const DefaultMaxValueSize = 64 << 20

// ValueReader reads JSON values one after another (JSON Lines, or values
// spread over lines) from a stream, with a bound on the size of each: a
// value larger than the bound is refused having read at most the bound
// from the stream, not held whole first.
type ValueReader struct {
	dec *json.Decoder
	in  *valueBound
	max int64
}

// NewValueReader returns a reader of the JSON values of r, each at most
// maxSize bytes with the white space before it (DefaultMaxValueSize when
// maxSize <= 0). It reads r in chunks of its own, so r needs no buffer.
func NewValueReader(r io.Reader, maxSize int) *ValueReader {
	if maxSize <= 0 {
		maxSize = DefaultMaxValueSize
	}
	in := &valueBound{r: r}
	return &ValueReader{dec: json.NewDecoder(in), in: in, max: int64(maxSize)}
}

// Next returns the text of the next value and the byte offset in the
// stream where it begins, and io.EOF after the last. On error the offset
// is where reading for the value began, after the value before it. A value
// over the bound is an error wrapping avrobin.ErrLimit; input that is not JSON
// gives the decoder's error (a *json.SyntaxError, whose Offset is in the
// stream, or io.ErrUnexpectedEOF), and a read error of the stream itself
// is returned as it is.
func (vr *ValueReader) Next() (json.RawMessage, int64, error) {
	start := vr.dec.InputOffset()
	// One byte beyond the bound: the end of a number is only known at the
	// byte after it.
	vr.in.until = start + vr.max + 1
	var raw json.RawMessage
	err := vr.dec.Decode(&raw)
	if errors.Is(err, errValueBound) || err == nil && vr.dec.InputOffset()-start > vr.max {
		return nil, start, fmt.Errorf("%w: a JSON value of more than %d bytes after byte %d", avrobin.ErrLimit, vr.max, start)
	}
	if err != nil {
		return nil, start, err
	}
	return raw, vr.dec.InputOffset() - int64(len(raw)), nil
}

// errValueBound is the stream's end as the bound of one value sets it.
var errValueBound = errors.New("JSON value over the size bound")

// valueBound reads r up to the offset until, then fails with errValueBound:
// the decoder, which grows its buffer to hold a whole value, holds no more
// than the bound.
type valueBound struct {
	r     io.Reader
	read  int64 // bytes read from r
	until int64
}

// Read reads from r, no further than until.
func (b *valueBound) Read(p []byte) (int, error) {
	left := b.until - b.read
	if left <= 0 {
		return 0, errValueBound
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}

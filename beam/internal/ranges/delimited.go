package ranges

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protoavro/protoavro/protoavro/records"
)

// Framing is how the records of a binary input are framed.
type Framing int

// The framings of binary inputs.
const (
	// Varint is length-delimited protobuf: each message preceded by its
	// size as a varint (records.NewDelimited).
	Varint Framing = iota
	// VarintUnsaid is Varint for an input whose framing was not said: an
	// input that starts with two zero bytes is refused, as protoavro
	// encode refuses it when it tells the format from the first bytes.
	// Those are how a 4-byte big-endian size below 65,536 starts (Size32),
	// whose bytes the varint reader would take for empty records, and a
	// file of empty messages is rare.
	VarintUnsaid
	// Size32 is protobuf messages each preceded by its size as 4 bytes,
	// big-endian: the OpenTelemetry Collector's file exporter
	// (records.NewSize32).
	Size32
)

// errZeroStart is the error of a VarintUnsaid input that starts with two
// zero bytes, in protoavro encode's words but for the flags.
var errZeroStart = errors.New("the input starts with two zero bytes, as a 4-byte big-endian length prefix below 65,536 does (the OpenTelemetry Collector's file exporter, Java's DataOutputStream.writeInt): give the format size32 (protoavro-beam --format size32), or delimited if these are empty messages")

// Delimited reads length-delimited records from r as Framed does with
// Varint.
func Delimited(r io.Reader, source string, batchSize int, start int64, claim func(int64) bool, emit func(Batch)) (bool, error) {
	return Framed(r, source, Varint, batchSize, start, claim, emit)
}

// Framed reads the records of r, framed as f says, into batches of about
// batchSize bytes (DefaultBatchSize when 0 or less) of length-delimited
// records: those that start at or after byte start, as long as claim
// accepts their offset. It reports whether it read to the end of r
// without a refused claim. The records are split by the CLI's readers
// (protoavro/records); source names r in errors, which wrap ErrInput and
// give the record's index and offset. An input that starts like a gzip or
// zstd file is refused as compressed, whatever the framing: protoavro
// encode decompresses such a file, so its bytes are not records.
func Framed(r io.Reader, source string, f Framing, batchSize int, start int64, claim func(int64) bool, emit func(Batch)) (bool, error) {
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}
	r, err := unwrapCompressed(r, source)
	if err != nil {
		return false, err
	}
	var d *records.Delimited
	if f == Size32 {
		d = records.NewSize32(r)
	} else {
		d = records.NewDelimited(r)
	}
	b := batcher{size: batchSize, emit: emit}
	for {
		rec, off, err := d.Next()
		if errors.Is(err, io.EOF) {
			b.flush()
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("%w: %s: %w", ErrInput, Name(source), err)
		}
		// Two zero bytes at the start are two empty records, the first at
		// byte 0 and the second at byte 1.
		if f == VarintUnsaid && off == 1 && len(rec) == 0 {
			return false, fmt.Errorf("%w: %s: %w", ErrInput, Name(source), &records.Error{Index: 0, Offset: 0, Err: errZeroStart})
		}
		if off < start {
			continue // before the range
		}
		if !claim(off) {
			b.flush()
			return false, nil
		}
		b.add(d.Index()-1, off, 0, rec)
	}
}

// batcher gathers records into Batches of about size bytes, counting with
// the records' bytes (length-prefixed, as Data holds them) their index: 8
// bytes a record for its offset, 8 more for its line, so that a batch of
// tiny records takes about as much memory as one of large records. It builds a batch in buffers of its own and emits the index as
// copies of its exact length, and the records as a copy too when the batch
// fills less than 3/4 of its buffer (tiny records, closed early by their
// index), keeping the buffers for the next batch; a batch is then at most
// about 4/3 of its bytes, and its buffers are allocated once.
type batcher struct {
	size           int
	emit           func(Batch)
	cur            Batch
	data           []byte  // the records of cur, length-prefixed
	offsets, lines []int64 // their index
}

// add appends the record of the given index, offset and line (0: not a
// line), length-prefixed.
func (b *batcher) add(index, off, line int64, rec []byte) {
	if b.cur.Count == 0 {
		b.cur.Index, b.cur.Offset = index, off
		if b.data == nil {
			b.data = make([]byte, 0, b.size+b.size/8)
		}
	}
	b.data = protowire.AppendBytes(b.data, rec)
	b.offsets = append(b.offsets, off)
	if line > 0 {
		b.lines = append(b.lines, line)
	}
	b.cur.Count++
	if len(b.data)+8*(len(b.offsets)+len(b.lines)) >= b.size {
		b.flush()
	}
}

// flush emits the current batch, if it holds a record, and starts another.
func (b *batcher) flush() {
	if b.cur.Count > 0 {
		c := b.cur
		if len(b.data) >= cap(b.data)/4*3 {
			c.Data, b.data = b.data, nil // the buffer is the batch's
		} else {
			c.Data = slices.Clone(b.data)
			b.data = b.data[:0]
			if cap(b.data) > b.size+b.size/8 {
				b.data = nil // grown for a large record
			}
		}
		c.Offsets = slices.Clone(b.offsets)
		if len(b.lines) > 0 {
			c.Lines = slices.Clone(b.lines)
		}
		b.offsets, b.lines = b.offsets[:0], b.lines[:0]
		b.emit(c)
	}
	b.cur = Batch{}
}

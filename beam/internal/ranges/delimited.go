package ranges

import (
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protoavro/protoavro/protoavro/records"
)

// Delimited reads length-delimited records from r into batches of about
// batchSize bytes (DefaultBatchSize when 0 or less): those that start at or
// after byte start, as long as claim accepts their offset. It reports
// whether it read to the end of r without a refused claim. The records are
// split by the CLI's reader (protoavro/records); source names r in errors,
// which wrap ErrInput and give the record's index and offset.
func Delimited(r io.Reader, source string, batchSize int, start int64, claim func(int64) bool, emit func(Batch)) (bool, error) {
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}
	d := records.NewDelimited(r)
	b := batcher{size: batchSize, emit: emit}
	for {
		rec, off, err := d.Next()
		if errors.Is(err, io.EOF) {
			b.flush()
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("%w: %s: %w", ErrInput, source, err)
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

// batcher gathers records into Batches of about size bytes.
type batcher struct {
	size int
	emit func(Batch)
	cur  Batch
}

// add appends the record of the given index, offset and line (0: not a
// line), length-prefixed.
func (b *batcher) add(index, off, line int64, rec []byte) {
	if b.cur.Count == 0 {
		b.cur.Index, b.cur.Offset = index, off
		if b.cur.Data == nil {
			b.cur.Data = make([]byte, 0, b.size+b.size/8)
		}
	}
	b.cur.Data = protowire.AppendBytes(b.cur.Data, rec)
	b.cur.Offsets = append(b.cur.Offsets, off)
	if line > 0 {
		b.cur.Lines = append(b.cur.Lines, line)
	}
	b.cur.Count++
	if len(b.cur.Data) >= b.size {
		b.flush()
	}
}

// flush emits the current batch, if it holds a record, and starts another.
func (b *batcher) flush() {
	if b.cur.Count > 0 {
		b.emit(b.cur)
	}
	b.cur = Batch{}
}

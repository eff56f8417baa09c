package ranges

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// Delimited reads length-delimited records from r into batches of about
// batchSize bytes (DefaultBatchSize when 0 or less): those that start at or
// after byte start, as long as claim accepts their offset. It reports
// whether it read to the end of r without a refused claim. source names r
// in errors, which wrap ErrInput and give the record's index and offset.
func Delimited(r *bufio.Reader, source string, batchSize int, start int64, claim func(int64) bool, emit func(Batch)) (bool, error) {
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}
	var (
		off   int64 // of the next record
		index int64
		cur   Batch
	)
	flush := func() {
		if cur.Count > 0 {
			emit(cur)
		}
		cur = Batch{Index: index, Offset: off}
	}
	for {
		size, err := binary.ReadUvarint(r)
		if err == io.EOF {
			flush()
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("%w: %s: record %d at byte %d: length prefix: %w", ErrInput, source, index, off, err)
		}
		if size > MaxRecordSize {
			return false, fmt.Errorf("%w: %s: record %d at byte %d: length %d over the limit of %d bytes", ErrInput, source, index, off, size, MaxRecordSize)
		}
		if off < start {
			// Before the range: skip the record.
			if _, err := r.Discard(int(size)); err != nil {
				return false, fmt.Errorf("%w: %s: record %d at byte %d: %d-byte record: %w", ErrInput, source, index, off, size, io.ErrUnexpectedEOF)
			}
			off += int64(protowire.SizeVarint(size)) + int64(size)
			index++
			continue
		}
		if cur.Count == 0 {
			cur.Index, cur.Offset = index, off
		}
		if !claim(off) {
			flush()
			return false, nil
		}
		if cur.Data == nil {
			cur.Data = make([]byte, 0, batchSize+batchSize/8)
		}
		cur.Data = protowire.AppendVarint(cur.Data, size)
		// Read in chunks, so that a length that claims more than the input
		// holds fails before it is allocated.
		for rem := int(size); rem > 0; {
			k := min(rem, 1<<20)
			n := len(cur.Data)
			cur.Data = slices.Grow(cur.Data, k)[:n+k]
			if _, err := io.ReadFull(r, cur.Data[n:]); err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return false, fmt.Errorf("%w: %s: record %d at byte %d: %d-byte record: %w", ErrInput, source, index, off, size, err)
			}
			rem -= k
		}
		off += int64(protowire.SizeVarint(size)) + int64(size)
		index++
		cur.Count++
		if len(cur.Data) >= batchSize {
			flush()
		}
	}
}

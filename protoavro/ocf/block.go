// Block framing: the bounds on the records of one block that protoavro's
// readers apply, and the builder that writers use to stay within them.

package ocf

import (
	"fmt"
	"math"

	"github.com/protoavro/protoavro/internal/limits"
)

// The bounds on the records of one container block that protoavro's
// readers accept (docs/limits.md). A block's zero-size items — records and
// values inside them that take no bytes, such as empty records and nulls
// in arrays — may number at most MaxBlockEmptyItems plus EmptyItemsPerByte
// for each byte of the block's decompressed data; the records of a block
// beyond one per byte of its data count as zero-size items. A
// [BlockBuilder] closes a block at MaxBlockRecords records, so that a
// block of records that take no bytes stays within the bound.
const (
	MaxBlockRecords    = limits.BlockEmptyItems
	MaxBlockEmptyItems = limits.BlockEmptyItems
	EmptyItemsPerByte  = limits.EmptyItemsPerByte
)

// MaxBlockData is the most decompressed data a [BlockBuilder] puts in one
// block: with the largest expansion of any codec (snappy's, at most 32 +
// n + n/6 bytes and its 4-byte checksum), the block stays within the
// [DefaultMaxBlockSize] that readers accept, as stored and decompressed.
const MaxBlockData = 54 << 20

// BlockEmptyLimit returns the zero-size items that a block of dataLen
// bytes of decompressed data may hold, its records included.
func BlockEmptyLimit(dataLen int) int64 {
	return limits.BlockEmpty(dataLen)
}

// BlockFits reports whether protoavro's readers accept a block of count
// records in dataLen bytes of decompressed data, holding empty zero-size
// items inside its records.
func BlockFits(count int64, dataLen int, empty int64) bool {
	return limits.BlockRecords(count, dataLen)+empty <= limits.BlockEmpty(dataLen)
}

// BlockBuilder gathers encoded records into blocks that protoavro's readers
// accept: it closes a block when its data reaches the builder's size, at
// [MaxBlockRecords] records, and before its data would exceed
// [MaxBlockData] or its zero-size items [BlockEmptyLimit]. Each closed block goes to the emit function given to
// [NewBlockBuilder], which typically compresses and writes it
// ([Writer.WriteBlock]). A BlockBuilder must be used from one goroutine;
// several may run at once.
type BlockBuilder struct {
	size  int
	emit  func(count int64, data []byte) error
	data  []byte
	count int64
	empty int64
}

// NewBlockBuilder returns a builder that closes a block once its data
// reaches size bytes (0 or less: only at the other bounds, and at Flush)
// and hands each block to emit: count records in data, which stays valid
// until emit returns.
func NewBlockBuilder(size int, emit func(count int64, data []byte) error) *BlockBuilder {
	if size <= 0 {
		size = math.MaxInt
	}
	return &BlockBuilder{size: size, emit: emit}
}

// Data returns the data of the block being built, for the caller to append
// the next record's datum to and give the result to [BlockBuilder.Add].
// Appending in place saves a copy of the datum.
func (b *BlockBuilder) Data() []byte { return b.data }

// Add adds one record. data is [BlockBuilder.Data] with the record's datum
// appended (possibly reallocated); empty is the number of zero-size items
// inside the datum, as readers count them (0 for a schema with no values
// that take no bytes). When the block with the record would exceed the
// bounds, the block without it is emitted first and the record starts the
// next one. A record that no block can hold (over [MaxBlockData] bytes, or
// too many zero-size items for its size) is left out, and Add returns an
// error wrapping [ErrLimit]; the builder stays usable. Errors of emit are
// returned as they are.
func (b *BlockBuilder) Add(data []byte, empty int64) error {
	prev := len(b.data)
	if len(data) < prev {
		return fmt.Errorf("ocf: %w: BlockBuilder.Add given %d bytes, fewer than the %d of the block", ErrInvalidOptions, len(data), prev)
	}
	if len(data) <= MaxBlockData && BlockFits(b.count+1, len(data), b.empty+empty) {
		b.data, b.count, b.empty = data, b.count+1, b.empty+empty
	} else {
		// The block is full without the record: emit it, and start the
		// next one with the record.
		b.data = data[:prev]
		if err := b.Flush(); err != nil {
			return err
		}
		n := copy(data, data[prev:])
		if n > MaxBlockData {
			b.data = data[:0]
			return fmt.Errorf("%w: a datum of %d bytes exceeds the %d bytes of data that a block holds (docs/limits.md)", ErrLimit, n, MaxBlockData)
		}
		if !BlockFits(1, n, empty) {
			b.data = data[:0]
			return fmt.Errorf("%w: %d zero-size values in a datum of %d bytes exceed the %d that readers accept in a block (docs/limits.md)",
				ErrLimit, empty, n, limits.BlockEmpty(n)-limits.BlockRecords(1, n))
		}
		b.data, b.count, b.empty = data[:n], 1, empty
	}
	if len(b.data) >= b.size || b.count >= MaxBlockRecords {
		return b.Flush()
	}
	return nil
}

// Flush emits the block being built, if it holds any record, and starts
// the next one.
func (b *BlockBuilder) Flush() error {
	if b.count == 0 {
		return nil
	}
	count, data := b.count, b.data
	b.data, b.count, b.empty = b.data[:0], 0, 0
	return b.emit(count, data)
}

// Records returns the number of records of the block being built.
func (b *BlockBuilder) Records() int64 { return b.count }

// Reset drops the block being built, keeping its buffer for reuse.
func (b *BlockBuilder) Reset() { b.data, b.count, b.empty = b.data[:0], 0, 0 }

package protoavro

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/protoavro/protoavro/internal/limits"
)

// Avro binary primitives (Avro specification, "Binary Encoding"): int and
// long are zig-zag varints, float and double little-endian IEEE 754, bytes and
// string a long length followed by the data.

func appendLong(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

func appendAvroBytes(b, v []byte) []byte {
	b = appendLong(b, int64(len(v)))
	return append(b, v...)
}

// appendDecimalUint64 writes v as an Avro decimal(20,0) in bytes: the
// minimal big-endian two's-complement form of the unsigned value.
func appendDecimalUint64(b []byte, v uint64) []byte {
	var buf [9]byte
	binary.BigEndian.PutUint64(buf[1:], v)
	i := 0
	for i < 8 && buf[i] == 0 && buf[i+1]&0x80 == 0 {
		i++
	}
	return appendAvroBytes(b, buf[i:])
}

// avroReader reads Avro binary values from a byte slice, tracking the offset
// for error messages. Methods return a *DataError on bad input.
type avroReader struct {
	buf   []byte
	pos   int
	empty int64 // zero-size items read so far, at most the limit
	// emptyMax is the limit on zero-size items: maxEmptyItems per datum
	// when 0; a container reader sets it per block (see emptyItemsLimit) and
	// carries empty from one record of the block to the next.
	emptyMax int64
}

func (r *avroReader) long() (int64, error) {
	if r.pos < len(r.buf) && r.buf[r.pos] < 0x80 { // one-byte fast path
		c := uint64(r.buf[r.pos])
		r.pos++
		return int64(c>>1) ^ -int64(c&1), nil
	}
	return r.longSlow()
}

func (r *avroReader) longSlow() (int64, error) {
	var u uint64
	start := r.pos
	for shift := uint(0); shift < 64; shift += 7 {
		if r.pos >= len(r.buf) {
			return 0, dataErr(ErrTruncated, start, "varint")
		}
		c := r.buf[r.pos]
		r.pos++
		if shift == 63 && c > 1 {
			return 0, dataErr(ErrMalformed, start, "varint overflows 64 bits")
		}
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, dataErr(ErrMalformed, start, "varint longer than 10 bytes")
}

// index reads a long that must be an index below n (a union branch, an
// enum symbol); what formats the error from the value and n.
func (r *avroReader) index(n int, what string) (int, error) {
	off := r.pos
	i, err := r.long()
	if err != nil {
		return 0, err
	}
	if i < 0 || i >= int64(n) {
		return 0, dataErr(ErrMalformed, off, what, i, n)
	}
	return int(i), nil
}

func (r *avroReader) int() (int32, error) {
	start := r.pos
	v, err := r.long()
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, dataErr(ErrMalformed, start, "int %d out of 32-bit range", v)
	}
	return int32(v), nil
}

func (r *avroReader) fixed(n int) ([]byte, error) {
	if len(r.buf)-r.pos < n {
		return nil, dataErr(ErrTruncated, r.pos, "%d-byte value, %d bytes left", n, len(r.buf)-r.pos)
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b, nil
}

func (r *avroReader) float() (float32, error) {
	b, err := r.fixed(4)
	if err != nil {
		return 0, err
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
}

func (r *avroReader) double() (float64, error) {
	b, err := r.fixed(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}

func (r *avroReader) boolean() (bool, error) {
	b, err := r.fixed(1)
	if err != nil {
		return false, err
	}
	if b[0] > 1 {
		return false, dataErr(ErrMalformed, r.pos-1, "boolean byte %#x", b[0])
	}
	return b[0] == 1, nil
}

// bytes reads a length-prefixed value without copying. A length that is
// negative or larger than the remaining input is an error, so no allocation
// is ever sized by an untrusted length.
func (r *avroReader) bytes() ([]byte, error) {
	start := r.pos
	n, err := r.long()
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, dataErr(ErrMalformed, start, "negative length %d", n)
	}
	if n > int64(len(r.buf)-r.pos) {
		return nil, dataErr(ErrTruncated, start, "length %d exceeds the %d bytes left", n, len(r.buf)-r.pos)
	}
	b := r.buf[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

// blockCount reads the item count of an array or map block. A negative
// count is followed by the block's byte size, which is read and ignored. The
// count is checked against the remaining input: every item takes at least
// minItemSize bytes (0 for items that can be empty, which are then bounded
// by maxEmptyItems over the whole datum).
func (r *avroReader) blockCount(minItemSize int) (int64, error) {
	start := r.pos
	n, err := r.long()
	if err != nil {
		return 0, err
	}
	var size int64 // the byte size of a block with a negative count
	sizeAt := 0
	if n < 0 {
		if n == math.MinInt64 {
			return 0, dataErr(ErrMalformed, start, "block count %d", n)
		}
		n = -n
		sizeAt = r.pos
		if size, err = r.long(); err != nil {
			return 0, err
		}
	}
	left := int64(len(r.buf) - r.pos)
	if minItemSize > 0 && n > left/int64(minItemSize) {
		return 0, dataErr(ErrTruncated, start, "block of %d items exceeds the %d bytes left", n, left)
	}
	if size < 0 {
		return 0, dataErr(ErrMalformed, sizeAt, "negative block size %d", size)
	}
	if size > left {
		return 0, dataErr(ErrTruncated, sizeAt, "block size %d exceeds the %d bytes left", size, left)
	}
	if minItemSize == 0 {
		if err := r.countEmpty(n, start); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// countEmpty counts n zero-size items (read at offset off) against the
// limit.
func (r *avroReader) countEmpty(n int64, off int) error {
	limit, per := int64(maxEmptyItems), "datum"
	if r.emptyMax > 0 {
		limit, per = r.emptyMax, "container block"
	}
	if n > limit-r.empty {
		return dataErr(ErrMalformed, off, "%d more zero-size items exceed the limit of %d per %s", n, limit, per)
	}
	r.empty += n
	return nil
}

// The zero-size items of a datum and of a container block are bounded as
// package limits says (docs/limits.md).
const maxEmptyItems = limits.DatumEmptyItems

// emptyItemsLimit is limits.BlockEmpty.
func emptyItemsLimit(blockSize int) int64 { return limits.BlockEmpty(blockSize) }

// maxRecordAvroSize bounds the Avro encoding of one record a
// ContainerWriter writes (32 MiB): with the default block size, every block
// stays within the 64 MiB a ContainerReader accepts by default, so the
// writer never produces a file its reader refuses. Documented in
// docs/limits.md.
const maxRecordAvroSize = limits.RecordSize

// checkRecordSize is the container writer's check of one record's Avro
// encoding, n bytes of message type name: an error naming the record's type
// and size beyond maxRecordAvroSize. The writer wraps it in a RecordError
// with the record's index.
func checkRecordSize(name string, n int) error {
	if n > maxRecordAvroSize {
		return &DataError{Path: name, Err: fmt.Errorf("%w: the record's Avro encoding of %d bytes exceeds the limit of %d per record (docs/limits.md)", ErrOutOfRange, n, maxRecordAvroSize)}
	}
	return nil
}

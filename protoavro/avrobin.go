package protoavro

import (
	"encoding/binary"
	"fmt"

	"github.com/protoavro/protoavro/internal/avrobin"
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

// avroReader reads Avro binary values from a byte slice through the reader
// every Avro binary reader of the module shares (internal/avrobin), turning
// its errors into *DataError values. Its budget of zero-size items is
// maxEmptyItems per datum unless set otherwise: a container reader sets it
// per block (see emptyItemsLimit) and carries the count from one record of
// the block to the next.
type avroReader struct{ avrobin.Reader }

// newAvroReader reads data from its start.
func newAvroReader(data []byte) avroReader { return avroReader{avrobin.Reader{Buf: data}} }

// fromBin turns an *avrobin.Error into a *DataError.
func fromBin(err error) error {
	if e, ok := err.(*avrobin.Error); ok {
		return &DataError{Path: e.Path, Offset: e.Offset, Err: e.Err, elems: e.Elems}
	}
	return err
}

// long reads a long. The one-byte case, most values, is read here, so that
// it costs one call from the compiled readers, not two.
func (r *avroReader) long() (int64, error) {
	if r.Pos < len(r.Buf) && r.Buf[r.Pos] < 0x80 {
		c := uint64(r.Buf[r.Pos])
		r.Pos++
		return int64(c>>1) ^ -int64(c&1), nil
	}
	return r.longSlow()
}

// intOrLong reads an int (isInt) or a long, as an int64: the writer's
// type of a value that both can hold.
func (r *avroReader) intOrLong(isInt bool) (int64, error) {
	if isInt {
		y, err := r.int()
		return int64(y), err
	}
	return r.long()
}

func (r *avroReader) longSlow() (int64, error) {
	v, err := r.Long()
	if err != nil {
		return 0, fromBin(err)
	}
	return v, nil
}

// index reads a long that must be an index below n (a union branch, an
// enum symbol); format formats the error from the value and n.
func (r *avroReader) index(n int, format string) (int, error) {
	i, err := r.Index(n, format)
	return i, fromBin(err)
}

func (r *avroReader) int() (int32, error) {
	v, err := r.Int()
	return v, fromBin(err)
}

func (r *avroReader) fixed(n int) ([]byte, error) {
	b, err := r.Fixed(n)
	return b, fromBin(err)
}

func (r *avroReader) float() (float32, error) {
	v, err := r.Float()
	return v, fromBin(err)
}

func (r *avroReader) double() (float64, error) {
	v, err := r.Double()
	return v, fromBin(err)
}

func (r *avroReader) boolean() (bool, error) {
	v, err := r.Boolean()
	return v, fromBin(err)
}

// bytes reads a length-prefixed value without copying.
//
// A length of one byte (under 64 bytes), most strings, is read here, so
// that it costs one call from the compiled readers, not three.
func (r *avroReader) bytes() ([]byte, error) {
	if p := r.Pos; p < len(r.Buf) && r.Buf[p]&0x81 == 0 { // one byte, even: 0 to 63
		start, end := p+1, p+1+int(r.Buf[p]>>1)
		if end <= len(r.Buf) {
			r.Pos = end
			return r.Buf[start:end], nil
		}
	}
	b, err := r.Bytes()
	return b, fromBin(err)
}

// blockCount reads the header of an array or map block
// (avrobin.Reader.BlockCount), for the codec's loops over blocks, which
// keep their output in locals that a closure given to blocks would move to
// memory.
func (r *avroReader) blockCount(minItemSize int) (int64, error) {
	n, err := r.BlockCount(minItemSize)
	return n, fromBin(err)
}

// blocks reads the blocks of an array or map, whose items take minItemSize
// bytes at least, calling block with the count of each, up to the block of
// count 0 that ends them. The headers are read by avrobin.Reader.BlockCount.
func (r *avroReader) blocks(minItemSize int, block func(n int64) error) error {
	for {
		n, err := r.BlockCount(minItemSize)
		if err != nil || n == 0 {
			return fromBin(err)
		}
		if err := block(n); err != nil {
			return err
		}
	}
}

// present reads the index of a ["null", T] union: true for T (1), false
// for null (0). The index in one byte, as writers write it, is read here,
// so that it costs one call from the readers, not two.
func (r *avroReader) present() (bool, error) {
	if p := r.Pos; p < len(r.Buf) && r.Buf[p]|2 == 2 { // 0 or 2
		r.Pos++
		return r.Buf[p] == 2, nil
	}
	// The index in a varint of more bytes than it needs, or bad.
	i, err := r.index(2, unionIndexError)
	return i == 1, err
}

// countEmpty counts n zero-size items (read at offset off) against the
// budget.
func (r *avroReader) countEmpty(n int64, off int) error {
	return fromBin(r.Empty.Add(n, off))
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

// Package limits holds the bounds on untrusted input that more than one
// package applies, so that what one writes the others read: the library's
// readers and writers, and the avro-tools commands of cmd/protoavro.
// docs/limits.md documents them.
package limits

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Depth bounds the nesting of messages, and of Avro records, in a datum: a
// record inside more than Depth others is refused, by every reader and
// writer of Avro binary in the module, which count records alone (the
// arrays, maps and unions between two records nest no deeper than the
// schema).
const Depth = 1000

// RecordSize bounds the Avro encoding of one record a writer writes:
// input can expand a great deal (1 MiB of empty elements of a message with
// 200 implicit doubles is 800 MiB of Avro; a record type's defaults nest),
// and with the bound, blocks of the default size stay within the 64 MiB
// a reader accepts.
const RecordSize = 32 << 20

// DatumEmptyItems bounds the items of one datum that take no bytes (nulls,
// empty records, in arrays and maps), which the input's size cannot bound
// (as AVRO-4241).
const DatumEmptyItems = 1 << 20

// BlockEmptyItems and EmptyItemsPerByte bound the zero-size items of a
// whole container block, records included: at most 65,536 plus 64 per
// byte of the block's decompressed data (see BlockEmpty). With the
// per-datum bound alone, 5.3 KB of arrays of empty records decoded into
// 2 GB; with a bound of 2^20 per block, a file of many tiny blocks would do
// the same. A writer closes a block at BlockEmptyItems records, so that
// its blocks of records that take no bytes stay within the bound.
const (
	BlockEmptyItems   = 1 << 16
	EmptyItemsPerByte = 64
)

// BlockEmpty returns the zero-size items a container block of dataLen
// decompressed bytes may hold.
func BlockEmpty(dataLen int) int64 {
	return BlockEmptyItems + EmptyItemsPerByte*int64(dataLen)
}

// BlockRecords returns the records of a container block of count records
// in dataLen decompressed bytes that count as zero-size items: those
// beyond one per byte, at the least. They and the zero-size items inside
// the records are bounded by BlockEmpty(dataLen) together.
func BlockRecords(count int64, dataLen int) int64 {
	return max(count-int64(dataLen), 0)
}

// Sizes of the local files the commands read whole: a .proto source, a
// serialized FileDescriptorSet (many times what large APIs with all their
// imports take) and an Avro schema (.avsc), as large as a container header
// may hold one.
const (
	ProtoSource   = 64 << 20
	DescriptorSet = 256 << 20
	SchemaFile    = 16 << 20
)

// ErrTooLarge reports a file larger than its limit.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads the file name whole, as os.ReadFile does, but refuses one
// of more than max bytes with an error naming it and wrapping ErrTooLarge:
// a regular file by its size, before reading it; anything else (/dev/zero,
// a pipe that does not end) having read no more than max+1 bytes of it.
func ReadFile(name string, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > max {
		return nil, tooLarge(name, max)
	}
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err // an *fs.PathError, which names the file
	}
	if n > max {
		return nil, tooLarge(name, max)
	}
	return buf.Bytes(), nil
}

func tooLarge(name string, max int64) error {
	return fmt.Errorf("%s: %w: more than %d bytes", name, ErrTooLarge, max)
}

// Grow is slices.Grow for buffers sized by the input, such as a block's
// decompressed data: it makes room for n more bytes in b with one
// allocation, where slices.Grow under the race detector makes two of the
// growth's size, so that the memory the tests measure under -race is that
// of the build users run.
func Grow(b []byte, n int) []byte {
	if n <= cap(b)-len(b) {
		return b
	}
	out := make([]byte, len(b), len(b)+n)
	copy(out, b)
	return out
}

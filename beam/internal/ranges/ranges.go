// Package ranges reads the inputs of protoavrobeam's sources, one byte
// range of a file at a time: length-delimited protobuf records, protojson
// lines, and the blocks of Avro container files. It is the part of the
// sources that parses untrusted bytes, kept free of Beam so that its fuzz
// targets build small binaries: Go instruments every package of a fuzz
// binary for coverage, and linked with Beam the targets ran about an eighth
// as fast.
//
// A reader claims the offset of each record (or block) it reads through a
// claim function, the restriction tracker's TryClaim, and stops at the first
// refused claim: a record belongs to the range that holds its first byte.
package ranges

import (
	"errors"
	"fmt"

	"github.com/protoavro/protoavro/beam/internal/safetext"
	"github.com/protoavro/protoavro/protoavro/records"
	"google.golang.org/protobuf/encoding/protowire"
)

// MaxRecordSize bounds one record of a delimited or JSON Lines input (64
// MiB, as protoavro encode): a larger length prefix or line is an error.
const MaxRecordSize = records.MaxRecordSize

// DefaultBatchSize is the size in bytes at which the readers close a batch
// of records.
const DefaultBatchSize = 256 << 10

// MaxNameText bounds the text of a file name in an error, quoted.
const MaxNameText = 512

// MaxErrorText bounds the text of a parser's error on untrusted bytes in
// an error.
const MaxErrorText = 1024

// Name is the form of an input file name in an error: a file name is
// untrusted text (it may hold newlines, terminal escapes or invalid UTF-8,
// which a runner cannot even carry in an error), so it is quoted, escaped
// and bounded (safetext.Quote).
func Name(name string) string { return safetext.Quote(name, MaxNameText) }

// ErrInput reports input that is not what a reader reads: a truncated
// length prefix or record, a record over MaxRecordSize, a JSON line that
// is not a message of the type.
var ErrInput = errors.New("protoavrobeam: bad input")

// Batch is a batch of protobuf wire records of one source, each with a
// varint length prefix.
type Batch struct {
	// Index is the 0-based index of the first record in the source.
	Index int64
	// Offset is the byte offset of the first record in the source.
	Offset int64
	// Count is the number of records in Data.
	Count int64
	// Data holds the records, each a varint length and that many bytes.
	Data []byte
	// Offsets holds the input byte offset where each record starts (its
	// length prefix, or its line), Lines the 1-based line of each JSON
	// line; nil when not known.
	Offsets, Lines []int64
}

// RecordError returns err as the error of the record of b with the given
// index in the source: a *records.Error with the record's input offset and
// line when b has them, else "record INDEX: err".
func (b Batch) RecordError(index int64, err error) error {
	k := index - b.Index
	if k < 0 || k >= int64(len(b.Offsets)) {
		return fmt.Errorf("record %d: %w", index, err)
	}
	e := &records.Error{Index: index, Offset: b.Offsets[k], Err: err}
	if k < int64(len(b.Lines)) {
		e.Line = b.Lines[k]
	}
	return e
}

// Each calls fn with each record of b (its wire bytes, without the length
// prefix) and its index in the source. It stops at the first error of fn,
// and fails with ErrInput when Data does not hold Count whole records;
// source names the batch's source in errors.
func (b Batch) Each(source string, fn func(index int64, wire []byte) error) error {
	data, n := b.Data, int64(0)
	for len(data) > 0 {
		v, k := protowire.ConsumeBytes(data)
		if k < 0 {
			return fmt.Errorf("%w: %s: record %d: length-delimited batch: %w", ErrInput, Name(source), b.Index+n, protowire.ParseError(k))
		}
		if err := fn(b.Index+n, v); err != nil {
			return err
		}
		data = data[k:]
		n++
	}
	if n != b.Count {
		return fmt.Errorf("%w: %s: batch at record %d says %d records, holds %d", ErrInput, Name(source), b.Index, b.Count, n)
	}
	return nil
}

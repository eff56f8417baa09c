package protoavrobeam

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	// Local files work without an import of the user's; other filesystems
	// (gcs, s3) are imported by the program, as protoavro-beam does.
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"google.golang.org/protobuf/encoding/protowire"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*Records)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*Block)(nil)).Elem())
	register.DoFn4x1[context.Context, *sdf.LockRTracker, fileio.ReadableFile, func(Records), error](&readDelimitedFn{})
	register.Emitter1[Records]()
	register.DoFn2x1[Records, func([]byte), error](&unbatchFn{})
	register.Emitter1[[]byte]()
}

// MaxRecordSize bounds one record of a delimited or JSON Lines input (64
// MiB, as protoavro encode): a larger length prefix or line is an error.
const MaxRecordSize = 64 << 20

// DefaultBatchSize is the size in bytes at which the readers close a batch
// of records.
const DefaultBatchSize = 256 << 10

// ErrInput reports input that is not what a transform reads: a truncated
// length prefix or record, a record over MaxRecordSize, a JSON line that
// is not a message of the type.
var ErrInput = errors.New("protoavrobeam: bad input")

// Records is a batch of protobuf wire records of one source, each with a
// varint length prefix (the length-delimited form of protodelim and Java's
// writeDelimitedTo).
type Records struct {
	// Source names where the records come from (a file path), for errors.
	Source string
	// Index is the 0-based index of the first record in the source.
	Index int64
	// Offset is the byte offset of the first record in the source.
	Offset int64
	// Count is the number of records in Data.
	Count int64
	// Data holds the records, each a varint length and that many bytes.
	Data []byte
}

// Block is a batch of Avro datums: the uncompressed data of one container
// block.
type Block struct {
	// Count is the number of datums in Data.
	Count int64
	// Data holds the datums, concatenated.
	Data []byte
}

// Each calls fn with each record of r (its wire bytes, without the length
// prefix) and its index in the source. It stops at the first error of fn,
// and fails with ErrInput when Data does not hold Count whole records.
func (r Records) Each(fn func(index int64, wire []byte) error) error {
	data, n := r.Data, int64(0)
	for len(data) > 0 {
		v, k := protowire.ConsumeBytes(data)
		if k < 0 {
			return fmt.Errorf("%w: %s: record %d: length-delimited batch: %w", ErrInput, r.Source, r.Index+n, protowire.ParseError(k))
		}
		if err := fn(r.Index+n, v); err != nil {
			return err
		}
		data = data[k:]
		n++
	}
	if n != r.Count {
		return fmt.Errorf("%w: %s: batch at record %d says %d records, holds %d", ErrInput, r.Source, r.Index, r.Count, n)
	}
	return nil
}

// ReadDelimited reads the length-delimited protobuf files matching glob (a
// path or pattern of any Beam filesystem: local, gs://, s3://) into a
// PCollection of Records of about DefaultBatchSize bytes.
//
// The read is a splittable DoFn over each file's byte range: a record
// belongs to the range that holds its first byte. Files are not split up
// front (a delimited file has no sync markers, so a range that starts inside
// a file is entered by scanning the record lengths from the file's start),
// but the runner may split a file being read, and the files of one bundle,
// to spread them over workers: prism does so whenever a bundle makes no
// visible progress for its progress interval (100 ms at first).
func ReadDelimited(s beam.Scope, glob string) beam.PCollection {
	s = s.Scope("protoavrobeam.ReadDelimited")
	return beam.ParDo(s, &readDelimitedFn{BatchSize: DefaultBatchSize}, matchFiles(s, glob))
}

// matchFiles matches glob (an empty match is an error) and spreads the
// files over workers.
func matchFiles(s beam.Scope, glob string) beam.PCollection {
	filesystem.ValidateScheme(glob)
	files := fileio.MatchFiles(s, glob, fileio.MatchEmptyDisallow())
	return fileio.ReadMatches(s, beam.Reshuffle(s, files), fileio.ReadUncompressed())
}

// byteRanges is the restriction of the splittable reads: a file's bytes,
// split into SplitSize ranges up front (0: not split up front).
type byteRanges struct {
	SplitSize int64 `json:"split_size"`
}

func (br *byteRanges) CreateInitialRestriction(f fileio.ReadableFile) offsetrange.Restriction {
	return offsetrange.Restriction{Start: 0, End: f.Metadata.Size}
}

func (br *byteRanges) SplitRestriction(_ fileio.ReadableFile, rest offsetrange.Restriction) []offsetrange.Restriction {
	if br.SplitSize <= 0 {
		return []offsetrange.Restriction{rest}
	}
	return rest.SizedSplits(br.SplitSize)
}

func (br *byteRanges) RestrictionSize(_ fileio.ReadableFile, rest offsetrange.Restriction) float64 {
	return rest.Size()
}

func (br *byteRanges) CreateTracker(rest offsetrange.Restriction) *sdf.LockRTracker {
	return sdf.NewLockRTracker(offsetrange.NewTracker(rest))
}

// finishRange claims the end of rt's range: nothing is left in it.
func finishRange(rt *sdf.LockRTracker) {
	rt.TryClaim(rt.GetRestriction().(offsetrange.Restriction).End)
}

type readDelimitedFn struct {
	byteRanges
	BatchSize int `json:"batch_size"`
}

func (fn *readDelimitedFn) ProcessElement(ctx context.Context, rt *sdf.LockRTracker, f fileio.ReadableFile, emit func(Records)) error {
	rc, err := f.Open(ctx)
	if err != nil {
		return fmt.Errorf("protoavrobeam: %w", err)
	}
	defer rc.Close()
	start := rt.GetRestriction().(offsetrange.Restriction).Start
	claimedAll, err := readDelimited(bufio.NewReaderSize(rc, 1<<20), f.Metadata.Path, fn.BatchSize, start, rt.TryClaim, emit)
	if err == nil && claimedAll {
		finishRange(rt)
	}
	return err
}

// readDelimited reads length-delimited records from r into batches of about
// batchSize bytes: those that start at or after byte start, as long as
// claim accepts their offset. It reports whether it read to the end of r
// without a refused claim.
func readDelimited(r *bufio.Reader, source string, batchSize int, start int64, claim func(any) bool, emit func(Records)) (bool, error) {
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}
	var (
		off   int64 // of the next record
		index int64
		cur   Records
	)
	flush := func() {
		if cur.Count > 0 {
			emit(cur)
		}
		cur = Records{Source: source, Index: index, Offset: off}
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
			cur.Source = source
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

// Unbatch turns a PCollection of Records into one of their records, each
// a []byte of protobuf wire bytes, for per-record transforms of the user's.
func Unbatch(s beam.Scope, records beam.PCollection) beam.PCollection {
	s = s.Scope("protoavrobeam.Unbatch")
	return beam.ParDo(s, &unbatchFn{}, records)
}

type unbatchFn struct{}

func (fn *unbatchFn) ProcessElement(r Records, emit func([]byte)) error {
	return r.Each(func(_ int64, wire []byte) error {
		emit(append([]byte(nil), wire...))
		return nil
	})
}

package protoavrobeam

import (
	"context"
	"fmt"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	// Local files work without an import of the user's; other filesystems
	// (gcs, s3) are imported by the program, as protoavro-beam does.
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/protoavro/protoavro/beam/internal/ranges"
	"github.com/protoavro/protoavro/beam/internal/safetext"
	"github.com/protoavro/protoavro/beam/internal/worker"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*Records)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*Block)(nil)).Elem())
	register.DoFn4x1[context.Context, *sdf.LockRTracker, fileio.ReadableFile, func(Records), error](&readDelimitedFn{})
	register.Emitter1[Records]()
	register.DoFn2x1[string, func(string), error](&checkGlobFn{})
	register.DoFn2x1[Records, func([]byte), error](&unbatchFn{})
	register.Emitter1[[]byte]()
}

// MaxRecordSize bounds one record of a delimited or JSON Lines input (64
// MiB, as protoavro encode): a larger length prefix or line is an error.
const MaxRecordSize = ranges.MaxRecordSize

// DefaultBatchSize is the size in bytes at which the readers close a batch
// of records.
const DefaultBatchSize = ranges.DefaultBatchSize

// ErrInput reports input that is not what a transform reads: a truncated
// length prefix or record, a record over MaxRecordSize, a JSON line that
// is not a message of the type.
var ErrInput = ranges.ErrInput

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
	// Offsets holds the byte offset in the source where each record starts
	// (its length prefix, or its JSON line), and Lines the 1-based line of
	// each JSON line, for errors; nil when not known.
	Offsets, Lines []int64
}

// Block is a batch of Avro datums, concatenated, as ToAvro makes them
// from one Records.
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
	return r.batch().Each(r.Source, fn)
}

func (r Records) batch() ranges.Batch {
	return ranges.Batch{Index: r.Index, Offset: r.Offset, Count: r.Count, Data: r.Data, Offsets: r.Offsets, Lines: r.Lines}
}

// recordsOf returns the Records of batch b of source.
func recordsOf(source string, b ranges.Batch) Records {
	return Records{Source: source, Index: b.Index, Offset: b.Offset, Count: b.Count, Data: b.Data, Offsets: b.Offsets, Lines: b.Lines}
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
// visible progress for its progress interval (100 ms at first). The files
// are read as they are stored, uncompressed: a file that starts like a
// gzip or zstd file fails with an ErrInput that says so (record 0, byte
// 0), as in ReadSize32 and ReadJSONLines.
func ReadDelimited(s beam.Scope, glob string) beam.PCollection {
	s = s.Scope("protoavrobeam.ReadDelimited")
	return readFramed(s, glob, ranges.Varint)
}

// ReadSize32 reads the files matching glob whose protobuf messages are each
// preceded by its size as 4 bytes, big-endian (the OpenTelemetry
// Collector's file exporter with format proto, Java's
// DataOutputStream.writeInt before each message) into Records, as
// ReadDelimited reads length-delimited files. A size over MaxRecordSize is
// an ErrInput.
func ReadSize32(s beam.Scope, glob string) beam.PCollection {
	s = s.Scope("protoavrobeam.ReadSize32")
	return readFramed(s, glob, ranges.Size32)
}

// readFramed reads the binary files matching glob, framed as f says.
func readFramed(s beam.Scope, glob string, f ranges.Framing) beam.PCollection {
	return beam.ParDo(s, &readDelimitedFn{BatchSize: DefaultBatchSize, Framing: f}, matchFiles(s, glob))
}

// matchFiles matches glob (an empty match is an error, so is a glob that
// checkPath refuses) and spreads the files over workers.
func matchFiles(s beam.Scope, glob string) beam.PCollection {
	globs := beam.ParDo(s, &checkGlobFn{}, beam.Create(s, glob))
	files := fileio.MatchAll(s, globs, fileio.MatchEmptyDisallow())
	return fileio.ReadMatches(s, beam.Reshuffle(s, files), fileio.ReadUncompressed())
}

// byteRanges is the restriction of the splittable reads: a file's bytes,
// split into SplitSize ranges up front (0: not split up front).
type byteRanges struct {
	SplitSize int64 `json:"split_size"`
}

func (br *byteRanges) CreateInitialRestriction(f fileio.ReadableFile) offsetrange.Restriction {
	worker.MarkStarted()
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
	BatchSize int            `json:"batch_size"`
	Framing   ranges.Framing `json:"framing"`
}

func (fn *readDelimitedFn) ProcessElement(ctx context.Context, rt *sdf.LockRTracker, f fileio.ReadableFile, emit func(Records)) error {
	worker.MarkStarted()
	rc, err := f.Open(ctx)
	if err != nil {
		return fmt.Errorf("protoavrobeam: %w", safetext.Error(err, ranges.MaxErrorText)) // it names the file
	}
	defer rc.Close()
	start := rt.GetRestriction().(offsetrange.Restriction).Start
	claimedAll, err := ranges.Framed(rc, f.Metadata.Path, fn.Framing, fn.BatchSize, start,
		func(off int64) bool { return rt.TryClaim(off) },
		func(b ranges.Batch) { emit(recordsOf(f.Metadata.Path, b)) })
	if err == nil && claimedAll {
		finishRange(rt)
	}
	return err
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

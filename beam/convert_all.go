package protoavrobeam

import (
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/protoavro/protoavro/beam/internal/ranges"
	"github.com/protoavro/protoavro/beam/internal/safetext"
)

// Format is the format of the input files of Convert.
type Format string

// The input formats of Convert.
const (
	// Delimited is length-delimited protobuf (ReadDelimited).
	Delimited Format = "delimited"
	// Size32 is protobuf messages each preceded by a 4-byte big-endian
	// size: the OpenTelemetry Collector's file exporter (ReadSize32).
	Size32 Format = "size32"
	// JSONLines is one protojson object per line (ReadJSONLines).
	JSONLines Format = "jsonl"
)

// Convert reads the files matching glob, in format, converts their records
// to Avro and writes them to sharded container files under prefix
// (WriteAvro): each bundle reads, converts and writes into a file of its
// own, with no shuffle of the data. The empty format, the framing unsaid,
// reads length-delimited protobuf as Delimited does but refuses a file
// that starts with two zero bytes, as protoavro encode does when it tells
// the format from the first bytes: that is how a 4-byte size below 65,536
// starts (Size32), whose bytes the varint reader would take for empty
// records; Delimited reads such a file as the empty messages it would then
// hold. It returns the PCollection of the final file names, or an error:
// one wrapping ErrInput for an unknown format, ErrShards for opts.Shards
// over MaxShards, ErrPath for a glob or prefix that is empty or of a
// scheme with no Beam filesystem in the program, or a prefix that is not
// UTF-8.
func Convert(s beam.Scope, t Type, format Format, glob, prefix string, opts WriteOptions) (beam.PCollection, error) {
	if err := checkShards(opts.Shards); err != nil {
		return beam.PCollection{}, err
	}
	if err := checkPath("glob", glob); err != nil {
		return beam.PCollection{}, err
	}
	if err := checkPrefix(prefix); err != nil {
		return beam.PCollection{}, err
	}
	s = s.Scope("protoavrobeam.Convert")
	var records beam.PCollection
	switch format {
	case "":
		records = readFramed(s.Scope("protoavrobeam.ReadDelimited"), glob, ranges.VarintUnsaid)
	case Delimited:
		records = ReadDelimited(s, glob)
	case Size32:
		records = ReadSize32(s, glob)
	case JSONLines:
		records = ReadJSONLines(s, t, glob)
	default:
		return beam.PCollection{}, fmt.Errorf("%w: unknown format %s (want delimited, size32 or jsonl)", ErrInput, safetext.Quote(string(format), maxErrorText))
	}
	return WriteAvro(s, t, prefix, opts, records), nil
}

package protoavrobeam

import (
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// Format is the format of the input files of Convert.
type Format string

// The input formats of Convert.
const (
	// Delimited is length-delimited protobuf (ReadDelimited).
	Delimited Format = "delimited"
	// JSONLines is one protojson object per line (ReadJSONLines).
	JSONLines Format = "jsonl"
)

// Convert reads the files matching glob, in format (Delimited when
// empty), converts their records to Avro and writes them to sharded
// container files under prefix (WriteAvro): each bundle reads, converts
// and writes into a file of its own, with no shuffle of the data. It returns the PCollection of
// the final file names, or an error: one wrapping ErrInput for an unknown
// format, ErrShards for opts.Shards over MaxShards.
func Convert(s beam.Scope, t Type, format Format, glob, prefix string, opts WriteOptions) (beam.PCollection, error) {
	if err := checkShards(opts.Shards); err != nil {
		return beam.PCollection{}, err
	}
	s = s.Scope("protoavrobeam.Convert")
	var records beam.PCollection
	switch format {
	case Delimited, "":
		records = ReadDelimited(s, glob)
	case JSONLines:
		records = ReadJSONLines(s, t, glob)
	default:
		return beam.PCollection{}, fmt.Errorf("%w: unknown format %q (want delimited or jsonl)", ErrInput, format)
	}
	return WriteAvro(s, t, prefix, opts, records), nil
}

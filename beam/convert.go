package protoavrobeam

import (
	"context"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/protoavro/protoavro/beam/internal/ranges"
	"github.com/protoavro/protoavro/beam/internal/safetext"
	"github.com/protoavro/protoavro/beam/internal/worker"
)

func init() {
	register.DoFn2x1[Records, func(Block), error](&toAvroFn{})
	register.Emitter1[Block]()
	register.DoFn3x1[context.Context, fileio.ReadableFile, func(Records), error](&readJSONLinesFn{})
}

// ToAvro converts a PCollection of Records of type t to one of Blocks, one
// Block per Records, with protoavro's cached wire → Avro transcoder. A
// record that does not convert fails the bundle with an error naming its
// source, index and the field (a *protoavro.DataError underneath).
func ToAvro(s beam.Scope, t Type, records beam.PCollection) beam.PCollection {
	s = s.Scope("protoavrobeam.ToAvro")
	return beam.ParDo(s, &toAvroFn{typed{Type: t}}, records)
}

type toAvroFn struct{ typed }

func (fn *toAvroFn) ProcessElement(r Records, emit func(Block)) error {
	b, err := fn.c.toAvro(r)
	if err != nil {
		return err
	}
	emit(b)
	return nil
}

// toAvro converts r to one Block.
func (c *compiled) toAvro(r Records) (Block, error) {
	// Avro is about as large as the wire form for most messages.
	out := make([]byte, 0, len(r.Data)+len(r.Data)/4)
	b := r.batch()
	err := b.Each(r.Source, func(index int64, wire []byte) error {
		var err error
		if out, err = c.codec.TranscodeToAvro(out, wire); err != nil {
			return fmt.Errorf("protoavrobeam: %s: %w", ranges.Name(r.Source), b.RecordError(index, err))
		}
		return nil
	})
	return Block{Count: r.Count, Data: out}, err
}

// ReadJSONLines reads the JSON Lines files matching glob, one protojson
// object of type t per line (blank lines skipped), into Records of the
// messages' wire form (deterministic marshalling). Files spread over workers
// as in ReadDelimited. The values of google.protobuf.Any fields may pack
// any message of t's descriptor set (the files of t's message and all
// their imports). A line that is not a message of t fails with
// ErrInput, naming the file and line.
func ReadJSONLines(s beam.Scope, t Type, glob string) beam.PCollection {
	s = s.Scope("protoavrobeam.ReadJSONLines")
	return beam.ParDo(s, &readJSONLinesFn{typed: typed{Type: t}, BatchSize: DefaultBatchSize}, matchFiles(s, glob))
}

type readJSONLinesFn struct {
	typed
	BatchSize int `json:"batch_size"`
}

func (fn *readJSONLinesFn) ProcessElement(ctx context.Context, f fileio.ReadableFile, emit func(Records)) error {
	worker.MarkStarted()
	rc, err := f.Open(ctx)
	if err != nil {
		return fmt.Errorf("protoavrobeam: %w", safetext.Error(err, ranges.MaxErrorText)) // it names the file
	}
	defer rc.Close()
	return ranges.JSONLines(rc, fn.c.mt, fn.c.resolver, f.Metadata.Path, fn.BatchSize, func(b ranges.Batch) { emit(recordsOf(f.Metadata.Path, b)) })
}

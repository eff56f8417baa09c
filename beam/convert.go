package protoavrobeam

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protoavro/protoavro/beam/internal/ranges"
	"github.com/protoavro/protoavro/beam/internal/safetext"
	"github.com/protoavro/protoavro/beam/internal/worker"
	"github.com/protoavro/protoavro/protoavro"
)

func init() {
	register.DoFn2x1[Records, func(Block), error](&toAvroFn{})
	register.Emitter1[Block]()
	register.DoFn3x1[context.Context, fileio.ReadableFile, func(Records), error](&readJSONLinesFn{})
}

// ToAvro converts a PCollection of Records of type t to one of Blocks, one
// Block per Records, with protoavro's cached wire → Avro transcoder. A
// record that does not convert fails the bundle with an error naming its
// source, index and the field (a *protoavro.DataError underneath); for a
// google.protobuf.Any of a type that t does not hold (options that carry
// Any as JSON need it), protoavro.ErrUnknownAnyType, with the hint of
// ReadJSONLines' error.
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
			return withAnyHint(fmt.Errorf("protoavrobeam: %s: %w", ranges.Name(r.Source), b.RecordError(index, err)))
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
// their imports) and of its AnyTypes. A line that is not a message of t
// fails with ErrInput, naming the file and line; one with an Any of a type
// that t does not hold, with ErrInput and protoavro.ErrUnknownAnyType too,
// its error ending with the hint of protoavro encode's: the flags of
// protoavro-beam that load the type (-I and the .proto file, or
// --descriptor-set), or WithAnyTypes.
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
	w := &anyWatch{Resolver: fn.c.resolver}
	err = ranges.JSONLines(rc, fn.c.mt, w, f.Metadata.Path, fn.BatchSize, func(b ranges.Batch) { emit(recordsOf(f.Metadata.Path, b)) })
	if err != nil && w.unknown {
		return &unknownAnyError{err}
	}
	return err
}

// anyHint says how the type of a google.protobuf.Any becomes known: to
// protoavro-beam in the words of protoavro encode's hint (the flags are the
// same), then to a program.
const anyHint = "load the .proto file that defines the type, with -I for its imports, or a --descriptor-set that holds it, made with protoc --include_imports; in a program, give the Type that file with WithAnyTypes"

// anyWatch is the resolver of a JSON Lines reading. A type URL that its
// Resolver does not hold is protoavro.ErrUnknownAnyType, which protojson's
// error then names instead of "not found", and anyWatch remembers it: the
// reading fails at that record.
type anyWatch struct {
	ranges.Resolver
	unknown bool
}

// FindMessageByURL finds the message type of url with w's Resolver.
func (w *anyWatch) FindMessageByURL(url string) (protoreflect.MessageType, error) {
	mt, err := w.Resolver.FindMessageByURL(url)
	if errors.Is(err, protoregistry.NotFound) {
		w.unknown = true
		return nil, protoavro.ErrUnknownAnyType
	}
	return mt, err
}

// withAnyHint returns err, the error of a record, with anyHint when it is
// protoavro.ErrUnknownAnyType: a binary record whose google.protobuf.Any
// the options carry as JSON (DynamicAsJSON) is converted only with the
// packed type known.
func withAnyHint(err error) error {
	if errors.Is(err, protoavro.ErrUnknownAnyType) {
		return &unknownAnyError{err}
	}
	return err
}

// unknownAnyError is the error of a record with a google.protobuf.Any of a
// type that the Type does not hold: err, which names the record and the
// type URL, then anyHint. It is protoavro.ErrUnknownAnyType too.
type unknownAnyError struct{ err error }

func (e *unknownAnyError) Error() string   { return e.err.Error() + " (" + anyHint + ")" }
func (e *unknownAnyError) Unwrap() []error { return []error{e.err, protoavro.ErrUnknownAnyType} }

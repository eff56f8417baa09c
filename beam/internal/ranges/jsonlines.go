package ranges

import (
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protoavro/protoavro/beam/internal/otlpid"
	"github.com/protoavro/protoavro/beam/internal/safetext"
	"github.com/protoavro/protoavro/protoavro/records"
)

// Resolver finds the message types of google.protobuf.Any values and the
// extensions of JSON input: *protoregistry.Types and *dynamicpb.Types are
// ones.
type Resolver interface {
	protoregistry.ExtensionTypeResolver
	protoregistry.MessageTypeResolver
}

// JSONLines reads protojson lines of messages of type mt from r (blank
// lines skipped), resolving google.protobuf.Any with resolver (nil:
// protoregistry.GlobalTypes), into batches of about batchSize bytes of wire records
// (deterministic marshalling). The lines are split by the CLI's reader
// (protoavro/records). A line that is not a message of mt, or is longer
// than MaxRecordSize, is an ErrInput naming source, the record, its line
// and its byte offset; so is a trace or span ID of OTLP (a bytes field
// named *trace_id or *span_id) that holds hex digits read as base64 (OTLP's
// own JSON writes IDs in hex, which protojson reads as base64 of the wrong
// bytes), as protoavro encode refuses it. A file that starts like a gzip
// or zstd file is refused as such.
func JSONLines(r io.Reader, mt protoreflect.MessageType, resolver Resolver, source string, batchSize int, emit func(Batch)) error {
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}
	r, err := unwrapCompressed(r, source)
	if err != nil {
		return err
	}
	l := records.NewLines(r)
	b := batcher{size: batchSize, emit: emit}
	m := mt.New().Interface()
	ids := otlpid.Fields(mt.Descriptor())
	mo := proto.MarshalOptions{Deterministic: true}
	uo := protojson.UnmarshalOptions{}
	if resolver != nil {
		uo.Resolver = resolver
	}
	var wire []byte
	for {
		text, off, line, err := l.Next()
		if errors.Is(err, io.EOF) {
			b.flush()
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInput, Name(source), err)
		}
		index := l.Index() - 1
		proto.Reset(m)
		if err := uo.Unmarshal(text, m); err != nil {
			// protojson's error quotes the line's bytes as they are.
			err = fmt.Errorf("%w%s", safetext.Error(err, MaxErrorText), otlpid.ErrorHint(err.Error(), ids))
			return fmt.Errorf("%w: %s: %w", ErrInput, Name(source), &records.Error{Index: index, Offset: off, Line: line, Err: err})
		}
		// An OTLP ID written in hex is valid base64 of the wrong bytes.
		if err := otlpid.Check(m.ProtoReflect(), ids); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInput, Name(source), &records.Error{Index: index, Offset: off, Line: line, Err: safetext.Error(err, MaxErrorText)})
		}
		if wire, err = mo.MarshalAppend(wire[:0], m); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInput, Name(source), &records.Error{Index: index, Offset: off, Line: line, Err: safetext.Error(err, MaxErrorText)})
		}
		b.add(index, off, line, wire)
	}
}

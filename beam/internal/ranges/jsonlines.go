package ranges

import (
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/protoavro/records"
)

// JSONLines reads protojson lines of messages of type mt from r (blank
// lines skipped) into batches of about batchSize bytes of wire records
// (deterministic marshalling). The lines are split by the CLI's reader
// (protoavro/records). A line that is not a message of mt, or is longer
// than MaxRecordSize, is an ErrInput naming source, the record, its line
// and its byte offset.
func JSONLines(r io.Reader, mt protoreflect.MessageType, source string, batchSize int, emit func(Batch)) error {
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}
	l := records.NewLines(r)
	b := batcher{size: batchSize, emit: emit}
	m := mt.New().Interface()
	mo := proto.MarshalOptions{Deterministic: true}
	var wire []byte
	for {
		text, off, line, err := l.Next()
		if errors.Is(err, io.EOF) {
			b.flush()
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInput, source, err)
		}
		index := l.Index() - 1
		proto.Reset(m)
		if err := protojson.Unmarshal(text, m); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInput, source, &records.Error{Index: index, Offset: off, Line: line, Err: err})
		}
		if wire, err = mo.MarshalAppend(wire[:0], m); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInput, source, &records.Error{Index: index, Offset: off, Line: line, Err: err})
		}
		b.add(index, off, line, wire)
	}
}

package ranges

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// JSONLines reads protojson lines of messages of type mt from r (blank
// lines skipped) into batches of about batchSize bytes of wire records
// (deterministic marshalling). A line that is not a message of mt, or is
// longer than MaxRecordSize, is an ErrInput naming source, the line and
// its byte offset.
func JSONLines(r io.Reader, mt protoreflect.MessageType, source string, batchSize int, emit func(Batch)) error {
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxRecordSize)
	m := mt.New().Interface()
	var (
		line  int   // 1-based, of the current line
		off   int64 // of the next line
		index int64 // of the next record
		cur   Batch
		mo    = proto.MarshalOptions{Deterministic: true}
	)
	flush := func() {
		if cur.Count > 0 {
			emit(cur)
		}
		cur = Batch{Index: index, Offset: off}
	}
	for sc.Scan() {
		line++
		text := sc.Bytes()
		lineOff := off
		off += int64(len(text)) + 1
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		proto.Reset(m)
		if err := protojson.Unmarshal(text, m); err != nil {
			return fmt.Errorf("%w: %s:%d (byte %d): record %d: %w", ErrInput, source, line, lineOff, index, err)
		}
		if cur.Data == nil {
			cur.Data = make([]byte, 0, batchSize+batchSize/8)
		}
		cur.Data = protowire.AppendVarint(cur.Data, uint64(mo.Size(m)))
		var err error
		if cur.Data, err = mo.MarshalAppend(cur.Data, m); err != nil {
			return fmt.Errorf("%w: %s:%d: record %d: %w", ErrInput, source, line, index, err)
		}
		index++
		cur.Count++
		if len(cur.Data) >= batchSize {
			flush()
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%w: %s:%d (byte %d): line over the limit of %d bytes", ErrInput, source, line+1, off, MaxRecordSize)
		}
		return fmt.Errorf("protoavrobeam: %s: %w", source, err)
	}
	flush()
	return nil
}

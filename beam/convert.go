package protoavrobeam

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
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
	return beam.ParDo(s, &toAvroFn{Type: t}, records)
}

type toAvroFn struct {
	Type Type `json:"type"`
	c    *compiled
}

func (fn *toAvroFn) Setup() error {
	var err error
	fn.c, err = fn.Type.compile()
	return err
}

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
	err := r.Each(func(index int64, wire []byte) error {
		var err error
		if out, err = c.codec.TranscodeToAvro(out, wire); err != nil {
			return fmt.Errorf("protoavrobeam: %s: record %d: %w", r.Source, index, err)
		}
		return nil
	})
	return Block{Count: r.Count, Data: out}, err
}

// ReadJSONLines reads the JSON Lines files matching glob, one protojson
// object of type t per line (blank lines skipped), into Records of the
// messages' wire form (deterministic marshalling). Files spread over workers
// as in ReadDelimited. A line that is not a message of t fails with
// ErrInput, naming the file and line.
func ReadJSONLines(s beam.Scope, t Type, glob string) beam.PCollection {
	s = s.Scope("protoavrobeam.ReadJSONLines")
	return beam.ParDo(s, &readJSONLinesFn{Type: t, BatchSize: DefaultBatchSize}, matchFiles(s, glob))
}

type readJSONLinesFn struct {
	Type      Type `json:"type"`
	BatchSize int  `json:"batch_size"`
	c         *compiled
}

func (fn *readJSONLinesFn) Setup() error {
	var err error
	fn.c, err = fn.Type.compile()
	return err
}

func (fn *readJSONLinesFn) ProcessElement(ctx context.Context, f fileio.ReadableFile, emit func(Records)) error {
	rc, err := f.Open(ctx)
	if err != nil {
		return fmt.Errorf("protoavrobeam: %w", err)
	}
	defer rc.Close()
	return fn.c.readJSONLines(rc, f.Metadata.Path, fn.BatchSize, emit)
}

// readJSONLines reads protojson lines from r into batches of about
// batchSize bytes of wire records.
func (c *compiled) readJSONLines(r io.Reader, source string, batchSize int, emit func(Records)) error {
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxRecordSize)
	m := c.mt.New().Interface()
	var (
		line  int   // 1-based, of the current line
		off   int64 // of the next line
		index int64 // of the next record
		cur   = Records{Source: source}
		mo    = proto.MarshalOptions{Deterministic: true}
	)
	flush := func() {
		if cur.Count > 0 {
			emit(cur)
		}
		cur = Records{Source: source, Index: index, Offset: off}
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

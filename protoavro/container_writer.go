package protoavro

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/protoavro/protoavro/internal/pool"
	"github.com/protoavro/protoavro/protoavro/ocf"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// Metadata keys protoavro writes into container files, beside the
// specification's avro.schema and avro.codec.
const (
	// MetaMessage holds the full name of the protobuf message type.
	MetaMessage = "protoavro.message"
	// MetaDescriptors holds a serialized google.protobuf.FileDescriptorSet
	// with the message's file and all its dependencies, so the file can be
	// turned back into protobuf without the .proto files.
	MetaDescriptors = "protoavro.descriptors"
	// MetaOptions holds the mapping options the file was written with, as
	// "profile=default timestamps=micros uint64=long mapkeys=text".
	MetaOptions = "protoavro.options"
)

// ContainerOptions configure a [ContainerWriter].
type ContainerOptions struct {
	// Options are the mapping options.
	Options Options
	// Compression is the block codec; empty means null.
	Compression Compression
	// BlockSize is the uncompressed size at which a block is closed
	// (default 256 KiB). Memory use grows with BlockSize × Workers.
	BlockSize int
	// Workers is the number of goroutines that transcode and compress
	// blocks (default GOMAXPROCS). Blocks are written in record order.
	Workers int
	// Metadata is user metadata; keys must not start with "avro." or
	// "protoavro.".
	Metadata map[string][]byte
	// OnBadRecord, when set, is called for each record that cannot be
	// converted, from the goroutine that calls the writer's methods: for
	// Write at once, for WriteWire when the record's block is written (in
	// record order). Returning nil skips the record; returning an error
	// stops the writer with it. When nil, the first bad record stops the
	// writer with a *RecordError.
	OnBadRecord func(e *RecordError) error
}

// RecordError is a conversion error of one record of a stream.
type RecordError struct {
	// Index is the 0-based index of the record in the stream.
	Index int64
	// Offset is the byte offset of the record in the caller's input, as
	// given to WriteWireAt, or -1.
	Offset int64
	// Record is the record's input bytes (protobuf wire bytes for a writer,
	// the Avro datum for a reader), valid during the OnBadRecord call.
	Record []byte
	// Err is the underlying error, usually a *DataError.
	Err error
}

func (e *RecordError) Error() string {
	msg := strings.TrimPrefix(e.Err.Error(), "protoavro: ")
	if e.Offset >= 0 {
		return fmt.Sprintf("protoavro: record %d (input byte %d): %s", e.Index, e.Offset, msg)
	}
	return fmt.Sprintf("protoavro: record %d: %s", e.Index, msg)
}

// Unwrap returns the underlying error.
func (e *RecordError) Unwrap() error { return e.Err }

// Compression names the block codec of an Avro container file; it is
// [ocf.Codec], so its values serve both packages.
type Compression = ocf.Codec

// The block codecs of the Avro specification that protoavro reads and writes.
const (
	CompressionNull    Compression = ocf.Null
	CompressionDeflate Compression = ocf.Deflate
	CompressionSnappy  Compression = ocf.Snappy
	CompressionZstd    Compression = ocf.Zstandard
)

// ParseCompression accepts the codec names of the specification and the
// short form "zstd".
func ParseCompression(s string) (Compression, error) {
	c, err := ocf.ParseCodec(s)
	if err != nil {
		return "", fmt.Errorf("%w: unknown codec %q (want null, deflate, snappy or zstd)", ErrInvalidOptions, s)
	}
	return c, nil
}

const defaultBlockSize = 256 << 10

// ContainerWriter writes an Avro Object Container File of one protobuf
// message type, block by block. Conversion and compression run on worker
// goroutines; blocks are written in order. Its methods must be called from
// one goroutine.
type ContainerWriter struct {
	ow     *ocf.Writer
	codec  *Codec
	opts   ContainerOptions
	pool   *pool.Ordered[*wblock, *wblock]
	cur    *wblock
	free   []*wblock
	next   int64 // index of the next record
	err    error
	closed bool
}

// wblock is one block in flight.
type wblock struct {
	recs    []wrec
	wire    []byte // WriteWire inputs, concatenated
	avro    []byte // datums of the records given to Write, concatenated
	hasWire bool   // some records came from WriteWire (possibly empty ones)
	data    []byte // all the datums, when some came from WriteWire
	out     []byte // the block's data compressed
	bad     []*RecordError
	err     error
}

// wrec is one record of a block.
type wrec struct {
	index  int64 // in the stream
	offset int64 // in the caller's input, or -1
	wire   bool  // given to WriteWire: end is in wblock.wire, else in wblock.avro
	end    int
}

// NewContainerWriter writes the header of a container file for messages of
// md to w and returns the writer.
func NewContainerWriter(w io.Writer, md protoreflect.MessageDescriptor, opts ContainerOptions) (*ContainerWriter, error) {
	codec, err := opts.Options.Codec(md)
	if err != nil {
		return nil, err
	}
	if opts.Compression == "" {
		opts.Compression = CompressionNull
	}
	if !opts.Compression.Supported() {
		return nil, fmt.Errorf("%w: unsupported codec %q", ErrUnsupported, opts.Compression)
	}
	if opts.BlockSize <= 0 {
		opts.BlockSize = defaultBlockSize
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	meta := map[string][]byte{}
	for k, v := range opts.Metadata {
		if strings.HasPrefix(k, "avro.") || strings.HasPrefix(k, "protoavro.") {
			return nil, fmt.Errorf("%w: metadata key %q is reserved", ErrInvalidOptions, k)
		}
		meta[k] = v
	}
	schemaJSON, err := codec.schema.MarshalJSON()
	if err != nil {
		return nil, err
	}
	meta[MetaMessage] = []byte(md.FullName())
	if meta[MetaDescriptors], err = fileDescriptorSet(md.ParentFile()); err != nil {
		return nil, err
	}
	meta[MetaOptions] = []byte(opts.Options.String())
	ow, err := ocf.NewWriter(w, ocf.WriterOptions{Schema: schemaJSON, Codec: opts.Compression, Metadata: meta})
	if err != nil {
		return nil, fmt.Errorf("protoavro: write container: %w", err)
	}
	cw := &ContainerWriter{ow: ow, codec: codec, opts: opts}
	cw.pool = pool.New(opts.Workers, func(b *wblock) *wblock {
		cw.process(b)
		return b
	})
	return cw, nil
}

// fileDescriptorSet serializes fd and all its dependencies, dependencies first.
func fileDescriptorSet(fd protoreflect.FileDescriptor) ([]byte, error) {
	var set descriptorpb.FileDescriptorSet
	seen := map[string]bool{}
	var add func(f protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		imps := f.Imports()
		for i := range imps.Len() {
			add(imps.Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
	}
	add(fd)
	return proto.MarshalOptions{Deterministic: true}.Marshal(&set)
}

// Write converts m and adds it to the current block.
func (cw *ContainerWriter) Write(m proto.Message) error {
	if err := cw.ready(); err != nil {
		return err
	}
	b := cw.block()
	n := len(b.avro)
	var err error
	b.avro, err = cw.codec.MarshalAppend(b.avro, m)
	if err == nil {
		err = checkRecordSize(string(cw.codec.schema.desc.FullName()), len(b.avro)-n)
	}
	if err != nil {
		b.avro = b.avro[:n]
		re := &RecordError{Index: cw.next, Offset: -1, Err: err}
		if cw.opts.OnBadRecord != nil {
			if err := cw.opts.OnBadRecord(re); err != nil {
				cw.err = err
				return err
			}
			cw.next++ // skipped: the index still counts the record
			return nil
		}
		cw.err = re
		return re
	}
	return cw.added(b, wrec{offset: -1, end: len(b.avro)})
}

// WriteWire adds one message given as protobuf wire bytes. The conversion
// runs on a worker; errors surface from a later call (or go to OnBadRecord).
// The writer copies wire.
func (cw *ContainerWriter) WriteWire(wire []byte) error {
	return cw.WriteWireAt(wire, -1)
}

// WriteWireAt is WriteWire with the byte offset of the record in the
// caller's input, which errors report.
func (cw *ContainerWriter) WriteWireAt(wire []byte, offset int64) error {
	if err := cw.ready(); err != nil {
		return err
	}
	b := cw.block()
	b.wire = append(b.wire, wire...)
	b.hasWire = true
	return cw.added(b, wrec{offset: offset, wire: true, end: len(b.wire)})
}

func (cw *ContainerWriter) ready() error {
	if cw.err != nil {
		return cw.err
	}
	if cw.closed {
		return errors.New("protoavro: write to a closed container writer")
	}
	return nil
}

// block returns the block being filled.
func (cw *ContainerWriter) block() *wblock {
	if cw.cur == nil {
		if n := len(cw.free); n > 0 {
			cw.cur, cw.free = cw.free[n-1], cw.free[:n-1]
		} else {
			cw.cur = &wblock{}
		}
		b := cw.cur
		b.recs, b.wire, b.avro, b.data, b.out = b.recs[:0], b.wire[:0], b.avro[:0], b.data[:0], b.out[:0]
		b.bad, b.err, b.hasWire = b.bad[:0], nil, false
	}
	return cw.cur
}

// added records r, the next record of the stream, in b.
func (cw *ContainerWriter) added(b *wblock, r wrec) error {
	r.index = cw.next
	b.recs = append(b.recs, r)
	cw.next++
	if len(b.avro)+len(b.wire) >= cw.opts.BlockSize {
		return cw.submit()
	}
	return nil
}

// submit hands the current block to the workers, then writes finished
// blocks so that at most Workers blocks stay in flight.
func (cw *ContainerWriter) submit() error {
	b := cw.cur
	if b == nil || len(b.recs) == 0 {
		return nil
	}
	cw.cur = nil
	return cw.pool.Put(b, cw.writeBlock)
}

// writeBlock writes a block the workers finished.
func (cw *ContainerWriter) writeBlock(b *wblock) error {
	defer func() { cw.free = append(cw.free, b) }()
	if b.err != nil {
		cw.err = b.err
		return b.err
	}
	for _, re := range b.bad {
		if err := cw.opts.OnBadRecord(re); err != nil {
			cw.err = err
			return err
		}
	}
	count := len(b.recs) - len(b.bad)
	if count == 0 {
		return nil
	}
	if err := cw.ow.WriteRawBlock(int64(count), b.out); err != nil {
		cw.err = fmt.Errorf("protoavro: write container: %w", err)
		return cw.err
	}
	return nil
}

// process converts and compresses a block, on a worker.
func (cw *ContainerWriter) process(b *wblock) {
	data := b.avro
	if b.hasWire {
		// Convert the records given as wire bytes, in order, beside the
		// ones encoded directly.
		data = b.data[:0]
		wstart, astart := 0, 0
		for _, r := range b.recs {
			if !r.wire {
				data = append(data, b.avro[astart:r.end]...)
				astart = r.end
				continue
			}
			wire := b.wire[wstart:r.end]
			wstart = r.end
			n := len(data)
			var err error
			data, err = cw.codec.TranscodeToAvro(data, wire)
			if err == nil {
				err = checkRecordSize(string(cw.codec.schema.desc.FullName()), len(data)-n)
			}
			if err != nil {
				data = data[:n]
				re := &RecordError{Index: r.index, Offset: r.offset, Record: wire, Err: err}
				if cw.opts.OnBadRecord == nil {
					b.err = re
					return
				}
				b.bad = append(b.bad, re)
			}
		}
		b.data = data
	}
	var err error
	if b.out, err = cw.opts.Compression.Compress(b.out[:0], data); err != nil {
		b.err = fmt.Errorf("protoavro: compress block: %w", err)
	}
}

// Flush writes every record added so far as complete blocks.
func (cw *ContainerWriter) Flush() error {
	if err := cw.ready(); err != nil {
		return err
	}
	if err := cw.submit(); err != nil {
		return err
	}
	if err := cw.pool.Drain(cw.writeBlock); err != nil {
		return err
	}
	if err := cw.ow.Flush(); err != nil {
		cw.err = fmt.Errorf("protoavro: write container: %w", err)
		return cw.err
	}
	return nil
}

// Close flushes the writer and stops its workers. It does not close the
// underlying io.Writer. After an error the file is incomplete: callers write
// to a temporary file and rename it only when Close succeeds.
func (cw *ContainerWriter) Close() error {
	if cw.closed {
		return cw.err
	}
	err := cw.Flush()
	cw.closed = true
	cw.pool.Close() // waits for blocks still in flight after an error
	return err
}

// Codec returns the codec that converts the records.
func (cw *ContainerWriter) Codec() *Codec { return cw.codec }

// Records returns the number of records written to the file so far
// (records in blocks not yet written are not counted).
func (cw *ContainerWriter) Records() int64 { return cw.ow.Records() }

// Blocks returns the number of blocks written so far.
func (cw *ContainerWriter) Blocks() int64 { return cw.ow.Blocks() }

// BytesWritten returns the number of bytes written to the underlying writer.
func (cw *ContainerWriter) BytesWritten() int64 { return cw.ow.BytesWritten() }

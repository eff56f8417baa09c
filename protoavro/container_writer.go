package protoavro

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

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

const defaultBlockSize = 256 << 10

// ContainerWriter writes an Avro Object Container File of one protobuf
// message type, block by block. Conversion and compression run on worker
// goroutines; blocks are written in order. Its methods must be called from
// one goroutine.
type ContainerWriter struct {
	w       io.Writer
	codec   *Codec
	bc      blockCodec
	sync    [16]byte
	opts    ContainerOptions
	cur     *wblock
	pending []*wblock // submitted, in order
	free    []*wblock
	jobs    chan *wblock
	next    int64 // index of the next record
	records int64 // records written to the file
	blocks  int64
	bytes   int64 // bytes written to w
	err     error
	closed  bool
}

// wblock is one block in flight.
type wblock struct {
	first   int64
	n       int
	wire    []byte  // WriteWire inputs, concatenated
	ends    []int   // end of each input in wire; -1 for records encoded directly
	hasWire bool    // some records came from WriteWire (possibly empty ones)
	offsets []int64 // input offsets, for errors
	avro    []byte  // encoded datums
	out     []byte  // the block as written: count, size, data, sync
	bad     []*RecordError
	err     error
	done    chan struct{}
}

// NewContainerWriter writes the header of a container file for messages of
// md to w and returns the writer.
func NewContainerWriter(w io.Writer, md protoreflect.MessageDescriptor, opts ContainerOptions) (*ContainerWriter, error) {
	codec, err := opts.Options.Codec(md)
	if err != nil {
		return nil, err
	}
	bc, err := newBlockCodec(opts.Compression)
	if err != nil {
		return nil, err
	}
	if opts.BlockSize <= 0 {
		opts.BlockSize = defaultBlockSize
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Compression == "" {
		opts.Compression = CompressionNull
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
	meta["avro.schema"] = schemaJSON
	meta["avro.codec"] = []byte(opts.Compression)
	meta[MetaMessage] = []byte(md.FullName())
	if meta[MetaDescriptors], err = fileDescriptorSet(md.ParentFile()); err != nil {
		return nil, err
	}
	meta[MetaOptions] = []byte(opts.Options.String())
	cw := &ContainerWriter{w: w, codec: codec, bc: bc, opts: opts, jobs: make(chan *wblock, opts.Workers)}
	if _, err := rand.Read(cw.sync[:]); err != nil {
		return nil, err
	}
	hdr := writeHeader(nil, meta, cw.sync)
	if err := cw.write(hdr); err != nil {
		return nil, err
	}
	for range opts.Workers {
		go cw.worker()
	}
	return cw, nil
}

// writeHeader encodes the container header: magic, metadata map, sync marker.
func writeHeader(b []byte, meta map[string][]byte, sync [16]byte) []byte {
	b = append(b, 'O', 'b', 'j', 1)
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	sortStrings(keys)
	b = appendLong(b, int64(len(keys)))
	for _, k := range keys {
		b = appendAvroBytes(b, []byte(k))
		b = appendAvroBytes(b, meta[k])
	}
	b = append(b, 0)
	return append(b, sync[:]...)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
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

// String returns the mapping options in the form MetaOptions holds and
// [ParseOptions] reads: "profile=default timestamps=micros uint64=long mapkeys=text".
func (o Options) String() string {
	return "profile=" + o.Profile.String() + " timestamps=" + o.Timestamps.String() +
		" uint64=" + o.Uint64.String() + " mapkeys=" + o.MapKeys.String()
}

// Write converts m and adds it to the current block.
func (cw *ContainerWriter) Write(m proto.Message) error {
	if err := cw.ready(); err != nil {
		return err
	}
	b := cw.block()
	var err error
	if b.avro, err = cw.codec.MarshalAppend(b.avro, m); err != nil {
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
	b.ends = append(b.ends, -1)
	b.offsets = append(b.offsets, -1)
	return cw.added(b)
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
	b.ends = append(b.ends, len(b.wire))
	b.hasWire = true
	b.offsets = append(b.offsets, offset)
	return cw.added(b)
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
		b.first, b.n = cw.next, 0
		b.wire, b.ends, b.offsets, b.avro, b.out = b.wire[:0], b.ends[:0], b.offsets[:0], b.avro[:0], b.out[:0]
		b.bad, b.err, b.hasWire = b.bad[:0], nil, false
		b.done = make(chan struct{})
	}
	return cw.cur
}

func (cw *ContainerWriter) added(b *wblock) error {
	b.n++
	cw.next++
	if len(b.avro)+len(b.wire) >= cw.opts.BlockSize {
		return cw.submit()
	}
	return nil
}

// submit hands the current block to the workers, first writing finished
// blocks so that at most Workers+1 blocks are in flight.
func (cw *ContainerWriter) submit() error {
	b := cw.cur
	if b == nil || b.n == 0 {
		return nil
	}
	cw.cur = nil
	for len(cw.pending) > cw.opts.Workers {
		if err := cw.writeOldest(); err != nil {
			return err
		}
	}
	cw.pending = append(cw.pending, b)
	cw.jobs <- b
	return nil
}

// writeOldest waits for the oldest pending block and writes it.
func (cw *ContainerWriter) writeOldest() error {
	b := cw.pending[0]
	<-b.done
	cw.pending = cw.pending[1:]
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
	if b.n-len(b.bad) == 0 {
		return nil
	}
	if err := cw.write(b.out); err != nil {
		return err
	}
	cw.records += int64(b.n - len(b.bad))
	cw.blocks++
	return nil
}

func (cw *ContainerWriter) write(p []byte) error {
	n, err := cw.w.Write(p)
	cw.bytes += int64(n)
	if err != nil {
		cw.err = fmt.Errorf("protoavro: write container: %w", err)
		return cw.err
	}
	return nil
}

// worker converts and compresses blocks.
func (cw *ContainerWriter) worker() {
	for b := range cw.jobs {
		cw.process(b)
		close(b.done)
	}
}

func (cw *ContainerWriter) process(b *wblock) {
	// Convert the records given as wire bytes, in order, beside the ones
	// encoded directly.
	if b.hasWire {
		data := make([]byte, 0, len(b.avro)+len(b.wire))
		start, p := 0, 0
		var err error
		for i, end := range b.ends {
			if end < 0 { // encoded directly: copy its datum
				n := datumLen(cw.codec, b.avro[p:])
				data = append(data, b.avro[p:p+n]...)
				p += n
				continue
			}
			n := len(data)
			if data, err = cw.codec.TranscodeToAvro(data, b.wire[start:end]); err != nil {
				data = data[:n]
				re := &RecordError{Index: b.first + int64(i), Offset: b.offsets[i], Record: b.wire[start:end], Err: err}
				if cw.opts.OnBadRecord == nil {
					b.err = re
					return
				}
				b.bad = append(b.bad, re)
			}
			start = end
		}
		b.avro = data
	}
	count := int64(b.n - len(b.bad))
	out := appendLong(b.out[:0], count)
	body, err := cw.bc.compress(nil, b.avro)
	if err != nil {
		b.err = fmt.Errorf("protoavro: compress block: %w", err)
		return
	}
	out = appendLong(out, int64(len(body)))
	out = append(out, body...)
	b.out = append(out, cw.sync[:]...)
}

// datumLen returns the length of the first datum in data. Mixing Write and
// WriteWire in one block is rare; this re-reads the datum to find its end.
func datumLen(c *Codec, data []byte) int {
	st := &decState{r: avroReader{buf: data}}
	_, _ = st.record(nil, c.dec)
	return st.r.pos
}

// Flush writes every record added so far as complete blocks.
func (cw *ContainerWriter) Flush() error {
	if err := cw.ready(); err != nil {
		return err
	}
	if err := cw.submit(); err != nil {
		return err
	}
	for len(cw.pending) > 0 {
		if err := cw.writeOldest(); err != nil {
			return err
		}
	}
	if f, ok := cw.w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			cw.err = err
			return err
		}
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
	// Wait for blocks still in flight after an error, then stop the workers.
	for _, b := range cw.pending {
		<-b.done
	}
	cw.pending = nil
	close(cw.jobs)
	return err
}

// Codec returns the codec that converts the records.
func (cw *ContainerWriter) Codec() *Codec { return cw.codec }

// Records returns the number of records written to the file so far
// (records in blocks not yet written are not counted).
func (cw *ContainerWriter) Records() int64 { return cw.records }

// Blocks returns the number of blocks written so far.
func (cw *ContainerWriter) Blocks() int64 { return cw.blocks }

// BytesWritten returns the number of bytes written to the underlying writer.
func (cw *ContainerWriter) BytesWritten() int64 { return cw.bytes }

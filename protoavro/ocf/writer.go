package ocf

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// magic starts every container file.
var magic = [4]byte{'O', 'b', 'j', 1}

// The metadata keys of the specification.
const (
	// MetaSchema holds the writer schema as JSON.
	MetaSchema = "avro.schema"
	// MetaCodec holds the block codec's name.
	MetaCodec = "avro.codec"
)

// WriterOptions configure a [Writer].
type WriterOptions struct {
	// Schema is the writer schema as JSON (avro.schema), written as given.
	// It is required.
	Schema []byte
	// Codec is the block codec (avro.codec); empty means null.
	Codec Codec
	// Metadata is further metadata. Keys starting with "avro." are
	// reserved for the specification and rejected.
	Metadata map[string][]byte
	// Sync is the sync marker; the zero value means a random one.
	Sync [16]byte
}

// Writer writes a container file: the header when created, then blocks.
// Its methods must be called from one goroutine; compressing blocks on
// several goroutines with [Codec.Compress] and writing them in order with
// [Writer.WriteRawBlock] is how to write in parallel.
type Writer struct {
	w      io.Writer
	codec  Codec
	sync   [16]byte
	buf    []byte // compressed block
	bytes  int64
	blocks int64
	count  int64
	err    error
	closed bool
}

// NewWriter writes the header of a container file to w and returns a
// writer for its blocks.
func NewWriter(w io.Writer, opts WriterOptions) (*Writer, error) {
	if w == nil {
		return nil, fmt.Errorf("ocf: %w: nil io.Writer", ErrInvalidOptions)
	}
	if len(opts.Schema) == 0 {
		return nil, fmt.Errorf("ocf: %w: WriterOptions.Schema is empty", ErrInvalidOptions)
	}
	if opts.Codec == "" {
		opts.Codec = Null
	}
	if !opts.Codec.Supported() {
		return nil, fmt.Errorf("ocf: %w %q", ErrUnsupportedCodec, string(opts.Codec))
	}
	meta := make(map[string][]byte, len(opts.Metadata)+2)
	for k, v := range opts.Metadata {
		if strings.HasPrefix(k, "avro.") {
			return nil, fmt.Errorf("ocf: %w: metadata key %q is reserved", ErrInvalidOptions, k)
		}
		meta[k] = v
	}
	meta[MetaSchema] = opts.Schema
	meta[MetaCodec] = []byte(opts.Codec)
	ow := &Writer{w: w, codec: opts.Codec, sync: opts.Sync}
	if ow.sync == [16]byte{} {
		if _, err := rand.Read(ow.sync[:]); err != nil {
			return nil, fmt.Errorf("ocf: sync marker: %w", err)
		}
	}
	if err := ow.write(appendHeader(nil, meta, ow.sync)); err != nil {
		return nil, err
	}
	return ow, nil
}

// appendHeader encodes the header: magic, metadata map (keys sorted, so
// that the same inputs give the same bytes), sync marker.
func appendHeader(b []byte, meta map[string][]byte, sync [16]byte) []byte {
	b = append(b, magic[:]...)
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = appendLong(b, int64(len(keys)))
	for _, k := range keys {
		b = appendLong(b, int64(len(k)))
		b = append(b, k...)
		b = appendLong(b, int64(len(meta[k])))
		b = append(b, meta[k]...)
	}
	b = append(b, 0)
	return append(b, sync[:]...)
}

// appendLong appends v as an Avro long, a zig-zag varint: the encoding of
// binary.AppendVarint.
func appendLong(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }

// WriteBlock compresses data, count encoded records, with the file's codec
// and writes it as one block. A block of no records holds no data: readers
// refuse one that does.
func (ow *Writer) WriteBlock(count int64, data []byte) error {
	if err := ow.ready(); err != nil {
		return err
	}
	if count == 0 && len(data) > 0 {
		return fmt.Errorf("ocf: %w: a block of 0 records with %d bytes of data", ErrMalformed, len(data))
	}
	var err error
	if ow.buf, err = ow.codec.Compress(ow.buf[:0], data); err != nil {
		ow.err = fmt.Errorf("ocf: compress block: %w", err)
		return ow.err
	}
	return ow.WriteRawBlock(count, ow.buf)
}

// WriteRawBlock writes a block whose data, count records, is already
// compressed with the file's codec: a block of another file with the same
// codec, or one compressed with [Codec.Compress]. A negative count, or
// data that would make a block readers refuse ([Writer.WriteBlock]), is an error
// of class [ErrMalformed]; the data of a block of no records can only be
// checked uncompressed, under the null codec.
func (ow *Writer) WriteRawBlock(count int64, compressed []byte) error {
	if err := ow.ready(); err != nil {
		return err
	}
	if count < 0 {
		return fmt.Errorf("ocf: %w: negative record count %d", ErrMalformed, count)
	}
	if count == 0 && len(compressed) > 0 && (ow.codec == Null || ow.codec == "") {
		return fmt.Errorf("ocf: %w: a block of 0 records with %d bytes of data", ErrMalformed, len(compressed))
	}
	var prefix [20]byte
	p := appendLong(appendLong(prefix[:0], count), int64(len(compressed)))
	for _, part := range [][]byte{p, compressed, ow.sync[:]} {
		if err := ow.write(part); err != nil {
			return err
		}
	}
	ow.blocks++
	ow.count += count
	return nil
}

func (ow *Writer) ready() error {
	if ow.err != nil {
		return ow.err
	}
	if ow.closed {
		return errors.New("ocf: write to a closed writer")
	}
	return nil
}

func (ow *Writer) write(p []byte) error {
	n, err := ow.w.Write(p)
	ow.bytes += int64(n)
	if err != nil {
		ow.err = err
	}
	return ow.err
}

// Flush flushes the underlying writer when it has a Flush() error method,
// such as a *bufio.Writer.
func (ow *Writer) Flush() error {
	if err := ow.ready(); err != nil {
		return err
	}
	if f, ok := ow.w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			ow.err = err
			return err
		}
	}
	return nil
}

// Close flushes the writer; later writes fail. It does not close the
// underlying writer.
func (ow *Writer) Close() error {
	if ow.closed {
		return ow.err
	}
	err := ow.Flush()
	ow.closed = true
	return err
}

// Codec returns the file's block codec.
func (ow *Writer) Codec() Codec { return ow.codec }

// Sync returns the file's sync marker.
func (ow *Writer) Sync() [16]byte { return ow.sync }

// BytesWritten returns the number of bytes written to the underlying
// writer, header included.
func (ow *Writer) BytesWritten() int64 { return ow.bytes }

// Blocks returns the number of blocks written.
func (ow *Writer) Blocks() int64 { return ow.blocks }

// Records returns the sum of the record counts of the blocks written.
func (ow *Writer) Records() int64 { return ow.count }

package protoavro

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// ReaderOptions configure a [ContainerReader].
type ReaderOptions struct {
	// Message is the message type to read into. Nil means the type embedded
	// in the file (MetaMessage and MetaDescriptors), read as dynamicpb
	// messages; files without it then cannot be read.
	Message protoreflect.MessageType
	// Options are the mapping options of Message. When Message is nil, or
	// FileOptions is set, the mapping options recorded in the file
	// (MetaOptions) replace Profile, Timestamps, Uint64 and MapKeys.
	Options Options
	// FileOptions reads Message with the mapping options recorded in the
	// file, as when reading a file into a newer version of its message.
	FileOptions bool
	// MaxBlockSize bounds the size of one block, compressed and
	// decompressed (default 64 MiB). Larger blocks are an error, so a
	// corrupt size cannot make the reader allocate without bound.
	MaxBlockSize int
}

const defaultMaxBlockSize = 64 << 20

// ContainerReader reads an Avro Object Container File into protobuf
// messages, block by block in constant memory. Data written with another
// schema than the message's (an older or newer version, or a file written
// by another program) is resolved by Avro's rules.
type ContainerReader struct {
	r        *countingReader
	br       *bufio.Reader
	meta     map[string][]byte
	writer   *Schema
	sync     [16]byte
	bc       blockCodec
	codec    *Codec
	dec      *decRecord
	mt       protoreflect.MessageType
	maxBlock int

	raw, block []byte // compressed and decompressed current block
	pos        int    // read position in block
	left       int64  // records left in the block
	blockStart int64  // file offset of the current block
	blocks     int64
	index      int64 // index of the next record
	wire       []byte
	err        error
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ContainerError is an error in the structure of a container file.
type ContainerError struct {
	// Block is the 0-based index of the block, or -1 for the header.
	Block int64
	// Offset is the byte offset in the file.
	Offset int64
	// Err is the underlying error.
	Err error
}

func (e *ContainerError) Error() string {
	if e.Block < 0 {
		return fmt.Sprintf("protoavro: container header at byte %d: %v", e.Offset, e.Err)
	}
	return fmt.Sprintf("protoavro: container block %d at byte %d: %v", e.Block, e.Offset, e.Err)
}

// Unwrap returns the underlying error.
func (e *ContainerError) Unwrap() error { return e.Err }

// ErrNotContainer reports input that does not start with the container magic.
var ErrNotContainer = errors.New("not an Avro container file")

// NewContainerReader reads the header of a container file.
func NewContainerReader(r io.Reader, opts ReaderOptions) (*ContainerReader, error) {
	cr := &ContainerReader{r: &countingReader{r: r}, maxBlock: opts.MaxBlockSize}
	if cr.maxBlock <= 0 {
		cr.maxBlock = defaultMaxBlockSize
	}
	cr.br = bufio.NewReaderSize(cr.r, 64<<10)
	if err := cr.readHeader(); err != nil {
		return nil, err
	}
	hdrErr := func(err error) error { return &ContainerError{Block: -1, Offset: 0, Err: err} }
	var err error
	if cr.writer, err = ParseSchema(cr.meta["avro.schema"]); err != nil {
		return nil, hdrErr(fmt.Errorf("%w: avro.schema: %v", ErrMalformed, err))
	}
	name := string(cr.meta["avro.codec"])
	if cr.bc, err = newBlockCodec(Compression(name)); err != nil {
		return nil, hdrErr(err)
	}
	o := opts.Options
	cr.mt = opts.Message
	if cr.mt == nil {
		if cr.mt, err = embeddedType(cr.meta); err != nil {
			return nil, hdrErr(err)
		}
	}
	if opts.Message == nil || opts.FileOptions {
		if o, err = ParseOptions(string(cr.meta[MetaOptions])); err != nil {
			return nil, hdrErr(err)
		}
		o.Cache = opts.Options.Cache
		o.UnknownEnums = opts.Options.UnknownEnums
	}
	if cr.codec, err = o.Codec(cr.mt.Descriptor()); err != nil {
		return nil, err
	}
	// The codec's own reader serves when the schemas read the same: the
	// same canonical form and the same logical types (timestamp units).
	if cr.writer.readsAs(cr.codec.schema) {
		cr.dec = cr.codec.dec
	} else {
		res, err := cr.codec.Resolve(cr.writer)
		if err != nil {
			return nil, hdrErr(err)
		}
		cr.dec = res.dec
	}
	return cr, nil
}

// readHeader reads magic, metadata and sync marker.
func (cr *ContainerReader) readHeader() error {
	fail := func(err error) error { return &ContainerError{Block: -1, Offset: cr.offset(), Err: err} }
	var magic [4]byte
	if _, err := io.ReadFull(cr.br, magic[:]); err != nil {
		return fail(fmt.Errorf("%w: %v", ErrNotContainer, err))
	}
	if !bytes.Equal(magic[:], []byte{'O', 'b', 'j', 1}) {
		return &ContainerError{Block: -1, Offset: 0, Err: fmt.Errorf("%w: magic %q", ErrNotContainer, magic[:])}
	}
	cr.meta = map[string][]byte{}
	total := 0
	for {
		n, err := cr.readLong()
		if err != nil {
			return fail(err)
		}
		if n == 0 {
			break
		}
		if n < 0 {
			n = -n
			if _, err := cr.readLong(); err != nil {
				return fail(err)
			}
		}
		for range n {
			k, err := cr.readBytes(cr.maxBlock - total)
			if err != nil {
				return fail(fmt.Errorf("metadata key: %w", err))
			}
			v, err := cr.readBytes(cr.maxBlock - total)
			if err != nil {
				return fail(fmt.Errorf("metadata %q: %w", k, err))
			}
			total += len(k) + len(v)
			cr.meta[string(k)] = v
		}
	}
	if _, err := io.ReadFull(cr.br, cr.sync[:]); err != nil {
		return fail(fmt.Errorf("%w: sync marker: %v", ErrTruncated, err))
	}
	return nil
}

// offset is the file offset of the next unread byte.
func (cr *ContainerReader) offset() int64 { return cr.r.n - int64(cr.br.Buffered()) }

func (cr *ContainerReader) readLong() (int64, error) {
	var u uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c, err := cr.br.ReadByte()
		if err != nil {
			if err == io.EOF && shift > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, fmt.Errorf("%w: varint longer than 10 bytes", ErrMalformed)
}

// readBytes reads a length-prefixed value of at most limit bytes, growing
// the buffer only as data arrives.
func (cr *ContainerReader) readBytes(limit int) ([]byte, error) {
	n, err := cr.readLong()
	if err != nil {
		return nil, unexpected(err)
	}
	if n < 0 || n > int64(limit) {
		return nil, fmt.Errorf("%w: length %d (limit %d)", ErrMalformed, n, limit)
	}
	var buf bytes.Buffer
	m, err := io.CopyN(&buf, cr.br, n)
	if err != nil {
		return nil, fmt.Errorf("%w: %d of %d bytes", ErrTruncated, m, n)
	}
	return buf.Bytes(), nil
}

func unexpected(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%w: unexpected end of file", ErrTruncated)
	}
	return err
}

// embeddedType builds the message type recorded in the file's metadata.
func embeddedType(meta map[string][]byte) (protoreflect.MessageType, error) {
	name, set := meta[MetaMessage], meta[MetaDescriptors]
	if name == nil || set == nil {
		return nil, fmt.Errorf("%w: the file has no embedded protobuf type (%s, %s); give the message type", ErrIncompatible, MetaMessage, MetaDescriptors)
	}
	var fds descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(set, &fds); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, MetaDescriptors, err)
	}
	files, err := protodesc.NewFiles(&fds)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, MetaDescriptors, err)
	}
	d, err := files.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		return nil, fmt.Errorf("%w: message %s not in %s: %v", ErrMalformed, name, MetaDescriptors, err)
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a message", ErrMalformed, name)
	}
	return dynamicpb.NewMessageType(md), nil
}

// ParseOptions reads mapping options in the form of MetaOptions
// ("profile=java timestamps=micros uint64=long mapkeys=text"); keys that are
// absent keep their defaults.
func ParseOptions(s string) (Options, error) {
	var o Options
	for _, kv := range strings.Fields(s) {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "profile":
			o.Profile, err = ParseProfile(v)
		case "timestamps":
			switch v {
			case "micros":
				o.Timestamps = TimestampMicros
			case "millis":
				o.Timestamps = TimestampMillis
			case "nanos":
				o.Timestamps = TimestampNanos
			default:
				err = fmt.Errorf("%w: timestamps=%s", ErrInvalidOptions, v)
			}
		case "uint64":
			switch v {
			case "long":
				o.Uint64 = Uint64AsLong
			case "decimal":
				o.Uint64 = Uint64AsDecimal
			default:
				err = fmt.Errorf("%w: uint64=%s", ErrInvalidOptions, v)
			}
		case "mapkeys":
			switch v {
			case "text":
				o.MapKeys = MapKeysAsText
			case "entries":
				o.MapKeys = MapAsEntryArray
			default:
				err = fmt.Errorf("%w: mapkeys=%s", ErrInvalidOptions, v)
			}
		default:
			err = fmt.Errorf("%w: unknown option %q", ErrInvalidOptions, kv)
		}
		if err != nil {
			return o, fmt.Errorf("%s: %w", MetaOptions, err)
		}
	}
	return o, nil
}

// Metadata returns the file's metadata, avro.schema and avro.codec included.
func (cr *ContainerReader) Metadata() map[string][]byte { return cr.meta }

// WriterSchema returns the schema the file was written with.
func (cr *ContainerReader) WriterSchema() *Schema { return cr.writer }

// MessageType returns the message type records are read into.
func (cr *ContainerReader) MessageType() protoreflect.MessageType { return cr.mt }

// Codec returns the codec of the message type.
func (cr *ContainerReader) Codec() *Codec { return cr.codec }

// Compression returns the file's block codec.
func (cr *ContainerReader) Compression() Compression { return Compression(cr.meta["avro.codec"]) }

// Blocks returns the number of blocks read so far.
func (cr *ContainerReader) Blocks() int64 { return cr.blocks }

// Records returns the number of records read so far.
func (cr *ContainerReader) Records() int64 { return cr.index }

// Offset returns the number of bytes of the file read so far.
func (cr *ContainerReader) Offset() int64 { return cr.offset() }

// ReadWire reads the next record as protobuf wire bytes appended to dst. It
// returns io.EOF after the last record.
func (cr *ContainerReader) ReadWire(dst []byte) ([]byte, error) {
	if cr.err != nil {
		return dst, cr.err
	}
	for cr.left == 0 {
		if err := cr.nextBlock(); err != nil {
			cr.err = err
			return dst, err
		}
	}
	start := cr.pos
	st := decStatePool.Get().(*decState)
	st.r = avroReader{buf: cr.block, pos: cr.pos}
	st.depth = 0
	n := len(dst)
	out, err := st.record(dst, cr.dec)
	cr.pos = st.r.pos
	st.r.buf = nil
	decStatePool.Put(st)
	if err != nil {
		var de *DataError
		if asDataError(err, &de) {
			de.Offset -= start
		}
		err = inField(err, cr.dec.name)
		cr.err = &RecordError{Index: cr.index, Offset: -1, Record: cr.block[start:min(cr.pos, len(cr.block))],
			Err: fmt.Errorf("block %d at byte %d, datum byte %d of the block: %w", cr.blocks-1, cr.blockStart, start, err)}
		return dst[:n], cr.err
	}
	cr.left--
	cr.index++
	if cr.left == 0 && cr.pos != len(cr.block) {
		cr.err = &ContainerError{Block: cr.blocks - 1, Offset: cr.blockStart,
			Err: fmt.Errorf("%w: %d bytes left after the block's records", ErrMalformed, len(cr.block)-cr.pos)}
		return dst[:n], cr.err
	}
	return out, nil
}

// Read reads the next record into m (reset first), which must be of the
// reader's message type. It returns io.EOF after the last record.
func (cr *ContainerReader) Read(m proto.Message) error {
	var err error
	if cr.wire, err = cr.ReadWire(cr.wire[:0]); err != nil {
		return err
	}
	if err := cr.codec.check(m); err != nil {
		return err
	}
	if err := (proto.UnmarshalOptions{}).Unmarshal(cr.wire, m); err != nil {
		return &RecordError{Index: cr.index - 1, Offset: -1, Err: err}
	}
	return nil
}

// NewMessage returns a new empty message of the reader's message type.
func (cr *ContainerReader) NewMessage() proto.Message { return cr.mt.New().Interface() }

// nextBlock reads and decompresses the next block.
func (cr *ContainerReader) nextBlock() error {
	cr.blockStart = cr.offset()
	fail := func(err error) error { return &ContainerError{Block: cr.blocks, Offset: cr.blockStart, Err: err} }
	count, err := cr.readLong()
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		return fail(unexpected(err))
	}
	size, err := cr.readLong()
	if err != nil {
		return fail(unexpected(err))
	}
	if count < 0 || size < 0 {
		return fail(fmt.Errorf("%w: block of %d records in %d bytes", ErrMalformed, count, size))
	}
	if size > int64(cr.maxBlock) {
		return fail(fmt.Errorf("%w: block of %d bytes exceeds the limit of %d (ReaderOptions.MaxBlockSize)", ErrMalformed, size, cr.maxBlock))
	}
	buf := bytes.NewBuffer(cr.raw[:0])
	if m, err := io.CopyN(buf, cr.br, size); err != nil {
		return fail(fmt.Errorf("%w: block claims %d bytes, %d remain in the file", ErrTruncated, size, m))
	}
	cr.raw = buf.Bytes()
	var sync [16]byte
	if _, err := io.ReadFull(cr.br, sync[:]); err != nil {
		return fail(fmt.Errorf("%w: sync marker: %v", ErrTruncated, unexpected(err)))
	}
	if sync != cr.sync {
		return fail(fmt.Errorf("%w: sync marker %x does not match the header's %x", ErrMalformed, sync, cr.sync))
	}
	if cr.block, err = cr.bc.decompress(cr.block[:0], cr.raw, cr.maxBlock); err != nil {
		return fail(fmt.Errorf("%w: %s block: %v", ErrMalformed, cr.Compression(), err))
	}
	if count > int64(len(cr.block)) && count > maxEmptyItems {
		return fail(fmt.Errorf("%w: %d records in %d bytes", ErrMalformed, count, len(cr.block)))
	}
	cr.pos, cr.left = 0, count
	cr.blocks++
	return nil
}

package protoavro

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/protofiles"
	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// ReaderOptions configure a [ContainerReader].
type ReaderOptions struct {
	// Message is the message type to read into. Nil means the type embedded
	// in the file (MetaMessage and MetaDescriptors), read as dynamicpb
	// messages; files without it then cannot be read. google.protobuf.Any
	// values carried as JSON then resolve, when Options.AnyResolver is nil,
	// to every message type of the embedded descriptors, then to
	// protoregistry.GlobalTypes (see [ContainerReader.AnyResolver]).
	Message protoreflect.MessageType
	// Options are the mapping options of Message. When Message is nil, or
	// FileOptions is set, the mapping options recorded in the file
	// (MetaOptions; the defaults when it has none) replace all of them but
	// Cache, AnyResolver and Limits, which stay these; UnknownEnums stays
	// this one unless it is UnknownEnumError.
	Options Options
	// FileOptions reads Message with the mapping options recorded in the
	// file, as when reading a file into a newer version of its message.
	// Without it Message is read with Options, against which a file
	// written with other options is resolved: some read (another timestamp
	// precision), others fail as [ErrIncompatible] (EngineReady,
	// DynamicAsJSON, a JSON carrier), at NewContainerReader or on a record,
	// with an error that names the file's options.
	FileOptions bool
	// MaxBlockSize bounds the size of one block, compressed and
	// decompressed (default 64 MiB). Larger blocks are an error, so a
	// corrupt size cannot make the reader allocate without bound.
	MaxBlockSize int
	// Workers is the number of goroutines that decompress and decode
	// blocks (default 1: in the caller's goroutine). With more, blocks are
	// read ahead and decoded in parallel, records still delivered in file
	// order, and memory grows with about 3 × (Workers+1) × the block size;
	// Blocks and Offset then count the blocks read ahead. Errors, and what
	// Resync skips after them, are those of one worker. At most
	// [MaxWorkers].
	Workers int
}

// MaxWorkers bounds ReaderOptions.Workers and ContainerOptions.Workers:
// each worker holds blocks in memory, and a number far beyond the CPUs
// only costs memory (a huge one would exhaust it before the first record).
// More is an error of class [ErrInvalidOptions].
const MaxWorkers = 1024

const defaultMaxBlockSize = 64 << 20

// ContainerReader reads an Avro Object Container File into protobuf
// messages, block by block in constant memory. Data written with another
// schema than the message's (an older or newer version, or a file written
// by another program) is resolved by Avro's rules. Its methods must be
// called from one goroutine at a time: a read while another runs returns
// [ErrConcurrentUse] and reads nothing.
type ContainerReader struct {
	guard  callGuard
	or     *ocf.Reader
	meta   map[string][]byte
	writer *Schema
	codec  *Codec
	dec    *decRecord
	mt     protoreflect.MessageType
	// resolver resolves the type URLs of google.protobuf.Any values.
	resolver AnyResolver
	// skip finds where a datum of the writer schema ends, for Resync
	// after a record that does not decode.
	skip *lazySkipper
	// With ownOptions (ReaderOptions.Message read with
	// ReaderOptions.Options), options are the reader's, which optionsHint
	// compares with the file's on the first incompatibility; hint is what
	// it found, once hintKnown.
	ownOptions bool
	options    Options
	hint       string
	hintKnown  bool

	block ocf.Block // the current block, decompressed
	empty int64     // zero-size items read in the block so far
	pos   int       // read position in block.Data
	left  int64     // records left in the block
	index int64     // index of the next record
	wire  []byte
	err   error
	par   *parallelReader // with ReaderOptions.Workers > 1 (container_parallel.go)
	delim []byte          // NextDelimited's records of a sequential reader
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

// Error describes the error and where it is, as "protoavro: container
// header at byte N: ..." or "protoavro: container block B at byte N: ...".
func (e *ContainerError) Error() string {
	return "protoavro: " + (&ocf.Error{Offset: e.Offset, Block: e.Block, Err: e.Err}).Error()
}

// Unwrap returns the underlying error.
func (e *ContainerError) Unwrap() error { return e.Err }

// Is reports the error classes of package ocf that protoavro has none of as
// protoavro's: ocf.ErrLimit as [ErrMalformed], ocf.ErrUnsupportedCodec as
// [ErrUnsupported]. (ErrTruncated and ErrMalformed are ocf's own.)
func (e *ContainerError) Is(target error) bool {
	switch target {
	case ErrMalformed:
		return errors.Is(e.Err, ocf.ErrLimit)
	case ErrUnsupported:
		return errors.Is(e.Err, ocf.ErrUnsupportedCodec)
	}
	return false
}

// containerError turns an *ocf.Error into a *ContainerError.
func containerError(err error) error {
	var oe *ocf.Error
	if errors.As(err, &oe) {
		return &ContainerError{Block: oe.Block, Offset: oe.Offset, Err: oe.Err}
	}
	return err
}

// ErrNotContainer reports input that does not start with the container
// magic; it is [ocf.ErrNotContainer].
var ErrNotContainer = ocf.ErrNotContainer

// NewContainerReader reads the header of a container file.
func NewContainerReader(r io.Reader, opts ReaderOptions) (*ContainerReader, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: nil io.Reader", ErrInvalidOptions)
	}
	if opts.Workers > MaxWorkers {
		return nil, fmt.Errorf("%w: ReaderOptions.Workers %d exceeds %d", ErrInvalidOptions, opts.Workers, MaxWorkers)
	}
	limit := opts.MaxBlockSize
	if limit <= 0 {
		limit = defaultMaxBlockSize
	}
	or, err := ocf.NewReader(r, ocf.ReaderOptions{MaxBlockSize: limit, MaxBlockDataSize: limit, MaxMetadataSize: limit})
	if err != nil {
		return nil, containerError(err)
	}
	return NewContainerReaderFrom(or, opts)
}

// NewContainerReaderFrom reads the records of the container file whose
// header or has read, before any of its blocks; or's limits apply instead
// of opts.MaxBlockSize. It serves callers that look at the header first.
func NewContainerReaderFrom(or *ocf.Reader, opts ReaderOptions) (*ContainerReader, error) {
	if or == nil {
		return nil, fmt.Errorf("%w: nil *ocf.Reader", ErrInvalidOptions)
	}
	h := or.Header()
	cr := &ContainerReader{or: or, meta: h.Metadata}
	hdrErr := func(err error) error { return &ContainerError{Block: -1, Offset: 0, Err: err} }
	if !h.Codec.Supported() {
		return nil, hdrErr(fmt.Errorf("%w: unsupported codec %s", ErrUnsupported, safetext.Quote(string(h.Codec), 100)))
	}
	o := opts.Options
	cr.mt = opts.Message
	var err error
	var embedded *protoregistry.Files
	if cr.mt == nil {
		if cr.mt, embedded, err = embeddedType(cr.meta); err != nil {
			return nil, hdrErr(err)
		}
	}
	if opts.Message == nil || opts.FileOptions {
		if o, err = parseOptions(string(cr.meta[MetaOptions]), true); err != nil {
			return nil, hdrErr(fmt.Errorf("%s: %w", MetaOptions, safetext.Error(err, 300)))
		}
		o.Cache, o.AnyResolver, o.Limits = opts.Options.Cache, opts.Options.AnyResolver, opts.Options.Limits
		if opts.Options.UnknownEnums != UnknownEnumError {
			o.UnknownEnums = opts.Options.UnknownEnums
		}
	}
	if o.AnyResolver == nil && embedded != nil {
		o.AnyResolver = chainResolver{dynamicpb.NewTypes(embedded), protoregistry.GlobalTypes}
	}
	cr.resolver = resolverOrGlobal(o.AnyResolver)
	if cr.codec, err = o.Codec(cr.mt.Descriptor()); err != nil {
		return nil, err
	}
	if !opts.FileOptions && opts.Message != nil {
		cr.ownOptions, cr.options = true, opts.Options
	}
	if err := cr.useWriterSchema(h.Schema); err != nil {
		return nil, hdrErr(cr.hinted(err))
	}
	cr.skip = &lazySkipper{root: cr.writer.root}
	if opts.Workers > 1 {
		cr.par = newParallelReader(cr, opts.Workers)
	}
	return cr, nil
}

// useWriterSchema parses the file's writer schema and chooses the decoder
// of its records: the codec's own when the schemas read the same (the same
// canonical form and the same logical types, such as timestamp units),
// else one that resolves the writer schema to the codec's.
func (cr *ContainerReader) useWriterSchema(schemaJSON []byte) error {
	var err error
	if cr.writer, err = ParseSchema(schemaJSON); err != nil {
		return fmt.Errorf("%w: avro.schema: %w", ErrMalformed, err)
	}
	if cr.writer.readsAs(cr.codec.schema) {
		cr.dec = cr.codec.dec
		return nil
	}
	res, err := cr.codec.Resolve(cr.writer)
	if err != nil {
		return err
	}
	cr.dec = res.dec
	return nil
}

// maxHintOptions bounds the file's options that an error quotes.
const maxHintOptions = 200

// optionsHint returns what the errors of incompatibilities say after their
// text when the mapping options the file records (MetaOptions) are not o,
// the reader's: the file's options, and how to read with them; "" when
// they are the same, or the file records none (or none that parse).
func optionsHint(meta map[string][]byte, o Options) string {
	text, ok := meta[MetaOptions]
	if !ok {
		return ""
	}
	file, err := parseOptions(string(text), true)
	if err != nil || file.mapping().String() == o.mapping().String() {
		return ""
	}
	return fmt.Sprintf(" (the file was written with options %s; ReaderOptions.FileOptions reads it with them)",
		safetext.Quote(string(text), maxHintOptions))
}

// hinted returns err, an incompatibility, followed by the hint of
// optionsHint when the reader's options are not the file's; other errors
// as they are. It runs on the reader's goroutine.
func (cr *ContainerReader) hinted(err error) error {
	if !cr.ownOptions || !errors.Is(err, ErrIncompatible) {
		return err
	}
	if !cr.hintKnown {
		cr.hint, cr.hintKnown = optionsHint(cr.meta, cr.options), true
	}
	if cr.hint == "" {
		return err
	}
	return hintError{err: err, hint: cr.hint}
}

// lazySkipper is the skipper of the writer schema root, compiled on first
// use, by any goroutine.
type lazySkipper struct {
	root *avroschema.Node
	once sync.Once
	k    *avrobin.Skipper
}

// get returns the skipper.
func (l *lazySkipper) get() *avrobin.Skipper {
	l.once.Do(func() { l.k = avrobin.NewSkipper(l.root, 0) })
	return l.k
}

// hintError is err with a hint after its text.
type hintError struct {
	err  error
	hint string
}

func (e hintError) Error() string { return e.err.Error() + e.hint }
func (e hintError) Unwrap() error { return e.err }

// WriterSchema returns the schema the file was written with.
func (cr *ContainerReader) WriterSchema() *Schema { return cr.writer }

// embeddedType builds the message type recorded in the file's metadata,
// and returns it with the files of the embedded descriptors.
func embeddedType(meta map[string][]byte) (protoreflect.MessageType, *protoregistry.Files, error) {
	name, set := meta[MetaMessage], meta[MetaDescriptors]
	if name == nil || set == nil {
		return nil, nil, fmt.Errorf("%w: the file has no embedded protobuf type (%s, %s); give the message type", ErrIncompatible, MetaMessage, MetaDescriptors)
	}
	var fds descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(set, &fds); err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %s", ErrMalformed, MetaDescriptors, safetext.Truncate(err.Error(), 300))
	}
	if err := protofiles.CheckImports(fds.File); err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %w", ErrMalformed, MetaDescriptors, err)
	}
	files, err := protofiles.NewFiles(fds.File)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %s", ErrMalformed, MetaDescriptors, safetext.Truncate(err.Error(), 300))
	}
	d, err := files.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: message %s not in %s", ErrMalformed, safetext.Quote(string(name), 200), MetaDescriptors)
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, nil, fmt.Errorf("%w: %s is not a message", ErrMalformed, safetext.Quote(string(name), 200))
	}
	return dynamicpb.NewMessageType(md), files, nil
}

// AnyResolver returns what resolves the type URLs of the records'
// google.protobuf.Any values, for their JSON (protojson's
// MarshalOptions.Resolver): ReaderOptions.Options.AnyResolver; when it is
// nil and the records are read as the type embedded in the file, every
// message type of the embedded descriptors, then
// protoregistry.GlobalTypes; else protoregistry.GlobalTypes.
func (cr *ContainerReader) AnyResolver() AnyResolver { return cr.resolver }

// chainResolver resolves by the first of its resolvers that knows the
// name, URL or extension.
type chainResolver []AnyResolver

// FindMessageByName implements protoregistry.MessageTypeResolver.
func (c chainResolver) FindMessageByName(name protoreflect.FullName) (protoreflect.MessageType, error) {
	return chainFind(c, func(r AnyResolver) (protoreflect.MessageType, error) { return r.FindMessageByName(name) })
}

// FindMessageByURL implements protoregistry.MessageTypeResolver.
func (c chainResolver) FindMessageByURL(url string) (protoreflect.MessageType, error) {
	return chainFind(c, func(r AnyResolver) (protoreflect.MessageType, error) { return r.FindMessageByURL(url) })
}

// FindExtensionByName implements protoregistry.ExtensionTypeResolver.
func (c chainResolver) FindExtensionByName(field protoreflect.FullName) (protoreflect.ExtensionType, error) {
	return chainFind(c, func(r AnyResolver) (protoreflect.ExtensionType, error) { return r.FindExtensionByName(field) })
}

// FindExtensionByNumber implements protoregistry.ExtensionTypeResolver.
func (c chainResolver) FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error) {
	return chainFind(c, func(r AnyResolver) (protoreflect.ExtensionType, error) {
		return r.FindExtensionByNumber(message, field)
	})
}

// chainFind returns the first result of find over c that is not
// protoregistry.NotFound, or NotFound.
func chainFind[T any](c chainResolver, find func(AnyResolver) (T, error)) (T, error) {
	for _, r := range c {
		v, err := find(r)
		if !errors.Is(err, protoregistry.NotFound) {
			return v, err
		}
	}
	var zero T
	return zero, protoregistry.NotFound
}

// Metadata returns the file's metadata, avro.schema and avro.codec included.
func (cr *ContainerReader) Metadata() map[string][]byte { return cr.meta }

// MessageType returns the message type records are read into.
func (cr *ContainerReader) MessageType() protoreflect.MessageType { return cr.mt }

// Codec returns the codec of the message type.
func (cr *ContainerReader) Codec() *Codec { return cr.codec }

// Compression returns the file's block codec.
func (cr *ContainerReader) Compression() Compression { return cr.or.Header().Codec }

// Blocks returns the number of blocks read so far.
func (cr *ContainerReader) Blocks() int64 { return cr.or.Blocks() }

// Records returns the number of records read so far.
func (cr *ContainerReader) Records() int64 { return cr.index }

// Offset returns the number of bytes of the file read so far.
func (cr *ContainerReader) Offset() int64 { return cr.or.Offset() }

// ReadWire reads the next record as protobuf wire bytes appended to dst. It
// returns io.EOF after the last record.
func (cr *ContainerReader) ReadWire(dst []byte) ([]byte, error) {
	if err := cr.enter(); err != nil {
		return dst, err
	}
	defer cr.leave()
	return cr.readWire(dst)
}

// enter starts a read: it fails with [ErrConcurrentUse] while another
// runs. A read that starts must be ended with leave.
func (cr *ContainerReader) enter() error {
	if cr == nil {
		return fmt.Errorf("%w: nil *ContainerReader", ErrInvalidOptions)
	}
	return cr.guard.enter()
}

// leave ends a read begun by enter.
func (cr *ContainerReader) leave() { cr.guard.leave() }

// readWire is ReadWire, within a read.
func (cr *ContainerReader) readWire(dst []byte) ([]byte, error) {
	if cr.err != nil {
		return dst, cr.err
	}
	if cr.par != nil {
		return cr.par.readWire(cr, dst)
	}
	for cr.left == 0 {
		if err := cr.nextBlock(); err != nil {
			cr.err = err
			return dst, err
		}
	}
	data := cr.block.Data
	n := len(dst)
	out, pos, err := decodeRecord(cr.dec, dst, data, cr.pos, &cr.empty)
	if err != nil {
		// cr.pos and cr.empty stay at the record's start, for Resync.
		cr.err = cr.blockRecordError(cr.block, data, cr.pos, min(pos, len(data)), err)
		return dst[:n], cr.err
	}
	cr.pos = pos
	cr.left--
	cr.index++
	if cr.left == 0 && cr.pos != len(data) {
		// The record is sound; the next read reports what follows it.
		cr.err = cr.blockError(fmt.Errorf("%w: %d bytes left after the block's records", ErrMalformed, len(data)-cr.pos))
	}
	return out, nil
}

// Read reads the next record into m (reset first), which must be of the
// reader's message type. It returns io.EOF after the last record. A message
// of another type is an error that leaves the record to the next call.
func (cr *ContainerReader) Read(m proto.Message) error {
	if err := cr.enter(); err != nil {
		return err
	}
	defer cr.leave()
	if err := cr.codec.check(m); err != nil {
		return err
	}
	var err error
	if cr.wire, err = cr.readWire(cr.wire[:0]); err != nil {
		return err
	}
	if err := unmarshalWire(cr.wire, m, string(cr.mt.Descriptor().FullName())); err != nil {
		return &RecordError{Index: cr.index - 1, Offset: -1, BlockOffset: -1, DatumOffset: -1, Err: err}
	}
	return nil
}

// Skipped is what [ContainerReader.Resync] skipped.
type Skipped struct {
	// Records is the number of records skipped in a block that was read:
	// a record that did not decode (1), or, when its end could not be
	// found, it and the rest of its block, or a block whose record count
	// does not fit its data. Records of blocks that could not be read
	// (damaged framing, data that does not decompress) are not known and
	// not counted.
	Records int64
	// Blocks is the number of damaged blocks: 1, or 0 after a record error.
	Blocks int64
	// Bytes is the number of bytes skipped.
	Bytes int64
}

// Resync recovers from the error of the last ReadWire, Read or
// NextDelimited, to read on past bad records and salvage a damaged file.
// After a record that does not decode it skips that record's datum alone
// when the writer schema finds where it ends (a value the reader cannot
// take: a null for a field that has none, a number out of the field's
// range, invalid UTF-8, data nested deeper than a recursion bound), and
// the next read returns the record after it; when
// the datum's end cannot be found (damaged or truncated data), it skips
// the rest of the record's block, whose records cannot be told apart.
// After a damaged block it skips to the next sync marker (see
// [ocf.Reader.Resync]). The next read continues after what was skipped;
// Records counts the skipped records as read. The skipped bytes (the
// datum, the rest of the block, or the damaged bytes, as they are in the
// decompressed block or the file) are copied to w when it is not nil.
// Without an error to recover from it does nothing. It returns io.EOF when
// the file ends in the damage, and the error again when it cannot be
// skipped: an error in the header, or a failure of w. A parallel reader
// (Workers > 1) skips exactly what a sequential one skips, and reads on
// with its workers, which decode a block's records past its first 64 bad
// ones (the records after more are decoded by Resync, on the caller's
// goroutine, 64 bad ones at a time).
func (cr *ContainerReader) Resync(w io.Writer) (Skipped, error) {
	if err := cr.enter(); err != nil {
		return Skipped{}, err
	}
	defer cr.leave()
	switch {
	case cr.err == nil:
		return Skipped{}, nil
	case cr.err == io.EOF:
		return Skipped{}, io.EOF
	}
	emit := func(p []byte) error {
		if w == nil || len(p) == 0 {
			return nil
		}
		_, err := w.Write(p)
		return err
	}
	// A bad record, or damage inside a block that was read: skip the
	// record's datum, or the rest of the block.
	var sk Skipped
	var rest []byte
	var next error // the sequential reader's, after the skipped datum
	ok := false
	if cr.par != nil {
		sk, rest, ok = cr.par.skipBlock(cr)
	} else {
		sk, rest, next, ok = cr.skipBlock()
	}
	if ok {
		cr.index += sk.Records
		cr.err = next
		return sk, emit(rest)
	}
	// Damaged framing, or data that does not decompress.
	n, err := cr.or.Resync(w)
	sk = Skipped{Blocks: 1, Bytes: n}
	switch {
	case err == io.EOF:
		cr.err = io.EOF
	case err != nil:
		return sk, cr.err
	default:
		cr.err = nil
	}
	if cr.par != nil {
		cr.par.resume(cr.err)
	}
	return sk, cr.err
}

// skipBlock is the part of Resync that skips, in the current block of a
// sequential reader, what its error leaves: the datum of a record that did
// not decode, when the writer schema finds its end (next is then the
// error of the bytes left after the block's last record, if there are
// any), else the rest of the block; ok is false for other errors.
func (cr *ContainerReader) skipBlock() (sk Skipped, rest []byte, next error, ok bool) {
	var re *RecordError
	var ce *ContainerError
	data := cr.block.Data
	switch {
	case errors.As(cr.err, &re):
		// cr.pos is where the record that did not decode starts.
		start := min(cr.pos, len(data))
		if end, empty, ok := skipDatum(cr.skip.get(), data, start, start+len(re.Record), cr.empty); ok {
			cr.pos, cr.empty = end, empty
			cr.left--
			if cr.left == 0 && cr.pos != len(data) {
				next = cr.blockError(fmt.Errorf("%w: %d bytes left after the block's records", ErrMalformed, len(data)-cr.pos))
			}
			return Skipped{Records: 1, Bytes: int64(end - start)}, data[start:end], next, true
		}
		sk, rest = Skipped{Records: cr.left, Bytes: int64(len(data) - start)}, data[start:]
	case !errors.As(cr.err, &ce) || ce.Block < 0 || ce.Block != cr.block.Index:
		return Skipped{}, nil, nil, false
	case cr.left > 0:
		// The block's record count does not fit its data.
		sk, rest = Skipped{Records: cr.left, Blocks: 1, Bytes: int64(len(data))}, data
	case cr.pos < len(data):
		// Bytes left after the block's records.
		sk, rest = Skipped{Bytes: int64(len(data) - cr.pos)}, data[cr.pos:]
	default:
		return Skipped{}, nil, nil, false
	}
	cr.left, cr.pos = 0, len(data)
	return sk, rest, nil, true
}

// NewMessage returns a new empty message of the reader's message type.
func (cr *ContainerReader) NewMessage() proto.Message { return cr.mt.New().Interface() }

// nextBlock reads and decompresses the next block.
func (cr *ContainerReader) nextBlock() error {
	b, err := cr.or.Next()
	if err != nil {
		return containerError(err) // io.EOF stays io.EOF
	}
	cr.block, cr.pos, cr.left = b, 0, b.Count
	// Records that take no bytes count as zero-size items of the block.
	if cr.empty, err = blockEmpty(b.Count, len(b.Data)); err != nil {
		return cr.blockError(err)
	}
	return nil
}

// blockError is err in the current block.
func (cr *ContainerReader) blockError(err error) error {
	return &ContainerError{Block: cr.block.Index, Offset: cr.block.Offset, Err: err}
}

package protoavro

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/protoavro/protoavro/internal/pool"
	"github.com/protoavro/protoavro/internal/protofiles"
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
	// (0: the default, 256 KiB; a negative size is an error of class
	// [ErrInvalidOptions]); a block is also closed at 65,536 records,
	// before its data would exceed [ocf.MaxBlockData] (54 MiB), and, for
	// schemas with messages that take no bytes, before its empty messages
	// exceed what a reader accepts in one block (docs/limits.md).
	// Memory use grows with BlockSize × Workers.
	BlockSize int
	// Workers is the number of goroutines that transcode and compress
	// blocks (default GOMAXPROCS), at most [MaxWorkers]. Blocks are
	// written in record order.
	Workers int
	// Metadata is user metadata; keys must not start with "avro." or
	// "protoavro.".
	Metadata map[string][]byte
	// Descriptors selects the protobuf descriptors embedded as
	// MetaDescriptors; the zero value, [DescriptorsStripped], embeds every
	// file the message's file imports, transitively, without source info.
	Descriptors DescriptorMode
	// ExtraFiles are more files embedded in MetaDescriptors beside the
	// message's, each with every file it imports, transitively, such as
	// the files of the types the records' google.protobuf.Any values pack:
	// a reader of the embedded type resolves them without the .proto files
	// ([ReaderOptions].Message). They are embedded whole in every mode but
	// [DescriptorsNone], with source info only in [DescriptorsFull]. In
	// [DescriptorsMinimal] a file both minimal and extra is embedded whole:
	// give the message's own file too when Any values pack types of it
	// that the message does not reach through its fields.
	ExtraFiles []protoreflect.FileDescriptor
	// OnBadRecord, when set, is called for each record that cannot be
	// converted, from the goroutine that calls the writer's methods: for
	// Write at once, for WriteWire when the record's block is written (in
	// record order). Returning nil skips the record; returning an error
	// stops the writer with it. When nil, the first bad record stops the
	// writer with a *RecordError.
	OnBadRecord func(e *RecordError) error
	// Input converts a record given to [ContainerWriter.WriteInputAt],
	// in a form of the caller's (protobuf JSON, say), to protobuf wire
	// bytes appended to dst. It runs on the workers, from several
	// goroutines at once. Its error makes the record a bad record, whose
	// RecordError holds the record as given. The wire bytes may hold
	// unknown fields, as those of WriteWire may: they are dropped, and the
	// record is counted ([ContainerWriter.DroppedUnknown]). A converter
	// that drops parts of a record that the message has no field for can
	// leave an unknown field in their place to have the record counted.
	Input func(dst, record []byte) ([]byte, error)
}

// DescriptorMode selects the descriptors a [ContainerWriter] embeds in
// the file (MetaDescriptors), which let readers decode the file without
// the .proto files. Source info (comments and source positions) can be most
// of a header's size and is only kept by [DescriptorsFull].
type DescriptorMode int

const (
	// DescriptorsStripped embeds the message's file and every file it
	// imports, transitively, without source info. The default.
	DescriptorsStripped DescriptorMode = iota
	// DescriptorsFull embeds the message's file and every file it imports,
	// transitively, with source info.
	DescriptorsFull
	// DescriptorsMinimal embeds only what the message needs: the messages
	// and enums it reaches through its fields (with the messages that
	// enclose them, as empty shells), in the files that declare them,
	// without source info, services, extensions or unused imports.
	DescriptorsMinimal
	// DescriptorsNone embeds no descriptors (nor MetaMessage): readers must
	// be given the message type.
	DescriptorsNone
)

// String returns "stripped", "full", "minimal" or "none".
func (m DescriptorMode) String() string {
	switch m {
	case DescriptorsStripped:
		return "stripped"
	case DescriptorsFull:
		return "full"
	case DescriptorsMinimal:
		return "minimal"
	case DescriptorsNone:
		return "none"
	}
	return fmt.Sprintf("DescriptorMode(%d)", int(m))
}

// ParseDescriptorMode reads the names [DescriptorMode.String] returns.
func ParseDescriptorMode(s string) (DescriptorMode, error) {
	for m := DescriptorsStripped; m <= DescriptorsNone; m++ {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown descriptor mode %q (want stripped, full, minimal or none)", ErrInvalidOptions, s)
}

// Errors of container writers and readers used against their contract.
var (
	// ErrClosed reports a call on a closed [ContainerWriter].
	ErrClosed = errors.New("protoavro: container writer closed")
	// ErrConcurrentUse reports a call on a [ContainerWriter] or
	// [ContainerReader] while another call on it, from another goroutine
	// (or from its OnBadRecord callback), is running. The calls must come
	// from one goroutine at a time.
	ErrConcurrentUse = errors.New("protoavro: container writer or reader used from several goroutines at once")
)

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
	// BlockOffset and DatumOffset place a reader's record in its file:
	// the byte offset of the block that holds it, and the offset of its
	// datum in the block's data (decompressed). Both are -1 for a writer,
	// and where the record's datum decoded but its message did not.
	BlockOffset, DatumOffset int64
	// Err is the underlying error, usually a *DataError. A reader's error
	// at a known place is wrapped once (errors.Unwrap) in the text that
	// gives its block and datum.
	Err error
}

// Error describes the error as "protoavro: record I (input byte N): ...",
// or "protoavro: record I: ..." where Offset is -1.
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
// one goroutine at a time: a call while another runs returns
// [ErrConcurrentUse] and changes nothing; Records, Blocks, BytesWritten,
// Rounded and DroppedUnknown may be called from any goroutine.
type ContainerWriter struct {
	guard callGuard
	ow    *ocf.Writer
	codec *Codec
	opts  ContainerOptions
	pool  *pool.Ordered[*wblock, *wblock]
	cur   *wblock
	free  []*wblock
	next  int64 // index of the next record
	// in is the batch of WriteInputAt records being filled; inFlight
	// counts the batches the workers convert.
	in       *wblock
	inFlight int
	err      error
	closed   bool
	// emptyItems says that the schema has records that take no bytes:
	// the workers then count the zero-size items of each record and
	// split blocks as readers bound them (ocf.BlockBuilder).
	emptyItems bool
	// Counters of what was written, for any goroutine.
	records, blocks, written atomic.Int64
	// rounded counts the values of the records put into blocks that the
	// mapping rounded (see Rounded); unknown counts those records that
	// had unknown fields dropped (see DroppedUnknown). The workers add a
	// record's tally once the record is in a block: a bad record's is
	// never added.
	rounded, unknown atomic.Int64
}

// wblock is one block in flight.
type wblock struct {
	recs  []wrec
	wire  []byte // WriteWire inputs, concatenated
	avro  []byte // datums of the records given to Write and WriteDatum, concatenated
	raw   []byte // the records given to WriteInputAt whose datums are in avro
	bad   []*RecordError
	err   error
	parts []wpart // the blocks written for this one, by builder
	// builder gathers the block's datums, on a worker, into the blocks
	// of parts; compression is the codec they are compressed with.
	builder     *ocf.BlockBuilder
	compression Compression
	scratch     []byte
	// input says that the records were given to WriteInputAt: the
	// workers convert them (into avro, ends their ends) and the writing
	// goroutine adds their datums to the blocks in record order.
	input bool
	ends  []int
}

// wpart is one block written for a wblock: its count and its data
// compressed.
type wpart struct {
	count int64
	out   []byte
}

// wrec is one record of a block.
type wrec struct {
	index  int64 // in the stream
	offset int64 // in the caller's input, or -1
	wire   bool  // given to WriteWire: start and end are in wblock.wire, else in wblock.avro
	start  int
	end    int
	// input says that the record was given to WriteInputAt: it is
	// wblock.raw[rawStart:rawEnd], for its RecordError.
	input            bool
	rawStart, rawEnd int
	// tally is what the conversion counted, for a record converted
	// before its block is built (given to Write, or to WriteInputAt).
	tally tally
}

// NewContainerWriter writes the header of a container file for messages of
// md to w and returns the writer.
func NewContainerWriter(w io.Writer, md protoreflect.MessageDescriptor, opts ContainerOptions) (*ContainerWriter, error) {
	if w == nil {
		return nil, fmt.Errorf("%w: nil io.Writer", ErrInvalidOptions)
	}
	if opts.Workers > MaxWorkers {
		return nil, fmt.Errorf("%w: ContainerOptions.Workers %d exceeds %d", ErrInvalidOptions, opts.Workers, MaxWorkers)
	}
	if opts.BlockSize < 0 {
		return nil, fmt.Errorf("%w: ContainerOptions.BlockSize %d is negative (0 is the default, 256 KiB)", ErrInvalidOptions, opts.BlockSize)
	}
	header, codec, err := containerHeader(md, &opts)
	if err != nil {
		return nil, err
	}
	if opts.BlockSize == 0 {
		opts.BlockSize = defaultBlockSize
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	ow, err := ocf.NewWriter(w, header)
	if err != nil {
		return nil, fmt.Errorf("protoavro: write container: %w", err)
	}
	cw := &ContainerWriter{ow: ow, codec: codec, opts: opts, emptyItems: hasEmptyRecords(codec.schema)}
	cw.count()
	cw.pool = pool.New(opts.Workers, func(b *wblock) *wblock {
		cw.process(b)
		return b
	})
	return cw, nil
}

// ContainerHeader returns the header that [NewContainerWriter] writes for
// messages of md with opts, without writing a file: the writer schema, the
// codec (opts.Compression) and the metadata (opts.Metadata, and
// [MetaMessage], [MetaDescriptors] and [MetaOptions] as opts.Descriptors
// and opts.Options say), as the options of an [ocf.Writer]. Their Sync is
// zero, so that [ocf.NewWriter] draws a random sync marker. A file started
// with them is one [NewContainerReader] reads as it reads the
// ContainerWriter's: blocks of files written by ContainerWriters with the
// same md and opts may be copied into it ([ocf.Writer.WriteRawBlock]) to
// merge them. BlockSize, Workers and OnBadRecord play no part.
func ContainerHeader(md protoreflect.MessageDescriptor, opts ContainerOptions) (ocf.WriterOptions, error) {
	header, _, err := containerHeader(md, &opts)
	return header, err
}

// containerHeader checks opts for md, sets the default compression, and
// returns the header of md's container files and the codec of their
// records.
func containerHeader(md protoreflect.MessageDescriptor, opts *ContainerOptions) (ocf.WriterOptions, *Codec, error) {
	if md == nil {
		return ocf.WriterOptions{}, nil, fmt.Errorf("%w: nil message descriptor", ErrInvalidOptions)
	}
	if opts.Descriptors < DescriptorsStripped || opts.Descriptors > DescriptorsNone {
		return ocf.WriterOptions{}, nil, fmt.Errorf("%w: unknown %v", ErrInvalidOptions, opts.Descriptors)
	}
	if slices.Contains(opts.ExtraFiles, nil) {
		return ocf.WriterOptions{}, nil, fmt.Errorf("%w: nil file in ExtraFiles", ErrInvalidOptions)
	}
	codec, err := opts.Options.Codec(md)
	if err != nil {
		return ocf.WriterOptions{}, nil, err
	}
	if opts.Compression == "" {
		opts.Compression = CompressionNull
	}
	if !opts.Compression.Supported() {
		return ocf.WriterOptions{}, nil, fmt.Errorf("%w: unsupported codec %q", ErrUnsupported, opts.Compression)
	}
	meta := map[string][]byte{}
	for k, v := range opts.Metadata {
		if strings.HasPrefix(k, "avro.") || strings.HasPrefix(k, "protoavro.") {
			return ocf.WriterOptions{}, nil, fmt.Errorf("%w: metadata key %q is reserved", ErrInvalidOptions, k)
		}
		meta[k] = v
	}
	schemaJSON, err := codec.schema.MarshalJSON()
	if err != nil {
		return ocf.WriterOptions{}, nil, err
	}
	if opts.Descriptors != DescriptorsNone {
		meta[MetaMessage] = []byte(md.FullName())
		if meta[MetaDescriptors], err = descriptorSet(md, opts.Descriptors, opts.ExtraFiles); err != nil {
			return ocf.WriterOptions{}, nil, err
		}
	}
	meta[MetaOptions] = []byte(opts.Options.String())
	header := ocf.WriterOptions{Schema: schemaJSON, Codec: opts.Compression, Metadata: meta}
	if err := checkHeaderSize(header); err != nil {
		return ocf.WriterOptions{}, nil, err
	}
	return header, codec, nil
}

// checkHeaderSize refuses a header whose metadata, keys and values
// together, exceed what readers accept by default
// ([ocf.DefaultMaxMetadataSize], the bound of [NewContainerReader]): a
// file that no reader opens. Embedded descriptors are most of a header:
// large ExtraFiles, or source info ([DescriptorsFull]), can pass the bound.
func checkHeaderSize(h ocf.WriterOptions) error {
	size := len(ocf.MetaSchema) + len(h.Schema) + len(ocf.MetaCodec) + len(h.Codec)
	for k, v := range h.Metadata {
		size += len(k) + len(v)
	}
	if size > ocf.DefaultMaxMetadataSize {
		return fmt.Errorf("%w: the container header's metadata takes %d bytes (%d of them descriptors), more than the %d that readers accept: embed fewer descriptors (ExtraFiles, Descriptors)", ErrInvalidOptions, size, len(h.Metadata[MetaDescriptors]), ocf.DefaultMaxMetadataSize)
	}
	return nil
}

// descriptorSet serializes the descriptors of md that mode selects, and
// the extra files with their imports, as a FileDescriptorSet, dependencies
// first.
func descriptorSet(md protoreflect.MessageDescriptor, mode DescriptorMode, extra []protoreflect.FileDescriptor) ([]byte, error) {
	var set descriptorpb.FileDescriptorSet
	if mode == DescriptorsMinimal {
		// The extra files whole, then the minimal files that are not
		// among them (which import only minimal or extra files).
		set.File = protofiles.Protos(extra...)
		whole := make(map[string]bool, len(set.File))
		for _, fdp := range set.File {
			fdp.SourceCodeInfo = nil
			whole[fdp.GetName()] = true
		}
		for _, fdp := range minimalFiles(md) {
			if !whole[fdp.GetName()] {
				set.File = append(set.File, fdp)
			}
		}
	} else {
		set.File = protofiles.Protos(append([]protoreflect.FileDescriptor{md.ParentFile()}, extra...)...)
		if mode != DescriptorsFull {
			for _, fdp := range set.File {
				fdp.SourceCodeInfo = nil
			}
		}
	}
	if len(extra) > 0 {
		// Files from different registries may clash (two files of a path,
		// or of a name): readers could not build the set.
		if _, err := protofiles.NewFiles(set.File); err != nil {
			return nil, fmt.Errorf("%w: ExtraFiles: %w", ErrInvalidOptions, err)
		}
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(&set)
}

// minimalFiles returns the files of [DescriptorsMinimal] for md,
// dependencies first: each file that declares a type md reaches, cut down
// to those types.
func minimalFiles(md protoreflect.MessageDescriptor) []*descriptorpb.FileDescriptorProto {
	// Every message and enum md reaches through its fields.
	reached := map[protoreflect.FullName]bool{}
	decls := map[protoreflect.FullName]protoreflect.Descriptor{}
	var visit func(d protoreflect.Descriptor)
	visit = func(d protoreflect.Descriptor) {
		if reached[d.FullName()] {
			return
		}
		reached[d.FullName()] = true
		decls[d.FullName()] = d
		m, ok := d.(protoreflect.MessageDescriptor)
		if !ok {
			return
		}
		fields := m.Fields()
		for i := range fields.Len() {
			f := fields.Get(i)
			if f.Message() != nil {
				visit(f.Message())
			} else if f.Enum() != nil {
				visit(f.Enum())
			}
		}
	}
	visit(md)
	// The enclosing messages of reached types are kept as shells.
	enclosing := map[protoreflect.FullName]bool{}
	files := map[string]protoreflect.FileDescriptor{}
	for _, d := range decls {
		files[d.ParentFile().Path()] = d.ParentFile()
		for p := d.Parent(); p != nil; p = p.Parent() {
			if _, ok := p.(protoreflect.MessageDescriptor); ok {
				enclosing[p.FullName()] = true
			}
		}
	}
	// A file imports the files that declare the types kept in it.
	keeps := func(f, imp protoreflect.FileDescriptor) bool {
		return files[imp.Path()] != nil && usesFile(f, imp, reached)
	}
	// Files in a stable order: the message's file last, after what it needs.
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	roots := make([]protoreflect.FileDescriptor, 0, len(paths))
	for _, p := range paths {
		if p != md.ParentFile().Path() {
			roots = append(roots, files[p])
		}
	}
	roots = append(roots, md.ParentFile())
	var out []*descriptorpb.FileDescriptorProto
	for _, f := range protofiles.Following(keeps, roots...) {
		fdp := protodesc.ToFileDescriptorProto(f)
		fdp.SourceCodeInfo, fdp.Service, fdp.Extension = nil, nil, nil
		fdp.PublicDependency, fdp.WeakDependency = nil, nil
		fdp.MessageType = pruneMessages(fdp.MessageType, f.Messages(), reached, enclosing)
		fdp.EnumType = pruneEnums(fdp.EnumType, f.Enums(), reached)
		var deps []string
		imps := f.Imports()
		for i := range imps.Len() {
			if imp := imps.Get(i).FileDescriptor; keeps(f, imp) {
				deps = append(deps, imp.Path())
			}
		}
		fdp.Dependency = deps
		out = append(out, fdp)
	}
	return out
}

// usesFile reports whether a kept message of f has a field of a type
// declared in imp.
func usesFile(f, imp protoreflect.FileDescriptor, reached map[protoreflect.FullName]bool) bool {
	var uses func(ms protoreflect.MessageDescriptors) bool
	uses = func(ms protoreflect.MessageDescriptors) bool {
		for i := range ms.Len() {
			m := ms.Get(i)
			if reached[m.FullName()] {
				fields := m.Fields()
				for j := range fields.Len() {
					fd := fields.Get(j)
					var t protoreflect.Descriptor
					if fd.Message() != nil {
						t = fd.Message()
					} else if fd.Enum() != nil {
						t = fd.Enum()
					}
					if t != nil && t.ParentFile().Path() == imp.Path() {
						return true
					}
				}
			}
			if uses(m.Messages()) {
				return true
			}
		}
		return false
	}
	return uses(f.Messages())
}

// pruneMessages keeps the messages of ps (described by ds) that were
// reached, whole, and those that enclose a reached type, as shells.
func pruneMessages(ps []*descriptorpb.DescriptorProto, ds protoreflect.MessageDescriptors, reached, enclosing map[protoreflect.FullName]bool) []*descriptorpb.DescriptorProto {
	var out []*descriptorpb.DescriptorProto
	for i, p := range ps {
		d := ds.Get(i)
		switch {
		case reached[d.FullName()]:
			p.Extension = nil
		case enclosing[d.FullName()]:
			p.Field, p.OneofDecl, p.Extension, p.ExtensionRange = nil, nil, nil, nil
			p.ReservedRange, p.ReservedName = nil, nil
		default:
			continue
		}
		p.NestedType = pruneMessages(p.NestedType, d.Messages(), reached, enclosing)
		p.EnumType = pruneEnums(p.EnumType, d.Enums(), reached)
		out = append(out, p)
	}
	return out
}

// pruneEnums keeps the enums of ps (described by ds) that were reached.
func pruneEnums(ps []*descriptorpb.EnumDescriptorProto, ds protoreflect.EnumDescriptors, reached map[protoreflect.FullName]bool) []*descriptorpb.EnumDescriptorProto {
	var out []*descriptorpb.EnumDescriptorProto
	for i, p := range ps {
		if reached[ds.Get(i).FullName()] {
			out = append(out, p)
		}
	}
	return out
}

// enter starts a method call: it fails with [ErrConcurrentUse] while
// another call runs. A call that succeeds must be ended with leave.
func (cw *ContainerWriter) enter() error {
	if cw == nil {
		return fmt.Errorf("%w: nil *ContainerWriter", ErrInvalidOptions)
	}
	return cw.guard.enter()
}

// leave ends a method call begun by enter.
func (cw *ContainerWriter) leave() { cw.guard.leave() }

// enterAdd starts a method call that adds records after those given so
// far: enter, then settled. A call that succeeds must be ended with leave.
func (cw *ContainerWriter) enterAdd() error {
	if err := cw.enter(); err != nil {
		return err
	}
	if err := cw.settled(); err != nil {
		cw.leave()
		return err
	}
	return nil
}

// callGuard refuses a method call while another runs, for the writers
// and readers that are used from one goroutine at a time.
type callGuard struct{ busy atomic.Bool }

// enter starts a call, or returns [ErrConcurrentUse].
func (g *callGuard) enter() error {
	if !g.busy.CompareAndSwap(false, true) {
		return ErrConcurrentUse
	}
	return nil
}

// leave ends a call.
func (g *callGuard) leave() { g.busy.Store(false) }

// Write converts m and adds it to the current block. A nil message is an
// error.
func (cw *ContainerWriter) Write(m proto.Message) error {
	if err := cw.enterAdd(); err != nil {
		return err
	}
	defer cw.leave()
	if m == nil {
		return fmt.Errorf("%w: nil message", ErrWrongType)
	}
	b := cw.block()
	n := len(b.avro)
	var err error
	var rounded int64
	b.avro, rounded, err = cw.codec.marshalAppend(b.avro, m) // refuses records over maxRecordAvroSize
	if err != nil {
		b.avro = b.avro[:n]
		re := &RecordError{Index: cw.next, Offset: -1, BlockOffset: -1, DatumOffset: -1, Err: err}
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
	// The unknown fields of a message are not counted: the direct writer
	// does not look at them.
	return cw.added(b, wrec{offset: -1, start: n, end: len(b.avro), tally: tally{rounded: rounded}})
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
	if err := cw.enterAdd(); err != nil {
		return err
	}
	defer cw.leave()
	b := cw.block()
	n := len(b.wire)
	b.wire = append(b.wire, wire...)
	return cw.added(b, wrec{offset: offset, wire: true, start: n, end: len(b.wire)})
}

// WriteDatum adds one record given as its Avro binary datum in the
// writer's schema, as Codec().TranscodeToAvro and Codec().MarshalAppend
// write it, for a caller that converted the record itself (to report its
// errors in its own terms): the writer copies it and only compresses it.
// It does not check the datum's contents, except for schemas with
// messages that take no bytes: the workers then read each datum back to
// count its empty messages (docs/limits.md), and a datum that does not
// read back is a bad record, reported as the writer's other bad records
// are (a later call, or OnBadRecord). A datum beyond the limit of one
// record's Avro encoding (docs/limits.md) is refused with a *RecordError
// and not added; the writer stays usable and the record is not counted.
func (cw *ContainerWriter) WriteDatum(datum []byte) error {
	if err := cw.enterAdd(); err != nil {
		return err
	}
	defer cw.leave()
	if err := checkRecordSize(string(cw.codec.schema.desc.FullName()), len(datum)); err != nil {
		return &RecordError{Index: cw.next, Offset: -1, Record: datum, BlockOffset: -1, DatumOffset: -1, Err: err}
	}
	b := cw.block()
	n := len(b.avro)
	b.avro = append(b.avro, datum...)
	return cw.added(b, wrec{offset: -1, start: n, end: len(b.avro)})
}

// ready fails after an error, and once the writer is closed.
func (cw *ContainerWriter) ready() error {
	if cw.err != nil {
		return cw.err
	}
	if cw.closed {
		return ErrClosed
	}
	return nil
}

// settled is ready, with the datums of the WriteInputAt records given so
// far put into blocks (settleInput).
func (cw *ContainerWriter) settled() error {
	if err := cw.ready(); err != nil {
		return err
	}
	return cw.settleInput()
}

// block returns the block being filled.
func (cw *ContainerWriter) block() *wblock {
	if cw.cur == nil {
		cw.cur = cw.newBlock()
	}
	return cw.cur
}

// newBlock returns an empty wblock, one written before when there is one.
func (cw *ContainerWriter) newBlock() *wblock {
	var b *wblock
	if n := len(cw.free); n > 0 {
		b, cw.free = cw.free[n-1], cw.free[:n-1]
	} else {
		b = &wblock{}
	}
	b.recs, b.wire, b.avro, b.raw = b.recs[:0], b.wire[:0], b.avro[:0], b.raw[:0]
	b.bad, b.err, b.input, b.ends = b.bad[:0], nil, false, b.ends[:0]
	return b
}

// The batches of WriteInputAt records that the workers convert close at
// inputBatchBytes bytes or inputBatchRecords records. Their datums then go
// into blocks as WriteDatum's do, so the batches do not decide the blocks.
const (
	inputBatchBytes   = 256 << 10
	inputBatchRecords = 1024
)

// WriteInputAt adds one record in the caller's form, which
// [ContainerOptions.Input] converts to protobuf wire bytes on a worker,
// where it is then converted to Avro; offset is the record's byte offset
// in the caller's input (or -1), which errors report. A record that does
// not convert is a bad record, reported as the others are (a later call,
// or OnBadRecord), with the record as given. The datums go into blocks in
// record order, closed at BlockSize bytes of Avro. The writer copies
// record. Without ContainerOptions.Input it fails with [ErrInvalidOptions].
func (cw *ContainerWriter) WriteInputAt(record []byte, offset int64) error {
	if err := cw.enter(); err != nil {
		return err
	}
	defer cw.leave()
	if err := cw.ready(); err != nil {
		return err
	}
	if cw.opts.Input == nil {
		return fmt.Errorf("%w: WriteInputAt without ContainerOptions.Input", ErrInvalidOptions)
	}
	if cw.in == nil {
		cw.in = cw.newBlock()
		cw.in.input = true
	}
	b := cw.in
	n := len(b.wire)
	b.wire = append(b.wire, record...)
	b.recs = append(b.recs, wrec{index: cw.next, offset: offset, wire: true, start: n, end: len(b.wire)})
	cw.next++
	if len(b.wire) >= inputBatchBytes || len(b.recs) >= inputBatchRecords {
		return cw.submitInput()
	}
	return nil
}

// submitInput hands the batch of WriteInputAt records to the workers.
func (cw *ContainerWriter) submitInput() error { return cw.put(&cw.in) }

// settleInput puts the datums of the WriteInputAt records given so far
// into blocks, before a record given otherwise joins them.
func (cw *ContainerWriter) settleInput() error {
	if cw.in == nil && cw.inFlight == 0 {
		return nil
	}
	if err := cw.submitInput(); err != nil {
		return err
	}
	return cw.pool.Drain(cw.writeBlock)
}

// convert converts the WriteInputAt records of b to Avro, on a worker:
// into b.avro, record i ending at b.ends[i] (a bad record is empty).
func (cw *ContainerWriter) convert(b *wblock) {
	for i := range b.recs {
		r := &b.recs[i]
		record := b.wire[r.start:r.end]
		wire, err := cw.opts.Input(b.scratch[:0], record)
		b.scratch = wire[:0]
		n := len(b.avro)
		if err == nil {
			b.avro, r.tally, err = cw.codec.transcodeToAvro(b.avro, wire) // refuses records over maxRecordAvroSize
		}
		if err != nil {
			b.avro = b.avro[:n]
			re := &RecordError{Index: r.index, Offset: r.offset, Record: record, BlockOffset: -1, DatumOffset: -1, Err: err}
			if cw.opts.OnBadRecord == nil {
				b.err = re
				return
			}
			b.bad = append(b.bad, re)
		}
		b.ends = append(b.ends, len(b.avro))
	}
}

// addConverted adds the datums of b, a batch of WriteInputAt records the
// workers converted, to the blocks, and reports its bad records, in record
// order; a full block goes to the workers without waiting for any.
func (cw *ContainerWriter) addConverted(b *wblock) error {
	bad, start := b.bad, 0
	for i := range b.ends {
		r := &b.recs[i]
		datum := b.avro[start:b.ends[i]]
		start = b.ends[i]
		if len(bad) > 0 && bad[0].Index == r.index {
			if err := cw.opts.OnBadRecord(bad[0]); err != nil {
				cw.err = err
				return err
			}
			bad = bad[1:]
			continue
		}
		c := cw.block()
		n, rn := len(c.avro), len(c.raw)
		c.avro = append(c.avro, datum...)
		c.raw = append(c.raw, b.wire[r.start:r.end]...)
		c.recs = append(c.recs, wrec{index: r.index, offset: r.offset, start: n, end: len(c.avro), input: true, rawStart: rn, rawEnd: len(c.raw), tally: r.tally})
		if cw.full(c) {
			// As added does; Submit, not Put: the batches after b are
			// taken once this one is done.
			cw.cur = nil
			cw.pool.Submit(c)
		}
	}
	return nil
}

// added records r, the next record of the stream, in b.
func (cw *ContainerWriter) added(b *wblock, r wrec) error {
	r.index = cw.next
	b.recs = append(b.recs, r)
	cw.next++
	if cw.full(b) {
		return cw.submit()
	}
	return nil
}

// full reports whether block b is to be closed: at BlockSize bytes, or at
// the records a block holds at most. (A block of many records may be of
// records that take no bytes: the workers' ocf.BlockBuilder splits it at
// the zero-size items that readers accept in a block.)
func (cw *ContainerWriter) full(b *wblock) bool {
	return len(b.avro)+len(b.wire) >= cw.opts.BlockSize || len(b.recs) >= ocf.MaxBlockRecords
}

// submit hands the current block to the workers.
func (cw *ContainerWriter) submit() error { return cw.put(&cw.cur) }

// put hands the block or batch in *slot, if it holds records, to the
// workers and empties the slot, then writes finished blocks so that at
// most Workers blocks stay in flight.
func (cw *ContainerWriter) put(slot **wblock) error {
	b := *slot
	if b == nil || len(b.recs) == 0 {
		return nil
	}
	*slot = nil
	if b.input {
		cw.inFlight++
	}
	return cw.pool.Put(b, cw.writeBlock)
}

// writeBlock writes a block the workers finished.
func (cw *ContainerWriter) writeBlock(b *wblock) error {
	defer func() { cw.free = append(cw.free, b) }()
	if b.input {
		cw.inFlight--
	}
	if b.err != nil {
		cw.err = b.err
		return b.err
	}
	if b.input {
		return cw.addConverted(b)
	}
	for _, re := range b.bad {
		if err := cw.opts.OnBadRecord(re); err != nil {
			cw.err = err
			return err
		}
	}
	for _, p := range b.parts {
		if err := cw.writeRaw(p.count, p.out); err != nil {
			return err
		}
	}
	return nil
}

// writeRaw writes one block of count records, its data compressed.
func (cw *ContainerWriter) writeRaw(count int64, out []byte) error {
	err := cw.ow.WriteRawBlock(count, out)
	cw.count()
	if err != nil {
		cw.err = fmt.Errorf("protoavro: write container: %w", err)
		return cw.err
	}
	return nil
}

// count publishes the counters of the ocf writer.
func (cw *ContainerWriter) count() {
	cw.records.Store(cw.ow.Records())
	cw.blocks.Store(cw.ow.Blocks())
	cw.written.Store(cw.ow.BytesWritten())
}

// process converts and compresses a block, on a worker: the records
// given to WriteWire are converted, and the datums go through an
// [ocf.BlockBuilder], which splits the block where readers bound it (the
// zero-size items of records that take no bytes). A record that does not
// convert, or that no block holds, is a bad record.
func (cw *ContainerWriter) process(b *wblock) {
	if b.input {
		cw.convert(b)
		return
	}
	b.parts = b.parts[:0]
	if b.builder == nil {
		b.builder = ocf.NewBlockBuilder(0, b.emit)
	}
	b.compression = cw.opts.Compression
	bb := b.builder
	bb.Reset()
	for i := range b.recs {
		r := &b.recs[i]
		data := bb.Data()
		n := len(data)
		var record []byte
		var err error
		t := r.tally
		if r.wire {
			record = b.wire[r.start:r.end]
			data, t, err = cw.codec.transcodeToAvro(data, record) // refuses records over maxRecordAvroSize
		} else {
			data = append(data, b.avro[r.start:r.end]...)
			if r.input {
				record = b.raw[r.rawStart:r.rawEnd]
			}
		}
		var e int64
		if err == nil && cw.emptyItems {
			// The schema has records that take no bytes: count the
			// record's zero-size items as readers do.
			e, b.scratch, err = emptyItems(cw.codec.dec, b.scratch, data[n:])
			if err == nil && e > maxEmptyItems {
				// A WriteDatum datum (the codec refuses the others) that
				// no reader of single datums accepts.
				err = &DataError{Path: cw.codec.enc.name, Err: fmt.Errorf("%w: more than %d nested records that take no bytes (empty messages) in one datum; readers refuse them (docs/limits.md)", ErrOutOfRange, maxEmptyItems)}
			}
		}
		if err == nil {
			err = bb.Add(data, e)
			if b.err != nil {
				return // the block did not compress
			}
			if err != nil {
				err = &DataError{Path: cw.codec.enc.name, Err: blockLimitError{err}}
			}
		}
		if err == nil {
			cw.counted(t)
			continue
		}
		re := &RecordError{Index: r.index, Offset: r.offset, Record: record, BlockOffset: -1, DatumOffset: -1, Err: err}
		if cw.opts.OnBadRecord == nil {
			b.err = re
			return
		}
		b.bad = append(b.bad, re)
	}
	_ = bb.Flush() // emit's error is b.err
}

// counted adds the tally of a record put into a block to the writer's
// counters, on a worker.
func (cw *ContainerWriter) counted(t tally) {
	if t.rounded != 0 {
		cw.rounded.Add(t.rounded)
	}
	if t.unknown != 0 {
		cw.unknown.Add(1)
	}
}

// emit compresses one block the builder closed, on a worker.
func (b *wblock) emit(count int64, data []byte) error {
	if len(b.parts) < cap(b.parts) {
		b.parts = b.parts[:len(b.parts)+1]
	} else {
		b.parts = append(b.parts, wpart{})
	}
	p := &b.parts[len(b.parts)-1]
	var err error
	if p.out, err = b.compression.Compress(p.out[:0], data); err != nil {
		b.err = fmt.Errorf("protoavro: compress block: %w", err)
		return b.err
	}
	p.count = count
	return nil
}

// blockLimitError is the refusal of a record that no container block
// holds (too many zero-size items for its size): its class is
// [ocf.ErrLimit], that of every breach of the block bounds, and it matches
// [ErrOutOfRange] too, the class of the writer's other refusals of a
// record.
type blockLimitError struct{ error }

// Unwrap returns the [ocf.BlockBuilder]'s error.
func (e blockLimitError) Unwrap() error { return e.error }

// Is matches [ErrOutOfRange].
func (e blockLimitError) Is(target error) bool { return target == ErrOutOfRange }

// Flush writes every record added so far as complete blocks.
func (cw *ContainerWriter) Flush() error {
	if err := cw.enter(); err != nil {
		return err
	}
	defer cw.leave()
	return cw.flush()
}

// flush is Flush, within a method call.
func (cw *ContainerWriter) flush() error {
	if err := cw.settled(); err != nil {
		return err
	}
	if err := cw.submit(); err != nil {
		return err
	}
	if err := cw.pool.Drain(cw.writeBlock); err != nil {
		return err
	}
	err := cw.ow.Flush()
	cw.count()
	if err != nil {
		cw.err = fmt.Errorf("protoavro: write container: %w", err)
		return cw.err
	}
	return nil
}

// Close flushes the writer and stops its workers. It does not close the
// underlying io.Writer. After an error the file is incomplete: callers write
// to a temporary file and rename it only when Close succeeds. Closing again
// returns the first Close's result.
func (cw *ContainerWriter) Close() error {
	if err := cw.enter(); err != nil {
		return err
	}
	defer cw.leave()
	if cw.closed {
		return cw.err
	}
	err := cw.flush()
	cw.closed = true
	cw.pool.Close() // waits for blocks still in flight after an error
	return err
}

// Codec returns the codec that converts the records.
func (cw *ContainerWriter) Codec() *Codec { return cw.codec }

// Records returns the number of records written to the file so far
// (records in blocks not yet written are not counted).
func (cw *ContainerWriter) Records() int64 { return cw.records.Load() }

// Blocks returns the number of blocks written so far.
func (cw *ContainerWriter) Blocks() int64 { return cw.blocks.Load() }

// BytesWritten returns the number of bytes written to the underlying
// writer: the header, and the blocks written so far.
func (cw *ContainerWriter) BytesWritten() int64 { return cw.written.Load() }

// Rounded returns the number of values of the records converted so far
// that the mapping options rounded: Timestamps with nanoseconds below the
// precision of [TimestampMicros] or [TimestampMillis], and TimeOfDays below
// the microsecond ([Options.GoogleTypes]). It is counted as the workers
// put records into blocks, before the blocks are written; the values of a
// bad record, which no block holds, are not counted. The default options
// round nothing.
func (cw *ContainerWriter) Rounded() int64 { return cw.rounded.Load() }

// DroppedUnknown returns the number of records converted so far from
// protobuf wire bytes (given to WriteWire, WriteWireAt, or WriteInputAt
// through [ContainerOptions.Input]) that had unknown fields, which the
// conversion drops: field numbers the message does not declare, such as
// the fields a newer version of the .proto added, and known fields in a
// wire type they do not take, which proto.Unmarshal keeps as unknown
// fields too (docs/mapping.md). A record counts once however many it had.
// It is counted as Rounded is: a bad record is not counted. The unknown
// fields of messages given to Write are not looked at, nor are those
// inside values carried whole (a message nested deeper than the schema
// goes, an Any's value bytes, which keep them) or written as JSON text
// ([Options.DynamicAsJSON], which drops them as protojson does).
func (cw *ContainerWriter) DroppedUnknown() int64 { return cw.unknown.Load() }

package protoavrobeam

import (
	"container/list"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/beam/internal/safetext"
	"github.com/protoavro/protoavro/beam/internal/worker"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
	"github.com/protoavro/protoavro/protoavro/protoload"
)

// ErrType reports a Type that does not describe a message: no name, a
// descriptor set that does not parse or link or is beyond the import bounds
// (then it also wraps protoload.ErrImportLimit), a name it does not hold,
// or mapping options that do not parse. A Type may come from a container
// file's header (ReadAvro without a type), so its errors quote its name and
// options, and the errors of its descriptors, escaped and cut to 300 bytes
// each.
var ErrType = errors.New("protoavrobeam: bad message type")

// Type is a protobuf message type and its Avro mapping in a form that
// travels inside a DoFn: plain strings and bytes, encoded with the DoFn.
// A worker rebuilds the descriptors from it with protoload.NewTypes, the
// loader of the protoavro commands (a MessageSet is built as the plain
// message the mapping takes it for; the standard google/protobuf imports
// that the set lacks are supplied), and caches what it builds (see the
// package documentation).
type Type struct {
	// Message is the full name of the message, e.g. "protoavro.avro2147.Foo".
	Message string `json:"message"`
	// Descriptors is a serialized google.protobuf.FileDescriptorSet holding
	// the message's file and all its dependencies.
	Descriptors []byte `json:"descriptors"`
	// Options are the mapping options, in the form of
	// [protoavro.Options.String] ("profile=default timestamps=micros ...").
	Options string `json:"options"`
	// AnyTypes is an optional serialized FileDescriptorSet of more files
	// (see [Type.WithAnyTypes]): the google.protobuf.Any values of the
	// records resolve to the messages of these files and of Descriptors,
	// and the container files of a message that reaches an Any embed them,
	// unless they would make the header too large for readers (see
	// [Type.Check]).
	AnyTypes []byte `json:"any_types,omitempty"`
}

// WithAnyTypes returns t with files (and their imports) as its AnyTypes:
// the types that the google.protobuf.Any values of the records may pack,
// such as every file a command line loaded, without their source info
// (comments), which no conversion uses. When t's message reaches an Any,
// the container files that WriteAvro writes embed these files with the
// message's (protoavro.ContainerOptions.ExtraFiles), as protoavro encode
// embeds the .proto files of its command line: a reader of the embedded
// type (protoavro decode, ReadAvro without a Type) resolves the Any
// values without the .proto files. Files that would make the header
// larger than readers accept are left out of it, with a warning
// ([Type.Check]).
func (t Type) WithAnyTypes(files ...protoreflect.FileDescriptor) (Type, error) {
	var set descriptorpb.FileDescriptorSet
	for _, f := range protoload.WithImports(files...) {
		fdp := protodesc.ToFileDescriptorProto(f)
		fdp.SourceCodeInfo = nil
		set.File = append(set.File, fdp)
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(&set)
	if err != nil {
		return t, fmt.Errorf("%w: any types: %w", ErrType, err)
	}
	t.AnyTypes = b
	return t, nil
}

// TypeOf returns the Type of md under the mapping options o. Its
// descriptor set is the one protoavro embeds in container files.
func TypeOf(md protoreflect.MessageDescriptor, o protoavro.Options) (Type, error) {
	h, err := protoavro.ContainerHeader(md, protoavro.ContainerOptions{Options: o})
	if err != nil {
		return Type{}, err
	}
	meta := h.Metadata
	return Type{
		Message:     string(meta[protoavro.MetaMessage]),
		Descriptors: meta[protoavro.MetaDescriptors],
		Options:     string(meta[protoavro.MetaOptions]),
	}, nil
}

// compiled is what a worker builds from a Type.
type compiled struct {
	md   protoreflect.MessageDescriptor
	mt   protoreflect.MessageType
	opts protoavro.Options
	// resolver resolves google.protobuf.Any: the types of Descriptors and
	// AnyTypes.
	resolver *dynamicpb.Types
	// extra are the files of AnyTypes, embedded in the container files
	// beside md's when md reaches an Any (containerOptions).
	extra  []protoreflect.FileDescriptor
	codec  *protoavro.Codec
	schema []byte            // avro.schema of the container files
	meta   map[string][]byte // their other metadata (protoavro.*), avro.* keys removed
	// warning, when not "", is what the writers of the container files
	// log about them (warn): that they do not embed the files of
	// AnyTypes, which would make their header too large for readers.
	warning  string
	warnOnce sync.Once
}

// typed is the part of a DoFn that converts messages of a Type: the Type,
// serialized with the DoFn, and its compiled form, which Setup builds on the
// worker.
type typed struct {
	Type Type `json:"type"`
	c    *compiled
}

// Setup compiles the Type (see [Type.compile]).
func (fn *typed) Setup() error {
	worker.MarkStarted()
	var err error
	fn.c, err = fn.Type.compile()
	return err
}

// The bounds of compiledTypes: at most maxCompiledTypes Types, of at most
// maxCompiledBytes serialized bytes together (their fields' lengths), the
// least recently used evicted first; the Type compiled last is kept even
// when it alone is over the byte bound. A compiled Type takes 40 to 50
// times its serialized size (12 KiB for google.protobuf.Timestamp's 234
// bytes, 620 KiB for descriptor.proto's 13 KB), so the cache holds about
// 100 MiB at most.
const (
	maxCompiledTypes = 64
	maxCompiledBytes = 2 << 20
)

// compiledTypes caches the compiled Types of this process: the Types of
// DoFns, and the types embedded in the container files that ReadAvro reads
// without a Type of its own, one a file and each read once per byte range.
// Failures are not kept. A DoFn keeps the Type it compiled in Setup, so an
// eviction costs a compilation only to the next DoFn instance or range of
// a file of that type.
var compiledTypes = typeCache{entries: map[[sha256.Size]byte]*list.Element{}}

// typeCache is a least-recently-used cache of compiled Types by the SHA-256
// of their fields.
type typeCache struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]*list.Element // of lru
	lru     list.List                           // of *compileEntry, most recently used first
	bytes   int                                 // the sizes of the entries
}

type compileEntry struct {
	key  [sha256.Size]byte
	size int
	once sync.Once
	c    *compiled
	err  error
}

// entry returns the entry of key, made (of the given size) if there is
// none, as the most recently used, evicting the least recently used ones
// over the bounds.
func (tc *typeCache) entry(key [sha256.Size]byte, size int) *compileEntry {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if el, ok := tc.entries[key]; ok {
		tc.lru.MoveToFront(el)
		return el.Value.(*compileEntry)
	}
	e := &compileEntry{key: key, size: size}
	tc.entries[key] = tc.lru.PushFront(e)
	tc.bytes += size
	for tc.lru.Len() > 1 && (tc.lru.Len() > maxCompiledTypes || tc.bytes > maxCompiledBytes) {
		tc.removeLocked(tc.lru.Back())
	}
	return e
}

// remove removes e, if it is still in the cache.
func (tc *typeCache) remove(e *compileEntry) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if el, ok := tc.entries[e.key]; ok && el.Value == e {
		tc.removeLocked(el)
	}
}

func (tc *typeCache) removeLocked(el *list.Element) {
	e := tc.lru.Remove(el).(*compileEntry)
	delete(tc.entries, e.key)
	tc.bytes -= e.size
}

// bytesHeld returns the sizes of the entries together.
func (tc *typeCache) bytesHeld() int {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.bytes
}

// len returns the number of entries.
func (tc *typeCache) len() int {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.lru.Len()
}

// compile returns the compiled form of t, from compiledTypes or built
// (once, however many goroutines ask at the same time) and cached there
// when it builds.
func (t Type) compile() (*compiled, error) {
	h := sha256.New()
	size := 0
	for _, f := range [][]byte{[]byte(t.Message), t.Descriptors, []byte(t.Options), t.AnyTypes} {
		fmt.Fprintf(h, "%d:", len(f))
		h.Write(f)
		size += len(f)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	e := compiledTypes.entry(key, size)
	e.once.Do(func() { e.c, e.err = t.build() })
	if e.err != nil {
		compiledTypes.remove(e)
	}
	return e.c, e.err
}

// maxErrorText bounds the untrusted text an error of a Type quotes: the
// message name, the options, and each error of the descriptors or options.
const maxErrorText = 300

func (t Type) build() (*compiled, error) {
	if t.Message == "" {
		return nil, fmt.Errorf("%w: no message name", ErrType)
	}
	name := safetext.Quote(t.Message, maxErrorText)
	o, err := protoavro.ParseOptions(t.Options)
	if err != nil {
		return nil, fmt.Errorf("%w: options %s: %w", ErrType, safetext.Quote(t.Options, maxErrorText), safetext.Error(err, maxErrorText))
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(t.Descriptors, &set); err != nil {
		return nil, fmt.Errorf("%w: descriptor set: %w", ErrType, safetext.Error(err, maxErrorText))
	}
	if err := protoload.CheckImports(&set); err != nil {
		return nil, fmt.Errorf("%w: descriptor set: %w", ErrType, err)
	}
	all, anyFiles, err := withAnyTypes(&set, t.AnyTypes)
	if err != nil {
		return nil, err
	}
	// protoload's loader, as the commands load descriptor sets: it builds
	// a MessageSet as the plain message the mapping takes it for, and
	// supplies the standard imports the set lacks.
	ts, err := protoload.NewTypes(all)
	if err != nil {
		what := "descriptor set"
		if len(anyFiles) > 0 {
			what = "descriptor set with the any types"
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrType, what, safetext.Error(err, maxErrorText))
	}
	d, err := ts.Registry().FindDescriptorByName(protoreflect.FullName(t.Message))
	if err != nil {
		return nil, fmt.Errorf("%w: message %s: %w", ErrType, name, safetext.Error(err, maxErrorText))
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a message", ErrType, name)
	}
	c := &compiled{md: md, resolver: ts.Resolver()}
	// The files of the types the Any values may pack travel in the
	// container files, as protoavro encode embeds them: a reader resolves
	// the Any values without the .proto files.
	if protoload.HoldsAny(md) {
		for _, path := range anyFiles {
			f, err := ts.Registry().FindFileByPath(path)
			if err != nil {
				return nil, fmt.Errorf("%w: any types: %w", ErrType, safetext.Error(err, maxErrorText))
			}
			c.extra = append(c.extra, f)
		}
	}
	o.AnyResolver = c.resolver
	c.opts = o
	if c.codec, err = o.Codec(md); err != nil {
		return nil, err
	}
	// The header of protoavro's own container files, so that the shards
	// carry exactly what protoavro.NewContainerReader expects.
	h, err := c.header(name)
	if err != nil {
		return nil, err
	}
	c.schema, c.meta = h.Schema, h.Metadata
	c.mt = dynamicpb.NewMessageType(md)
	return c, nil
}

// header returns the header of c's container files, without their codec.
// When the files of the Any types (c.extra) would make it larger than
// readers accept (ocf.DefaultMaxMetadataSize, which the ContainerWriter
// enforces), the files embed the message's own files only, as protoavro
// encode embeds only the .proto files it was given when the files of its
// --descriptor-set do not fit, and c.warning says so. Every worker builds
// the same Type alike, so the bundles' files and the merged shards all
// have this header. The size is taken with the longest codec name, so
// that the header fits whatever codec a write uses.
func (c *compiled) header(name string) (ocf.WriterOptions, error) {
	opts := c.containerOptions()
	opts.Compression = protoavro.CompressionZstd // "zstandard", the longest name
	h, err := protoavro.ContainerHeader(c.md, opts)
	if err == nil || len(c.extra) == 0 || !errors.Is(err, protoavro.ErrInvalidOptions) {
		return h, err
	}
	c.warning = fmt.Sprintf("the container files of %s do not embed the %d files of the Type's AnyTypes (%s): a reader of them needs these files again to resolve the types that google.protobuf.Any values pack (ReadAvro with the Type; protoavro decode with -m and --descriptor-set)",
		name, len(c.extra), safetext.Error(err, maxErrorText))
	c.extra = nil
	opts.ExtraFiles = nil
	return protoavro.ContainerHeader(c.md, opts)
}

// warn logs c.warning, if any, once per compiled Type in this process,
// through the pipeline's logging.
func (c *compiled) warn(ctx context.Context) {
	if c.warning != "" {
		c.warnOnce.Do(func() { log.Warnf(ctx, "protoavrobeam: warning: %s", c.warning) })
	}
}

// Check compiles t as the workers of a pipeline do in their DoFns' Setup
// and returns the error they would fail with, or the warnings that
// WriteAvro's workers log about t: that its container files do not embed
// the files of t.AnyTypes, when with them the header would be larger than
// readers accept (ocf.DefaultMaxMetadataSize, 64 MiB); the shards are then
// written with the message's own files only. A program may call it while
// it builds the pipeline, to report both before the pipeline runs. The
// compiled Type is cached, so that workers in the same process do not
// compile it again.
func (t Type) Check() (warnings []string, err error) {
	c, err := t.compile()
	if err != nil {
		return nil, err
	}
	if c.warning != "" {
		warnings = append(warnings, c.warning)
	}
	return warnings, nil
}

// containerOptions returns the options of the container files of c: its
// mapping options and the files of its Any types. The writers add their
// codec and OnBadRecord; BlockSize and Workers are the defaults.
func (c *compiled) containerOptions() protoavro.ContainerOptions {
	return protoavro.ContainerOptions{Options: c.opts, ExtraFiles: c.extra}
}

// withAnyTypes returns the files of set followed by those of the
// serialized FileDescriptorSet more (may be nil), a file of set winning
// over one of more with the same name, and the names of the files of more.
func withAnyTypes(set *descriptorpb.FileDescriptorSet, more []byte) (*descriptorpb.FileDescriptorSet, []string, error) {
	all := &descriptorpb.FileDescriptorSet{File: slices.Clone(set.GetFile())}
	if len(more) == 0 {
		return all, nil, nil
	}
	var extra descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(more, &extra); err != nil {
		return nil, nil, fmt.Errorf("%w: any types: %w", ErrType, safetext.Error(err, maxErrorText))
	}
	have := map[string]bool{}
	for _, f := range all.File {
		have[f.GetName()] = true
	}
	named := map[string]bool{}
	var names []string
	for _, f := range extra.File {
		if named[f.GetName()] {
			continue
		}
		named[f.GetName()] = true
		names = append(names, f.GetName())
		if !have[f.GetName()] {
			have[f.GetName()] = true
			all.File = append(all.File, f)
		}
	}
	// Bounded here, not only in protoload.NewTypes, so that the error
	// keeps the name of the file where the bound was passed whole.
	if err := protoload.CheckImports(all); err != nil {
		return nil, nil, fmt.Errorf("%w: descriptor set with the any types: %w", ErrType, err)
	}
	return all, names, nil
}

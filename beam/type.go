package protoavrobeam

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/beam/internal/worker"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/protoload"
)

// ErrType reports a Type that does not describe a message: no name, a
// descriptor set that does not parse or link, a name it does not hold, or
// mapping options that do not parse.
var ErrType = errors.New("protoavrobeam: bad message type")

// Type is a protobuf message type and its Avro mapping in a form that
// travels inside a DoFn: plain strings and bytes, encoded with the DoFn.
// A worker rebuilds the descriptor from it once per process.
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
	// records resolve to the messages of these files and of Descriptors.
	AnyTypes []byte `json:"any_types,omitempty"`
}

// WithAnyTypes returns t with files (and their imports) as its AnyTypes:
// the types that the google.protobuf.Any values of the records may pack,
// such as every file a command line loaded.
func (t Type) WithAnyTypes(files ...protoreflect.FileDescriptor) (Type, error) {
	var set descriptorpb.FileDescriptorSet
	for _, f := range protoload.WithImports(files...) {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
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

// compiled is what a worker builds from a Type, once per process.
type compiled struct {
	md   protoreflect.MessageDescriptor
	mt   protoreflect.MessageType
	opts protoavro.Options
	// resolver resolves google.protobuf.Any: the types of Descriptors and
	// AnyTypes.
	resolver *dynamicpb.Types
	codec    *protoavro.Codec
	schema   []byte            // avro.schema of the container files
	meta     map[string][]byte // their other metadata (protoavro.*), avro.* keys removed
}

// typed is the part of a DoFn that converts messages of a Type: the Type,
// serialized with the DoFn, and its compiled form, which Setup builds on the
// worker.
type typed struct {
	Type Type `json:"type"`
	c    *compiled
}

// Setup compiles the Type, once per process (see [Type.compile]).
func (fn *typed) Setup() error {
	worker.MarkStarted()
	var err error
	fn.c, err = fn.Type.compile()
	return err
}

type compileEntry struct {
	once sync.Once
	c    *compiled
	err  error
}

// compiledTypes caches compiled Types by the SHA-256 of their fields.
var compiledTypes sync.Map // [sha256.Size]byte → *compileEntry

// compile returns the process-wide compiled form of t.
func (t Type) compile() (*compiled, error) {
	h := sha256.New()
	for _, f := range [][]byte{[]byte(t.Message), t.Descriptors, []byte(t.Options), t.AnyTypes} {
		fmt.Fprintf(h, "%d:", len(f))
		h.Write(f)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	v, _ := compiledTypes.LoadOrStore(key, &compileEntry{})
	e := v.(*compileEntry)
	e.once.Do(func() { e.c, e.err = t.build() })
	return e.c, e.err
}

func (t Type) build() (*compiled, error) {
	if t.Message == "" {
		return nil, fmt.Errorf("%w: no message name", ErrType)
	}
	o, err := protoavro.ParseOptions(t.Options)
	if err != nil {
		return nil, fmt.Errorf("%w: options %q: %w", ErrType, t.Options, err)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(t.Descriptors, &set); err != nil {
		return nil, fmt.Errorf("%w: descriptor set: %w", ErrType, err)
	}
	if err := protoload.CheckImports(&set); err != nil {
		return nil, fmt.Errorf("%w: descriptor set: %w", ErrType, err)
	}
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		return nil, fmt.Errorf("%w: descriptor set: %w", ErrType, err)
	}
	d, err := files.FindDescriptorByName(protoreflect.FullName(t.Message))
	if err != nil {
		return nil, fmt.Errorf("%w: message %s: %w", ErrType, t.Message, err)
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a message", ErrType, t.Message)
	}
	c := &compiled{md: md}
	if c.resolver, err = anyTypes(&set, t.AnyTypes); err != nil {
		return nil, err
	}
	o.AnyResolver = c.resolver
	c.opts = o
	if c.codec, err = o.Codec(md); err != nil {
		return nil, err
	}
	// The header of protoavro's own container files, so that the shards
	// carry exactly what protoavro.NewContainerReader expects.
	h, err := protoavro.ContainerHeader(md, protoavro.ContainerOptions{Options: o})
	if err != nil {
		return nil, err
	}
	c.schema, c.meta = h.Schema, h.Metadata
	c.mt = dynamicpb.NewMessageType(md)
	return c, nil
}

// anyTypes returns the types of the files of set and of the serialized
// FileDescriptorSet more (may be nil), a file of set winning over one of
// more with the same name.
func anyTypes(set *descriptorpb.FileDescriptorSet, more []byte) (*dynamicpb.Types, error) {
	all := &descriptorpb.FileDescriptorSet{File: slices.Clone(set.GetFile())}
	if len(more) > 0 {
		var extra descriptorpb.FileDescriptorSet
		if err := proto.Unmarshal(more, &extra); err != nil {
			return nil, fmt.Errorf("%w: any types: %w", ErrType, err)
		}
		have := map[string]bool{}
		for _, f := range all.File {
			have[f.GetName()] = true
		}
		for _, f := range extra.File {
			if !have[f.GetName()] {
				have[f.GetName()] = true
				all.File = append(all.File, f)
			}
		}
	}
	ts, err := protoload.NewTypes(all)
	if err != nil {
		return nil, fmt.Errorf("%w: any types: %w", ErrType, err)
	}
	return ts.Resolver(), nil
}

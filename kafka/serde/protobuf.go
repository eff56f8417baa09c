package serde

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/reporter"

	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/protoload"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// Bounds on the referenced schemas fetched for one schema ID (.proto
// imports, or Avro named types).
const (
	maxReferences = 256
	maxRefDepth   = 32
)

// ProtoDecoder reads Confluent-framed protobuf records (protobuf in). The
// .proto text of each schema ID and its references are fetched from the
// registry once and compiled in-process (each given as .proto text or as a
// base64 serialized FileDescriptorProto, as Compile takes them); the message indexes of a record pick
// its type, whose Avro codec is derived once per ID and index path. Each ID is
// compiled on its own, so two IDs holding two versions of one message get two
// descriptors and never share a schema. It is safe for concurrent use.
type ProtoDecoder struct {
	reg    *Registry
	opts   protoavro.Options
	files  onceCache[uint32, compiledFile]
	codecs onceCache[codecKey, *protoavro.Codec]
}

// compiledFile is the compiled file of a schema ID and the size of the
// schema texts it was compiled from (its own and its references'), which it
// counts for in the caches (maxCacheBytes), and so does each codec of its
// messages, which holds it.
type compiledFile struct {
	fd   protoreflect.FileDescriptor
	size int64
}

type codecKey struct {
	id      uint32
	first   int    // the one index, or -1
	indexes string // several indexes, dot-separated
}

// NewProtoDecoder returns a decoder on reg whose codecs use opts. Unless
// opts.AnyResolver is set, the google.protobuf.Any values of a record
// resolve to the types of its schema and of the schema's references.
func NewProtoDecoder(reg *Registry, opts protoavro.Options) *ProtoDecoder {
	return &ProtoDecoder{reg: reg, opts: opts}
}

// ProtoRecord is a decoded framed protobuf record.
type ProtoRecord struct {
	// ID is the schema ID.
	ID uint32
	// Indexes are the message indexes.
	Indexes []int
	// Codec is the Avro codec of the record's message type (its descriptor
	// is Codec.Schema().Descriptor()).
	Codec *protoavro.Codec
	// Wire is the protobuf encoding of the message (a sub-slice of the
	// record).
	Wire []byte
}

// Decode splits a framed protobuf record and finds its message type.
func (p *ProtoDecoder) Decode(ctx context.Context, b []byte) (ProtoRecord, error) {
	id, rest, err := ParseHeader(b)
	if err != nil {
		return ProtoRecord{}, err
	}
	idx, wire, err := ParseIndexes(rest)
	if err != nil {
		return ProtoRecord{}, err
	}
	c, err := p.Codec(ctx, id, idx)
	if err != nil {
		return ProtoRecord{ID: id, Indexes: idx}, err
	}
	return ProtoRecord{ID: id, Indexes: idx, Codec: c, Wire: wire}, nil
}

// Codec returns the codec of the message the indexes select in schema id.
func (p *ProtoDecoder) Codec(ctx context.Context, id uint32, indexes []int) (*protoavro.Codec, error) {
	k := codecKey{id: id}
	if len(indexes) == 1 {
		k.first = indexes[0]
	} else {
		var sb strings.Builder
		for _, i := range indexes {
			sb.WriteString(strconv.Itoa(i))
			sb.WriteByte('.')
		}
		k.first, k.indexes = -1, sb.String()
	}
	if c, ok := p.codecs.peek(k); ok {
		return c, nil
	}
	return p.codecs.getSized(ctx, k, func() (*protoavro.Codec, int64, error) {
		f, err := p.file(ctx, id)
		if err != nil {
			return nil, 0, err
		}
		md, err := MessageAt(f.fd, indexes)
		if err != nil {
			return nil, 0, fmt.Errorf("schema %d: %w", id, err)
		}
		o := p.opts
		if o.AnyResolver == nil {
			o.AnyResolver = fileTypes(f.fd)
		}
		c, err := o.Codec(md)
		if err != nil {
			return nil, 0, fmt.Errorf("schema %d: %w", id, err)
		}
		return c, f.size, nil
	})
}

// File returns the compiled .proto file of schema id.
func (p *ProtoDecoder) File(ctx context.Context, id uint32) (protoreflect.FileDescriptor, error) {
	f, err := p.file(ctx, id)
	return f.fd, err
}

// file returns the compiled .proto file of schema id, with its size.
func (p *ProtoDecoder) file(ctx context.Context, id uint32) (compiledFile, error) {
	return p.files.getSized(ctx, id, func() (compiledFile, int64, error) {
		sources := map[string]string{}
		s, size, err := p.reg.schemaByID(ctx, id, TypeProtobuf, func(r Reference, s Schema) {
			sources[r.Name] = s.Text
		})
		if err != nil {
			return compiledFile{}, 0, err
		}
		main := fmt.Sprintf("protoavro-registry-schema-%d.proto", id)
		sources[main] = s.Text
		fd, err := Compile(ctx, main, sources)
		if err != nil {
			return compiledFile{}, 0, fmt.Errorf("schema %d: %w", id, err)
		}
		return compiledFile{fd, size}, size, nil
	})
}

// Compile compiles the .proto file main from in-memory sources (file name →
// schema). A schema is .proto source text or, as Confluent's registry gives
// it with ?format=serialized and as Confluent's JavaScript serializer
// registers it, a base64-encoded serialized FileDescriptorProto (see
// ParseSchemaFile); Confluent's Java and JavaScript clients read both. The
// standard imports (google/protobuf/*.proto) are built in, and so are the
// files Confluent's serializers never register as references
// (confluent/meta.proto, confluent/type/decimal.proto, google/type/*.proto)
// when sources lacks them.
func Compile(ctx context.Context, main string, sources map[string]string) (protoreflect.FileDescriptor, error) {
	texts := make(map[string]string, len(sources))
	protos := map[string]*descriptorpb.FileDescriptorProto{}
	for name, s := range sources {
		fdp, err := ParseSchemaFile(name, s)
		if err != nil {
			return nil, err
		}
		if fdp != nil {
			protos[name] = fdp
		} else {
			if err := protoload.Prescan(name, []byte(s)); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrBadSchema, err)
			}
			texts[name] = s
		}
	}
	var first error
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(texts)},
			protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
				if f, ok := protos[path]; ok {
					return protocompile.SearchResult{Proto: f}, nil
				}
				return protocompile.SearchResult{}, protoregistry.NotFound
			}),
			knownTypesResolver,
		}),
		Reporter: reporter.NewReporter(func(err reporter.ErrorWithPos) error {
			if first == nil {
				first = err
			}
			return nil
		}, nil),
	}
	files, err := c.Compile(ctx, main)
	if first != nil {
		err = first
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadSchema, err)
	}
	return files[0], nil
}

// Bounds on a serialized FileDescriptorProto: its decoded size, and its
// nesting (messages in messages, options), as protobuf's own parsers bound
// it.
const (
	maxSerializedSchema = 4 << 20
	maxSerializedDepth  = 100
)

// ParseSchemaFile tells the two forms of a registered protobuf schema apart.
// For .proto source text it returns nil and no error. For a base64-encoded
// serialized FileDescriptorProto (standard alphabet, padding optional,
// surrounding white space ignored; what Confluent's registry returns with
// ?format=serialized and Confluent's JavaScript serializer registers) it
// returns the decoded file, named name (a registered file's own name is
// whatever its writer called it; imports find it by its reference name).
// Text is told by its characters: .proto source that compiles always holds
// a character outside the base64 alphabet (white space, ';', '"', '{'),
// except a file of one "//" comment, which is taken as text. A schema in the
// base64 alphabet that does not decode, is larger than 4 MiB decoded, nests
// deeper than 100, or is not a FileDescriptorProto is an error wrapping
// ErrBadSchema naming the file.
func ParseSchemaFile(name, schema string) (*descriptorpb.FileDescriptorProto, error) {
	s := strings.TrimSpace(schema)
	if s == "" || strings.HasPrefix(s, "//") || strings.IndexFunc(s, notBase64) >= 0 {
		return nil, nil
	}
	bad := func(err error) error {
		return fmt.Errorf("%w: %s: neither .proto source nor a base64 serialized FileDescriptorProto: %w", ErrBadSchema, name, err)
	}
	data := strings.TrimRight(s, "=")
	if len(s)-len(data) > 2 {
		return nil, bad(errors.New("base64: more than two padding characters"))
	}
	if n := base64.RawStdEncoding.DecodedLen(len(data)); n > maxSerializedSchema {
		return nil, bad(fmt.Errorf("%d bytes decoded, more than %d", n, maxSerializedSchema))
	}
	b, err := base64.RawStdEncoding.DecodeString(data)
	if err != nil {
		return nil, bad(fmt.Errorf("base64: %w", err))
	}
	var fdp descriptorpb.FileDescriptorProto
	if err := (proto.UnmarshalOptions{RecursionLimit: maxSerializedDepth}).Unmarshal(b, &fdp); err != nil {
		return nil, bad(err)
	}
	fdp.Name = proto.String(name)
	return &fdp, nil
}

// notBase64 reports a rune outside the standard base64 alphabet and padding.
func notBase64(r rune) bool {
	return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' || r == '=')
}

// MessageAt returns the message the indexes select in fd.
func MessageAt(fd protoreflect.FileDescriptor, indexes []int) (protoreflect.MessageDescriptor, error) {
	if len(indexes) == 0 {
		return nil, fmt.Errorf("%w: no index", ErrBadIndexes)
	}
	msgs := fd.Messages()
	var md protoreflect.MessageDescriptor
	for depth, i := range indexes {
		if i < 0 || i >= msgs.Len() {
			return nil, fmt.Errorf("%w: index %d at depth %d, but %s has %d messages there", ErrBadIndexes, i, depth, fd.Path(), msgs.Len())
		}
		md = msgs.Get(i)
		msgs = md.Messages()
	}
	return md, nil
}

// MessageIndexes returns the message indexes of md in its file: the inverse
// of MessageAt.
func MessageIndexes(md protoreflect.MessageDescriptor) []int {
	var idx []int
	var d protoreflect.Descriptor = md
	for {
		if _, ok := d.(protoreflect.MessageDescriptor); !ok {
			break
		}
		idx = append(idx, d.Index())
		d = d.Parent()
	}
	for i, j := 0, len(idx)-1; i < j; i, j = i+1, j-1 {
		idx[i], idx[j] = idx[j], idx[i]
	}
	return idx
}

// ProtoEncoder writes Confluent-framed protobuf records, as Confluent's
// protobuf serializer does: it registers .proto source text under a subject
// and frames messages with the schema ID and message indexes.
type ProtoEncoder struct {
	reg *Registry
}

// NewProtoEncoder returns an encoder on reg.
func NewProtoEncoder(reg *Registry) *ProtoEncoder { return &ProtoEncoder{reg: reg} }

// Register registers the .proto source text (with references to imported
// files already registered) under subject and returns its ID.
func (e *ProtoEncoder) Register(ctx context.Context, subject, text string, refs []Reference) (uint32, error) {
	id, _, err := e.reg.Register(ctx, subject, Schema{Type: TypeProtobuf, Text: text, References: refs})
	return uint32(id), err
}

// Append appends the framed record of a message of md, given as wire bytes,
// written with schema id, to dst.
func (e *ProtoEncoder) Append(dst []byte, id uint32, md protoreflect.MessageDescriptor, wire []byte) []byte {
	return append(AppendProtoHeader(dst, id, MessageIndexes(md)), wire...)
}

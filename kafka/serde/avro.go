package serde

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/protoavro/protoavro/protoavro"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// SerializerOptions configure a Serializer.
type SerializerOptions struct {
	// Strategy names the subject; the default is TopicName.
	Strategy Strategy
	// Key makes TopicName subjects "<topic>-key" instead of "-value".
	Key bool
	// Options are the mapping options of the derived schemas and of the
	// codecs that write the records. The Serializer compiles the codec of a
	// message type once, on its first record, and keeps it for the records
	// that follow: one codec per message descriptor, up to 10,000
	// descriptors (beyond, the codec of one not used lately is compiled
	// again when next used). So a record costs no compilation, whatever
	// the options, an AnyResolver included. The codecs kept hold their
	// descriptors and the resolver.
	Options protoavro.Options
	// LookupOnly looks the schema up instead of registering it: records of
	// a schema that is not registered fail (with ErrUnknownID or
	// ErrUnknownSubject).
	LookupOnly bool
	// Check runs the local compatibility gate (Registry.Check) before
	// registering a schema the subject does not hold yet, and refuses an
	// incompatible one with ErrIncompatible. The new schemas of one subject
	// are checked and registered one at a time.
	Check bool
	// IDTTL, when positive, is how long the schema ID of a (subject, schema)
	// pair is used without asking the registry again. The first record
	// after it registers the schema again (with LookupOnly: looks it up
	// again; with Check: runs the gate first if the subject no longer holds
	// it), so a version deleted from the registry is registered anew (or,
	// with LookupOnly, its records fail with ErrUnknownID or
	// ErrUnknownSubject) within one IDTTL. If the registry is down then
	// (ErrRegistryUnavailable), the ID is kept for another IDTTL. 0 (the
	// default) keeps each ID for the life of the serializer, as Confluent's
	// Java client does (up to 10,000 (subject, schema) pairs, as that client
	// bounds its caches by size: beyond, a pair not used lately is
	// asked for again when next used).
	IDTTL time.Duration
}

// Serializer writes protobuf messages as Confluent-framed Avro records (Avro
// out). The codec of each message type is compiled once (see
// SerializerOptions.Options), and the schema ID of each (subject, schema)
// pair is obtained from the registry once and then cached (for
// SerializerOptions.IDTTL when that is set): records cost no compilation
// and no registry call. It is safe for concurrent use.
type Serializer struct {
	reg  *Registry
	opts SerializerOptions
	now  func() time.Time
	// codecs are the codecs of the message types written, by descriptor.
	codecs onceCache[protoreflect.MessageDescriptor, *protoavro.Codec]
	ids    onceCache[subjectSchema, idEntry]
	// byTopic is the per-record path: the ID of a schema on a topic, found
	// without building the subject name. It is keyed by the schema, not the
	// codec, so that codecs compiled apart for one schema (with an
	// AnyResolver, or under other UnknownEnums) share one entry.
	byTopic onceCache[topicSchema, idEntry]
	// gates hold the check and registration of a new schema under a
	// subject (subject → chan struct{} of capacity 1): two schemas new to a
	// subject at once are checked one after the other, the second against
	// the first.
	gates sync.Map
}

type topicSchema struct {
	topic  string
	schema *protoavro.Schema
}

type subjectSchema struct {
	subject string
	schema  *protoavro.Schema
}

// idEntry is a cached schema ID and when it expires (zero: never).
type idEntry struct {
	id      uint32
	expires time.Time
}

// NewSerializer returns a serializer on reg.
func NewSerializer(reg *Registry, opts SerializerOptions) *Serializer {
	return &Serializer{reg: reg, opts: opts, now: time.Now}
}

// stale reports whether e has expired.
func (s *Serializer) stale(e idEntry) bool {
	return !e.expires.IsZero() && !s.now().Before(e.expires)
}

// entry returns a cache entry of id that expires after IDTTL.
func (s *Serializer) entry(id uint32) idEntry {
	if s.opts.IDTTL <= 0 {
		return idEntry{id: id}
	}
	return idEntry{id: id, expires: s.now().Add(s.opts.IDTTL)}
}

// Codec returns the codec of md under the serializer's mapping options,
// compiled on first use and then kept (see SerializerOptions.Options): the
// calls for one descriptor return the codec kept, which Encode uses too.
func (s *Serializer) Codec(md protoreflect.MessageDescriptor) (*protoavro.Codec, error) {
	return s.codec(context.Background(), md)
}

// codec is Codec for a caller whose ctx, when done, stops its wait for a
// compilation another caller makes.
func (s *Serializer) codec(ctx context.Context, md protoreflect.MessageDescriptor) (*protoavro.Codec, error) {
	if c, ok := s.codecs.peek(md); ok {
		return c, nil
	}
	return s.codecs.get(ctx, md, func() (*protoavro.Codec, error) {
		return s.opts.Options.Codec(md)
	})
}

// ID returns the schema ID of codec's schema under the subject for topic,
// registering it (or looking it up) on first use.
func (s *Serializer) ID(ctx context.Context, topic string, codec *protoavro.Codec) (uint32, error) {
	sch := codec.Schema()
	k := topicSchema{topic, sch}
	e, ok := s.byTopic.peek(k)
	if ok && !s.stale(e) {
		return e.id, nil
	}
	if ok {
		s.byTopic.drop(k, s.stale)
	}
	e, err := s.byTopic.get(ctx, k, func() (idEntry, error) {
		return s.subjectID(ctx, s.opts.Strategy.Subject(topic, sch.FullName(), s.opts.Key), sch)
	})
	return e.id, err
}

// subjectID returns the schema ID of sch under subject, registering it (or
// looking it up) on first use and again once its entry expired.
func (s *Serializer) subjectID(ctx context.Context, subject string, sch *protoavro.Schema) (idEntry, error) {
	k := subjectSchema{subject, sch}
	prev, had := s.ids.peek(k)
	if had && !s.stale(prev) {
		return prev, nil
	}
	if had {
		s.ids.drop(k, s.stale)
	}
	return s.ids.get(ctx, k, func() (idEntry, error) {
		id, err := s.register(ctx, subject, sch)
		if err != nil {
			if had && errors.Is(err, ErrRegistryUnavailable) {
				return s.entry(prev.id), nil // asked again after another IDTTL
			}
			return idEntry{}, err
		}
		return s.entry(id), nil
	})
}

// register registers sch under subject (or looks it up, or checks and
// registers it, as the options say) and returns its ID.
func (s *Serializer) register(ctx context.Context, subject string, sch *protoavro.Schema) (uint32, error) {
	text, err := sch.JSON()
	if err != nil {
		return 0, err
	}
	rs := Schema{Type: TypeAvro, Text: string(text)}
	if s.opts.LookupOnly {
		id, _, err := s.reg.Lookup(ctx, subject, rs)
		return uint32(id), err
	}
	if s.opts.Check {
		g, _ := s.gates.LoadOrStore(subject, make(chan struct{}, 1))
		gate := g.(chan struct{})
		select {
		case gate <- struct{}{}:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		defer func() { <-gate }()
		if id, _, err := s.reg.Lookup(ctx, subject, rs); err == nil {
			return uint32(id), nil
		}
		rep, err := s.reg.Check(ctx, subject, string(text))
		if err != nil {
			return 0, err
		}
		if err := rep.Err(); err != nil {
			return 0, err
		}
	}
	id, _, err := s.reg.Register(ctx, subject, rs)
	return uint32(id), err
}

// Encode appends the framed Avro record of m, for topic, to dst.
func (s *Serializer) Encode(ctx context.Context, dst []byte, topic string, m proto.Message) ([]byte, error) {
	if m == nil {
		return dst, fmt.Errorf("%w: nil message", protoavro.ErrWrongType)
	}
	codec, err := s.codec(ctx, m.ProtoReflect().Descriptor())
	if err != nil {
		return dst, err
	}
	id, err := s.ID(ctx, topic, codec)
	if err != nil {
		return dst, err
	}
	return codec.MarshalAppend(AppendHeader(dst, id), m)
}

// EncodeWire appends the framed Avro record of a message of codec's type
// given as protobuf wire bytes, for topic, to dst. It builds no message.
func (s *Serializer) EncodeWire(ctx context.Context, dst []byte, topic string, codec *protoavro.Codec, wire []byte) ([]byte, error) {
	id, err := s.ID(ctx, topic, codec)
	if err != nil {
		return dst, err
	}
	return codec.TranscodeToAvro(AppendHeader(dst, id), wire)
}

// Deserializer reads Confluent-framed Avro records into messages of one
// protobuf type (Avro in). The writer schema of each ID is fetched once and
// resolved against the reader type by Avro's rules; the resolver is cached per
// ID. It is safe for concurrent use.
type Deserializer struct {
	reg       *Registry
	codec     *protoavro.Codec
	resolvers onceCache[uint32, *protoavro.Resolver]
}

// NewDeserializer returns a deserializer into messages of md.
func NewDeserializer(reg *Registry, md protoreflect.MessageDescriptor, opts protoavro.Options) (*Deserializer, error) {
	c, err := opts.Codec(md)
	if err != nil {
		return nil, err
	}
	return &Deserializer{reg: reg, codec: c}, nil
}

// Resolver returns the resolver of records written with schema id, fetching
// the writer schema and compiling the resolver on first use.
func (d *Deserializer) Resolver(ctx context.Context, id uint32) (*protoavro.Resolver, error) {
	if r, ok := d.resolvers.peek(id); ok {
		return r, nil
	}
	return d.resolvers.getSized(ctx, id, func() (*protoavro.Resolver, int64, error) {
		// The named types the schema takes from other subjects come first,
		// each after those it takes itself.
		var refs [][]byte
		s, size, err := d.reg.schemaByID(ctx, id, TypeAvro, func(_ Reference, r Schema) {
			refs = append(refs, []byte(r.Text))
		})
		if err != nil {
			return nil, 0, err
		}
		ws, err := protoavro.ParseSchemaWith([]byte(s.Text), refs...)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: schema %d: %w", ErrBadSchema, id, err)
		}
		r, err := d.codec.Resolve(ws)
		if err != nil {
			return nil, 0, fmt.Errorf("serde: schema %d cannot be read as %s: %w", id, d.codec.Schema().FullName(), err)
		}
		// The resolver holds the writer schema, parsed from these texts.
		return r, size, nil
	})
}

// Decode reads the framed Avro record b into m (reset first), which must be
// of the deserializer's type. A datum followed by more bytes is refused
// (protoavro.ErrMalformed), where Confluent's Java deserializer ignores
// what follows the datum.
func (d *Deserializer) Decode(ctx context.Context, b []byte, m proto.Message) error {
	id, datum, err := ParseHeader(b)
	if err != nil {
		return err
	}
	r, err := d.Resolver(ctx, id)
	if err != nil {
		return err
	}
	return r.Unmarshal(datum, m)
}

// DecodeWire appends the protobuf wire bytes of the framed Avro record b to
// dst and returns them and the schema ID it was written with.
func (d *Deserializer) DecodeWire(ctx context.Context, dst, b []byte) ([]byte, uint32, error) {
	id, datum, err := ParseHeader(b)
	if err != nil {
		return dst, 0, err
	}
	r, err := d.Resolver(ctx, id)
	if err != nil {
		return dst, id, err
	}
	out, err := r.TranscodeToProto(dst, datum)
	return out, id, err
}

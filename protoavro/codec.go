package protoavro

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Codec converts one protobuf message type to and from Avro binary under one
// set of options. It is compiled once from the cached schema, cached beside
// it, holds no per-datum state and is safe for concurrent use: one Codec
// serves a whole program. Obtain it from [Options.Codec].
//
// Its writers refuse a datum that its readers would refuse: one with more
// than 1,048,576 nested records that take no bytes (empty messages) is an
// [ErrOutOfRange] error (docs/limits.md). So is a datum whose Avro encoding
// exceeds 32 MiB (a list of empty messages of many fields expands 800
// times), refused as it grows, before it takes more memory.
type Codec struct {
	schema *Schema
	opts   Options
	enc    *msgPlan   // the schema's plan
	dec    *decRecord // reads data written with this codec's own schema
	policy UnknownEnumPolicy

	planner structPlanner              // direct writers of generated types
	directp atomic.Pointer[directPlan] // the last Go type seen by Marshal
}

// Schema returns the Avro schema the codec reads and writes.
func (c *Codec) Schema() *Schema { return c.schema }

// codecSlots holds the compiled codecs of a schema, one per unknown-enum policy.
type codecSlots [2]atomic.Pointer[Codec]

// Codec returns the compiled codec of messages described by md, building it
// on first use and caching it beside the schema. A codec with an
// AnyResolver is compiled on every call: hold on to it.
func (o Options) Codec(md protoreflect.MessageDescriptor) (*Codec, error) {
	s, err := o.Schema(md)
	if err != nil {
		return nil, err
	}
	if o.AnyResolver != nil {
		return compileCodec(s, o) // not cached: the resolver is the caller's
	}
	slot := &s.codecs[o.UnknownEnums]
	if c := slot.Load(); c != nil {
		return c, nil
	}
	c, err := compileCodec(s, o)
	if err != nil {
		return nil, err
	}
	if slot.CompareAndSwap(nil, c) {
		return c, nil
	}
	return slot.Load(), nil
}

func compileCodec(s *Schema, o Options) (*Codec, error) {
	o.Cache = nil
	c := &Codec{schema: s, opts: o, enc: s.plan, policy: o.UnknownEnums}
	var err error
	if c.dec, err = compileReader(s.root, s, o); err != nil {
		return nil, err
	}
	return c, nil
}

// encStatePool recycles the scratch state of the writers (the transcoder's
// and the direct writer's).
var encStatePool = sync.Pool{New: func() any { return &encState{} }}

// maxPooledBuffer keeps huge one-off buffers out of the pools.
const maxPooledBuffer = 1 << 20

// TranscodeToAvro converts the protobuf wire encoding of one message to the
// Avro binary encoding of its record, appending to dst. It builds no message.
// Unknown fields are dropped (they have no place in the schema); a
// [ContainerWriter] counts the records that had some
// ([ContainerWriter.DroppedUnknown]).
func (c *Codec) TranscodeToAvro(dst, wire []byte) ([]byte, error) {
	out, _, err := c.transcodeToAvro(dst, wire)
	return out, err
}

// tally is what the conversion of one record counted: the values it
// rounded (encState.rounded) and the unknown fields it dropped
// (encState.unknown).
type tally struct {
	rounded, unknown int64
}

// transcodeToAvro is TranscodeToAvro that also returns what it counted;
// the tally of an error is zero.
func (c *Codec) transcodeToAvro(dst, wire []byte) ([]byte, tally, error) {
	out, t, _, err := c.transcodeTally(dst, wire, false)
	return out, t, err
}

// transcode is transcodeToAvro that returns the values rounded alone, and
// also reports whether the one-pass path (encodeInOrder) gave up on a
// message of the datum, or was kept out: scanOnly keeps it out altogether,
// so that the tests can compare the two paths.
func (c *Codec) transcode(dst, wire []byte, scanOnly bool) (_ []byte, rounded int64, gaveUp bool, _ error) {
	out, t, gaveUp, err := c.transcodeTally(dst, wire, scanOnly)
	return out, t.rounded, gaveUp, err
}

// transcodeTally is transcode with the whole tally.
func (c *Codec) transcodeTally(dst, wire []byte, scanOnly bool) (_ []byte, t tally, gaveUp bool, _ error) {
	if len(wire) > maxWireSize {
		return dst, tally{}, scanOnly, &DataError{Path: c.enc.name, Err: fmt.Errorf("%w: %d-byte message exceeds 2 GiB", ErrMalformed, len(wire))}
	}
	st := encStatePool.Get().(*encState)
	st.in = wire
	st.policy, st.resolver = c.policy, c.opts.AnyResolver
	st.occ = append(st.occ[:0], occ{start: 0, end: int32(len(wire)), wt: protowire.BytesType, next: -1})
	st.tbl = st.tbl[:0]
	st.depth, st.empty, st.rounded, st.unknown, st.scanOnly, st.tentative = 0, 0, 0, 0, scanOnly, 0
	n := len(dst)
	st.limit = n + maxRecordAvroSize
	out, err := st.encodeMessage(dst, c.enc, 0)
	t, gaveUp = tally{rounded: st.rounded, unknown: st.unknown}, st.scanOnly
	st.in = nil
	if cap(st.occ) <= maxPooledBuffer/16 {
		encStatePool.Put(st)
	}
	if err != nil {
		return dst[:n], tally{}, gaveUp, inField(err, c.enc.name)
	}
	return out, t, gaveUp, nil
}

// maxWireSize is the largest message the 32-bit offsets of the transcoder hold.
const maxWireSize = 1<<31 - 1

// wirePool recycles the intermediate protobuf encoding of Marshal's
// transcoding path and of Unmarshal's.
var wirePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// MarshalAppend appends the Avro binary encoding of m to dst. m must be of
// the codec's message type. The output is deterministic: map entries are
// written in key order, so equal messages give equal bytes, the same bytes
// as TranscodeToAvro of the message's deterministic protobuf encoding. A
// value the schema cannot hold is a [*DataError] that names the field, with
// Offset -1.
func (c *Codec) MarshalAppend(dst []byte, m proto.Message) ([]byte, error) {
	out, _, err := c.marshalAppend(dst, m)
	return out, err
}

// marshalAppend is MarshalAppend that also returns the number of values it
// rounded (see encState.rounded).
func (c *Codec) marshalAppend(dst []byte, m proto.Message) ([]byte, int64, error) {
	p := (*structPlan)(nil)
	if d := c.seenDirect(m); d != nil {
		p = d.plan
	} else {
		if err := c.check(m); err != nil {
			return dst, 0, err
		}
		if isNilPointer(m) { // a typed nil is the empty message, as for proto.Marshal
			out, t, err := c.transcodeToAvro(dst, nil)
			return out, t.rounded, withoutOffset(err)
		}
		p = c.direct(m)
	}
	if p != nil {
		st := encStatePool.Get().(*encState)
		st.depth, st.empty, st.rounded, st.unknown, st.scanOnly, st.tentative = 0, 0, 0, 0, false, 0
		st.policy, st.resolver = c.policy, c.opts.AnyResolver
		n := len(dst)
		st.limit = n + maxRecordAvroSize
		out, err := st.encodeStruct(dst, p, reflect.ValueOf(m).UnsafePointer())
		rounded := st.rounded
		encStatePool.Put(st)
		if err != nil {
			return dst[:n], 0, withoutOffset(inField(err, c.enc.name))
		}
		return out, rounded, nil
	}
	bp := wirePool.Get().(*[]byte)
	// AllowPartial: the transcoder reports a missing required field itself,
	// with ErrMissingRequired and its path, as the direct writer does.
	wire, err := proto.MarshalOptions{AllowPartial: true, Deterministic: true}.MarshalAppend((*bp)[:0], m)
	if err != nil {
		// What proto.Marshal refuses in a message of the right type is its
		// content, such as a proto3 string of invalid UTF-8, as the
		// direct writer reports it.
		wirePool.Put(bp)
		if rerr := refusedValue(c.enc, m.ProtoReflect()); rerr != nil {
			return dst, 0, withoutOffset(inField(rerr, c.enc.name))
		}
		return dst, 0, &DataError{Path: c.enc.name, Offset: -1, Err: fmt.Errorf("%w: %w", ErrMalformed, err)}
	}
	dst, t, err := c.transcodeToAvro(dst, wire)
	if cap(wire) <= maxPooledBuffer {
		*bp = wire
		wirePool.Put(bp)
	}
	return dst, t.rounded, withoutOffset(err)
}

// withoutOffset marks a DataError of Marshal as having no byte offset: the
// input was a message, and offsets into the struct or into its protobuf
// encoding, which the caller never saw, would mislead.
func withoutOffset(err error) error {
	var de *DataError
	if asDataError(err, &de) {
		de.Offset = -1
	}
	return err
}

// Marshal returns the Avro binary encoding of m.
func (c *Codec) Marshal(m proto.Message) ([]byte, error) {
	return c.MarshalAppend(nil, m)
}

// isNilPointer reports whether m is a typed nil pointer, such as (*pb.M)(nil).
func isNilPointer(m proto.Message) bool {
	v := reflect.ValueOf(m)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

func (c *Codec) check(m proto.Message) error {
	if m == nil {
		return fmt.Errorf("%w: nil message", ErrWrongType)
	}
	if md := m.ProtoReflect().Descriptor(); md != c.schema.desc {
		if md.FullName() == c.schema.desc.FullName() {
			return fmt.Errorf("%w: %s is another descriptor of the same name (another version of its .proto?)", ErrWrongType, md.FullName())
		}
		return fmt.Errorf("%w: got %s, want %s", ErrWrongType, md.FullName(), c.schema.desc.FullName())
	}
	return nil
}

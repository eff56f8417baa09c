package protoavro

import (
	"errors"
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
type Codec struct {
	schema *Schema
	opts   Options
	enc    *encMsg
	dec    *decRecord // reads data written with this codec's own schema

	planner structPlanner              // direct writers of generated types
	directp atomic.Pointer[directPlan] // the last Go type seen by Marshal
}

// Schema returns the Avro schema the codec reads and writes.
func (c *Codec) Schema() *Schema { return c.schema }

// codecSlots holds the compiled codecs of a schema, one per unknown-enum policy.
type codecSlots [2]atomic.Pointer[Codec]

// Codec returns the compiled codec of messages described by md, building it
// on first use and caching it beside the schema.
func (o Options) Codec(md protoreflect.MessageDescriptor) (*Codec, error) {
	s, err := o.Schema(md)
	if err != nil {
		return nil, err
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
	cp := &compiler{opts: o, msgs: map[protoreflect.MessageDescriptor]*encMsg{}, enums: map[protoreflect.EnumDescriptor]*enumTable{}}
	enc, err := cp.message(s.desc)
	if err != nil {
		return nil, err
	}
	c := &Codec{schema: s, opts: o, enc: enc}
	if c.dec, err = compileReader(s.record, s.desc, o); err != nil {
		return nil, err
	}
	return c, nil
}

// compiler builds writer plans, one per message type, sharing recursive ones.
type compiler struct {
	opts  Options
	msgs  map[protoreflect.MessageDescriptor]*encMsg
	enums map[protoreflect.EnumDescriptor]*enumTable
}

func (cp *compiler) enum(ed protoreflect.EnumDescriptor) *enumTable {
	if t, ok := cp.enums[ed]; ok {
		return t
	}
	t := newEnumTable(ed, cp.opts.UnknownEnums)
	cp.enums[ed] = t
	return t
}

func (cp *compiler) message(md protoreflect.MessageDescriptor) (*encMsg, error) {
	if m, ok := cp.msgs[md]; ok {
		return m, nil
	}
	fds := md.Fields()
	m := &encMsg{name: string(md.Name()), fields: make([]encField, fds.Len()), nOneofs: md.Oneofs().Len()}
	cp.msgs[md] = m
	maxNum := 0
	for i := range fds.Len() {
		if n := int(fds.Get(i).Number()); n > maxNum && n < 1024 {
			maxNum = n
		}
	}
	m.dense = make([]int16, maxNum+1)
	for i := range fds.Len() {
		fd := fds.Get(i)
		if int(fd.Number()) < len(m.dense) {
			m.dense[fd.Number()] = int16(i + 1)
		} else {
			if m.sparse == nil {
				m.sparse = map[protowire.Number]int{}
			}
			m.sparse[fd.Number()] = i
		}
		f, err := cp.field(fd)
		if err != nil {
			return nil, err
		}
		m.fields[i] = f
	}
	m.finish()
	return m, nil
}

func (cp *compiler) field(fd protoreflect.FieldDescriptor) (encField, error) {
	java := cp.opts.Profile == JavaProfile
	f := encField{name: string(fd.Name()), num: fd.Number(), oneof: -1}
	if od := fd.ContainingOneof(); od != nil {
		f.oneof = od.Index()
	}
	var err error
	switch {
	case fd.IsMap():
		key, val := fd.MapKey(), fd.MapValue()
		kv, err := cp.value(key)
		if err != nil {
			return f, err
		}
		f.key = &kv
		if java || (key.Kind() != protoreflect.StringKind && cp.opts.MapKeys == MapAsEntryArray) {
			f.mode = modeEntries
			if java {
				f.entry, err = cp.message(fd.Message())
			} else {
				f.entry, err = cp.entryMessage(fd.Message())
			}
			return f, err
		}
		f.mode = modeMap
		f.textKey = key.Kind() != protoreflect.StringKind
		if f.val, err = cp.value(val); err != nil {
			return f, err
		}
		f.entry, err = cp.entryMessage(fd.Message())
		return f, err
	case fd.IsList():
		f.mode = modeList
		f.val, err = cp.value(fd)
		f.packed = fd.Kind() != protoreflect.StringKind && fd.Kind() != protoreflect.BytesKind && fd.Message() == nil
		return f, err
	}
	if f.val, err = cp.value(fd); err != nil {
		return f, err
	}
	switch {
	case fd.Cardinality() == protoreflect.Required:
		f.mode = modeRequired
	case java && fd.Message() != nil:
		f.mode = modeNullable
	case java:
		f.mode = modeImplicit
		f.absent, err = cp.defaultBytes(fd, &f.val, true)
	case fd.Message() != nil || fd.HasPresence():
		f.mode = modeNullable
	default:
		f.mode = modeImplicit
		f.absent, err = cp.defaultBytes(fd, &f.val, false)
	}
	// Only repeated fields may be packed: protobuf parses a packed
	// occurrence of a singular field as an unknown field, and we reject it.
	return f, err
}

// entryMessage builds the plan of a map entry under the default profile: key
// and value are plain (never null) values.
func (cp *compiler) entryMessage(md protoreflect.MessageDescriptor) (*encMsg, error) {
	m := &encMsg{name: string(md.Name()), fields: make([]encField, 2), dense: []int16{0, 1, 2}}
	for i, fd := range []protoreflect.FieldDescriptor{md.Fields().ByNumber(1), md.Fields().ByNumber(2)} {
		v, err := cp.value(fd)
		if err != nil {
			return nil, err
		}
		m.fields[i] = encField{name: string(fd.Name()), num: fd.Number(), oneof: -1, val: v, mode: modeImplicit}
		if fd.Message() == nil { // a message value, when absent, is written empty
			if m.fields[i].absent, err = cp.defaultBytes(fd, &v, false); err != nil {
				return nil, err
			}
		}
	}
	m.finish()
	return m, nil
}

// defaultBytes is the Avro encoding of the value written for an absent
// field: the zero value, or under the Java profile the field's default.
func (cp *compiler) defaultBytes(fd protoreflect.FieldDescriptor, v *encValue, java bool) ([]byte, error) {
	dv := fd.Default()
	if !java {
		dv = zeroValue(fd)
	}
	return appendProtoValue(nil, v, fd, dv)
}

// zeroValue is the zero value of a scalar or enum field.
func zeroValue(fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(fd.Enum().Values().Get(0).Number())
	case protoreflect.StringKind:
		return protoreflect.ValueOfString("")
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(nil)
	}
	return fd.Default() // numeric kinds and bool without an explicit default
}

// appendProtoValue writes one scalar protoreflect value as Avro.
func appendProtoValue(dst []byte, v *encValue, fd protoreflect.FieldDescriptor, pv protoreflect.Value) ([]byte, error) {
	var wire []byte
	switch fd.Kind() {
	case protoreflect.StringKind: // the transcoder takes string and bytes values without their length
		wire = []byte(pv.String())
	case protoreflect.BytesKind:
		wire = pv.Bytes()
	default:
		wire = appendWireValue(nil, fd, pv)
	}
	st := encState{in: wire}
	out, err := st.scalar(dst, v, wire, 0)
	if err != nil {
		return nil, fmt.Errorf("protoavro: default of %s: %w", fd.FullName(), err)
	}
	return out, nil
}

// value compiles the conversion of one value of fd.
func (cp *compiler) value(fd protoreflect.FieldDescriptor) (encValue, error) {
	java := cp.opts.Profile == JavaProfile
	v := encValue{}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		v.kind, v.wt = vBool, protowire.VarintType
	case protoreflect.Int32Kind:
		v.kind, v.wt = vInt32, protowire.VarintType
	case protoreflect.Sint32Kind:
		v.kind, v.wt = vSint32, protowire.VarintType
	case protoreflect.Sfixed32Kind:
		v.kind, v.wt = vSfixed32, protowire.Fixed32Type
	case protoreflect.Uint32Kind:
		v.kind, v.wt, v.java32 = vUint32, protowire.VarintType, java
	case protoreflect.Fixed32Kind:
		v.kind, v.wt, v.java32 = vFixed32, protowire.Fixed32Type, java
	case protoreflect.Int64Kind:
		v.kind, v.wt = vInt64, protowire.VarintType
	case protoreflect.Sint64Kind:
		v.kind, v.wt = vSint64, protowire.VarintType
	case protoreflect.Sfixed64Kind:
		v.kind, v.wt = vSfixed64, protowire.Fixed64Type
	case protoreflect.Uint64Kind:
		v.kind, v.wt = vUint64, protowire.VarintType
		if !java && cp.opts.Uint64 == Uint64AsDecimal {
			v.kind = vUint64Dec
		}
	case protoreflect.Fixed64Kind:
		v.kind, v.wt = vFixed64, protowire.Fixed64Type
		if !java && cp.opts.Uint64 == Uint64AsDecimal {
			v.kind = vFixed64Dec
		}
	case protoreflect.FloatKind:
		v.kind, v.wt = vFloat, protowire.Fixed32Type
	case protoreflect.DoubleKind:
		v.kind, v.wt = vDouble, protowire.Fixed64Type
	case protoreflect.StringKind:
		v.kind, v.wt = vString, protowire.BytesType
	case protoreflect.BytesKind:
		v.kind, v.wt = vBytes, protowire.BytesType
	case protoreflect.EnumKind:
		v.kind, v.wt, v.enum = vEnum, protowire.VarintType, cp.enum(fd.Enum())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		v.wt = protowire.BytesType
		if fd.Kind() == protoreflect.GroupKind {
			v.wt = protowire.StartGroupType
		}
		md := fd.Message()
		if !java {
			switch classifyWellKnown(md) {
			case wellKnownTimestamp:
				v.kind, v.tsPrec, v.fullName = vTimestamp, cp.opts.Timestamps, md.FullName()
				return v, nil
			case wellKnownWrapper:
				inner, err := cp.value(md.Fields().ByNumber(1))
				if err != nil {
					return v, err
				}
				v.kind, v.inner, v.fullName = vWrapper, &inner, md.FullName()
				return v, nil
			}
		}
		m, err := cp.message(md)
		if err != nil {
			return v, err
		}
		v.kind, v.msg = vMessage, m
	default:
		return v, fmt.Errorf("%w: field %s has kind %v", ErrUnsupported, fd.FullName(), fd.Kind())
	}
	return v, nil
}

// bufPool recycles the intermediate protobuf encoding of Marshal and the
// scratch state of the transcoders.
var encStatePool = sync.Pool{New: func() any { return &encState{} }}

// maxPooledBuffer keeps huge one-off buffers out of the pools.
const maxPooledBuffer = 1 << 20

// TranscodeToAvro converts the protobuf wire encoding of one message to the
// Avro binary encoding of its record, appending to dst. It builds no message.
// Unknown fields are dropped (they have no place in the schema).
func (c *Codec) TranscodeToAvro(dst, wire []byte) ([]byte, error) {
	st := encStatePool.Get().(*encState)
	st.in = wire
	st.occ = append(st.occ[:0], occ{start: 0, end: int32(len(wire)), wt: protowire.BytesType, next: -1})
	st.tbl = st.tbl[:0]
	st.depth = 0
	n := len(dst)
	if len(wire) > maxWireSize {
		return dst, &DataError{Path: c.enc.name, Err: fmt.Errorf("%w: %d-byte message exceeds 2 GiB", ErrMalformed, len(wire))}
	}
	out, err := st.encodeMessage(dst, c.enc, 0)
	st.in = nil
	if cap(st.occ) <= maxPooledBuffer/16 {
		encStatePool.Put(st)
	}
	if err != nil {
		return dst[:n], inField(err, c.enc.name)
	}
	return out, nil
}

// maxWireSize is the largest message the 32-bit offsets of the transcoder hold.
const maxWireSize = 1<<31 - 1

var wirePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// MarshalAppend appends the Avro binary encoding of m to dst. m must be of
// the codec's message type. The output is deterministic: map entries are
// written in key order, so equal messages give equal bytes, the same bytes
// as TranscodeToAvro of the message's deterministic protobuf encoding.
func (c *Codec) MarshalAppend(dst []byte, m proto.Message) ([]byte, error) {
	if err := c.check(m); err != nil {
		return dst, err
	}
	if p := c.direct(m); p != nil {
		st := encStatePool.Get().(*encState)
		st.depth = 0
		n := len(dst)
		out, err := st.encodeStruct(dst, p, reflect.ValueOf(m).Elem())
		encStatePool.Put(st)
		if err != nil {
			return dst[:n], inField(err, c.enc.name)
		}
		return out, nil
	}
	bp := wirePool.Get().(*[]byte)
	// AllowPartial: the transcoder reports a missing required field itself,
	// with ErrMissingRequired and its path, as the direct writer does.
	wire, err := proto.MarshalOptions{AllowPartial: true, Deterministic: true}.MarshalAppend((*bp)[:0], m)
	if err != nil {
		wirePool.Put(bp)
		return dst, fmt.Errorf("protoavro: marshal %s: %w", c.schema.desc.FullName(), err)
	}
	dst, err = c.TranscodeToAvro(dst, wire)
	if cap(wire) <= maxPooledBuffer {
		*bp = wire
		wirePool.Put(bp)
	}
	return dst, err
}

// Marshal returns the Avro binary encoding of m.
func (c *Codec) Marshal(m proto.Message) ([]byte, error) {
	return c.MarshalAppend(nil, m)
}

// ErrWrongType reports a message whose type is not the codec's.
var ErrWrongType = errors.New("protoavro: message type does not match the codec")

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

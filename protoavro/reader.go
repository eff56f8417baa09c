package protoavro

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hamba/avro/v2"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// This file holds the Avro reader: a program compiled from a writer schema
// and the reader's message type that transcodes Avro binary into protobuf
// wire bytes, resolving the two schemas by Avro's rules (fields matched by
// name, missing fields left at their defaults, extra fields skipped,
// int→long→float→double promotions, enum symbols matched by name).
// Unmarshal hands the wire bytes to proto.Unmarshal, which measured faster
// than setting fields one by one through protoreflect.

// decRecord reads one writer record and emits the reader message's fields.
type decRecord struct {
	name   string
	fields []decField // in writer order
	// order lists the fields with a reader field in proto.Marshal's field
	// order, when that differs from writer order: the output of the fields
	// from split on is then permuted into order[keep:]; the fields before
	// split are already in place.
	order       []int
	split, keep int
}

type decField struct {
	name string
	dec  valueDec // nil: skip the writer's value
	tag  uint64   // the reader field's tag
	num  protowire.Number
	// oneof is the declaration index of the field's (non-synthetic) oneof,
	// or -1: proto.Marshal writes oneof members after the other fields.
	oneof int
	skip  avro.Schema
	// implicit fields drop an emitted value equal to their default, so
	// unset fields stay unset.
	dropIfDefault []byte
}

// valueDec reads one writer value and emits it as the wire encoding of the
// reader field: with its tag, or without when tag is 0 (packed elements).
type valueDec func(st *decState, dst []byte, tag uint64) ([]byte, error)

type decState struct {
	r     avroReader
	depth int
	seg   []int  // stack of field segment bounds, for reordering
	tmp   []byte // scratch for reordering
	// anyOrder skips the reordering into proto.Marshal's field order, for
	// output that goes straight to proto.Unmarshal.
	anyOrder bool
}

// fieldOrder returns the indexes of the fields that emit output in the
// order proto.Marshal writes fields (by number, oneof members last, grouped
// by oneof), or nil when writer order already is that order.
func fieldOrder(fields []decField) []int {
	var idx []int
	for i := range fields {
		if fields[i].dec != nil {
			idx = append(idx, i)
		}
	}
	less := func(a, b *decField) bool {
		if (a.oneof >= 0) != (b.oneof >= 0) {
			return b.oneof >= 0
		}
		if a.oneof != b.oneof {
			return a.oneof < b.oneof
		}
		return a.num < b.num
	}
	sorted := true
	for j := 1; j < len(idx); j++ {
		if less(&fields[idx[j]], &fields[idx[j-1]]) {
			sorted = false
		}
	}
	if sorted {
		return nil
	}
	for j := 1; j < len(idx); j++ { // insertion sort: records are small
		for k := j; k > 0 && less(&fields[idx[k]], &fields[idx[k-1]]); k-- {
			idx[k], idx[k-1] = idx[k-1], idx[k]
		}
	}
	return idx
}

// readerCompiler compiles reader programs; records are memoized per
// (writer record, reader message) so recursive types terminate.
type readerCompiler struct {
	opts    Options
	enc     *compiler
	records map[recordKey]*decRecord
}

type recordKey struct {
	w  *avro.RecordSchema
	md protoreflect.MessageDescriptor
}

// compileReader builds the reader program of md for data written with writer.
func compileReader(writer avro.Schema, md protoreflect.MessageDescriptor, o Options) (*decRecord, error) {
	rc := &readerCompiler{
		opts:    o,
		enc:     &compiler{opts: o, msgs: map[protoreflect.MessageDescriptor]*encMsg{}, enums: map[protoreflect.EnumDescriptor]*enumTable{}},
		records: map[recordKey]*decRecord{},
	}
	w, ok := deref(writer).(*avro.RecordSchema)
	if !ok {
		return nil, fmt.Errorf("%w: writer schema is a %s, not a record", ErrIncompatible, writer.Type())
	}
	return rc.record(w, md, false)
}

func deref(s avro.Schema) avro.Schema {
	if r, ok := s.(*avro.RecordSchema); ok {
		return r
	}
	if r, ok := s.(*avro.RefSchema); ok {
		return r.Schema()
	}
	return s
}

// record compiles a writer record against a reader message. entry marks map
// entries of the default profile, whose value is never null.
func (rc *readerCompiler) record(w *avro.RecordSchema, md protoreflect.MessageDescriptor, entry bool) (*decRecord, error) {
	k := recordKey{w, md}
	if r, ok := rc.records[k]; ok {
		return r, nil
	}
	if w.Name() != string(md.Name()) {
		return nil, fmt.Errorf("%w: writer record %s cannot be read as message %s", ErrIncompatible, w.FullName(), md.FullName())
	}
	r := &decRecord{name: string(md.Name()), fields: make([]decField, len(w.Fields()))}
	rc.records[k] = r
	seen := map[protoreflect.FieldDescriptor]bool{}
	for i, wf := range w.Fields() {
		df := decField{name: wf.Name()}
		fd := md.Fields().ByName(protoreflect.Name(wf.Name()))
		if fd == nil {
			df.skip = wf.Type()
			r.fields[i] = df
			continue
		}
		seen[fd] = true
		f, err := rc.enc.field(fd)
		if err != nil {
			return nil, err
		}
		if entry {
			f.mode = modeImplicit
			f.absent = nil
		}
		df.tag, df.num, df.oneof = fieldTag(fd), fd.Number(), -1
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			df.oneof = od.Index()
		}
		if df.dec, err = rc.field(wf.Type(), fd, &f); err != nil {
			return nil, fmt.Errorf("field %s.%s: %w", md.FullName(), fd.Name(), err)
		}
		if f.mode == modeImplicit && fd.Message() == nil && !entry && !md.IsMapEntry() {
			// Map entries keep zero keys and values, as proto.Marshal writes them.
			df.dropIfDefault = rc.defaultWire(fd)
		}
		r.fields[i] = df
	}
	r.order = fieldOrder(r.fields)
	if r.order != nil {
		// The leading fields that are already in place need no moving.
		for r.keep < len(r.order) {
			next := 0 // writer index of the next emitting field after the kept ones
			if r.keep > 0 {
				next = r.order[r.keep-1] + 1
			}
			for next < len(r.fields) && r.fields[next].dec == nil {
				next++
			}
			if r.order[r.keep] != next {
				break
			}
			r.keep++
		}
		r.split = 0
		if r.keep > 0 {
			r.split = r.order[r.keep-1] + 1
		}
	}
	// Reader fields the writer lacks take their defaults; a required field
	// has none.
	for i := range md.Fields().Len() {
		fd := md.Fields().Get(i)
		if !seen[fd] && fd.Cardinality() == protoreflect.Required {
			return nil, fmt.Errorf("%w: required field %s is missing from writer record %s", ErrIncompatible, fd.FullName(), w.FullName())
		}
	}
	return r, nil
}

// defaultWire is the wire encoding (tag and value) of an implicit field's
// default: the zero value, or under the Java profile the proto default.
func (rc *readerCompiler) defaultWire(fd protoreflect.FieldDescriptor) []byte {
	dv := zeroValue(fd)
	if rc.opts.Profile == JavaProfile {
		dv = fd.Default()
	}
	b := protowire.AppendTag(nil, fd.Number(), wireType(fd))
	return appendWireValue(b, fd, dv)
}

// fieldTag is the tag of one (unpacked) value of fd.
func fieldTag(fd protoreflect.FieldDescriptor) uint64 {
	return protowire.EncodeTag(fd.Number(), wireType(fd))
}

func wireType(fd protoreflect.FieldDescriptor) protowire.Type {
	switch fd.Kind() {
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return protowire.BytesType
	case protoreflect.GroupKind:
		return protowire.StartGroupType
	}
	return protowire.VarintType
}

// appendWireValue writes a scalar protoreflect value in wire form (no tag).
func appendWireValue(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) []byte {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protowire.AppendVarint(b, protowire.EncodeBool(v.Bool()))
	case protoreflect.EnumKind:
		return protowire.AppendVarint(b, uint64(v.Enum()))
	case protoreflect.Int32Kind, protoreflect.Int64Kind:
		return protowire.AppendVarint(b, uint64(v.Int()))
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return protowire.AppendVarint(b, protowire.EncodeZigZag(v.Int()))
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind:
		return protowire.AppendVarint(b, v.Uint())
	case protoreflect.Sfixed32Kind:
		return protowire.AppendFixed32(b, uint32(v.Int()))
	case protoreflect.Fixed32Kind:
		return protowire.AppendFixed32(b, uint32(v.Uint()))
	case protoreflect.Sfixed64Kind:
		return protowire.AppendFixed64(b, uint64(v.Int()))
	case protoreflect.Fixed64Kind:
		return protowire.AppendFixed64(b, v.Uint())
	case protoreflect.FloatKind:
		return protowire.AppendFixed32(b, math.Float32bits(float32(v.Float())))
	case protoreflect.DoubleKind:
		return protowire.AppendFixed64(b, math.Float64bits(v.Float()))
	case protoreflect.StringKind:
		return protowire.AppendString(b, v.String())
	case protoreflect.BytesKind:
		return protowire.AppendBytes(b, v.Bytes())
	}
	return b
}

// field compiles the writer type of a field against the reader field.
func (rc *readerCompiler) field(w avro.Schema, fd protoreflect.FieldDescriptor, f *encField) (valueDec, error) {
	w = deref(w)
	switch f.mode {
	case modeList:
		wa, ok := w.(*avro.ArraySchema)
		if !ok {
			return nil, incompatible(w, "an array")
		}
		item, err := rc.value(wa.Items(), fd, &f.val)
		if err != nil {
			return nil, err
		}
		return listDec(fd, item, f.packed && fd.IsPacked(), minSize(wa.Items())), nil
	case modeMap:
		wm, ok := w.(*avro.MapSchema)
		if !ok {
			return nil, incompatible(w, "a map")
		}
		val, err := rc.value(wm.Values(), fd.MapValue(), &f.val)
		if err != nil {
			return nil, err
		}
		return mapDec(fd, val, 1+minSize(wm.Values())), nil
	case modeEntries:
		wa, ok := w.(*avro.ArraySchema)
		if !ok {
			return nil, incompatible(w, "an array of map entries")
		}
		wr, ok := deref(wa.Items()).(*avro.RecordSchema)
		if !ok {
			return nil, incompatible(wa.Items(), "a map entry record")
		}
		rec, err := rc.record(wr, fd.Message(), rc.opts.Profile != JavaProfile)
		if err != nil {
			return nil, err
		}
		tag := protowire.EncodeTag(fd.Number(), protowire.BytesType)
		return listDec(fd, func(st *decState, dst []byte, _ uint64) ([]byte, error) {
			return st.nested(dst, tag, rec)
		}, false, minSize(wr)), nil
	}
	return rc.value(w, fd, &f.val)
}

func incompatible(w avro.Schema, want string) error {
	return fmt.Errorf("%w: writer type %s cannot be read as %s", ErrIncompatible, w.Type(), want)
}

// minSize is the least number of bytes a value of the writer type takes: 0
// if it can be empty (null, fixed(0), a record of such values), else 1.
func minSize(s avro.Schema) int {
	if canBeEmpty(s, 0) {
		return 0
	}
	return 1
}

func canBeEmpty(s avro.Schema, depth int) bool {
	switch t := deref(s).(type) {
	case *avro.NullSchema:
		return true
	case *avro.FixedSchema:
		return t.Size() == 0
	case *avro.RecordSchema:
		if depth > 32 {
			return false // a record holding itself without a union has no finite value
		}
		for _, f := range t.Fields() {
			if !canBeEmpty(f.Type(), depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// listDec reads an Avro array into a repeated field, packed or not. Every
// item takes at least minItemSize bytes.
func listDec(fd protoreflect.FieldDescriptor, item valueDec, packed bool, minItemSize int) valueDec {
	tag := protowire.EncodeTag(fd.Number(), wireType(fd))
	if fd.IsMap() || fd.Message() != nil {
		tag = protowire.EncodeTag(fd.Number(), protowire.BytesType)
		if fd.Kind() == protoreflect.GroupKind {
			tag = protowire.EncodeTag(fd.Number(), protowire.StartGroupType)
		}
	}
	packedTag := protowire.EncodeTag(fd.Number(), protowire.BytesType)
	return func(st *decState, dst []byte, _ uint64) ([]byte, error) {
		start := -1
		if packed {
			start = len(dst)
		}
		i := 0
		for {
			n, err := st.r.blockCount(minItemSize)
			if err != nil {
				return dst, err
			}
			if n == 0 {
				break
			}
			if packed && start == len(dst) {
				dst = protowire.AppendVarint(dst, packedTag)
				start = len(dst)
				dst = append(dst, 0)
			}
			for range n {
				t := tag
				if packed {
					t = 0
				}
				if dst, err = item(st, dst, t); err != nil {
					return dst, inIndex(err, i)
				}
				i++
			}
		}
		if packed && start >= 0 && start < len(dst) {
			dst = fixLength(dst, start)
		}
		return dst, nil
	}
}

// mapDec reads an Avro map into a map field: each entry becomes an entry
// message with the key (parsed back from text for non-string keys) and value.
// Every entry takes at least minEntrySize bytes.
func mapDec(fd protoreflect.FieldDescriptor, val valueDec, minEntrySize int) valueDec {
	tag := protowire.EncodeTag(fd.Number(), protowire.BytesType)
	key := fd.MapKey()
	vfd := fd.MapValue()
	valTag := protowire.EncodeTag(2, wireType(vfd))
	if vfd.Message() != nil {
		valTag = protowire.EncodeTag(2, protowire.BytesType)
	}
	return func(st *decState, dst []byte, _ uint64) ([]byte, error) {
		for {
			n, err := st.r.blockCount(minEntrySize)
			if err != nil {
				return dst, err
			}
			if n == 0 {
				return dst, nil
			}
			for range n {
				off := st.r.pos
				k, err := st.r.bytes()
				if err != nil {
					return dst, err
				}
				dst = protowire.AppendVarint(dst, tag)
				start := len(dst)
				dst = append(dst, 0)
				if dst, err = appendMapKey(dst, key, k, off); err != nil {
					return dst, err
				}
				if dst, err = val(st, dst, valTag); err != nil {
					return dst, inField(err, strconv.Quote(string(k)))
				}
				dst = fixLength(dst, start)
			}
		}
	}
}

// appendMapKey writes field 1 of a map entry from the Avro map key.
func appendMapKey(dst []byte, fd protoreflect.FieldDescriptor, k []byte, off int) ([]byte, error) {
	if !utf8.Valid(k) {
		return dst, dataErr(ErrMalformed, off, "map key is not valid UTF-8")
	}
	if fd.Kind() == protoreflect.StringKind {
		dst = protowire.AppendTag(dst, 1, protowire.BytesType)
		return protowire.AppendBytes(dst, k), nil
	}
	s := string(k)
	var v protoreflect.Value
	var err error
	switch fd.Kind() {
	case protoreflect.BoolKind:
		var b bool
		b, err = strconv.ParseBool(s)
		if s != "true" && s != "false" {
			err = strconv.ErrSyntax
		}
		v = protoreflect.ValueOfBool(b)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		var x int64
		x, err = strconv.ParseInt(s, 10, 32)
		v = protoreflect.ValueOfInt32(int32(x))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		var x int64
		x, err = strconv.ParseInt(s, 10, 64)
		v = protoreflect.ValueOfInt64(x)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		var x uint64
		x, err = strconv.ParseUint(s, 10, 32)
		v = protoreflect.ValueOfUint32(uint32(x))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		var x uint64
		x, err = strconv.ParseUint(s, 10, 64)
		v = protoreflect.ValueOfUint64(x)
	}
	if err != nil {
		return dst, dataErr(ErrMalformed, off, "map key %q is not a %v", s, fd.Kind())
	}
	dst = protowire.AppendTag(dst, 1, wireType(fd))
	return appendWireValue(dst, fd, v), nil
}

// fixLength writes the length of the bytes after the one-byte placeholder at
// start, widening the placeholder when the length needs more than one byte.
func fixLength(dst []byte, start int) []byte {
	n := len(dst) - start - 1
	if n < 0x80 {
		dst[start] = byte(n)
		return dst
	}
	w := protowire.SizeVarint(uint64(n))
	dst = append(dst, make([]byte, w-1)...)
	copy(dst[start+w:], dst[start+1:start+1+n])
	protowire.AppendVarint(dst[start:start], uint64(n))
	return dst
}

// nested reads a writer record into an embedded message field.
func (st *decState) nested(dst []byte, tag uint64, rec *decRecord) ([]byte, error) {
	st.depth++
	if st.depth > maxDepth {
		return dst, dataErr(ErrTooDeep, st.r.pos, "more than %d nested records", maxDepth)
	}
	_, wt := protowire.DecodeTag(tag)
	dst = protowire.AppendVarint(dst, tag)
	var err error
	if wt == protowire.StartGroupType {
		if dst, err = st.record(dst, rec); err != nil {
			return dst, err
		}
		num, _ := protowire.DecodeTag(tag)
		dst = protowire.AppendTag(dst, num, protowire.EndGroupType)
	} else {
		start := len(dst)
		dst = append(dst, 0)
		if dst, err = st.record(dst, rec); err != nil {
			return dst, err
		}
		dst = fixLength(dst, start)
	}
	st.depth--
	return dst, nil
}

// record reads the fields of one writer record.
func (st *decState) record(dst []byte, rec *decRecord) ([]byte, error) {
	if rec.order != nil && !st.anyOrder {
		return st.recordReordered(dst, rec)
	}
	var err error
	for i := range rec.fields {
		f := &rec.fields[i]
		if f.dec == nil {
			if err = skipValue(st, f.skip); err != nil {
				return dst, inField(err, f.name)
			}
			continue
		}
		n := len(dst)
		if dst, err = f.dec(st, dst, f.tag); err != nil {
			return dst, inField(err, f.name)
		}
		if f.dropIfDefault != nil && bytes.Equal(dst[n:], f.dropIfDefault) {
			dst = dst[:n]
		}
	}
	return dst, nil
}

// recordReordered reads a record whose writer order is not field-number
// order: each field's output is a contiguous segment, and the segments are
// then permuted.
func (st *decState) recordReordered(dst []byte, rec *decRecord) ([]byte, error) {
	base := len(st.seg)
	var err error
	for i := range rec.fields {
		f := &rec.fields[i]
		n := len(dst)
		if i >= rec.split {
			st.seg = append(st.seg, n)
		}
		if f.dec == nil {
			if err = skipValue(st, f.skip); err != nil {
				st.seg = st.seg[:base]
				return dst, inField(err, f.name)
			}
			continue
		}
		if dst, err = f.dec(st, dst, f.tag); err != nil {
			st.seg = st.seg[:base]
			return dst, inField(err, f.name)
		}
		if f.dropIfDefault != nil && bytes.Equal(dst[n:], f.dropIfDefault) {
			dst = dst[:n]
		}
	}
	st.seg = append(st.seg, len(dst))
	seg := st.seg[base:] // seg[i-split] is where writer field i starts
	tmp := st.tmp[:0]
	for _, i := range rec.order[rec.keep:] {
		tmp = append(tmp, dst[seg[i-rec.split]:seg[i-rec.split+1]]...)
	}
	copy(dst[seg[0]:], tmp)
	st.tmp = tmp
	st.seg = st.seg[:base]
	return dst, nil
}

// value compiles a writer type against one reader value (a singular field,
// a list element or a map value). tag passed at run time overrides fd's tag
// for packed elements (0) and map values (field 2).
func (rc *readerCompiler) value(w avro.Schema, fd protoreflect.FieldDescriptor, v *encValue) (valueDec, error) {
	w = deref(w)
	defTag := protowire.EncodeTag(fd.Number(), wireType(fd))
	if fd.Message() != nil {
		defTag = protowire.EncodeTag(fd.Number(), protowire.BytesType)
		if fd.Kind() == protoreflect.GroupKind {
			defTag = protowire.EncodeTag(fd.Number(), protowire.StartGroupType)
		}
	}
	if u, ok := w.(*avro.UnionSchema); ok {
		branches := make([]valueDec, len(u.Types()))
		for i, bt := range u.Types() {
			if bt.Type() == avro.Null {
				continue // null: the field stays unset
			}
			d, err := rc.value(bt, fd, v)
			if err != nil {
				// Resolution fails only if the writer actually uses this branch.
				msg := err.Error()
				d = func(st *decState, dst []byte, _ uint64) ([]byte, error) {
					return dst, dataErr(ErrIncompatible, st.r.pos, "%s", msg)
				}
			}
			branches[i] = d
		}
		if len(branches) == 2 && branches[0] == nil && branches[1] != nil {
			// ["null", T], the common case: index 0 (byte 0) or 1 (byte 2).
			b := branches[1]
			return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
				if st.r.pos < len(st.r.buf) {
					switch st.r.buf[st.r.pos] {
					case 0:
						st.r.pos++
						return dst, nil
					case 2:
						st.r.pos++
						return b(st, dst, tag)
					}
				}
				off := st.r.pos
				i, err := st.r.long()
				if err != nil {
					return dst, err
				}
				return dst, dataErr(ErrMalformed, off, "union index %d of 2 branches", i)
			}, nil
		}
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			off := st.r.pos
			i, err := st.r.long()
			if err != nil {
				return dst, err
			}
			if i < 0 || i >= int64(len(branches)) {
				return dst, dataErr(ErrMalformed, off, "union index %d of %d branches", i, len(branches))
			}
			if branches[i] == nil {
				return dst, nil
			}
			return branches[i](st, dst, tag)
		}, nil
	}
	switch v.kind {
	case vMessage:
		wr, ok := w.(*avro.RecordSchema)
		if !ok {
			return nil, incompatible(w, "record "+string(fd.Message().FullName()))
		}
		rec, err := rc.record(wr, fd.Message(), false)
		if err != nil {
			return nil, err
		}
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			if tag == 0 {
				tag = defTag
			}
			return st.nested(dst, tag, rec)
		}, nil
	case vTimestamp:
		return timestampDec(w, v, defTag)
	case vWrapper:
		vfd := fd.Message().Fields().ByNumber(1)
		inner, err := rc.scalar(w, vfd, v.inner)
		if err != nil {
			return nil, err
		}
		// The wrapped value has implicit presence: a zero value is omitted.
		zero := appendWireValue(protowire.AppendTag(nil, 1, wireType(vfd)), vfd, zeroValue(vfd))
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			if tag == 0 {
				tag = defTag
			}
			dst = protowire.AppendVarint(dst, tag)
			start := len(dst)
			dst = append(dst, 0)
			var err error
			if dst, err = inner(st, dst, protowire.EncodeTag(1, 0)); err != nil {
				return dst, err
			}
			if bytes.Equal(dst[start+1:], zero) {
				dst = dst[:start+1]
			}
			return fixLength(dst, start), nil
		}, nil
	}
	return rc.scalar(w, fd, v)
}

// scalar compiles a writer primitive or enum against a scalar reader field.
// The tag given at run time carries the field number; its wire type bits are
// replaced by fd's. A tag of 0 writes the value alone (packed).
func (rc *readerCompiler) scalar(w avro.Schema, fd protoreflect.FieldDescriptor, v *encValue) (valueDec, error) {
	own := protowire.EncodeTag(fd.Number(), wireType(fd))
	wt := uint64(wireType(fd))
	emit := func(dst []byte, tag uint64) []byte {
		if tag == 0 {
			return dst
		}
		if tag == own {
			return protowire.AppendVarint(dst, tag)
		}
		return protowire.AppendVarint(dst, tag&^7|wt)
	}
	// packedTag marks list elements written without a tag.
	if v.kind == vEnum {
		we, ok := w.(*avro.EnumSchema)
		if !ok {
			return nil, incompatible(w, "enum "+string(fd.Enum().FullName()))
		}
		ed := fd.Enum()
		numbers := make([]int32, len(we.Symbols()))
		def := int32(ed.Values().Get(0).Number())
		for i, sym := range we.Symbols() {
			if ev := ed.Values().ByName(protoreflect.Name(sym)); ev != nil {
				numbers[i] = int32(ev.Number())
			} else {
				numbers[i] = def // unknown symbol: the reader's default
			}
		}
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			off := st.r.pos
			i, err := st.r.long()
			if err != nil {
				return dst, err
			}
			if i < 0 || i >= int64(len(numbers)) {
				return dst, dataErr(ErrMalformed, off, "enum index %d of %d symbols", i, len(numbers))
			}
			dst = emit(dst, tag)
			return protowire.AppendVarint(dst, uint64(int64(numbers[i]))), nil
		}, nil
	}
	wt0 := w.Type()
	rt := readerAvroType(v)
	if !promotable(wt0, rt) {
		return nil, incompatible(w, string(rt))
	}
	kind := fd.Kind()
	if d := fastScalar(wt0, kind, v, own, wt); d != nil {
		return d, nil
	}
	return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
		off := st.r.pos
		var (
			i   int64
			f   float64
			b   []byte
			err error
		)
		switch wt0 {
		case avro.Boolean:
			var x bool
			x, err = st.r.boolean()
			if x {
				i = 1
			}
		case avro.Int:
			var x int32
			x, err = st.r.int()
			i, f = int64(x), float64(x)
		case avro.Long:
			i, err = st.r.long()
			f = float64(i)
		case avro.Float:
			var x float32
			x, err = st.r.float()
			f = float64(x)
		case avro.Double:
			f, err = st.r.double()
		case avro.String, avro.Bytes:
			b, err = st.r.bytes()
		}
		if err != nil {
			return dst, err
		}
		dst = emit(dst, tag)
		switch kind {
		case protoreflect.BoolKind:
			return protowire.AppendVarint(dst, uint64(i)), nil
		case protoreflect.Int32Kind:
			return protowire.AppendVarint(dst, uint64(int64(int32(i)))), nil
		case protoreflect.Int64Kind:
			return protowire.AppendVarint(dst, uint64(i)), nil
		case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
			return protowire.AppendVarint(dst, protowire.EncodeZigZag(i)), nil
		case protoreflect.Sfixed32Kind:
			return protowire.AppendFixed32(dst, uint32(i)), nil
		case protoreflect.Sfixed64Kind:
			return protowire.AppendFixed64(dst, uint64(i)), nil
		case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
			if !v.java32 && (i < 0 || i > math.MaxUint32) {
				return dst, dataErr(ErrOutOfRange, off, "%d does not fit %v", i, kind)
			}
			if kind == protoreflect.Fixed32Kind {
				return protowire.AppendFixed32(dst, uint32(i)), nil
			}
			return protowire.AppendVarint(dst, uint64(uint32(i))), nil
		case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
			u := uint64(i)
			if v.kind == vUint64Dec || v.kind == vFixed64Dec {
				if u, err = decimalUint64(b, off); err != nil {
					return dst, err
				}
			}
			if kind == protoreflect.Fixed64Kind {
				return protowire.AppendFixed64(dst, u), nil
			}
			return protowire.AppendVarint(dst, u), nil
		case protoreflect.FloatKind:
			return protowire.AppendFixed32(dst, math.Float32bits(float32(f))), nil
		case protoreflect.DoubleKind:
			return protowire.AppendFixed64(dst, math.Float64bits(f)), nil
		case protoreflect.StringKind:
			if !utf8.Valid(b) {
				return dst, dataErr(ErrMalformed, off, "string is not valid UTF-8")
			}
			return protowire.AppendBytes(dst, b), nil
		case protoreflect.BytesKind:
			return protowire.AppendBytes(dst, b), nil
		}
		return dst, dataErr(ErrMalformed, off, "internal error: kind %v", kind)
	}, nil
}

// fastScalar returns a specialised decoder for the common cases where the
// writer type is the reader's own, or nil.
func fastScalar(w avro.Type, kind protoreflect.Kind, v *encValue, own, wt uint64) valueDec {
	tagged := func(dst []byte, tag uint64) []byte { return appendFieldTag(dst, tag, own, wt) }
	switch {
	case (w == avro.Long && (kind == protoreflect.Int64Kind || (kind == protoreflect.Uint64Kind && v.kind == vUint64))) ||
		(w == avro.Int && kind == protoreflect.Int32Kind) || (w == avro.Int && kind == protoreflect.EnumKind):
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			off := st.r.pos
			x, err := st.r.long()
			if err != nil {
				return dst, err
			}
			if w == avro.Int && (x < math.MinInt32 || x > math.MaxInt32) {
				return dst, dataErr(ErrMalformed, off, "int %d out of 32-bit range", x)
			}
			return protowire.AppendVarint(tagged(dst, tag), uint64(x)), nil
		}
	case (w == avro.Long && kind == protoreflect.Sint64Kind) || (w == avro.Int && kind == protoreflect.Sint32Kind):
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			off := st.r.pos
			x, err := st.r.long()
			if err != nil {
				return dst, err
			}
			if w == avro.Int && (x < math.MinInt32 || x > math.MaxInt32) {
				return dst, dataErr(ErrMalformed, off, "int %d out of 32-bit range", x)
			}
			return protowire.AppendVarint(tagged(dst, tag), protowire.EncodeZigZag(x)), nil
		}
	case w == avro.Float && kind == protoreflect.FloatKind:
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			b, err := st.r.fixed(4)
			if err != nil {
				return dst, err
			}
			return append(tagged(dst, tag), b...), nil // both little-endian IEEE 754
		}
	case w == avro.Double && kind == protoreflect.DoubleKind:
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			b, err := st.r.fixed(8)
			if err != nil {
				return dst, err
			}
			return append(tagged(dst, tag), b...), nil
		}
	case (w == avro.Bytes || w == avro.String) && (kind == protoreflect.BytesKind || kind == protoreflect.StringKind):
		check := kind == protoreflect.StringKind
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			off := st.r.pos
			b, err := st.r.bytes()
			if err != nil {
				return dst, err
			}
			if check && !utf8.Valid(b) {
				return dst, dataErr(ErrMalformed, off, "string is not valid UTF-8")
			}
			return protowire.AppendBytes(tagged(dst, tag), b), nil
		}
	}
	return nil
}

// appendFieldTag writes tag (0: none, for packed elements), with the wire
// type of the reader field when it is another field's tag (map values).
func appendFieldTag(dst []byte, tag, own, wt uint64) []byte {
	if tag != own {
		if tag == 0 {
			return dst
		}
		tag = tag&^7 | wt
	}
	if tag < 0x80 {
		return append(dst, byte(tag))
	}
	return protowire.AppendVarint(dst, tag)
}

// readerAvroType is the Avro type the reader's mapping gives a value.
func readerAvroType(v *encValue) avro.Type {
	switch v.kind {
	case vBool:
		return avro.Boolean
	case vInt32, vSint32, vSfixed32:
		return avro.Int
	case vUint32, vFixed32:
		if v.java32 {
			return avro.Int
		}
		return avro.Long
	case vUint64Dec, vFixed64Dec:
		return avro.Bytes
	case vFloat:
		return avro.Float
	case vDouble:
		return avro.Double
	case vString:
		return avro.String
	case vBytes:
		return avro.Bytes
	case vEnum:
		return avro.Enum
	case vMessage:
		return avro.Record
	case vWrapper:
		return readerAvroType(v.inner)
	}
	return avro.Long
}

// promotable reports whether Avro resolves writer type w to reader type r.
func promotable(w, r avro.Type) bool {
	if w == r {
		return true
	}
	switch w {
	case avro.Int:
		return r == avro.Long || r == avro.Float || r == avro.Double
	case avro.Long:
		return r == avro.Float || r == avro.Double
	case avro.Float:
		return r == avro.Double
	case avro.String:
		return r == avro.Bytes
	case avro.Bytes:
		return r == avro.String
	}
	return false
}

// decimalUint64 parses a decimal(20,0) two's-complement value into a uint64.
func decimalUint64(b []byte, off int) (uint64, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if b[0]&0x80 != 0 {
		return 0, dataErr(ErrOutOfRange, off, "negative decimal for an unsigned field")
	}
	for len(b) > 8 && b[0] == 0 {
		b = b[1:]
	}
	if len(b) > 8 {
		return 0, dataErr(ErrOutOfRange, off, "decimal of %d bytes exceeds 64 bits", len(b))
	}
	var u uint64
	for _, c := range b {
		u = u<<8 | uint64(c)
	}
	return u, nil
}

// timestampDec reads a long (in the writer's timestamp unit, or the
// reader's when the writer has no logical type) into a Timestamp message.
func timestampDec(w avro.Schema, v *encValue, defTag uint64) (valueDec, error) {
	if w.Type() != avro.Long && w.Type() != avro.Int {
		return nil, incompatible(w, "a timestamp long")
	}
	prec := v.tsPrec
	switch logicalTypeOf(w) {
	case avro.TimestampMillis, avro.LocalTimestampMillis:
		prec = TimestampMillis
	case avro.TimestampMicros, avro.LocalTimestampMicros:
		prec = TimestampMicros
	case timestampNanos, "local-timestamp-nanos":
		prec = TimestampNanos
	}
	isInt := w.Type() == avro.Int
	return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
		var x int64
		var err error
		if isInt {
			var y int32
			y, err = st.r.int()
			x = int64(y)
		} else {
			x, err = st.r.long()
		}
		if err != nil {
			return dst, err
		}
		secs, nanos := splitTimestamp(x, prec)
		if tag == 0 {
			tag = defTag
		}
		dst = protowire.AppendVarint(dst, tag)
		start := len(dst)
		dst = append(dst, 0)
		if secs != 0 {
			dst = protowire.AppendVarint(protowire.AppendTag(dst, 1, protowire.VarintType), uint64(secs))
		}
		if nanos != 0 {
			dst = protowire.AppendVarint(protowire.AppendTag(dst, 2, protowire.VarintType), uint64(nanos))
		}
		return fixLength(dst, start), nil
	}, nil
}

// logicalTypeOf returns the logical type of a primitive schema, including
// the ones hamba/avro does not model (it keeps them as a "logicalType"
// property), such as timestamp-nanos.
func logicalTypeOf(s avro.Schema) avro.LogicalType {
	p, ok := s.(*avro.PrimitiveSchema)
	if !ok {
		return ""
	}
	if l := p.Logical(); l != nil {
		return l.Type()
	}
	if lt, ok := p.Prop("logicalType").(string); ok {
		return avro.LogicalType(lt)
	}
	return ""
}

// logicalSignature lists the logical types of a schema's primitives in
// order: with the canonical form (which strips them), it tells whether two
// schemas read the same.
func logicalSignature(s avro.Schema) string {
	var sb strings.Builder
	seen := map[string]bool{}
	var walk func(s avro.Schema)
	walk = func(s avro.Schema) {
		switch t := s.(type) {
		case *avro.PrimitiveSchema:
			if lt := logicalTypeOf(t); lt != "" {
				sb.WriteString(string(lt))
				if d, ok := t.Logical().(*avro.DecimalLogicalSchema); ok {
					fmt.Fprintf(&sb, "(%d,%d)", d.Precision(), d.Scale())
				}
			}
			sb.WriteByte(';')
		case *avro.RecordSchema:
			if seen[t.FullName()] {
				return
			}
			seen[t.FullName()] = true
			for _, f := range t.Fields() {
				walk(f.Type())
			}
		case *avro.ArraySchema:
			walk(t.Items())
		case *avro.MapSchema:
			walk(t.Values())
		case *avro.UnionSchema:
			for _, u := range t.Types() {
				walk(u)
			}
		case *avro.RefSchema:
			walk(t.Schema())
		}
	}
	walk(s)
	return sb.String()
}

// skipValue skips one writer value the reader has no field for.
func skipValue(st *decState, s avro.Schema) error {
	s = deref(s)
	switch t := s.(type) {
	case *avro.NullSchema:
		return nil
	case *avro.PrimitiveSchema:
		var err error
		switch t.Type() {
		case avro.Boolean:
			_, err = st.r.fixed(1)
		case avro.Int, avro.Long:
			_, err = st.r.long()
		case avro.Float:
			_, err = st.r.fixed(4)
		case avro.Double:
			_, err = st.r.fixed(8)
		case avro.String, avro.Bytes:
			_, err = st.r.bytes()
		}
		return err
	case *avro.FixedSchema:
		_, err := st.r.fixed(t.Size())
		return err
	case *avro.EnumSchema:
		_, err := st.r.long()
		return err
	case *avro.UnionSchema:
		off := st.r.pos
		i, err := st.r.long()
		if err != nil {
			return err
		}
		if i < 0 || i >= int64(len(t.Types())) {
			return dataErr(ErrMalformed, off, "union index %d of %d branches", i, len(t.Types()))
		}
		return skipValue(st, t.Types()[i])
	case *avro.RecordSchema:
		st.depth++
		if st.depth > maxDepth {
			return dataErr(ErrTooDeep, st.r.pos, "more than %d nested records", maxDepth)
		}
		for _, f := range t.Fields() {
			if err := skipValue(st, f.Type()); err != nil {
				return inField(err, f.Name())
			}
		}
		st.depth--
		return nil
	case *avro.ArraySchema:
		return skipBlocks(st, minSize(t.Items()), func() error { return skipValue(st, t.Items()) })
	case *avro.MapSchema:
		return skipBlocks(st, 1+minSize(t.Values()), func() error {
			if _, err := st.r.bytes(); err != nil {
				return err
			}
			return skipValue(st, t.Values())
		})
	}
	return dataErr(ErrIncompatible, st.r.pos, "cannot skip a %s", s.Type())
}

func skipBlocks(st *decState, minItemSize int, item func() error) error {
	for {
		n, err := st.r.blockCount(minItemSize)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		for range n {
			if err := item(); err != nil {
				return err
			}
		}
	}
}

var decStatePool = sync.Pool{New: func() any { return &decState{} }}

// transcode runs a reader program over one datum.
func transcodeToProto(rec *decRecord, dst, data []byte, anyOrder bool) ([]byte, error) {
	st := decStatePool.Get().(*decState)
	st.r = avroReader{buf: data}
	st.depth = 0
	st.anyOrder = anyOrder
	n := len(dst)
	out, err := st.record(dst, rec)
	pos := st.r.pos
	st.r.buf = nil
	decStatePool.Put(st)
	if err != nil {
		return dst[:n], inField(err, rec.name)
	}
	if pos != len(data) {
		return dst[:n], &DataError{Path: rec.name, Offset: pos, Err: fmt.Errorf("%w: %d bytes left after the datum", ErrMalformed, len(data)-pos)}
	}
	return out, nil
}

// TranscodeToProto converts the Avro binary encoding of one record, written
// with the codec's own schema, to the protobuf wire encoding of the message,
// appending to dst. It builds no message.
func (c *Codec) TranscodeToProto(dst, data []byte) ([]byte, error) {
	return transcodeToProto(c.dec, dst, data, false)
}

// Unmarshal decodes the Avro binary encoding of one record, written with the
// codec's own schema, into m, which is reset first. m may be a generated
// message or a dynamicpb message of the codec's type.
func (c *Codec) Unmarshal(data []byte, m proto.Message) error {
	if err := c.check(m); err != nil {
		return err
	}
	if d := c.directPlan(m); d.readable {
		return c.unmarshalStruct(d.plan, data, m)
	}
	return unmarshal(c, c.dec, data, m)
}

func unmarshal(c *Codec, rec *decRecord, data []byte, m proto.Message) error {
	if err := c.check(m); err != nil {
		return err
	}
	bp := wirePool.Get().(*[]byte)
	wire, err := transcodeToProto(rec, (*bp)[:0], data, true)
	if err == nil {
		if err = (proto.UnmarshalOptions{}).Unmarshal(wire, m); err != nil {
			err = fmt.Errorf("protoavro: %s: %w", c.schema.desc.FullName(), err)
		}
	}
	if cap(wire) <= maxPooledBuffer {
		*bp = wire[:0]
		wirePool.Put(bp)
	}
	return err
}

// Resolver reads data written with another schema, such as an older or newer
// version of the message, into the codec's message type. It is safe for
// concurrent use.
type Resolver struct {
	codec  *Codec
	writer avro.Schema
	dec    *decRecord
}

// Resolve compiles a reader for data written with the writer schema, by
// Avro's schema resolution rules. It fails with ErrIncompatible when the
// schemas cannot be resolved (a reader field without default missing from the
// writer, a type that does not promote, a record of another name).
func (c *Codec) Resolve(writer avro.Schema) (*Resolver, error) {
	dec, err := compileReader(writer, c.schema.desc, c.opts)
	if err != nil {
		return nil, err
	}
	return &Resolver{codec: c, writer: writer, dec: dec}, nil
}

// Unmarshal decodes one record written with the resolver's writer schema into m.
func (r *Resolver) Unmarshal(data []byte, m proto.Message) error {
	return unmarshal(r.codec, r.dec, data, m)
}

// TranscodeToProto converts one record written with the resolver's writer
// schema to the protobuf wire encoding of the reader's message type.
func (r *Resolver) TranscodeToProto(dst, data []byte) ([]byte, error) {
	return transcodeToProto(r.dec, dst, data, false)
}

package pbjson

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// AppendJSON appends to dst the JSON object (compact, on one line) of the
// message that proto.Unmarshal reads from wire: the same fields, names and
// values as protojson.Marshal writes. ok is false when the fast path
// declines wire (then dst is returned as it was): wire may be invalid, or
// valid in a form that only proto.Unmarshal handles, such as a field that
// appears twice.
func (p *Plan) AppendJSON(dst, wire []byte) (out []byte, ok bool) {
	st := p.pool.Get().(*state)
	out, ok = p.appendJSON(st, dst, wire)
	p.pool.Put(st)
	return out, ok
}

// Formatter is AppendJSON with scratch space of its own rather than the
// plan's pool: for one goroutine that formats many records.
type Formatter struct {
	p  *Plan
	st state
}

// Formatter returns a Formatter of p.
func (p *Plan) Formatter() *Formatter { return &Formatter{p: p} }

// AppendJSON is [Plan.AppendJSON].
func (f *Formatter) AppendJSON(dst, wire []byte) (out []byte, ok bool) {
	return f.p.appendJSON(&f.st, dst, wire)
}

// appendJSON is AppendJSON with the scratch space st.
func (p *Plan) appendJSON(st *state, dst, wire []byte) ([]byte, bool) {
	if p.root.unsupported {
		return dst, false
	}
	e := wireEnc{st: st, resolver: p.resolver}
	n := len(dst)
	var out []byte
	var ok bool
	if p.root.sk != skNone {
		out, ok = e.structMsg(p.root.sk, dst, wire, protowire.DefaultRecursionLimit)
	} else {
		out, ok = e.message(p.root, dst, wire, 0)
	}
	if !ok {
		return dst[:n], false
	}
	return out, true
}

// wireEnc is the state of one AppendJSON.
type wireEnc struct {
	st       *state
	resolver Resolver
}

// message appends the JSON object of the message mp in wire.
func (e *wireEnc) message(mp *msgPlan, dst, wire []byte, depth int) ([]byte, bool) {
	if depth > maxDepth {
		return dst, false
	}
	l := e.st.level(depth, mp)
	// Find each field's run of the wire: a field must not appear again
	// after another one (proto.Unmarshal would merge or replace it).
	last := -1
	for pos := 0; pos < len(wire); {
		tag, n := varint(wire[pos:])
		if n == 0 {
			return dst, false
		}
		if tag>>3 > uint64(protowire.MaxValidNumber) {
			return dst, false
		}
		num, typ := protowire.Number(tag>>3), protowire.Type(tag&7)
		idx := mp.field(num)
		if idx < 0 {
			return dst, false
		}
		f := mp.fields[idx]
		m := skipValue(typ, wire[pos+n:])
		if m < 0 {
			return dst, false
		}
		if typ != f.wireType && !(f.list && typ == protowire.BytesType && f.wireType != protowire.BytesType) {
			return dst, false
		}
		if f.isMap && typ != protowire.BytesType {
			return dst, false
		}
		sp := &l.spans[idx]
		switch {
		case !sp.set:
			if f.oneof >= 0 {
				if l.oneof[f.oneof] {
					return dst, false
				}
				l.oneof[f.oneof] = true
			}
			*sp = span{start: pos, value: pos + n, set: true}
		case idx != last || !f.list && !f.isMap:
			return dst, false
		}
		pos += n + m
		sp.end = pos
		last = idx
	}
	for _, i := range mp.required {
		if !l.spans[i].set {
			return dst, false // not initialized
		}
	}
	dst = append(dst, '{')
	first := true
	for i, f := range mp.fields {
		sp := l.spans[i]
		if !sp.set {
			continue
		}
		var ok bool
		if dst, ok = e.field(f, dst, wire, sp, depth, &first); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// name appends the field's name, after a comma unless it is the first.
func name(dst []byte, f *fieldPlan, first *bool) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	return append(dst, f.name...)
}

// field appends the JSON of field f, whose occurrences are wire[sp.start:sp.end].
func (e *wireEnc) field(f *fieldPlan, dst, wire []byte, sp span, depth int, first *bool) ([]byte, bool) {
	switch {
	case f.isMap:
		return e.mapField(f, dst, wire[sp.start:sp.end], depth, first)
	case f.list:
		return e.list(f, dst, wire[sp.start:sp.end], depth, first)
	}
	raw := wire[sp.value:sp.end]
	if f.class == classMessage {
		l, n := varint(raw)
		dst = name(dst, f, first)
		return e.messageValue(f, dst, raw[n:n+int(l)], depth)
	}
	if !f.presence && isZero(&f.kindInfo, raw) {
		return dst, true
	}
	dst = name(dst, f, first)
	return e.scalar(f, dst, raw)
}

// varint decodes the varint at the start of b; n is 0 when it is not
// valid.
func varint(b []byte) (v uint64, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	if len(b) > 1 && b[1] < 0x80 {
		return uint64(b[0]&0x7f) | uint64(b[1])<<7, 2
	}
	v, n = protowire.ConsumeVarint(b)
	if n < 0 {
		return 0, 0
	}
	return v, n
}

// skipValue returns the size of the value of wire type t at the start of
// b, or -1 when it is not valid (or a group, which plans do not have).
func skipValue(t protowire.Type, b []byte) int {
	switch t {
	case protowire.VarintType:
		_, n := varint(b)
		if n == 0 {
			return -1
		}
		return n
	case protowire.Fixed32Type:
		if len(b) < 4 {
			return -1
		}
		return 4
	case protowire.Fixed64Type:
		if len(b) < 8 {
			return -1
		}
		return 8
	case protowire.BytesType:
		l, n := varint(b)
		if n == 0 || l > uint64(len(b)-n) {
			return -1
		}
		return n + int(l)
	}
	return -1
}

// bytesValue returns the contents of a length-delimited value that
// skipValue accepted.
func bytesValue(raw []byte) []byte {
	l, n := varint(raw)
	return raw[n : n+int(l)]
}

// isZero reports whether raw, a scalar's wire value of kind k, is its
// zero value.
func isZero(k *kindInfo, raw []byte) bool {
	switch k.wireType {
	case protowire.BytesType:
		// A zero length, which may take more than one byte.
		l, _ := varint(raw)
		return l == 0
	case protowire.Fixed32Type:
		return raw[0]|raw[1]|raw[2]|raw[3] == 0
	case protowire.Fixed64Type:
		v, _ := protowire.ConsumeFixed64(raw)
		return v == 0
	}
	v, _ := varint(raw)
	if k.bits == 32 {
		return uint32(v) == 0
	}
	return v == 0
}

// wireBits returns the bits of raw, a number's wire value of kind k.
func wireBits(k *kindInfo, raw []byte) uint64 {
	switch k.wireType {
	case protowire.Fixed32Type:
		v, _ := protowire.ConsumeFixed32(raw)
		return uint64(v)
	case protowire.Fixed64Type:
		v, _ := protowire.ConsumeFixed64(raw)
		return v
	}
	v, _ := varint(raw)
	return v
}

// signed returns the value of a signed integer of kind k whose wire
// bits (see wireBits) are v.
func (k *kindInfo) signed(v uint64) int64 {
	if k.zigzag {
		if k.bits == 32 {
			v &= math.MaxUint32 // the value is then within int32
		}
		return protowire.DecodeZigZag(v)
	}
	if k.bits == 32 {
		return int64(int32(v))
	}
	return int64(v)
}

// unsigned returns the value of an unsigned integer of kind k whose wire
// bits are v.
func (k *kindInfo) unsigned(v uint64) uint64 {
	if k.bits == 32 {
		return uint64(uint32(v))
	}
	return v
}

// messageValue appends the JSON of a message value of f.
func (e *wireEnc) messageValue(f *fieldPlan, dst, b []byte, depth int) ([]byte, bool) {
	if !f.wkt {
		return e.message(f.msg, dst, b, depth+1)
	}
	if f.sk != skNone {
		// The limit proto.Unmarshal would have left at this depth.
		if out, ok := e.structMsg(f.sk, dst, b, protowire.DefaultRecursionLimit-1-depth); ok {
			return out, true
		}
		// Declined: protobuf-go and protojson write it, or refuse it.
	}
	m := dynamicpb.NewMessage(f.fd.Message())
	if !unmarshalDynamic(b, m, depth) {
		return dst, false
	}
	out, err := protojson.MarshalOptions{Resolver: e.resolver}.MarshalAppend(dst, m)
	if err != nil {
		return dst, false
	}
	// protojson may put spaces between tokens; they are valid JSON.
	return out, true
}

// scalar appends the JSON of a scalar value of f from its wire value.
func (e *wireEnc) scalar(f *fieldPlan, dst, raw []byte) ([]byte, bool) {
	switch f.class {
	case classBool:
		v, _ := varint(raw)
		if v != 0 {
			return append(dst, "true"...), true
		}
		return append(dst, "false"...), true
	case classInt:
		n := f.signed(wireBits(&f.kindInfo, raw))
		if f.quoted {
			return quoted(strconv.AppendInt(append(dst, '"'), n, 10)), true
		}
		return strconv.AppendInt(dst, n, 10), true
	case classUint:
		n := f.unsigned(wireBits(&f.kindInfo, raw))
		if f.quoted {
			return quoted(strconv.AppendUint(append(dst, '"'), n, 10)), true
		}
		return strconv.AppendUint(dst, n, 10), true
	case classFloat:
		v := wireBits(&f.kindInfo, raw)
		if f.bits == 32 {
			return appendFloat(dst, float64(math.Float32frombits(uint32(v))), 32), true
		}
		return appendFloat(dst, math.Float64frombits(v), 64), true
	case classString:
		s := bytesValue(raw)
		if !utf8.Valid(s) {
			return dst, false
		}
		return appendString(dst, s), true
	case classBytes:
		s := bytesValue(raw)
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, s)
		return append(dst, '"'), true
	case classEnum:
		v, _ := varint(raw)
		n := protoreflect.EnumNumber(int32(v))
		if name := f.enumName(n); name != nil {
			return append(dst, name...), true
		}
		if f.closed {
			// A generated message keeps it as an unknown field, which
			// protojson does not print (dynamicpb keeps the number).
			return dst, false
		}
		return strconv.AppendInt(dst, int64(n), 10), true
	}
	return dst, false
}

// quoted closes a string opened before a number.
func quoted(dst []byte) []byte { return append(dst, '"') }

// list appends the JSON array of the repeated field f.
func (e *wireEnc) list(f *fieldPlan, dst, run []byte, depth int, first *bool) ([]byte, bool) {
	start, wasFirst := len(dst), *first
	dst = name(dst, f, first)
	dst = append(dst, '[')
	count := 0
	for len(run) > 0 {
		tag, n := varint(run)
		typ := protowire.Type(tag & 7)
		m := skipValue(typ, run[n:])
		raw := run[n : n+m]
		run = run[n+m:]
		if f.class == classMessage {
			b := bytesValue(raw)
			if count > 0 {
				dst = append(dst, ',')
			}
			count++
			var ok bool
			if dst, ok = e.messageValue(f, dst, b, depth); !ok {
				return dst, false
			}
			continue
		}
		if typ == protowire.BytesType && f.wireType != protowire.BytesType {
			// Packed elements.
			b := bytesValue(raw)
			for len(b) > 0 {
				k := skipValue(f.wireType, b)
				if k < 0 {
					return dst, false
				}
				if count > 0 {
					dst = append(dst, ',')
				}
				count++
				var ok bool
				if dst, ok = e.scalar(f, dst, b[:k]); !ok {
					return dst, false
				}
				b = b[k:]
			}
			continue
		}
		if count > 0 {
			dst = append(dst, ',')
		}
		count++
		var ok bool
		if dst, ok = e.scalar(f, dst, raw); !ok {
			return dst, false
		}
	}
	if count == 0 {
		// Only empty packed runs: proto.Unmarshal leaves the list empty.
		*first = wasFirst
		return dst[:start], true
	}
	return append(dst, ']'), true
}

// mapEnt is a map entry of a map field's run of the wire: the offsets in
// the run of the entry and of its key's wire value (-1 when it has none:
// the key is the default). 8 bytes an entry, and offsets rather than
// slices so that a map of millions of entries costs no more.
type mapEnt struct{ at, key int32 }

// keepMapEnts is the most map entries whose scratch space a level keeps
// for the next map (512 KiB); a larger one is released after its map.
const keepMapEnts = 1 << 16

// mapField appends the JSON object of the map field f, whose entries are
// run, its keys sorted as protojson sorts them. A key that
// appears more than once takes the value of its last entry, as
// proto.Unmarshal replaces a map entry with a later one of the same key;
// every entry's value is still formatted (into dst, then dropped), so
// that what proto.Unmarshal or protojson refuse in a replaced entry is
// declined here too. The scratch space is 8 bytes an entry, allocated
// once for the map.
func (e *wireEnc) mapField(f *fieldPlan, dst, run []byte, depth int, first *bool) ([]byte, bool) {
	if len(run) > math.MaxInt32 {
		return dst, false
	}
	// message() checked the tags and lengths of the entries: count them,
	// for scratch space of the exact size.
	count := 0
	for pos := 0; pos < len(run); count++ {
		_, n := varint(run[pos:])
		pos += n + skipValue(protowire.BytesType, run[pos+n:])
	}
	l := e.st.levels[depth]
	ents := l.ments[:0]
	if cap(ents) < count {
		// One allocation of the exact size (slices.Grow makes two under
		// the race detector).
		ents = make([]mapEnt, 0, count)
	}
	defer func() {
		if cap(ents) > keepMapEnts {
			ents = nil
		}
		l.ments = ents[:0]
	}()
	for pos := 0; pos < len(run); {
		_, n := varint(run[pos:])
		size, k := varint(run[pos+n:])
		body := pos + n + k
		next := body + int(size)
		ent := mapEnt{at: int32(pos), key: -1}
		seenVal := false
		for i := body; i < next; {
			num, t, k := protowire.ConsumeTag(run[i:next])
			if k < 0 {
				return dst, false
			}
			v := protowire.ConsumeFieldValue(num, t, run[i+k:next])
			if v < 0 {
				return dst, false
			}
			switch {
			case num == 1 && t == f.key.wireType && ent.key < 0:
				ent.key = int32(i + k)
			case num == 2 && t == f.val.wireType && !seenVal:
				seenVal = true
			default:
				return dst, false
			}
			i += k + v
		}
		if f.key.class == classString && ent.key >= 0 && !utf8.Valid(bytesValue(run[ent.key:])) {
			return dst, false
		}
		ents = append(ents, ent)
		pos = next
	}
	keys := entryKeys{k: f.key, run: run}
	if len(ents) > 1 {
		// The entry's offset orders the entries of a key as they came.
		slices.SortFunc(ents, func(a, b mapEnt) int {
			if c := keys.compare(a, b); c != 0 {
				return c
			}
			return cmp.Compare(a.at, b.at)
		})
	}
	dst = name(dst, f, first)
	dst = append(dst, '{')
	comma := false
	for i, ent := range ents {
		last := i+1 == len(ents) || keys.compare(ent, ents[i+1]) != 0
		mark := len(dst)
		if last {
			if comma {
				dst = append(dst, ',')
			}
			comma = true
			dst = keys.appendKey(dst, ent)
			dst = append(dst, ':')
		}
		var ok bool
		if dst, ok = e.mapValue(f.val, dst, run, ent, depth); !ok {
			return dst, false
		}
		if !last {
			dst = dst[:mark] // replaced by a later entry of the key
		}
	}
	return append(dst, '}'), true
}

// mapValue appends the JSON of the value of the map entry ent of run, a
// map field's run whose values are of v.
func (e *wireEnc) mapValue(v *fieldPlan, dst, run []byte, ent mapEnt, depth int) ([]byte, bool) {
	// The entry's fields, which mapField checked.
	_, n := varint(run[ent.at:])
	b := bytesValue(run[int(ent.at)+n:])
	var raw []byte // the value's wire value, nil when it has none
	for len(b) > 0 {
		num, t, k := protowire.ConsumeTag(b)
		m := protowire.ConsumeFieldValue(num, t, b[k:])
		if num == 2 {
			raw = b[k : k+m]
			break
		}
		b = b[k+m:]
	}
	switch {
	case v.class == classMessage:
		var body []byte // none: an empty message
		if raw != nil {
			body = bytesValue(raw)
		}
		return e.messageValue(v, dst, body, depth)
	case raw == nil:
		if v.class == classEnum && v.fd.Default().Enum() != 0 {
			// proto.Unmarshal gives the enum's first value (proto2
			// enums need not start at 0).
			return dst, false
		}
		return e.scalar(v, dst, zeroValue(v.wireType))
	}
	return e.scalar(v, dst, raw)
}

// entryKeys decodes and compares the keys of a map field's entries in the
// field's run of the wire.
type entryKeys struct {
	k   *fieldPlan
	run []byte
}

// wire returns the wire value of ent's key: the default's when it has
// none.
func (m entryKeys) wire(ent mapEnt) []byte {
	if ent.key < 0 {
		return zeroValue(m.k.wireType)
	}
	return m.run[ent.key:]
}

// compare compares the keys of a and b as protojson orders them: bools
// false first, integers by value, strings by their bytes.
func (m entryKeys) compare(a, b mapEnt) int {
	switch m.k.class {
	case classString:
		return bytes.Compare(bytesValue(m.wire(a)), bytesValue(m.wire(b)))
	case classBool:
		x, _ := varint(m.wire(a))
		y, _ := varint(m.wire(b))
		return cmp.Compare(b2i(x != 0), b2i(y != 0))
	case classUint:
		return cmp.Compare(m.k.unsigned(wireBits(&m.k.kindInfo, m.wire(a))), m.k.unsigned(wireBits(&m.k.kindInfo, m.wire(b))))
	}
	return cmp.Compare(m.k.signed(wireBits(&m.k.kindInfo, m.wire(a))), m.k.signed(wireBits(&m.k.kindInfo, m.wire(b))))
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// appendKey appends ent's key as a JSON object key.
func (m entryKeys) appendKey(dst []byte, ent mapEnt) []byte {
	w := m.wire(ent)
	switch m.k.class {
	case classString:
		return appendString(dst, bytesValue(w))
	case classBool:
		if v, _ := varint(w); v != 0 {
			return append(dst, `"true"`...)
		}
		return append(dst, `"false"`...)
	case classUint:
		return quoted(strconv.AppendUint(append(dst, '"'), m.k.unsigned(wireBits(&m.k.kindInfo, w)), 10))
	}
	return quoted(strconv.AppendInt(append(dst, '"'), m.k.signed(wireBits(&m.k.kindInfo, w)), 10))
}

// zeros holds the wire values of zero values, which zeroValue returns
// without allocating; they are never written.
var zeros [8]byte

// zeroValue is the wire value of a scalar's zero value.
func zeroValue(t protowire.Type) []byte {
	switch t {
	case protowire.Fixed32Type:
		return zeros[:4]
	case protowire.Fixed64Type:
		return zeros[:8]
	}
	return zeros[:1] // a varint 0, or a length 0
}

// needEscape marks the bytes that protojson escapes in strings.
var needEscape = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// appendString appends s as a JSON string, escaped as protojson escapes
// it; s must be valid UTF-8.
func appendString[T string | []byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !needEscape[c] {
			continue
		}
		dst = append(dst, s[start:i]...)
		start = i + 1
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, `\u`...)
			dst = append(dst, "0000"[1+(bits.Len32(uint32(c))-1)/4:]...)
			dst = strconv.AppendUint(dst, uint64(c), 16)
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendFloat appends a float as protojson writes it.
func appendFloat(dst []byte, n float64, bitSize int) []byte {
	switch {
	case math.IsNaN(n):
		return append(dst, `"NaN"`...)
	case math.IsInf(n, +1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(n, -1):
		return append(dst, `"-Infinity"`...)
	}
	format := byte('f')
	if abs := math.Abs(n); abs != 0 {
		if bitSize == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bitSize == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, n, format, -1, bitSize)
	if format == 'e' {
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// unmarshalDynamic parses a well-known type's wire bytes into m, reporting
// whether it could. protobuf-go (v1.36.12) panics in its dynamicpb path on
// a map entry that repeats its key field with another wire type (a Struct's
// fields; a fuzz find); that is declined like any input it refuses.
func unmarshalDynamic(b []byte, m *dynamicpb.Message, depth int) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return (proto.UnmarshalOptions{RecursionLimit: protowire.DefaultRecursionLimit - 1 - depth}).Unmarshal(b, m) == nil
}

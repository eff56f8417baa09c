package pbjson

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The JSON types of google/protobuf/struct.proto (Struct, Value,
// ListValue) are converted here rather than by protojson, in both
// directions, with the rules of protojson and protobuf-go: memory in
// proportion to the bytes, where a dynamicpb message takes hundreds of
// bytes per element.
//
// JSON to wire is protojson.Unmarshal then deterministic proto.Marshal:
// null, booleans, numbers (any JSON number that strconv.ParseFloat reads
// as a finite double), strings, objects (keys unique, written sorted) and
// arrays, with protojson's recursion limit (each Value, and the Struct or
// ListValue at the root, takes one level). Wire to JSON is proto.Unmarshal
// then protojson.Marshal in its compact form: the canonical encoding only
// (one field per Value, map entries of a key then a value, each key once,
// no unknown fields), with proto.Unmarshal's recursion limit (each
// message and each map entry takes one level); the rest, and what
// protojson refuses to write (a Value of no kind, a number that is NaN or
// infinite), is declined.

// structKind says which of the types of struct.proto a message is.
type structKind uint8

const (
	skNone   structKind = iota
	skValue             // google.protobuf.Value
	skStruct            // google.protobuf.Struct
	skList              // google.protobuf.ListValue
)

// IsStructType reports whether md is Struct, Value or ListValue, whose
// plans convert every valid input in both directions but for rare forms
// (surrogate pairs in JSON strings, non-canonical wire encodings): their
// memory is in proportion to the input, without a message built.
func IsStructType(md protoreflect.MessageDescriptor) bool { return structKindOf(md) != skNone }

// structKindOf returns the structKind of md.
func structKindOf(md protoreflect.MessageDescriptor) structKind {
	switch md.FullName() {
	case "google.protobuf.Value":
		return skValue
	case "google.protobuf.Struct":
		return skStruct
	case "google.protobuf.ListValue":
		return skList
	}
	return skNone
}

// The tags of the fields of the types of struct.proto.
const (
	tagNull   = 1<<3 | byte(protowire.VarintType)  // Value.null_value
	tagNumber = 2<<3 | byte(protowire.Fixed64Type) // Value.number_value
	tagString = 3<<3 | byte(protowire.BytesType)   // Value.string_value
	tagBool   = 4<<3 | byte(protowire.VarintType)  // Value.bool_value
	tagStruct = 5<<3 | byte(protowire.BytesType)   // Value.struct_value
	tagList   = 6<<3 | byte(protowire.BytesType)   // Value.list_value
	tagItem   = 1<<3 | byte(protowire.BytesType)   // Struct.fields, ListValue.values, entry key
	tagEntVal = 2<<3 | byte(protowire.BytesType)   // the value of a Struct.fields entry
)

// sent is one entry of a Struct being converted: its bytes in the output
// are out[start:end]; wire is where the entry starts in the Struct's wire
// bytes (wire to JSON; JSON to wire reads the key back from the output).
type sent struct {
	start, end, wire int
}

// addEntry appends e to st.sents, doubling their room when they are full
// (append grows a long slice by a quarter, which allocates five times the
// final size on the way).
func (st *state) addEntry(e sent) {
	if len(st.sents) == cap(st.sents) {
		st.sents = slices.Grow(st.sents, max(cap(st.sents), 16))
	}
	st.sents = append(st.sents, e)
}

// structMsg parses the JSON of a message of kind k and appends its wire
// bytes (without tag or length) to buf. limit is protojson's recursion
// limit left before the message.
func (d *jsonDec) structMsg(k structKind, buf []byte, limit int) ([]byte, bool) {
	if limit--; limit < 0 {
		return buf, false
	}
	switch k {
	case skValue:
		return d.structValue(buf, limit)
	case skStruct:
		return d.structFields(buf, limit)
	case skList:
		return d.listValues(buf, limit)
	}
	return buf, false
}

// structValue parses any JSON value as the fields of a Value.
func (d *jsonDec) structValue(buf []byte, limit int) ([]byte, bool) {
	var ok bool
	switch c := d.next(); {
	case c == 'n':
		return append(buf, tagNull, 0), d.literal("null")
	case c == 't':
		return append(buf, tagBool, 1), d.literal("true")
	case c == 'f':
		return append(buf, tagBool, 0), d.literal("false")
	case c == '"':
		s, _, ok := d.string()
		if !ok {
			return buf, false
		}
		buf = append(buf, tagString)
		buf = protowire.AppendVarint(buf, uint64(len(s)))
		return append(buf, s...), true
	case c == '-' || c >= '0' && c <= '9':
		t, _, ok := d.number()
		if !ok {
			return buf, false
		}
		v, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return buf, false
		}
		buf = append(buf, tagNumber)
		return protowire.AppendFixed64(buf, math.Float64bits(v)), true
	case c == '{':
		buf = append(buf, tagStruct, 0)
		pos := len(buf) - 1
		buf, ok = d.structFields(buf, limit)
		return finishLength(buf, pos), ok
	case c == '[':
		buf = append(buf, tagList, 0)
		pos := len(buf) - 1
		buf, ok = d.listValues(buf, limit)
		return finishLength(buf, pos), ok
	}
	return buf, false
}

// listValues parses a JSON array as the fields of a ListValue.
func (d *jsonDec) listValues(buf []byte, limit int) ([]byte, bool) {
	if empty, ok := d.open('[', ']'); !ok || empty {
		return buf, ok
	}
	for {
		buf = append(buf, tagItem, 0)
		pos := len(buf) - 1
		var ok bool
		buf, ok = d.structMsg(skValue, buf, limit)
		buf = finishLength(buf, pos)
		if !ok {
			return buf, false
		}
		more, ok := d.more(']')
		if !more {
			return buf, ok
		}
	}
}

// structFields parses a JSON object as the fields of a Struct: its
// entries sorted by key, as deterministic proto.Marshal writes a map; a
// key that comes twice is declined (protojson refuses it).
func (d *jsonDec) structFields(buf []byte, limit int) ([]byte, bool) {
	if empty, ok := d.open('{', '}'); !ok || empty {
		return buf, ok
	}
	st := d.st
	base := len(st.sents)
	defer func() { st.sents = st.sents[:base] }()
	for {
		key, _, ok := d.string()
		if !ok {
			return buf, false
		}
		start := len(buf)
		buf = append(buf, tagItem, 0)
		pos := len(buf) - 1
		buf = append(buf, tagItem)
		buf = protowire.AppendVarint(buf, uint64(len(key)))
		buf = append(buf, key...)
		d.ws()
		if d.next() != ':' {
			return buf, false
		}
		d.pos++
		d.ws()
		buf = append(buf, tagEntVal, 0)
		vpos := len(buf) - 1
		buf, ok = d.structMsg(skValue, buf, limit)
		buf = finishLength(buf, vpos)
		buf = finishLength(buf, pos)
		if !ok {
			return buf, false
		}
		st.addEntry(sent{start: start, end: len(buf)})
		more, ok := d.more('}')
		if !ok {
			return buf, false
		}
		if !more {
			break
		}
	}
	return sortEntries(st, buf, st.sents[base:], func(e sent) []byte { return wireKey(buf[e.start:]) }, false)
}

// wireKey returns the key of the Struct entry at the start of b (its tag,
// length, then the key's tag and length).
func wireKey(b []byte) []byte {
	_, n := protowire.ConsumeVarint(b[1:])
	b = b[1+n+1:]
	l, n := protowire.ConsumeVarint(b)
	return b[n : n+int(l)]
}

// sortEntries puts the entries ents, which end out in their order, in the
// order of their keys (key returns them), declining a key that comes
// twice. sep says that a comma separates entries (JSON).
func sortEntries(st *state, out []byte, ents []sent, key func(sent) []byte, sep bool) ([]byte, bool) {
	sorted := true
	for i := 1; i < len(ents); i++ {
		switch c := bytes.Compare(key(ents[i-1]), key(ents[i])); {
		case c == 0:
			return out, false
		case c > 0:
			sorted = false
		}
	}
	if sorted {
		return out, true
	}
	first := ents[0].start
	slices.SortFunc(ents, func(a, b sent) int { return bytes.Compare(key(a), key(b)) })
	for i := 1; i < len(ents); i++ {
		if bytes.Equal(key(ents[i-1]), key(ents[i])) {
			return out, false
		}
	}
	// Copy the region, then write the entries back in order.
	st.tmp = append(st.tmp[:0], out[first:]...)
	out = out[:first]
	for i, e := range ents {
		if sep && i > 0 {
			out = append(out, ',')
		}
		out = append(out, st.tmp[e.start-first:e.end-first]...)
	}
	return out, true
}

// structMsg appends the JSON of the message of kind k in wire. limit is
// proto.Unmarshal's recursion limit left before the message.
func (e *wireEnc) structMsg(k structKind, dst, wire []byte, limit int) ([]byte, bool) {
	if limit--; limit < 0 {
		return dst, false
	}
	switch k {
	case skValue:
		return e.structValue(dst, wire, limit)
	case skStruct:
		return e.structFields(dst, wire, limit)
	case skList:
		return e.listValues(dst, wire, limit)
	}
	return dst, false
}

// field reads the one field of b: its tag byte and the value, after the
// tag (with its length for the bytes type); ok is false unless b is a
// single field with a one-byte tag.
func oneField(b []byte) (tag byte, v []byte, rest []byte, ok bool) {
	if len(b) == 0 || b[0] >= 0x80 {
		return 0, nil, nil, false
	}
	tag = b[0]
	n := protowire.ConsumeFieldValue(protowire.Number(tag>>3), protowire.Type(tag&7), b[1:])
	if n < 0 {
		return 0, nil, nil, false
	}
	v, rest = b[1:1+n], b[1+n:]
	if protowire.Type(tag&7) == protowire.BytesType {
		_, m := protowire.ConsumeVarint(v)
		v = v[m:]
	}
	return tag, v, rest, true
}

// structValue appends the JSON of the Value in b.
func (e *wireEnc) structValue(dst, b []byte, limit int) ([]byte, bool) {
	tag, v, rest, ok := oneField(b)
	if !ok || len(rest) != 0 {
		return dst, false
	}
	switch tag {
	case tagNull:
		return append(dst, "null"...), true
	case tagBool:
		x, _ := protowire.ConsumeVarint(v)
		if x != 0 {
			return append(dst, "true"...), true
		}
		return append(dst, "false"...), true
	case tagNumber:
		x, _ := protowire.ConsumeFixed64(v)
		f := math.Float64frombits(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return dst, false // protojson refuses them
		}
		return appendFloat(dst, f, 64), true
	case tagString:
		if !utf8.Valid(v) {
			return dst, false
		}
		return appendString(dst, v), true
	case tagStruct:
		return e.structMsg(skStruct, dst, v, limit)
	case tagList:
		return e.structMsg(skList, dst, v, limit)
	}
	return dst, false
}

// listValues appends the JSON array of the ListValue in b.
func (e *wireEnc) listValues(dst, b []byte, limit int) ([]byte, bool) {
	dst = append(dst, '[')
	for first := true; len(b) > 0; first = false {
		tag, v, rest, ok := oneField(b)
		if !ok || tag != tagItem {
			return dst, false
		}
		if !first {
			dst = append(dst, ',')
		}
		if dst, ok = e.structMsg(skValue, dst, v, limit); !ok {
			return dst, false
		}
		b = rest
	}
	return append(dst, ']'), true
}

// structFields appends the JSON object of the Struct in b, its members
// sorted by key as protojson sorts a map's.
func (e *wireEnc) structFields(dst, b []byte, limit int) ([]byte, bool) {
	dst = append(dst, '{')
	st := e.st
	base := len(st.sents)
	defer func() { st.sents = st.sents[:base] }()
	// A map entry is a level of proto.Unmarshal's recursion.
	if len(b) > 0 && limit-1 < 0 {
		return dst, false
	}
	whole := b
	for first := true; len(b) > 0; first = false {
		tag, ent, rest, ok := oneField(b)
		if !ok || tag != tagItem {
			return dst, false
		}
		ktag, key, vrest, ok := oneField(ent)
		if !ok || ktag != tagItem || !utf8.Valid(key) {
			return dst, false
		}
		vtag, val, end, ok := oneField(vrest)
		if !ok || vtag != tagEntVal || len(end) != 0 {
			return dst, false
		}
		if !first {
			dst = append(dst, ',')
		}
		s := sent{start: len(dst), wire: len(whole) - len(b)}
		dst = appendString(dst, key)
		dst = append(dst, ':')
		if dst, ok = e.structMsg(skValue, dst, val, limit-1); !ok {
			return dst, false
		}
		s.end = len(dst)
		st.addEntry(s)
		b = rest
	}
	dst, ok := sortEntries(st, dst, st.sents[base:], func(e sent) []byte { return wireKey(whole[e.wire:]) }, true)
	return append(dst, '}'), ok
}

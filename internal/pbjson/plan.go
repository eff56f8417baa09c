// Package pbjson converts protobuf messages between the wire format and the
// protobuf JSON mapping (protojson) without building a message: the fast
// JSON paths of the protoavro command's JSON Lines.
//
// A [Plan], compiled once per message type, turns one JSON object into the
// wire bytes that deterministic proto.Marshal writes for what
// protojson.Unmarshal reads from it ([Plan.AppendWire]), and wire bytes into
// a JSON object with the same meaning as protojson.Marshal's output of what
// proto.Unmarshal reads from them ([Plan.AppendJSON]).
// [Plan.AppendWireDiscardUnknown] reads as protojson.Unmarshal does with
// DiscardUnknown: it skips the members that name no field.
//
// Both are fast paths that decline what they do not handle exactly as
// protojson does: they return ok false, and the caller uses protojson
// (with proto.Unmarshal or proto.Marshal), which then also says what is
// wrong with bad input. They decline every input that protojson or
// proto.Unmarshal rejects, and rarer valid forms too: numbers in strings
// with escapes, numbers with fractions or exponents for integer fields,
// surrogate pairs in strings, non-canonical wire encodings (a field split
// or repeated, unknown fields), types with proto2 groups or extensions.
// Struct, Value and ListValue are converted by the plan itself, at the
// root or in a field (structpb.go); the other well-known types
// (google.protobuf.*) inside a message are handed to protojson as they are
// met, so their JSON forms are exactly protojson's.
package pbjson

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// maxDepth is the nesting the fast paths handle; deeper messages are
// declined (protojson's limit is 10,000, proto's 10,000).
const maxDepth = 100

// Options are the options of [Compile].
type Options struct {
	// Suspect, when set, is called with each bytes value that
	// [Plan.AppendWire] decodes; when it returns true the input is declined,
	// so that the caller's slower path can check it.
	Suspect func(fd protoreflect.FieldDescriptor, b []byte) bool
	// Resolver finds the types of google.protobuf.Any values, which
	// protojson reads and writes; nil is protoregistry.GlobalTypes. A
	// value it does not know is declined.
	Resolver Resolver
}

// Resolver is protojson's resolver of message and extension types.
type Resolver interface {
	protoregistry.ExtensionTypeResolver
	protoregistry.MessageTypeResolver
}

// Plan converts messages of one type. It is safe for concurrent use.
type Plan struct {
	root    *msgPlan
	suspect func(fd protoreflect.FieldDescriptor, b []byte) bool
	// resolver is Options.Resolver.
	resolver Resolver
	pool     sync.Pool // *state
}

// msgPlan is the plan of one message type.
type msgPlan struct {
	md          protoreflect.MessageDescriptor
	unsupported bool
	// sk is the type of struct.proto that the message is (a plan's root
	// only: a field of one has fieldPlan.sk).
	sk     structKind
	fields []*fieldPlan // in declaration order
	byName map[string]int
	// byNum maps field numbers to field indexes: numIndex for the small
	// numbers (-1 for none), numMap for the others.
	numIndex []int32
	numMap   map[protowire.Number]int
	// wireOrder is the order in which deterministic proto.Marshal writes
	// the fields (the order of its LegacyFieldOrder).
	wireOrder []int
	oneofs    int
	// required lists the required fields: a message without one is not
	// initialized, which protojson and proto reject.
	required []int
}

// fieldPlan is the plan of one field (or of a map entry's key or value).
type fieldPlan struct {
	fd  protoreflect.FieldDescriptor
	num protowire.Number
	// kindInfo is what the fast paths do with the field's kind.
	kindInfo
	list     bool
	isMap    bool
	packed   bool
	presence bool
	oneof    int // index of its oneof, -1 for none (or a synthetic one)
	msg      *msgPlan
	wkt      bool // a google.protobuf message: protojson handles its JSON
	isValue  bool // google.protobuf.Value: JSON null is a value
	// sk is the type of struct.proto of a wkt field, which the fast paths
	// convert themselves (structpb.go).
	sk     structKind
	enum   protoreflect.EnumDescriptor
	closed bool // a closed enum
	// enumNames are the enum's value names as JSON strings, by number:
	// enumIndex for 0..maxIndexed-1, enumMap for the others.
	enumIndex [][]byte
	enumMap   map[protoreflect.EnumNumber][]byte
	// enumByName maps the enum's value names to their numbers (protojson
	// reads names with Values().ByName, which some descriptor
	// implementations answer by a linear search).
	enumByName map[string]protoreflect.EnumNumber
	key, val   *fieldPlan
	// name is the field's JSON name as a JSON string followed by ':'.
	name []byte
	// ownsName says that the JSON name is this field's (not an earlier
	// field's of the same JSON name).
	ownsName bool
	// tag is the field's tag, its wireType, as wire bytes; ltag the tag
	// with the bytes wire type (for packed lists and messages).
	tag, ltag []byte
}

// Compile returns the plan of md.
func Compile(md protoreflect.MessageDescriptor, opts Options) *Plan {
	c := map[protoreflect.FullName]*msgPlan{}
	p := &Plan{root: compileMessage(md, c), suspect: opts.Suspect, resolver: opts.Resolver}
	// A type is unsupported when it reaches an unsupported one.
	for changed := true; changed; {
		changed = false
		for _, mp := range c {
			if mp.unsupported {
				continue
			}
			for _, f := range mp.fields {
				sub := f.msg
				if f.val != nil {
					sub = f.val.msg
				}
				if sub != nil && sub.unsupported {
					mp.unsupported, changed = true, true
					break
				}
			}
		}
	}
	p.pool.New = func() any { return &state{} }
	return p
}

// isWKT reports whether md is a well-known type, whose JSON form is
// protojson's own.
func isWKT(md protoreflect.MessageDescriptor) bool {
	return strings.HasPrefix(string(md.FullName()), "google.protobuf.")
}

func compileMessage(md protoreflect.MessageDescriptor, c map[protoreflect.FullName]*msgPlan) *msgPlan {
	if mp, ok := c[md.FullName()]; ok {
		return mp
	}
	mp := &msgPlan{md: md, byName: map[string]int{}, numMap: map[protowire.Number]int{}, oneofs: md.Oneofs().Len()}
	c[md.FullName()] = mp
	if mp.sk = structKindOf(md); mp.sk != skNone {
		return mp
	}
	if isWKT(md) || md.Options() != nil && isMessageSet(md) {
		mp.unsupported = true
		return mp
	}
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		f := compileField(fd, c)
		if f == nil || !utf8.ValidString(fd.JSONName()) {
			// A json_name that is not UTF-8 (descriptors are untrusted)
			// is no JSON key: protojson refuses to write it.
			mp.unsupported = true
			return mp
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			f.oneof = od.Index()
		}
		f.name = appendString(nil, fd.JSONName())
		f.name = append(f.name, ':')
		mp.fields = append(mp.fields, f)
		// Names may clash (proto2, editions' LEGACY_BEST_EFFORT): as
		// protojson (Fields.ByJSONName), the first field has the name.
		if _, ok := mp.byName[fd.JSONName()]; !ok {
			mp.byName[fd.JSONName()] = i
			f.ownsName = true
		}
		if fd.Cardinality() == protoreflect.Required {
			mp.required = append(mp.required, i)
		}
		if n := int(fd.Number()); n < maxIndexed {
			for len(mp.numIndex) <= n {
				mp.numIndex = append(mp.numIndex, -1)
			}
			mp.numIndex[n] = int32(i)
		} else {
			mp.numMap[fd.Number()] = i
		}
		mp.wireOrder = append(mp.wireOrder, i)
	}
	// protojson looks a name up as a JSON name first, then as a field name.
	for i := range fields.Len() {
		if _, ok := mp.byName[fields.Get(i).TextName()]; !ok {
			mp.byName[fields.Get(i).TextName()] = i
		}
	}
	slices.SortStableFunc(mp.wireOrder, func(a, b int) int {
		if legacyLess(fields.Get(a), fields.Get(b)) {
			return -1
		}
		if legacyLess(fields.Get(b), fields.Get(a)) {
			return 1
		}
		return 0
	})
	return mp
}

// maxIndexed bounds the field numbers that msgPlan.numIndex holds.
const maxIndexed = 256

// field returns the index of the field numbered num, or -1.
func (mp *msgPlan) field(num protowire.Number) int {
	if num >= 0 && int(num) < len(mp.numIndex) {
		return int(mp.numIndex[num])
	}
	if i, ok := mp.numMap[num]; ok {
		return i
	}
	return -1
}

// isMessageSet reports whether md uses the proto1 message set wire format.
func isMessageSet(md protoreflect.MessageDescriptor) bool {
	type messageSetter interface{ GetMessageSetWireFormat() bool }
	ms, ok := md.Options().(messageSetter)
	return ok && ms.GetMessageSetWireFormat()
}

// legacyLess is the field order of deterministic proto.Marshal for
// messages without fast methods (order.LegacyFieldOrder of the protobuf
// module): fields outside a oneof by number, then the oneofs' fields by
// the oneof's index, then number.
func legacyLess(x, y protoreflect.FieldDescriptor) bool {
	inOneof := func(od protoreflect.OneofDescriptor) bool { return od != nil && !od.IsSynthetic() }
	ox, oy := x.ContainingOneof(), y.ContainingOneof()
	if inOneof(ox) != inOneof(oy) {
		return !inOneof(ox)
	}
	if inOneof(ox) && inOneof(oy) && ox != oy {
		return ox.Index() < oy.Index()
	}
	return x.Number() < y.Number()
}

// compileField returns the plan of fd, or nil when the fast paths do not
// handle its type.
func compileField(fd protoreflect.FieldDescriptor, c map[protoreflect.FullName]*msgPlan) *fieldPlan {
	ki := kindOf(fd.Kind())
	if ki.class == classNone || fd.IsExtension() {
		return nil // a group, or an extension
	}
	f := &fieldPlan{fd: fd, num: fd.Number(), kindInfo: ki, list: fd.IsList(), isMap: fd.IsMap(),
		packed: fd.IsPacked(), presence: fd.HasPresence(), oneof: -1}
	f.tag = protowire.AppendTag(nil, f.num, f.wireType)
	f.ltag = protowire.AppendTag(nil, f.num, protowire.BytesType)
	if f.isMap {
		f.key = compileField(fd.MapKey(), c)
		f.val = compileField(fd.MapValue(), c)
		if f.key == nil || f.val == nil {
			return nil
		}
		return f
	}
	switch f.class {
	case classMessage:
		md := fd.Message()
		if isWKT(md) {
			f.wkt = true
			f.isValue = md.FullName() == "google.protobuf.Value"
			f.sk = structKindOf(md)
		} else {
			f.msg = compileMessage(md, c)
		}
	case classEnum:
		f.enum = fd.Enum()
		if f.enum.FullName() == "google.protobuf.NullValue" {
			return nil // JSON null is its value
		}
		f.closed = f.enum.IsClosed()
		f.enumMap = map[protoreflect.EnumNumber][]byte{}
		f.enumByName = map[string]protoreflect.EnumNumber{}
		values := f.enum.Values()
		for i := range values.Len() {
			v := values.Get(i)
			f.enumByName[string(v.Name())] = v.Number()
			if f.enumName(v.Number()) != nil {
				continue // an alias: ByNumber gives the first
			}
			name := appendString(nil, string(v.Name()))
			if n := v.Number(); n >= 0 && n < maxIndexed {
				for len(f.enumIndex) <= int(n) {
					f.enumIndex = append(f.enumIndex, nil)
				}
				f.enumIndex[n] = name
			} else {
				f.enumMap[n] = name
			}
		}
	}
	return f
}

// enumName returns the JSON string of the name of enum value n, or nil.
func (f *fieldPlan) enumName(n protoreflect.EnumNumber) []byte {
	if n >= 0 && int(n) < len(f.enumIndex) {
		return f.enumIndex[n]
	}
	return f.enumMap[n]
}

// valueClass is how the fast paths read and write a value: the class of
// its kind in the kinds table.
type valueClass uint8

const (
	classNone    valueClass = iota // a kind the fast paths do not handle (groups)
	classBool                      // a varint 0 or 1; JSON true or false
	classInt                       // a signed integer
	classUint                      // an unsigned integer
	classFloat                     // an IEEE 754 float or double
	classString                    // length-delimited UTF-8; a JSON string
	classBytes                     // length-delimited; a base64 JSON string
	classEnum                      // a varint int32; its JSON name or number
	classMessage                   // length-delimited message; a JSON object
)

// kindInfo is what the fast paths do with the values of one protobuf
// kind.
type kindInfo struct {
	class    valueClass
	wireType protowire.Type // the wire type of one value
	// bits is the size of a number's value (32 or 64), 0 for the others.
	bits uint8
	// zigzag says that a signed varint is zigzag-encoded (sint32, sint64).
	zigzag bool
	// quoted says that JSON writes the number as a string (64-bit
	// integers).
	quoted bool
}

// kinds is the one place where the fast paths decide per protobuf kind:
// every other decision is made on a kindInfo. The kinds not listed
// (groups) have classNone.
var kinds = [...]kindInfo{
	protoreflect.BoolKind:     {class: classBool, wireType: protowire.VarintType},
	protoreflect.EnumKind:     {class: classEnum, wireType: protowire.VarintType, bits: 32},
	protoreflect.Int32Kind:    {class: classInt, wireType: protowire.VarintType, bits: 32},
	protoreflect.Sint32Kind:   {class: classInt, wireType: protowire.VarintType, bits: 32, zigzag: true},
	protoreflect.Uint32Kind:   {class: classUint, wireType: protowire.VarintType, bits: 32},
	protoreflect.Int64Kind:    {class: classInt, wireType: protowire.VarintType, bits: 64, quoted: true},
	protoreflect.Sint64Kind:   {class: classInt, wireType: protowire.VarintType, bits: 64, zigzag: true, quoted: true},
	protoreflect.Uint64Kind:   {class: classUint, wireType: protowire.VarintType, bits: 64, quoted: true},
	protoreflect.Sfixed32Kind: {class: classInt, wireType: protowire.Fixed32Type, bits: 32},
	protoreflect.Fixed32Kind:  {class: classUint, wireType: protowire.Fixed32Type, bits: 32},
	protoreflect.FloatKind:    {class: classFloat, wireType: protowire.Fixed32Type, bits: 32},
	protoreflect.Sfixed64Kind: {class: classInt, wireType: protowire.Fixed64Type, bits: 64, quoted: true},
	protoreflect.Fixed64Kind:  {class: classUint, wireType: protowire.Fixed64Type, bits: 64, quoted: true},
	protoreflect.DoubleKind:   {class: classFloat, wireType: protowire.Fixed64Type, bits: 64},
	protoreflect.StringKind:   {class: classString, wireType: protowire.BytesType},
	protoreflect.BytesKind:    {class: classBytes, wireType: protowire.BytesType},
	protoreflect.MessageKind:  {class: classMessage, wireType: protowire.BytesType},
}

// kindOf returns the kindInfo of k (classNone for the kinds not in the
// table).
func kindOf(k protoreflect.Kind) kindInfo {
	if k >= 0 && int(k) < len(kinds) {
		return kinds[k]
	}
	return kindInfo{}
}

// Supported reports whether the fast paths handle the plan's type at all;
// when false, every call declines.
func (p *Plan) Supported() bool { return !p.root.unsupported }

// state is the scratch space of one conversion.
type state struct {
	levels []*level
	str    []byte // AppendWire's unescaped strings
	// sents are the entries of the Structs being converted, outer ones
	// first; tmp is the scratch space of their sorting.
	sents []sent
	tmp   []byte
}

// level is the scratch space of one nesting level.
type level struct {
	buf   []byte
	spans []span
	oneof []bool
	ents  []entry
	ebuf  []byte
	ments []mapEnt // AppendJSON's map entries
}

// span is a part of a level's buffer (or of a message's wire bytes, where
// value is the start of the first value, after its tag); set says it
// holds a field.
type span struct {
	start, end, value int
	set               bool
}

// entry is one map entry: its key for sorting and its bytes in ebuf.
type entry struct {
	skey       string
	ikey       int64
	ukey       uint64
	start, end int
}

// level returns the scratch space of depth d, emptied for a message of
// mp.
func (s *state) level(d int, mp *msgPlan) *level {
	for len(s.levels) <= d {
		s.levels = append(s.levels, &level{})
	}
	l := s.levels[d]
	l.buf = l.buf[:0]
	n := len(mp.fields)
	l.spans = slices.Grow(l.spans[:0], n)[:n]
	clear(l.spans)
	l.oneof = slices.Grow(l.oneof[:0], mp.oneofs)[:mp.oneofs]
	clear(l.oneof)
	return l
}

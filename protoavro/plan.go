package protoavro

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/protoavro/protoavro/internal/pbjson"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/avroschema"
)

// This file is the plan: one compiled description of a message type under
// one set of mapping options, from which everything else is driven — the
// Avro schema (schema.go), the wire→Avro transcoder (writer.go), the struct
// writer (writer_struct.go), the Avro→wire reader and schema resolution
// (reader.go) and the struct reader (reader_struct.go). Every mapping
// decision is made here, once: the Avro type of each field kind, the
// well-known types, presence, defaults, names and wire types. It is the only
// file that switches over protobuf field kinds; the rest switches over the
// plan's own value kinds.

// fieldMode says how a field is written and what its absence means.
type fieldMode uint8

const (
	modeImplicit fieldMode = iota // T; absent writes the default bytes
	modeNullable                  // ["null", T]; absent writes null
	modeRequired                  // T; absent is an error
	modeList                      // array of T
	modeMap                       // Avro map (string or text keys)
	modeEntries                   // array of entry records
)

// valueKind is the conversion of one protobuf value to Avro.
type valueKind uint8

const (
	vBool valueKind = iota
	vInt32
	vSint32
	vSfixed32
	vUint32  // varint, unsigned, written as long (int in the Java profile)
	vFixed32 // fixed32, unsigned, written as long (int in the Java profile)
	vInt64
	vSint64
	vSfixed64
	vUint64  // varint, written as long with the same 64 bits
	vFixed64 // fixed64, written as long with the same 64 bits
	vUint64Dec
	vFixed64Dec
	vFloat
	vDouble
	vString
	vBytes
	vEnum
	vMessage
	vTimestamp
	vWrapper
	vCarrier // a message below the recursion bound, carried whole
	vJSON    // Struct, Value, ListValue or Any as protojson text

	vDate      // google.type.Date as int date (Options.GoogleTypes)
	vTimeOfDay // google.type.TimeOfDay as long time-micros (Options.GoogleTypes)
)

var valueKindNames = [...]string{
	vBool: "bool", vInt32: "int32", vSint32: "sint32", vSfixed32: "sfixed32",
	vUint32: "uint32", vFixed32: "fixed32", vInt64: "int64", vSint64: "sint64",
	vSfixed64: "sfixed64", vUint64: "uint64", vFixed64: "fixed64",
	vUint64Dec: "uint64", vFixed64Dec: "fixed64", vFloat: "float", vDouble: "double",
	vString: "string", vBytes: "bytes", vEnum: "enum", vMessage: "message",
	vTimestamp: "google.protobuf.Timestamp", vWrapper: "wrapper",
	vCarrier: "message", vJSON: "message",
	vDate: "google.type.Date", vTimeOfDay: "google.type.TimeOfDay",
}

// String returns the protobuf kind of the values, as protoreflect names it.
func (k valueKind) String() string { return valueKindNames[k] }

// isMessage reports whether values of kind k are protobuf messages (records,
// Timestamps, wrappers, carried or JSON messages).
func (k valueKind) isMessage() bool { return k >= vMessage }

// valuePlan converts one value.
type valuePlan struct {
	kind       valueKind
	wt         protowire.Type // the wire type of one unpacked value
	java32     bool           // Java profile: uint32/fixed32 written as int (same bits)
	javaString bool           // Java profile: strings carry avro.java.string
	enum       *enumTable
	enumDef    int        // vEnum: index of the enum schema's default symbol
	msg        *msgPlan   // vMessage
	inner      *valuePlan // vWrapper: the wrapped value
	tsPrec     TimestampPrecision
	fullName   protoreflect.FullName          // vTimestamp/vWrapper: for errors
	carrier    Carrier                        // vCarrier: bytes or JSON
	desc       protoreflect.MessageDescriptor // vCarrier/vJSON: the message type
	// structs converts a Struct, Value or ListValue carried whole
	// (vCarrier/vJSON) between its JSON and wire forms without building
	// a message; nil for the other types.
	structs *pbjson.Plan

	// scanned marks the strings of a singular field whose every occurrence
	// the scanner has checked to be UTF-8 (scanInfo.utf8, set by
	// msgPlan.finish): scalar does not check them again.
	scanned bool
}

// structsPlan returns the pbjson plan of md when it is Struct, Value or
// ListValue, or nil.
func structsPlan(md protoreflect.MessageDescriptor) *pbjson.Plan {
	if !pbjson.IsStructType(md) {
		return nil
	}
	return pbjson.Compile(md, pbjson.Options{})
}

// jsonText reports whether the value is carried as JSON text: a JSON
// carrier or a dynamic value.
func (v *valuePlan) jsonText() bool {
	return v.kind == vJSON || (v.kind == vCarrier && v.carrier == CarrierJSON)
}

// fieldPlan is one field of a record.
type fieldPlan struct {
	name    string
	fd      protoreflect.FieldDescriptor
	num     protowire.Number
	tag     uint64 // the tag of one unpacked value (maps: of one entry)
	mode    fieldMode
	oneof   int // index of the containing (non-synthetic or synthetic) oneof, or -1
	val     valuePlan
	key     *valuePlan // maps: the key
	textKey bool       // modeMap with non-string keys written as text
	entry   *msgPlan   // modeMap, modeEntries: the entry message
	absent  []byte     // modeImplicit: the Avro bytes of the default
	packed  bool       // value kind can be packed on the wire
	// packedOut: the reader writes the list packed, as proto.Marshal does.
	packedOut bool
	// def is the JSON text of the Avro default, nil for none.
	def json.RawMessage
	// dropWire is the wire encoding (tag and value) of an implicit scalar's
	// default: the reader drops an emitted value equal to it, so unset
	// fields stay unset. Nil where values are always kept (map entries).
	dropWire []byte
}

// msgPlan is the compiled plan of one record.
type msgPlan struct {
	name     string // the message's simple name, for error paths
	desc     protoreflect.MessageDescriptor
	avroName string // the record's Avro full name
	// level is the record's depth in a cycle of recursive types (0 for the
	// first record of the cycle, and for every non-recursive type): records
	// of level 0 are the type's standalone records; deeper ones are named
	// for their level (see recordName).
	level int
	entry bool // a default-profile map entry: key and value only, never null
	// inMap marks the entry of an Avro map (modeMap): an error in its
	// value is named by the entry's key alone (`M.m."7"`), as the readers
	// name it, where an entry record (modeEntries) names its value field.
	inMap   bool
	fields  []fieldPlan
	dense   []int16 // field number -> index+1 for numbers < len(dense)
	sparse  map[protowire.Number]int
	nOneofs int
	// Set by finish, once the fields are compiled:
	scanInfo []scanInfo // per field, what the scanner checks
	blank    []int32    // a frame of -1s: 2 per field, 1 per oneof
	// inOrder is set when the oneofs are few enough for encodeInOrder to
	// track: the transcoder first tries its one-pass path on such a
	// message.
	inOrder bool
	// prefix is the number of leading fields that the schema declares in
	// the order of their numbers, the order protobuf encoders write them
	// in (all of them, usually); rank gives the place of each field in
	// number order.
	prefix int
	rank   []int32
	// placeholder records (of messages without fields, under
	// Options.EmptyPlaceholder) have one field, emptyPlaceholderName, which
	// the writers write as null and the readers skip.
	placeholder bool
	// zeroSize records take no bytes (a message without fields): the
	// writers count them as the readers do (markZeroSize). Set once the
	// schema tree is built.
	zeroSize bool
}

// byName returns the index of the field named name, or -1.
func (m *msgPlan) byName(name string) int {
	for i := range m.fields {
		if m.fields[i].name == name {
			return i
		}
	}
	return -1
}

// planner compiles the plan of one message type, sharing the plans of
// message types used more than once (recursive ones included).
type planner struct {
	opts    Options
	msgs    map[planKey]*msgPlan
	entries map[planKey]*msgPlan
	enums   map[protoreflect.EnumDescriptor]*enumTable
	// cycles gives the message types on a cycle of the message graph the
	// index of their strongly connected component, when recursion is bounded.
	cycles map[protoreflect.MessageDescriptor]int
	all    []*msgPlan // every plan compiled, in order
	// The budget (plan_limits.go): the limits, the records being compiled
	// (outermost first), the records and fields compiled so far, and the
	// context that cancels the compilation (nil for none).
	lim             SchemaLimits
	path            []protoreflect.MessageDescriptor
	records, fields int
	ctx             context.Context
}

// planKey identifies the plan of a message type at a level of recursion.
type planKey struct {
	md    protoreflect.MessageDescriptor
	level int
}

// where is the message whose fields are being compiled, and its level.
type where struct {
	md    protoreflect.MessageDescriptor
	level int
}

// compilePlan compiles the plan of md under the mapping options o, within
// o.Limits; ctx (nil for none) cancels it. It returns every plan it
// compiled too: the records of md's tree.
func compilePlan(ctx context.Context, md protoreflect.MessageDescriptor, o Options) (*msgPlan, []*msgPlan, error) {
	o.Cache = nil
	p := &planner{
		opts:    o,
		msgs:    map[planKey]*msgPlan{},
		entries: map[planKey]*msgPlan{},
		enums:   map[protoreflect.EnumDescriptor]*enumTable{},
		lim:     o.Limits.resolved(),
		ctx:     ctx,
	}
	if o.RecursionDepth > 0 && !p.java() {
		p.cycles = findCycles(md, p.expands)
	}
	m, err := p.message(md, 0)
	return m, p.all, err
}

// expands reports whether a message type maps as a record (and so takes
// part in recursion): not a Timestamp or wrapper, nor a JSON value.
func (p *planner) expands(md protoreflect.MessageDescriptor) bool {
	if p.java() {
		return true
	}
	return p.wellKnown(md) == notWellKnown && !(p.opts.DynamicAsJSON && isDynamic(md))
}

// wellKnown classifies md under the default profile's options: a
// Timestamp under TimestampRecord maps as any message, and the google.type
// messages have mappings of their own under GoogleTypes.
func (p *planner) wellKnown(md protoreflect.MessageDescriptor) wellKnownKind {
	k := classifyWellKnown(md)
	if k == wellKnownTimestamp && p.opts.Timestamps == TimestampRecord {
		return notWellKnown
	}
	if k == notWellKnown && p.opts.GoogleTypes {
		return classifyGoogleType(md)
	}
	return k
}

// emptyPlaceholderName is the field of the records of messages without
// fields under Options.EmptyPlaceholder: the name of the column Spark's
// protobuf reader adds to them (retain.empty.message.types).
const emptyPlaceholderName = "__dummy_field_in_empty_struct"

// childLevel is the level of a record of type md used by a field of the
// message at: one deeper within a cycle, 0 on entering another.
func (p *planner) childLevel(at where, md protoreflect.MessageDescriptor) int {
	if c, ok := p.cycles[md]; ok && at.md != nil {
		if pc, ok := p.cycles[at.md]; ok && pc == c {
			return at.level + 1
		}
	}
	return 0
}

func (p *planner) java() bool { return p.opts.Profile == JavaProfile }

func (p *planner) enum(ed protoreflect.EnumDescriptor) (*enumTable, error) {
	if t, ok := p.enums[ed]; ok {
		return t, nil
	}
	if err := p.enterEnum(ed); err != nil {
		return nil, err
	}
	name, err := p.typeName(ed)
	if err != nil {
		return nil, err
	}
	t := newEnumTable(ed, name)
	p.enums[ed] = t
	return t, nil
}

func (p *planner) message(md protoreflect.MessageDescriptor, level int) (*msgPlan, error) {
	k := planKey{md, level}
	if m, ok := p.msgs[k]; ok {
		return m, nil
	}
	fds := md.Fields()
	if err := p.enter(md, fds.Len()); err != nil {
		return nil, err
	}
	defer p.leave()
	name, err := p.recordName(md, level)
	if err != nil {
		return nil, err
	}
	m := &msgPlan{name: string(md.Name()), desc: md, avroName: name, level: level, fields: make([]fieldPlan, fds.Len()), nOneofs: md.Oneofs().Len()}
	m.placeholder = fds.Len() == 0 && p.opts.EmptyPlaceholder && !p.java()
	p.msgs[k] = m
	p.all = append(p.all, m)
	at := where{md, level}
	for i := range fds.Len() {
		if m.fields[i], err = p.field(fds.Get(i), at); err != nil {
			return nil, err
		}
	}
	m.finish()
	return m, nil
}

// field compiles one field: its mode, value, default and wire details.
func (p *planner) field(fd protoreflect.FieldDescriptor, at where) (fieldPlan, error) {
	inEntry := at.md.IsMapEntry()
	f := fieldPlan{name: string(fd.Name()), fd: fd, num: fd.Number(), oneof: -1}
	if od := fd.ContainingOneof(); od != nil {
		f.oneof = od.Index()
	}
	if fd.IsMap() {
		return p.mapField(f, at)
	}
	var err error
	if f.val, err = p.value(fd, at); err != nil {
		return f, err
	}
	f.tag = protowire.EncodeTag(f.num, f.val.wt)
	if fd.IsList() {
		f.mode, f.def = modeList, jsonDefault([]any{})
		f.packed = f.val.wt != protowire.BytesType && f.val.wt != protowire.StartGroupType
		f.packedOut = f.packed && fd.IsPacked()
		return f, nil
	}
	// Only repeated fields may be packed: protobuf parses a packed
	// occurrence of a singular field as an unknown field, and we reject it.
	java := p.java()
	switch {
	case fd.Cardinality() == protoreflect.Required:
		f.mode = modeRequired
	case fd.Message() != nil || (!java && fd.HasPresence()):
		f.mode, f.def = modeNullable, jsonDefault(nil)
	default:
		f.mode = modeImplicit
		dv := zeroValue(fd)
		f.def = zeroDefault(&f.val)
		if java {
			dv = fd.Default()
			if fd.HasDefault() {
				f.def = javaDefault(fd, &f.val)
			}
		}
		if f.absent, err = absentBytes(fd, &f.val, dv); err != nil {
			return f, err
		}
		if !inEntry {
			f.dropWire = appendWireValue(protowire.AppendVarint(nil, f.tag), &f.val, dv)
		}
	}
	return f, nil
}

// mapField compiles a map field: an Avro map, or an array of entry records
// (always under the Java profile, for non-string keys with MapAsEntryArray).
func (p *planner) mapField(f fieldPlan, at where) (fieldPlan, error) {
	fd := f.fd
	f.tag = protowire.EncodeTag(f.num, protowire.BytesType)
	kv, err := p.value(fd.MapKey(), at)
	if err != nil {
		return f, err
	}
	f.key = &kv
	if p.java() || (kv.kind != vString && p.opts.MapKeys == MapAsEntryArray) {
		f.mode, f.def = modeEntries, jsonDefault([]any{})
		if p.java() {
			f.entry, err = p.message(fd.Message(), 0)
		} else {
			f.entry, err = p.entryMessage(fd.Message(), at)
		}
		return f, err
	}
	f.mode, f.def = modeMap, jsonDefault(map[string]any{})
	f.textKey = kv.kind != vString
	if f.val, err = p.value(fd.MapValue(), at); err != nil {
		return f, err
	}
	if f.entry, err = p.entryMessage(fd.Message(), at); err == nil {
		f.entry.inMap = true
	}
	return f, err
}

// entryMessage builds the plan of a map entry under the default profile: key
// and value are plain (never null) values, with no Avro defaults.
// Its value is a field of the map's message at for the levels of recursion.
func (p *planner) entryMessage(md protoreflect.MessageDescriptor, at where) (*msgPlan, error) {
	k := planKey{md, at.level}
	if m, ok := p.entries[k]; ok {
		return m, nil
	}
	if err := p.enter(md, 2); err != nil {
		return nil, err
	}
	defer p.leave()
	name, err := p.recordName(md, at.level)
	if err != nil {
		return nil, err
	}
	m := &msgPlan{name: string(md.Name()), desc: md, avroName: name, level: at.level, entry: true, fields: make([]fieldPlan, 2), dense: []int16{0, 1, 2}}
	p.entries[k] = m
	p.all = append(p.all, m)
	for i, fd := range []protoreflect.FieldDescriptor{md.Fields().ByNumber(1), md.Fields().ByNumber(2)} {
		v, err := p.value(fd, at)
		if err != nil {
			return nil, err
		}
		f := fieldPlan{name: string(fd.Name()), fd: fd, num: fd.Number(), tag: protowire.EncodeTag(fd.Number(), v.wt), oneof: -1, val: v, mode: modeImplicit}
		if !v.kind.isMessage() { // a message value, when absent, is written empty
			if f.absent, err = absentBytes(fd, &f.val, zeroValue(fd)); err != nil {
				return nil, err
			}
		}
		m.fields[i] = f
	}
	m.finish()
	return m, nil
}

// value compiles the conversion of one value of fd, a field of the message
// at: the one place where a protobuf field kind becomes an Avro type.
func (p *planner) value(fd protoreflect.FieldDescriptor, at where) (valuePlan, error) {
	java := p.java()
	v := valuePlan{}
	if k := fd.Kind(); int(k) < len(scalarKinds) && scalarKinds[k].wt != 0 {
		sk := scalarKinds[k]
		v.kind, v.wt = sk.kind, sk.wt-1
		switch v.kind {
		case vUint32, vFixed32:
			v.java32 = java
		case vUint64, vFixed64:
			if !java && p.opts.Uint64 == Uint64AsDecimal {
				v.kind += vUint64Dec - vUint64
			}
		case vString:
			v.javaString = java
		}
		return v, nil
	}
	switch fd.Kind() {
	case protoreflect.EnumKind:
		t, err := p.enum(fd.Enum())
		if err != nil {
			return v, err
		}
		v.kind, v.wt, v.enum = vEnum, protowire.VarintType, t
		// The enum schema's default symbol: the first value, except that
		// the Java profile uses the field's explicit default as
		// ProtobufData does.
		if java && fd.HasDefault() && !fd.IsList() {
			v.enumDef = fd.Enum().Values().ByNumber(fd.Default().Enum()).Index()
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		v.wt = protowire.BytesType
		if fd.Kind() == protoreflect.GroupKind {
			v.wt = protowire.StartGroupType
		}
		md := fd.Message()
		if !java {
			switch p.wellKnown(md) {
			case googleDate:
				v.kind, v.fullName = vDate, md.FullName()
				return v, nil
			case googleTimeOfDay:
				v.kind, v.fullName = vTimeOfDay, md.FullName()
				return v, nil
			case wellKnownTimestamp:
				v.kind, v.tsPrec, v.fullName = vTimestamp, p.opts.Timestamps, md.FullName()
				return v, nil
			case wellKnownWrapper:
				inner, err := p.value(md.Fields().ByNumber(1), where{})
				if err != nil {
					return v, err
				}
				v.kind, v.inner, v.fullName = vWrapper, &inner, md.FullName()
				return v, nil
			}
			if p.opts.DynamicAsJSON && isDynamic(md) {
				v.kind, v.desc, v.structs = vJSON, md, structsPlan(md)
				return v, nil
			}
		}
		level := p.childLevel(at, md)
		if p.cycles != nil && level >= p.opts.RecursionDepth {
			v.kind, v.desc, v.carrier, v.structs = vCarrier, md, p.opts.RecursionCarrier, structsPlan(md)
			return v, nil
		}
		m, err := p.message(md, level)
		if err != nil {
			return v, err
		}
		v.kind, v.msg = vMessage, m
	default:
		return v, fmt.Errorf("%w: field %s has kind %v", ErrUnsupported, fd.FullName(), fd.Kind())
	}
	return v, nil
}

// scalarKinds gives each scalar protobuf kind its value kind and the wire
// type of one value (plus one, so that 0 marks the kinds not in the table).
var scalarKinds = [...]struct {
	kind valueKind
	wt   protowire.Type
}{
	protoreflect.BoolKind: {vBool, 1}, protoreflect.Int32Kind: {vInt32, 1}, protoreflect.Sint32Kind: {vSint32, 1},
	protoreflect.Uint32Kind: {vUint32, 1}, protoreflect.Int64Kind: {vInt64, 1}, protoreflect.Sint64Kind: {vSint64, 1},
	protoreflect.Uint64Kind: {vUint64, 1}, protoreflect.Sfixed32Kind: {vSfixed32, 6}, protoreflect.Fixed32Kind: {vFixed32, 6},
	protoreflect.FloatKind: {vFloat, 6}, protoreflect.Sfixed64Kind: {vSfixed64, 2}, protoreflect.Fixed64Kind: {vFixed64, 2},
	protoreflect.DoubleKind: {vDouble, 2}, protoreflect.StringKind: {vString, 3}, protoreflect.BytesKind: {vBytes, 3},
}

// avroType is the Avro type of a value (of the wrapped value for wrappers).
func (v *valuePlan) avroType() avroschema.Type {
	switch v.kind {
	case vBool:
		return avroschema.Boolean
	case vInt32, vSint32, vSfixed32, vDate:
		return avroschema.Int
	case vUint32, vFixed32:
		if v.java32 {
			return avroschema.Int
		}
		return avroschema.Long
	case vUint64Dec, vFixed64Dec, vBytes:
		return avroschema.Bytes
	case vCarrier:
		if v.carrier == CarrierBytes {
			return avroschema.Bytes
		}
		return avroschema.String
	case vJSON:
		return avroschema.String
	case vFloat:
		return avroschema.Float
	case vDouble:
		return avroschema.Double
	case vString:
		return avroschema.String
	case vEnum:
		return avroschema.Enum
	case vMessage:
		return avroschema.Record
	case vWrapper:
		return v.inner.avroType()
	}
	return avroschema.Long // 64-bit integers, timestamps, times of day
}

// minSize is the least number of bytes the Avro value of v takes, as
// avrobin.MinSize counts it (the plan has no fixed types): 4 for a float, 8
// for a double, 0 for a record that takes none, else 1.
func (v *valuePlan) minSize() int {
	switch v.avroType() {
	case avroschema.Float:
		return 4
	case avroschema.Double:
		return 8
	case avroschema.Record:
		if v.msg.zeroSize {
			return 0
		}
	}
	return 1
}

// logicalType is the Avro logical type of a value, and its decimal precision.
func (v *valuePlan) logicalType() (string, int) {
	switch v.kind {
	case vUint64Dec, vFixed64Dec:
		return "decimal", 20
	case vTimestamp:
		return "timestamp-" + v.tsPrec.String(), 0
	case vDate:
		return "date", 0
	case vTimeOfDay:
		return "time-micros", 0
	case vWrapper:
		return v.inner.logicalType()
	}
	return "", 0
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

// absentBytes is the Avro encoding of the value written for an absent field.
func absentBytes(fd protoreflect.FieldDescriptor, v *valuePlan, dv protoreflect.Value) ([]byte, error) {
	var wire []byte
	switch v.kind {
	case vString: // the transcoder takes string and bytes values without their length
		wire = []byte(dv.String())
	case vBytes:
		wire = dv.Bytes()
	default:
		wire = appendWireValue(nil, v, dv)
	}
	st := encState{in: wire}
	out, err := st.scalar(nil, v, wire, 0)
	if err != nil {
		return nil, fmt.Errorf("protoavro: default of %s: %w", fd.FullName(), err)
	}
	return out, nil
}

// appendWireValue writes a scalar protoreflect value in wire form (no tag).
func appendWireValue(b []byte, v *valuePlan, pv protoreflect.Value) []byte {
	switch v.kind {
	case vBool:
		return protowire.AppendVarint(b, protowire.EncodeBool(pv.Bool()))
	case vEnum:
		return protowire.AppendVarint(b, uint64(pv.Enum()))
	case vInt32, vInt64:
		return protowire.AppendVarint(b, uint64(pv.Int()))
	case vSint32, vSint64:
		return protowire.AppendVarint(b, protowire.EncodeZigZag(pv.Int()))
	case vUint32, vUint64, vUint64Dec:
		return protowire.AppendVarint(b, pv.Uint())
	case vSfixed32:
		return protowire.AppendFixed32(b, uint32(pv.Int()))
	case vFixed32:
		return protowire.AppendFixed32(b, uint32(pv.Uint()))
	case vSfixed64:
		return protowire.AppendFixed64(b, uint64(pv.Int()))
	case vFixed64, vFixed64Dec:
		return protowire.AppendFixed64(b, pv.Uint())
	case vFloat:
		return protowire.AppendFixed32(b, math.Float32bits(float32(pv.Float())))
	case vDouble:
		return protowire.AppendFixed64(b, math.Float64bits(pv.Float()))
	case vString:
		return protowire.AppendString(b, pv.String())
	case vBytes:
		return protowire.AppendBytes(b, pv.Bytes())
	}
	return b
}

// zeroWire is the wire encoding (no tag) of a scalar's zero value.
func zeroWire(v *valuePlan) []byte {
	switch v.wt {
	case protowire.Fixed32Type:
		return make([]byte, 4)
	case protowire.Fixed64Type:
		return make([]byte, 8)
	}
	if v.kind == vEnum {
		return protowire.AppendVarint(nil, uint64(int64(v.enum.numbers[0])))
	}
	return []byte{0} // varint 0, empty string or bytes
}

// jsonDefault encodes a Go value as the JSON text of an Avro default.
func jsonDefault(v any) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		panic("protoavro: internal error: default " + err.Error())
	}
	return raw
}

// zeroDefault is the Avro default of a field with implicit presence: the
// protobuf zero value of its kind.
func zeroDefault(v *valuePlan) json.RawMessage {
	switch v.kind {
	case vBool:
		return jsonDefault(false)
	case vUint64Dec, vFixed64Dec:
		return jsonDefault("\u0000")
	case vString, vBytes:
		return jsonDefault("")
	case vEnum:
		return jsonDefault(v.enum.symbols[0])
	}
	return jsonDefault(0) // every number: int, long, float, double
}

// javaDefault converts an explicit proto2 default into the Avro default
// ProtobufData writes. Non-finite floating-point defaults have no JSON form
// (Java fails on them); the field then gets no default.
func javaDefault(fd protoreflect.FieldDescriptor, v *valuePlan) json.RawMessage {
	d := fd.Default()
	switch v.kind {
	case vBool:
		return jsonDefault(d.Bool())
	case vInt32, vSint32, vSfixed32, vInt64, vSint64, vSfixed64:
		return jsonDefault(d.Int())
	case vUint32, vFixed32:
		return jsonDefault(int32(d.Uint())) // Java's int holds the same 32 bits
	case vUint64, vFixed64:
		return jsonDefault(int64(d.Uint()))
	case vFloat:
		if !isFinite(d.Float()) {
			return nil
		}
		return jsonDefault(float32(d.Float()))
	case vDouble:
		if !isFinite(d.Float()) {
			return nil
		}
		return jsonDefault(d.Float())
	case vString:
		return jsonDefault(d.String())
	case vBytes:
		return jsonDefault(avroschema.BytesDefault(d.Bytes()))
	case vEnum:
		return jsonDefault(string(fd.DefaultEnumValue().Name()))
	}
	return nil
}

// isFinite reports whether a float default can be written as JSON.
func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// dynamicNames are the well-known types that DynamicAsJSON maps to JSON text.
var dynamicNames = map[protoreflect.FullName]bool{
	"google.protobuf.Struct":    true,
	"google.protobuf.Value":     true,
	"google.protobuf.ListValue": true,
	"google.protobuf.Any":       true,
}

// isDynamic reports whether md is one of the dynamic well-known types.
func isDynamic(md protoreflect.MessageDescriptor) bool { return dynamicNames[md.FullName()] }

// findCycles returns the message types reachable from root that lie on a
// cycle of message fields (through map values too), each with the index of
// its strongly connected component (Tarjan's algorithm, with a stack of its
// own rather than recursion: the chain of types may be as long as the
// descriptors are large). Only the types expands accepts are followed.
func findCycles(root protoreflect.MessageDescriptor, expands func(protoreflect.MessageDescriptor) bool) map[protoreflect.MessageDescriptor]int {
	type node struct {
		index, low int
		onStack    bool
	}
	nodes := map[protoreflect.MessageDescriptor]*node{}
	var stack []protoreflect.MessageDescriptor
	out := map[protoreflect.MessageDescriptor]int{}
	next, comp := 0, 0
	// frame is a type being visited: its fields are looked at in order,
	// from field on; self says whether one of them was the type itself.
	type frame struct {
		md    protoreflect.MessageDescriptor
		n     *node
		field int
		self  bool
	}
	var frames []frame
	push := func(md protoreflect.MessageDescriptor) {
		n := &node{index: next, low: next, onStack: true}
		nodes[md] = n
		next++
		stack = append(stack, md)
		frames = append(frames, frame{md: md, n: n})
	}
	if !expands(root) {
		return out
	}
	push(root)
	for len(frames) > 0 {
		f := &frames[len(frames)-1]
		fds := f.md.Fields()
		descended := false
		for f.field < fds.Len() {
			fd := fds.Get(f.field)
			f.field++
			if fd.IsMap() {
				fd = fd.MapValue()
			}
			t := fd.Message()
			if t == nil || !expands(t) {
				continue
			}
			if t == f.md {
				f.self = true
			}
			switch c := nodes[t]; {
			case c == nil:
				push(t)
				descended = true
			case c.onStack:
				f.n.low = min(f.n.low, c.index)
			}
			if descended {
				break
			}
		}
		if descended {
			continue
		}
		// Every field of f.md is done: pop it, close its component if it
		// is the component's root, and pass its low link to its parent.
		md, n, self := f.md, f.n, f.self
		frames = frames[:len(frames)-1]
		if len(frames) > 0 {
			parent := frames[len(frames)-1].n
			parent.low = min(parent.low, n.low)
		}
		if n.low != n.index {
			continue
		}
		var members []protoreflect.MessageDescriptor
		for {
			t := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			nodes[t].onStack = false
			members = append(members, t)
			if t == md {
				break
			}
		}
		if len(members) > 1 || self {
			for _, t := range members {
				out[t] = comp
			}
			comp++
		}
	}
	return out
}

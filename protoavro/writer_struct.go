package protoavro

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoimpl"
)

// This file holds the direct writer for generated message types: it reads
// the fields of the generated Go struct in place and writes Avro, with no
// intermediate protobuf encoding and no allocation. Package reflect is used
// once per Go type, to build the struct plan: the byte offset of every field,
// the Go kind stored there, and for oneofs the itab of each wrapper type (as
// protobuf-go's internal/impl computes its field offsets once per message
// type). Marshal and Unmarshal then use only those offsets (package unsafe;
// the invariants are stated at encodeStructField and ifaceWords), except for
// map fields. Types it cannot map (dynamicpb, the opaque API, unusual
// layouts: see openStruct) use the transcoding path instead; both produce
// the same bytes.

// goRepr is how a generated struct stores a field.
type goRepr uint8

const (
	gValue   goRepr = iota // T: implicit presence (proto3 scalars, proto3 bytes)
	gPtr                   // *T: explicit presence scalar; nil is unset
	gBytes                 // []byte with explicit presence: nil is unset
	gMsg                   // *M: nil is unset
	gList                  // []T or [][]byte
	gMsgList               // []*M
	gOneof                 // member of a oneof: interface field holding *Wrapper
	gReflect               // maps: read through protoreflect
)

type structField struct {
	f     *fieldPlan
	fd    protoreflect.FieldDescriptor
	index int // struct field index (the interface field for oneof members)
	// offset is the byte offset of that struct field in the message struct.
	offset uintptr
	// goKind is the kind of the stored scalar: the element for *T and []T,
	// the wrapper's value field for oneof members.
	goKind reflect.Kind
	repr   goRepr
	// Oneof members (gOneof): the wrapper pointer type, the first word of
	// the oneof interface when it holds that type (see ifaceWords), and the
	// representation of the wrapper's value field, which is at offset 0.
	wrapper reflect.Type
	itab    unsafe.Pointer
	wrapRep goRepr
	sub     *structPlan  // message values
	mtyp    reflect.Type // message values: the struct type M of the *M held
	// wk holds the byte offsets of a Timestamp's seconds and nanos, or of a
	// wrapper's value, in the struct mtyp; wkKind is the wrapper value's kind.
	wk     [2]uintptr
	wkKind reflect.Kind
	// val is the plan of the values: the field's own, or for maps read as
	// entry arrays the entry's value.
	val *valuePlan
	// inBlock says that the reader stores this gPtr field's value at
	// blockOff in the message's scalar block (structPlan.blockWords).
	inBlock  bool
	blockOff uintptr
}

// structKey identifies a struct plan: a Go type read by one message plan
// (a recursive type has a plan per level of recursion).
type structKey struct {
	typ reflect.Type
	m   *msgPlan
}

type structPlan struct {
	typ    reflect.Type // the struct type
	fields []structField
	msg    *msgPlan
	// blockWords is the size in 8-byte words of the block the reader
	// allocates once per message for the explicit-presence scalars without
	// pointers (*int32, *float64, *bool...), when there are two or more:
	// each such field then points into the block (structField.blockOff)
	// instead of into an allocation of its own.
	blockWords int
}

// structPlans memoizes plans per (codec writer plan, Go type); a failed
// mapping is stored as nil so it is tried once.
type structPlanner struct {
	mu    sync.Mutex
	plans map[structKey]*structPlan
	bad   map[structKey]bool
}

// plan returns the direct plan of a generated message type, or nil.
func (sp *structPlanner) plan(m *msgPlan, mt protoreflect.MessageType, md protoreflect.MessageDescriptor) *structPlan {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.plans == nil {
		sp.plans = map[structKey]*structPlan{}
		sp.bad = map[structKey]bool{}
	}
	p, ok := buildStructPlan(sp, m, mt, md)
	if !ok {
		return nil
	}
	return p
}

func buildStructPlan(sp *structPlanner, m *msgPlan, mt protoreflect.MessageType, md protoreflect.MessageDescriptor) (*structPlan, bool) {
	pt := reflect.TypeOf(mt.Zero().Interface())
	if pt == nil || pt.Kind() != reflect.Pointer || pt.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	st := pt.Elem()
	k := structKey{st, m}
	if p, ok := sp.plans[k]; ok {
		return p, true
	}
	if sp.bad[k] || !openStruct(st) {
		return nil, false
	}
	p := &structPlan{typ: st, msg: m, fields: make([]structField, len(m.fields))}
	sp.plans[k] = p
	fail := func() (*structPlan, bool) {
		delete(sp.plans, k)
		sp.bad[k] = true
		return nil, false
	}
	byNum := map[protowire.Number]int{}
	oneofIdx := map[string]int{}
	for i := range st.NumField() {
		sf := st.Field(i)
		if tag := sf.Tag.Get("protobuf"); tag != "" {
			parts := strings.Split(tag, ",")
			if len(parts) < 2 {
				return fail()
			}
			n, err := strconv.Atoi(parts[1])
			if err != nil {
				return fail()
			}
			byNum[protowire.Number(n)] = i
		} else if name := sf.Tag.Get("protobuf_oneof"); name != "" {
			oneofIdx[name] = i
		} else if strings.HasPrefix(sf.Name, "XXX_") {
			return fail() // legacy layout
		}
	}
	fds := md.Fields()
	for i := range m.fields {
		fd := fds.Get(i)
		f := &m.fields[i]
		if f.val.kind == vCarrier || f.val.kind == vJSON || f.val.kind == vDate || f.val.kind == vTimeOfDay {
			return fail() // messages carried whole, google.type values: the protoreflect path
		}
		sfd := structField{f: f, fd: fd}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			idx, ok := oneofIdx[string(od.Name())]
			if !ok {
				return fail()
			}
			sfd.index, sfd.repr, sfd.offset = idx, gOneof, st.Field(idx).Offset
			if !oneofMember(&sfd, mt, fd, st) {
				return fail()
			}
		} else {
			idx, ok := byNum[fd.Number()]
			if !ok {
				return fail()
			}
			sfd.index = idx
			t := st.Field(idx).Type
			sfd.offset = st.Field(idx).Offset
			switch k := t.Kind(); {
			case k == reflect.Pointer || (k == reflect.Slice && t.Elem().Kind() != reflect.Uint8):
				sfd.goKind = t.Elem().Kind()
			default:
				sfd.goKind = k
			}
			switch {
			case fd.IsMap():
				sfd.repr = gReflect
			case fd.IsList() && fd.Message() != nil:
				sfd.repr = gMsgList
			case fd.IsList():
				sfd.repr = gList
			case fd.Message() != nil:
				sfd.repr = gMsg
			case t.Kind() == reflect.Pointer:
				sfd.repr = gPtr
			case f.val.kind == vBytes && fd.HasPresence():
				sfd.repr = gBytes
			case fd.HasPresence():
				return fail() // explicit presence without a pointer: opaque API
			default:
				sfd.repr = gValue
			}
		}
		sfd.val = &f.val
		if f.mode == modeEntries {
			sfd.val = &f.entry.fields[1].val
		}
		msgRepr := sfd.repr == gMsg || sfd.repr == gMsgList || sfd.wrapRep == gMsg || (sfd.repr == gReflect && fd.MapValue().Message() != nil)
		if msgRepr {
			sfd.mtyp = reflect.TypeOf(messageTypeOf(fd, mt, sfd).Zero().Interface()).Elem()
		}
		if (sfd.val.kind == vTimestamp || sfd.val.kind == vWrapper) && msgRepr && !wellKnownOffsets(&sfd) {
			return fail()
		}
		if sfd.val.kind == vMessage && msgRepr {
			sub, ok := buildStructPlan(sp, sfd.val.msg, messageTypeOf(fd, mt, sfd), sfd.val.msg.desc)
			if !ok {
				return fail()
			}
			sfd.sub = sub
		}
		p.fields[i] = sfd
	}
	p.blockWords = scalarBlock(p.fields)
	return p, true
}

// scalarBlock lays out the block of the explicit-presence scalars without
// pointers of a message (each at an offset aligned to its size) and returns
// its size in words, or 0 when fewer than two fields would share it.
func scalarBlock(fields []structField) int {
	var size uintptr
	n := 0
	for i := range fields {
		sf := &fields[i]
		if sf.repr != gPtr {
			continue
		}
		var w uintptr
		switch sf.goKind {
		case reflect.Bool:
			w = 1
		case reflect.Int32, reflect.Uint32, reflect.Float32:
			w = 4
		case reflect.Int64, reflect.Uint64, reflect.Float64:
			w = 8
		default:
			continue // strings hold a pointer: an allocation of their own
		}
		size = (size + w - 1) &^ (w - 1)
		sf.inBlock, sf.blockOff = true, size
		size += w
		n++
	}
	if n < 2 {
		for i := range fields {
			fields[i].inBlock = false
		}
		return 0
	}
	return int((size + 7) / 8)
}

// ifaceWords is the run-time layout of a non-empty interface value, such as
// a oneof field of a generated struct: the itab of its dynamic type, then
// the data word, which for a pointer type is the pointer itself. An itab is
// unique per (interface, dynamic type) pair in a process, which is what the
// compiler relies on when it compiles x.(*T) as one comparison of the first
// word; the direct paths rely on it the same way, and oneofMember checks
// the layout before any plan uses it.
type ifaceWords struct{ tab, data unsafe.Pointer }

// oneofMember fills in the wrapper of a oneof member: its type, its itab in
// the oneof interface field at sf.offset of the struct st, and how its value
// is stored. It reports false when the layout is not the expected one.
func oneofMember(sf *structField, mt protoreflect.MessageType, fd protoreflect.FieldDescriptor, st reflect.Type) bool {
	// Find the wrapper type by setting the member on a new message.
	set := func() (reflect.Value, *ifaceWords) {
		nm := mt.New()
		if fd.Message() != nil {
			nm.Set(fd, protoreflect.ValueOfMessage(nm.NewField(fd).Message()))
		} else {
			nm.Set(fd, nm.NewField(fd))
		}
		pv := reflect.ValueOf(nm.Interface())
		return pv.Elem().Field(sf.index), (*ifaceWords)(unsafe.Add(pv.UnsafePointer(), sf.offset))
	}
	iv, w := set()
	if iv.Kind() != reflect.Interface || iv.IsNil() || iv.Elem().Kind() != reflect.Pointer ||
		iv.Elem().Elem().NumField() != 1 || iv.Elem().Elem().Type().Field(0).Offset != 0 {
		return false
	}
	sf.wrapper = iv.Elem().Type()
	_, w2 := set()
	if w.data != iv.Elem().UnsafePointer() || w.tab == nil || w2.tab != w.tab {
		return false
	}
	sf.itab = w.tab
	// The reader stores the two words itself: check that reflect then reads
	// back the wrapper it stored.
	probe := reflect.New(st)
	wp := reflect.New(sf.wrapper.Elem())
	*(*ifaceWords)(unsafe.Add(probe.UnsafePointer(), sf.offset)) = ifaceWords{sf.itab, wp.UnsafePointer()}
	if got := probe.Elem().Field(sf.index); got.IsNil() || got.Elem().Type() != sf.wrapper || got.Elem().UnsafePointer() != wp.UnsafePointer() {
		return false
	}
	inner := sf.wrapper.Elem().Field(0).Type
	sf.goKind = inner.Kind()
	switch {
	case fd.Message() != nil:
		sf.wrapRep = gMsg
	case inner.Kind() == reflect.Slice:
		sf.wrapRep = gBytes
	default:
		sf.wrapRep = gValue
	}
	return true
}

// wellKnownOffsets finds the fields of a Timestamp (seconds, nanos) or of a
// wrapper (value) in sf.mtyp and checks their Go types.
func wellKnownOffsets(sf *structField) bool {
	idx := tagIndexes(sf.mtyp)
	i1, ok1 := idx[1]
	if !ok1 {
		return false
	}
	f1 := sf.mtyp.Field(i1)
	sf.wk[0], sf.wkKind = f1.Offset, f1.Type.Kind()
	if sf.val.kind == vWrapper {
		switch sf.wkKind {
		case reflect.Bool, reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64, reflect.String:
			return true
		case reflect.Slice:
			return f1.Type.Elem().Kind() == reflect.Uint8
		}
		return false
	}
	i2, ok2 := idx[2]
	if !ok2 || sf.wkKind != reflect.Int64 || sf.mtyp.Field(i2).Type.Kind() != reflect.Int32 {
		return false
	}
	sf.wk[1] = sf.mtyp.Field(i2).Offset
	return true
}

// messageStateType is the type of the first field of every message struct
// protoc-gen-go generates.
var messageStateType = reflect.TypeFor[protoimpl.MessageState]()

// openStruct reports whether st is a message struct generated by
// protoc-gen-go with the open (or hybrid) API, whose fields the direct paths
// read and write. It detects the layout as protobuf-go does (internal/impl's
// isOpaque): the first field is the message state, and its protogen tag
// names the API level. The opaque API keeps fields unexported, behind
// presence bits, and dynamicpb and other implementations have no message
// state: they all take the protoreflect path.
func openStruct(st reflect.Type) bool {
	if st.NumField() == 0 || st.Field(0).Type != messageStateType {
		return false
	}
	return !strings.HasPrefix(st.Field(0).Tag.Get("protogen"), "opaque.")
}

// tagIndexes maps field numbers to struct field indexes of a generated struct.
func tagIndexes(t reflect.Type) map[protowire.Number]int {
	out := map[protowire.Number]int{}
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("protobuf"); tag != "" {
			parts := strings.Split(tag, ",")
			if len(parts) >= 2 {
				if n, err := strconv.Atoi(parts[1]); err == nil {
					out[protowire.Number(n)] = i
				}
			}
		}
	}
	return out
}

// messageTypeOf returns the message type of a message field of a generated message.
func messageTypeOf(fd protoreflect.FieldDescriptor, parent protoreflect.MessageType, _ structField) protoreflect.MessageType {
	m := parent.New()
	if fd.IsMap() {
		return m.NewField(fd).Map().NewValue().Message().Type()
	}
	if fd.IsList() {
		return m.NewField(fd).List().NewElement().Message().Type()
	}
	return m.NewField(fd).Message().Type()
}

// encodeStruct writes the record of a generated message of plan p from its
// struct at base (a *M's pointer, never nil).
func (st *encState) encodeStruct(dst []byte, p *structPlan, base unsafe.Pointer) ([]byte, error) {
	st.depth++
	if st.depth > maxDepth+1 { // the top-level message is at depth 1
		return dst, dataErr(ErrTooDeep, 0, "more than %d nested messages", maxDepth)
	}
	if p.msg.zeroSize && st.depth > 1 {
		if err := st.zeroItem(0); err != nil {
			return dst, err
		}
	}
	var err error
	for i := range p.fields {
		sf := &p.fields[i]
		if dst, err = st.encodeStructField(dst, p, sf, base); err != nil {
			st.depth--
			return dst, inField(err, sf.f.name)
		}
	}
	st.depth--
	if p.msg.placeholder {
		dst = append(dst, 0) // the placeholder field's null
	}
	if len(dst) > st.limit {
		return dst, errTooLarge(0)
	}
	return dst, nil
}

// The struct fields are read in place through their offsets in the plan
// (structField.offset, .wk), which buildStructPlan took from package reflect
// for this very Go type: base is always a pointer to a struct of type
// p.typ, so each offset addresses a field of the recorded Go type. Lists are
// read through their slice headers (pointer, length, capacity), []*M as
// []unsafe.Pointer (same layout, all pointers), and oneof interfaces as
// ifaceWords.

func (st *encState) encodeStructField(dst []byte, p *structPlan, sf *structField, base unsafe.Pointer) ([]byte, error) {
	f := sf.f
	fp := unsafe.Add(base, sf.offset)
	// A singular value: vp addresses it (nil when unset), a message
	// through its *M.
	var vp unsafe.Pointer
	msg := false
	switch sf.repr {
	case gValue:
		if f.mode == modeImplicit && f.absent != nil && isZeroAt(sf.goKind, fp) {
			return append(dst, f.absent...), nil
		}
		vp = fp
	case gPtr:
		vp = *(*unsafe.Pointer)(fp)
	case gBytes:
		if *(*[]byte)(fp) != nil {
			vp = fp
		}
	case gMsg:
		if *(*unsafe.Pointer)(fp) != nil {
			vp, msg = fp, true
		}
	case gOneof:
		// A set member is present even when zero, bytes when empty, and a
		// message when its pointer is nil: proto.Marshal writes it as the
		// empty message. Its value is the wrapper's only field, at offset 0.
		if w := (*ifaceWords)(fp); w.tab == sf.itab { // not another member, nor none
			vp, msg = w.data, sf.wrapRep == gMsg // nil for a nil wrapper
		}
	case gList:
		return appendScalarList(dst, &f.val, sf.goKind, fp, st.policy)
	case gMsgList:
		list := *(*[]unsafe.Pointer)(fp)
		if len(list) == 0 {
			return append(dst, 0), nil
		}
		dst = appendLong(dst, int64(len(list)))
		var err error
		for j, mp := range list {
			if dst, err = st.goMessage(dst, sf, mp); err != nil {
				return dst, inIndex(err, j)
			}
		}
		return append(dst, 0), nil
	case gReflect:
		return st.encodeMapReflect(dst, sf, reflect.NewAt(p.typ, base).Elem())
	default:
		return dst, dataErr(ErrMalformed, 0, "internal error: field representation %d", sf.repr)
	}
	if vp == nil {
		return st.absentStruct(dst, sf)
	}
	if f.mode == modeNullable {
		dst = append(dst, 2)
	}
	if msg {
		return st.goMessage(dst, sf, *(*unsafe.Pointer)(vp))
	}
	return appendScalarAt(dst, &f.val, sf.goKind, vp, st.policy)
}

// isZeroAt reports whether the implicit-presence value at p is unset
// (protobuf's rule: zero, with -0.0 and NaN counted as set, and empty bytes
// as unset).
func isZeroAt(k reflect.Kind, p unsafe.Pointer) bool {
	switch k {
	case reflect.Bool:
		return !*(*bool)(p)
	case reflect.Int32, reflect.Uint32, reflect.Float32:
		return *(*uint32)(p) == 0
	case reflect.Int64, reflect.Uint64, reflect.Float64:
		return *(*uint64)(p) == 0
	case reflect.String:
		return len(*(*string)(p)) == 0
	}
	return len(*(*[]byte)(p)) == 0
}

// appendScalarAt writes the scalar of Go kind k stored at p.
func appendScalarAt(dst []byte, v *valuePlan, k reflect.Kind, p unsafe.Pointer, policy UnknownEnumPolicy) ([]byte, error) {
	switch k {
	case reflect.Bool:
		if *(*bool)(p) {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case reflect.Int32:
		if v.kind == vEnum {
			idx, err := v.enum.index(*(*int32)(p), 0, policy, v.enumDef)
			if err != nil {
				return dst, err
			}
			return appendLong(dst, int64(idx)), nil
		}
		return appendLong(dst, int64(*(*int32)(p))), nil
	case reflect.Int64:
		return appendLong(dst, *(*int64)(p)), nil
	case reflect.Uint32:
		if v.java32 {
			return appendLong(dst, int64(*(*int32)(p))), nil
		}
		return appendLong(dst, int64(*(*uint32)(p))), nil
	case reflect.Uint64:
		if v.kind == vUint64Dec || v.kind == vFixed64Dec {
			return appendDecimalUint64(dst, *(*uint64)(p)), nil
		}
		return appendLong(dst, int64(*(*uint64)(p))), nil
	case reflect.Float32:
		u := *(*uint32)(p)
		return append(dst, byte(u), byte(u>>8), byte(u>>16), byte(u>>24)), nil
	case reflect.Float64:
		u := *(*uint64)(p)
		return append(dst, byte(u), byte(u>>8), byte(u>>16), byte(u>>24), byte(u>>32), byte(u>>40), byte(u>>48), byte(u>>56)), nil
	case reflect.String:
		s := *(*string)(p)
		if !utf8.ValidString(s) {
			return dst, dataErr(ErrMalformed, 0, "string is not valid UTF-8")
		}
		dst = appendLong(dst, int64(len(s)))
		return append(dst, s...), nil
	}
	return appendAvroBytes(dst, *(*[]byte)(p)), nil
}

// appendScalarList writes the []T of Go element kind k at p as one block.
func appendScalarList(dst []byte, v *valuePlan, k reflect.Kind, p unsafe.Pointer, policy UnknownEnumPolicy) ([]byte, error) {
	// Every slice header has the same layout: read length and data pointer.
	hdr := (*struct {
		data unsafe.Pointer
		n    int
		c    int
	})(p)
	if hdr.n == 0 {
		return append(dst, 0), nil
	}
	size := goScalars[k].size
	dst = appendLong(dst, int64(hdr.n))
	var err error
	for j := range hdr.n {
		if dst, err = appendScalarAt(dst, v, k, unsafe.Add(hdr.data, uintptr(j)*size), policy); err != nil {
			return dst, inIndex(err, j)
		}
	}
	return append(dst, 0), nil
}

// absentStruct writes an unset singular field.
func (st *encState) absentStruct(dst []byte, sf *structField) ([]byte, error) {
	switch sf.f.mode {
	case modeNullable:
		return append(dst, 0), nil
	case modeRequired:
		return dst, dataErr(ErrMissingRequired, 0, "")
	}
	if sf.f.absent != nil {
		return append(dst, sf.f.absent...), nil
	}
	return st.encodeValue(dst, &sf.f.val, -1, -1)
}

// goMessage writes a message value held as a *M (mp: its pointer; nil, in
// a list, writes the empty message).
func (st *encState) goMessage(dst []byte, sf *structField, mp unsafe.Pointer) ([]byte, error) {
	v := &sf.f.val
	switch v.kind {
	case vMessage:
		if mp == nil {
			return st.encodeMessage(dst, v.msg, -1)
		}
		return st.encodeStruct(dst, sf.sub, mp)
	case vTimestamp:
		if mp == nil {
			return st.appendTimestamp(dst, v, 0, 0)
		}
		return st.appendTimestamp(dst, v, *(*int64)(unsafe.Add(mp, sf.wk[0])), int64(*(*int32)(unsafe.Add(mp, sf.wk[1]))))
	case vWrapper:
		if mp == nil {
			return st.scalarZero(dst, v.inner), nil
		}
		return appendScalarAt(dst, v.inner, sf.wkKind, unsafe.Add(mp, sf.wk[0]), st.policy)
	}
	return dst, dataErr(ErrMalformed, 0, "internal error: kind %d", v.kind)
}

// encodeMapReflect writes a map field through protoreflect by marshalling
// the field alone and transcoding it (maps are rare on hot paths).
func (st *encState) encodeMapReflect(dst []byte, sf *structField, sv reflect.Value) ([]byte, error) {
	m := sv.Addr().Interface().(proto.Message).ProtoReflect()
	if !m.Has(sf.fd) {
		return append(dst, 0), nil
	}
	tmp := m.Type().New()
	tmp.Set(sf.fd, m.Get(sf.fd))
	one := &msgPlan{name: sf.f.name, fields: []fieldPlan{*sf.f}, dense: nil, sparse: map[protowire.Number]int{sf.f.num: 0}}
	one.fields[0].oneof = -1
	one.finish()
	wire, err := proto.MarshalOptions{AllowPartial: true, Deterministic: true}.Marshal(tmp.Interface())
	if err != nil {
		// What proto.Marshal refuses is in the map's entries: named by the
		// path below the field, which the caller adds.
		if rerr := refusedValue(one, tmp); rerr != nil {
			outOfField(rerr, sf.f.name)
			return dst, rerr
		}
		return dst, &DataError{Offset: -1, Err: fmt.Errorf("%w: %w", ErrMalformed, err)}
	}
	sub := encState{in: wire, occ: []occ{}}
	sub.occ = append(sub.occ, occ{start: 0, end: int32(len(wire)), wt: protowire.BytesType, next: -1})
	sub.depth, sub.policy, sub.resolver, sub.empty, sub.limit = st.depth, st.policy, st.resolver, st.empty, st.limit
	out, err := sub.encodeMessage(dst, one, 0)
	st.empty, st.rounded = sub.empty, st.rounded+sub.rounded
	if err != nil {
		outOfField(err, sf.f.name)
	}
	return out, err
}

// directPlan is the published result of mapping one Go type: plan is nil
// when the type uses the transcoding path.
type directPlan struct {
	typ      reflect.Type // the pointer type of the message
	plan     *structPlan
	readable bool // the direct reader handles the plan (default profile)
}

// direct returns the direct plan for m's Go type, or nil.
func (c *Codec) direct(m proto.Message) *structPlan {
	return c.directPlan(m).plan
}

// seenDirect returns the direct plan of m's Go type when it is the last
// one Marshal or Unmarshal mapped and has a plan, and m is not a nil
// pointer; else nil. Such a type is generated code whose descriptor, fixed
// by the Go type, was checked against the codec's when the plan was made,
// so the caller may skip check (and its ProtoReflect call).
func (c *Codec) seenDirect(m proto.Message) *directPlan {
	d := c.directp.Load()
	if d == nil || d.plan == nil || m == nil || reflect.TypeOf(m) != d.typ || isNilPointer(m) {
		return nil
	}
	return d
}

func (c *Codec) directPlan(m proto.Message) *directPlan {
	t := reflect.TypeOf(m)
	if d := c.directp.Load(); d != nil && d.typ == t {
		return d
	}
	mr := m.ProtoReflect()
	p := c.planner.plan(c.enc, mr.Type(), mr.Descriptor())
	d := &directPlan{typ: t, plan: p}
	if p != nil && c.opts.Profile == DefaultProfile {
		d.readable = readablePlan(p, map[*structPlan]bool{})
	}
	c.directp.Store(d)
	return d
}

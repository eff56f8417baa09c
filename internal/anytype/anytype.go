// Package anytype finds the google.protobuf.Any value whose type a resolver
// does not know, in a message or in its protojson text, and names its
// field path: protojson's own error names neither the field nor, for a
// message it writes, where the value is. The library (protoavro) and the
// protoavro command use it to report such a value as an unknown type, not
// as malformed input.
//
// It also finds the Any whose JSON form protojson writes but cannot read
// back ([ClashInMessage]): one that packs a message with a set field whose
// JSON name is "@type", which protojson writes beside the Any's own "@type"
// member. [Watch] tells a writer when to look for one.
package anytype

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"sync/atomic"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/mapkeys"
	"github.com/protoavro/protoavro/internal/safetext"
)

// Resolver finds message types by type URL; protoregistry.Types and
// dynamicpb.Types are ones.
type Resolver interface {
	FindMessageByURL(url string) (protoreflect.MessageType, error)
}

// FullResolver is protojson's resolver of message and extension types.
type FullResolver interface {
	protoregistry.ExtensionTypeResolver
	protoregistry.MessageTypeResolver
}

// maxDepth bounds the walk, as protobuf's own recursion limit does.
const maxDepth = 100

// maxKey bounds a map key or JSON member name in a path, in bytes.
const maxKey = 64

// anyName is google.protobuf.Any's full name.
const anyName = "google.protobuf.Any"

// typeMember is the member of an Any's JSON object that holds its type URL.
const typeMember = "@type"

// Unknown is an Any value whose type URL a resolver does not know.
type Unknown struct {
	// Path is the field path of the Any from the message walked, in
	// field names ("payload", "entries[2].detail", `labels."k"`); empty
	// when the message itself is the Any. Map keys are quoted, names
	// escaped and the path bounded as avrobin.PrefixPath renders it.
	Path string
	// URL is the Any's type URL.
	URL string
}

// Describe says what is unknown and where: `"URL"`, or `"URL" at PATH`,
// the URL quoted, escaped and cut to 300 bytes.
func (u Unknown) Describe() string {
	url := safetext.Quote(u.URL, 300)
	if u.Path == "" {
		return url
	}
	return url + " at " + u.Path
}

// Clash is an Any value that packs a message with a set field whose JSON
// name is "@type" (json_name = "@type"): protojson writes that field in
// the Any's JSON object beside the Any's own "@type" member, and no reader
// of the protobuf JSON mapping takes the object (protojson: duplicate
// "@type" field).
type Clash struct {
	// Path is the field path of the Any, as Unknown.Path.
	Path string
	// URL is the Any's type URL.
	URL string
	// Field is the full name of the packed message's field.
	Field protoreflect.FullName
}

// Describe says which field clashes and where.
func (c Clash) Describe() string {
	s := "field " + safetext.Escape(string(c.Field), 300) + ` has the JSON name "@type", the member that holds the type URL in the JSON form of the google.protobuf.Any that packs it (` + safetext.Quote(c.URL, 300)
	if c.Path != "" {
		s += " at " + c.Path
	}
	return s + `): its JSON would have two "@type" members, which protojson refuses to read`
}

// TypeMemberField returns the field of md whose JSON name is "@type", or
// nil when md has none or is a well-known type that protojson writes in
// an Any as the "value" member.
func TypeMemberField(md protoreflect.MessageDescriptor) protoreflect.FieldDescriptor {
	fd := md.Fields().ByJSONName(typeMember)
	if fd == nil || customJSON(md.FullName()) {
		return nil
	}
	return fd
}

// customJSON reports whether protojson writes a message of the type in an
// Any as {"@type": URL, "value": JSON}: the well-known types with a JSON
// form of their own.
func customJSON(name protoreflect.FullName) bool {
	switch name {
	case "google.protobuf.Any", "google.protobuf.Timestamp", "google.protobuf.Duration",
		"google.protobuf.BoolValue", "google.protobuf.Int32Value", "google.protobuf.Int64Value",
		"google.protobuf.UInt32Value", "google.protobuf.UInt64Value", "google.protobuf.FloatValue",
		"google.protobuf.DoubleValue", "google.protobuf.StringValue", "google.protobuf.BytesValue",
		"google.protobuf.Struct", "google.protobuf.ListValue", "google.protobuf.Value",
		"google.protobuf.FieldMask", "google.protobuf.Empty":
		return true
	}
	return false
}

// Watch is a resolver for protojson.Marshal that passes every call to
// FullResolver and notes when a type it finds has a field whose JSON name
// is "@type" ([TypeMemberField]): only then can the JSON written hold a
// [Clash], which [ClashInMessage] finds. The note stays once made. A Watch
// is safe for concurrent use when its FullResolver is.
type Watch struct {
	FullResolver
	seen atomic.Bool
}

// FindMessageByURL finds the type by FullResolver and notes a type with a
// field whose JSON name is "@type".
func (w *Watch) FindMessageByURL(url string) (protoreflect.MessageType, error) {
	mt, err := w.FullResolver.FindMessageByURL(url)
	if err == nil && !w.seen.Load() && TypeMemberField(mt.Descriptor()) != nil {
		w.seen.Store(true)
	}
	return mt, err
}

// Seen reports whether a type with a field whose JSON name is "@type" was
// found.
func (w *Watch) Seen() bool { return w.seen.Load() }

// InMessage returns the first Any in m (in the order protojson writes
// them: fields in declaration order, depth first, map entries by key, the
// messages packed in Any values whose type r knows included) whose type
// URL r does not know. An Any with no type URL has no type to know: empty,
// it is valid ({}), and with a value protojson refuses it as malformed. A
// nil r is protoregistry.GlobalTypes.
func InMessage(m protoreflect.Message, r Resolver) (Unknown, bool) {
	w := walk(m, r, false)
	return Unknown{Path: w.found, URL: w.url}, w.ok
}

// ClashInMessage returns the first Any in m, in the order of InMessage,
// that is a [Clash]. A nil r is protoregistry.GlobalTypes.
func ClashInMessage(m protoreflect.Message, r Resolver) (Clash, bool) {
	w := walk(m, r, true)
	return Clash{Path: w.found, URL: w.url, Field: w.field}, w.ok
}

func walk(m protoreflect.Message, r Resolver, clash bool) *walker {
	if r == nil {
		r = protoregistry.GlobalTypes
	}
	w := &walker{r: r, clash: clash}
	w.message(m, 0)
	return w
}

// walker walks a message for the first Any that is unknown (clash false)
// or a Clash (clash true).
type walker struct {
	r     Resolver
	clash bool
	// path holds the elements of the path to the value walked, outermost
	// first.
	path  []string
	ok    bool
	found string // the rendered path of what was found
	url   string
	field protoreflect.FullName
}

// find records what was found at the current path.
func (w *walker) find(url string, field protoreflect.FullName) {
	w.ok, w.url, w.field = true, url, field
	w.found = renderPath(w.path)
}

// renderPath renders a path (elements outermost first) as
// avrobin.PrefixPath does: escaped, each element bounded, the middle of a
// long path elided.
func renderPath(path []string) string {
	if len(path) == 0 {
		return ""
	}
	inner := make([]string, 0, len(path)-1)
	for i := len(path) - 1; i >= 1; i-- {
		inner = append(inner, path[i])
	}
	_, s := avrobin.PrefixPath(inner, "", path[0])
	return s
}

func (w *walker) message(m protoreflect.Message, depth int) {
	if w.ok || depth > maxDepth {
		return
	}
	md := m.Descriptor()
	if md.FullName() == anyName {
		w.any(m, depth)
		return
	}
	fields := md.Fields()
	for i := 0; i < fields.Len() && !w.ok; i++ {
		fd := fields.Get(i)
		if !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		w.path = append(w.path, string(fd.Name()))
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for j := 0; j < l.Len() && !w.ok; j++ {
				w.path = append(w.path, "["+strconv.Itoa(j)+"]")
				w.message(l.Get(j).Message(), depth+1)
				w.path = w.path[:len(w.path)-1]
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			mp := v.Map()
			for _, k := range mapkeys.Sorted(mp) {
				if w.ok {
					break
				}
				w.path = append(w.path, safetext.Quote(k.String(), maxKey))
				w.message(mp.Get(k).Message(), depth+1)
				w.path = w.path[:len(w.path)-1]
			}
		case fd.Message() != nil && !fd.IsList() && !fd.IsMap():
			w.message(v.Message(), depth+1)
		}
		w.path = w.path[:len(w.path)-1]
	}
}

// any checks the Any m and walks the message it packs.
func (w *walker) any(m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	urlField, valueField := fields.ByNumber(1), fields.ByNumber(2)
	if urlField == nil || valueField == nil {
		return
	}
	url := m.Get(urlField).String()
	if url == "" {
		return // no type to know: {} when empty, malformed with a value
	}
	mt, err := w.r.FindMessageByURL(url)
	if err != nil {
		if !w.clash {
			w.find(url, "")
		}
		return
	}
	packed := mt.New()
	defer func() {
		// protobuf-go's dynamicpb may panic on hostile map entries; such
		// bytes are the caller's to report.
		_ = recover()
	}()
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(m.Get(valueField).Bytes(), packed.Interface()); err != nil {
		return // not this walk's business: the caller reports the bytes
	}
	if w.clash {
		if fd := TypeMemberField(mt.Descriptor()); fd != nil && packed.Has(fd) {
			w.find(url, fd.FullName())
			return
		}
	}
	w.message(packed, depth+1)
}

// InJSON returns the first google.protobuf.Any in the JSON text (protojson's
// form of a message of type md) whose "@type" r does not know, and its
// path in JSON member names ("protoPayload", "entries[2].detail", map keys
// quoted: `labels."k"`). The text is walked by md, as protojson reads it:
// fields by JSON or proto name, the messages packed in Any values whose
// type r knows included; members that are not fields, and the JSON values
// of Struct, Value and ListValue, which hold no Any (an "@type" key there
// is data), are passed over. A nil r is protoregistry.GlobalTypes. Text
// that is not JSON finds nothing, nor does an Any without "@type" or with
// an empty one (protojson refuses them as malformed), nor a nil md.
func InJSON(text []byte, md protoreflect.MessageDescriptor, r Resolver) (Unknown, bool) {
	v, r, ok := decodeJSON(text, md, r)
	if !ok {
		return Unknown{}, false
	}
	j := &jsonWalker{r: r}
	j.message(v, md, false, 0)
	return Unknown{Path: j.found, URL: j.url}, j.anyFound
}

// Member is a member of protobuf JSON text that protojson refuses, and
// that its DiscardUnknown option drops instead ([UnknownInJSON]).
type Member struct {
	// Kind says what is unknown; 0 for no member.
	Kind MemberKind
	// Path is where it is, in the form of [Unknown.Path], from the message
	// walked: the member's own path ("httpRequest.foo", "entries[3].x",
	// `labels."k".x`) for a FieldMember and an EnumName, the Any's for an
	// UntypedAny.
	Path string
	// Value is the enum value name of an EnumName.
	Value string
}

// MemberKind is the kind of a [Member].
type MemberKind uint8

const (
	// FieldMember is a member that names no field of its message: not a
	// field's JSON name nor its proto name, nor, in brackets, an extension
	// of the message that the resolver knows (protojson: unknown field).
	// DiscardUnknown drops it, value and all.
	FieldMember MemberKind = iota + 1
	// EnumName is the value of an enum field, or of an element of a list
	// or map of enums, that is a name its enum does not declare (protojson:
	// invalid value). DiscardUnknown leaves the field unset, or the
	// element out: the value is lost, not a field.
	EnumName
	// UntypedAny is a google.protobuf.Any whose object has members but no
	// "@type" (protojson: missing "@type"). DiscardUnknown drops the whole
	// Any.
	UntypedAny
)

// Unknowns are what [UnknownInJSON] finds in JSON text.
type Unknowns struct {
	// Any is the first Any whose type the resolver does not know, the one
	// [InJSON] finds; AnyFound says that there is one.
	Any      Unknown
	AnyFound bool
	// Field is the first member that names no field of its message (Kind
	// FieldMember), Other the first value that DiscardUnknown drops
	// otherwise (an EnumName or an UntypedAny); Kind 0 where there is
	// none.
	Field, Other Member
}

// UnknownInJSON walks the JSON text of a message of type md, as [InJSON]
// walks it, for all that protojson refuses as unknown: the first Any of a
// type r does not know (as InJSON), which no option of protojson reads;
// and, in InJSON's order, the first member that names no field of its
// message and the first other value, which its DiscardUnknown option drops
// instead. Fields are found in messages at any depth: in lists, map
// values, and the messages packed in Any values whose type r knows (the
// Any of a type r does not know is not walked into); the JSON of the
// well-known types with a JSON form of their own is protojson's (a Struct
// takes any member), except google.protobuf.Empty, which has no field. A
// nil r is protoregistry.GlobalTypes; extensions are found when r is also
// a protoregistry.ExtensionTypeResolver. Text that is not JSON finds
// nothing, nor does a nil md.
func UnknownInJSON(text []byte, md protoreflect.MessageDescriptor, r Resolver) Unknowns {
	v, r, ok := decodeJSON(text, md, r)
	if !ok {
		return Unknowns{}
	}
	j := &jsonWalker{r: r, members: true}
	j.message(v, md, false, 0)
	return Unknowns{Any: Unknown{Path: j.found, URL: j.url}, AnyFound: j.anyFound, Field: j.unknown, Other: j.other}
}

// decodeJSON decodes text, numbers kept as json.Number, for a walk by md,
// and returns it with r, protoregistry.GlobalTypes for a nil r; false for
// a nil md or text that is not JSON.
func decodeJSON(text []byte, md protoreflect.MessageDescriptor, r Resolver) (any, Resolver, bool) {
	if md == nil {
		return nil, r, false
	}
	if r == nil {
		r = protoregistry.GlobalTypes
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, r, false
	}
	return v, r, true
}

// jsonWalker walks JSON text by its message type for the first Any of an
// unknown type or, with members, for the members that protojson refuses
// as unknown (UnknownInJSON).
type jsonWalker struct {
	r     Resolver
	path  []string // outermost first
	ok    bool     // the walk is done
	found string
	url   string
	// members makes the walk look for unknown members too, unknown (a
	// FieldMember) and other the first of each kind found, beside the
	// first Any of an unknown type (anyFound, found and url): ok is set
	// once all three are.
	members        bool
	unknown, other Member
	anyFound       bool
}

// done sets ok once the walk has found all it looks for.
func (j *jsonWalker) done() {
	j.ok = j.anyFound && j.unknown.Kind != 0 && j.other.Kind != 0
}

// member records a member of kind k at the current path, with the name of
// its last element (escaped as a field name of a path) when name is set,
// if none of its kind was found yet.
func (j *jsonWalker) member(k MemberKind, name *string, value string) {
	slot := &j.other
	if k == FieldMember {
		slot = &j.unknown
	}
	if slot.Kind != 0 {
		return
	}
	path := j.path
	if name != nil {
		path = append(path[:len(path):len(path)], safetext.Escape(*name, maxKey))
	}
	*slot = Member{Kind: k, Path: renderPath(path), Value: value}
	j.done()
}

// enumValue checks v, the JSON of a value of the enum ed at the current
// path: a name ed does not declare is an EnumName.
func (j *jsonWalker) enumValue(v any, ed protoreflect.EnumDescriptor) {
	if s, ok := v.(string); ok && ed.Values().ByName(protoreflect.Name(s)) == nil {
		j.member(EnumName, nil, s)
	}
}

// extension returns the extension of md that key, "[full.name]", names
// when the resolver knows it, or nil.
func (j *jsonWalker) extension(key string, md protoreflect.MessageDescriptor) protoreflect.FieldDescriptor {
	er, ok := j.r.(protoregistry.ExtensionTypeResolver)
	if !ok || len(key) < 2 || key[0] != '[' || key[len(key)-1] != ']' {
		return nil
	}
	xt, err := er.FindExtensionByName(protoreflect.FullName(key[1 : len(key)-1]))
	if err != nil {
		return nil
	}
	xd := xt.TypeDescriptor()
	if xd.ContainingMessage().FullName() != md.FullName() {
		return nil // protojson refuses it, as another error than an unknown field
	}
	return xd
}

// message walks v, the JSON of a message of type md; inAny says that v is
// the object of an Any that packs md, whose "@type" member is the Any's.
func (j *jsonWalker) message(v any, md protoreflect.MessageDescriptor, inAny bool, depth int) {
	obj, isObj := v.(map[string]any)
	if !isObj || j.ok || depth > maxDepth {
		return
	}
	if md.FullName() == anyName {
		j.any(obj, depth)
		return
	}
	if customJSON(md.FullName()) {
		// JSON of its own, with no Any in it; an Empty's object has no
		// member.
		if k, ok := firstKey(obj); j.members && ok && md.FullName() == emptyName {
			j.member(FieldMember, &k, "")
		}
		return
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fields := md.Fields()
	for _, k := range keys {
		if j.ok {
			return
		}
		if inAny && k == typeMember {
			continue
		}
		fd := fields.ByJSONName(k)
		if fd == nil {
			fd = fields.ByTextName(k)
		}
		if fd == nil && j.members {
			if fd = j.extension(k, md); fd == nil {
				j.member(FieldMember, &k, "")
				continue
			}
		}
		if fd == nil || fd.Message() == nil && (!j.members || fd.Enum() == nil) {
			continue
		}
		j.path = append(j.path, safetext.Escape(k, maxKey))
		j.field(obj[k], fd, depth)
		j.path = j.path[:len(j.path)-1]
	}
}

// emptyName is google.protobuf.Empty's full name.
const emptyName = "google.protobuf.Empty"

// firstKey returns the least key of obj that is not one of skip, in the
// order of the walk; ok is false when there is none.
func firstKey(obj map[string]any, skip ...string) (first string, ok bool) {
	for k := range obj {
		if !slices.Contains(skip, k) && (!ok || k < first) {
			first, ok = k, true
		}
	}
	return first, ok
}

// field walks v, the JSON of the field fd, of messages (or, with
// members, of enums).
func (j *jsonWalker) field(v any, fd protoreflect.FieldDescriptor, depth int) {
	switch {
	case fd.IsMap():
		obj, ok := v.(map[string]any)
		vmd := fd.MapValue().Message()
		if !ok || vmd == nil && (!j.members || fd.MapValue().Enum() == nil) {
			return
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if j.ok {
				return
			}
			j.path = append(j.path, safetext.Quote(k, maxKey))
			if vmd == nil {
				j.enumValue(obj[k], fd.MapValue().Enum())
			} else {
				j.message(obj[k], vmd, false, depth+1)
			}
			j.path = j.path[:len(j.path)-1]
		}
	case fd.IsList():
		arr, _ := v.([]any)
		for i, e := range arr {
			if j.ok {
				return
			}
			j.path = append(j.path, "["+strconv.Itoa(i)+"]")
			if fd.Message() == nil {
				j.enumValue(e, fd.Enum())
			} else {
				j.message(e, fd.Message(), false, depth+1)
			}
			j.path = j.path[:len(j.path)-1]
		}
	case fd.Message() == nil:
		j.enumValue(v, fd.Enum())
	default:
		j.message(v, fd.Message(), false, depth+1)
	}
}

// any checks the JSON object of an Any and walks the message it packs.
func (j *jsonWalker) any(obj map[string]any, depth int) {
	t, ok := obj[typeMember].(string)
	if !ok || t == "" {
		// {} is an empty Any; protojson refuses the others, except that
		// DiscardUnknown drops one without "@type".
		if _, typed := obj[typeMember]; j.members && !typed && len(obj) > 0 {
			j.member(UntypedAny, nil, "")
		}
		return
	}
	mt, err := j.r.FindMessageByURL(t)
	if err != nil {
		if !j.anyFound {
			j.anyFound, j.url, j.found = true, t, renderPath(j.path)
		}
		if j.members {
			j.done()
		} else {
			j.ok = true // InJSON stops at the first
		}
		return
	}
	pmd := mt.Descriptor()
	if customJSON(pmd.FullName()) {
		if j.members {
			// The object holds "@type" and "value" alone.
			if k, ok := firstKey(obj, typeMember, "value"); ok {
				j.member(FieldMember, &k, "")
			}
		}
		j.path = append(j.path, "value")
		j.message(obj["value"], pmd, false, depth+1)
		j.path = j.path[:len(j.path)-1]
		return
	}
	j.message(obj, pmd, true, depth+1)
}

package avroschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/protoavro/protoavro/internal/safetext"
)

// The parser of schemas protoavro did not derive (container headers,
// registries, files): untrusted JSON text, decoded once and turned into
// this package's model in one pass, by the rules of the Avro 1.12
// specification. Field defaults are checked in defaults.go.

// Limits bound the schema text Parse accepts. Schemas come from untrusted
// files and servers, so size and nesting are checked before any parsing.
type Limits struct {
	// MaxSize is the largest schema text, in bytes.
	MaxSize int
	// MaxDepth is the deepest nesting of JSON objects and arrays.
	MaxDepth int
}

// DefaultLimits are the limits of Parse: 16 MiB and 256 levels, far above
// any schema derived from a real protobuf type (the largest seen, of
// google.api.Service, is 175 KB and 40 levels deep).
var DefaultLimits = Limits{MaxSize: 16 << 20, MaxDepth: 256}

// ErrInvalid reports schema text that is not a valid Avro schema or exceeds
// the limits.
var ErrInvalid = errors.New("invalid Avro schema")

// Parse parses schema JSON text under DefaultLimits.
func Parse(text []byte) (*Node, error) { return DefaultLimits.Parse(text) }

// Parse parses schema JSON text into a tree, checking the limits first. A
// schema that is valid but for its field defaults is accepted without them
// (see below); ParseExact refuses it.
func (l Limits) Parse(text []byte) (*Node, error) { return l.parse(nil, text, true) }

// ParseWith parses schema JSON text whose named types may be defined in
// deps, schemas parsed first in the order given (dependencies before the
// schemas that use them), as a schema registry's references give them. The
// tree of text holds the definitions it uses from deps. The limits apply to
// deps and text together: MaxSize to their total size, MaxDepth to each.
func (l Limits) ParseWith(deps [][]byte, text []byte) (*Node, error) {
	return l.parse(deps, text, true)
}

// ParseExact parses as Parse does under DefaultLimits, but refuses a schema
// with an invalid field default instead of dropping its defaults: for a
// schema whose defaults matter, such as a reader's in a compatibility check.
func ParseExact(text []byte) (*Node, error) { return DefaultLimits.parse(nil, text, false) }

func (l Limits) parse(deps [][]byte, text []byte, lenientDefaults bool) (*Node, error) {
	texts := append(slices.Clone(deps), text)
	total := 0
	for i, t := range texts {
		total += len(t)
		if total > l.MaxSize {
			return nil, fmt.Errorf("%w: %d bytes exceed the limit of %d", ErrInvalid, total, l.MaxSize)
		}
		if d, at := JSONDepth(t, l.MaxDepth); d > l.MaxDepth {
			return nil, fmt.Errorf("%w: %snested more than %d levels deep (at byte %d)", ErrInvalid, which(i, len(deps)), l.MaxDepth, at)
		}
	}
	p := &parser{defs: map[string]*Node{}}
	var root *Node
	for i, t := range texts {
		v, err := decodeJSON(t)
		if err != nil {
			return nil, fmt.Errorf("%w: %s%v", ErrInvalid, which(i, len(deps)), err)
		}
		if root, err = p.schema(v, "", "schema"); err != nil {
			return nil, fmt.Errorf("%w: %s%v", ErrInvalid, which(i, len(deps)), err)
		}
		// A text uses the types it defines, anywhere in it, and those of
		// the texts before it.
		if err := p.link(); err != nil {
			return nil, fmt.Errorf("%w: %s%v", ErrInvalid, which(i, len(deps)), err)
		}
	}
	// A writer's field defaults play no part in reading its data, and some
	// writers produce invalid ones (avsc writes a long default of -2^63 as
	// -9223372036854776000): a schema valid but for its field defaults is
	// accepted without them, unless the caller asked for them exact.
	if err := p.checkDefaults(texts); err != nil {
		if !lenientDefaults {
			return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		for _, d := range p.defaults {
			d.field.Default = nil
		}
	}
	placeDefinitions(&root, map[*Node]bool{})
	return root, nil
}

// which names text i of n dependencies and a schema in an error: "" for the
// schema itself.
func which(i, n int) string {
	if i == n {
		return ""
	}
	return fmt.Sprintf("reference %d of %d: ", i+1, n)
}

// JSONDepth returns the nesting depth of objects and arrays in JSON text,
// stopping as soon as it exceeds max, and the offset where it did.
func JSONDepth(text []byte, max int) (int, int) {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for i, c := range text {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > max {
					return deepest, i
				}
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest, 0
}

// Truncate shortens untrusted text for an error message: at most n bytes,
// cut on a rune boundary and marked, with control and format characters
// (terminal escapes) and invalid UTF-8 escaped (see internal/safetext).
func Truncate(s string, n int) string { return safetext.Truncate(s, n) }

func fullName(name, ns string) string {
	if strings.Contains(name, ".") || ns == "" {
		return name
	}
	return ns + "." + name
}

// qualifyAliases resolves the aliases of the named type full as the
// specification says: an alias without a dot is in the namespace of full, a
// dotted one is a full name, and a single leading dot (".X") is the null
// namespace escape. None gives nil.
func qualifyAliases(aliases []string, full string) []string {
	if len(aliases) == 0 {
		return nil
	}
	ns := namespaceOf(full)
	out := make([]string, len(aliases))
	for i, a := range aliases {
		switch {
		case strings.LastIndexByte(a, '.') == 0:
			out[i] = a[1:]
		case strings.Contains(a, "."):
			out[i] = a
		default:
			out[i] = fullName(a, ns)
		}
	}
	return out
}

// namespaceOf returns the namespace of a full name, "" for none.
func namespaceOf(full string) string {
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		return full[:i]
	}
	return ""
}

// BytesDefault writes bytes in the specification's JSON form for bytes and
// fixed values: a string whose code points 0-255 are the byte values.
func BytesDefault(p []byte) string {
	r := make([]rune, len(p))
	for i, c := range p {
		r[i] = rune(c)
	}
	return string(r)
}

// decodeJSON decodes one JSON value, numbers kept as written.
func decodeJSON(text []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %s", Truncate(err.Error(), 200))
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("not JSON: text after the schema, at byte %d", d.InputOffset())
	}
	return v, nil
}

// parser builds the tree of one schema text and the texts it depends on.
type parser struct {
	defs     map[string]*Node // named types by full name
	refs     []pendingRef
	unions   []unionAt
	defaults []fieldDefault
}

// pendingRef is a reference, linked to its definition once every
// definition is known.
type pendingRef struct {
	node     *Node
	name, ns string // the name as written and the enclosing namespace
	where    string
}

// unionAt is a union whose branches are checked for duplicates once
// references are linked.
type unionAt struct {
	node  *Node
	where string
}

// fieldDefault is a field's default as decoded, checked against the field's
// type once references are linked.
type fieldDefault struct {
	field  *Field
	value  any
	record string
}

// q quotes untrusted text for an error message.
func q(s string) string { return safetext.Quote(s, 100) }

// JSONKind names the JSON type of a value decoded by encoding/json with
// UseNumber ("a number", "an object", ...), for error messages.
func JSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// schema builds the node of the type expression v, written in namespace ns;
// where says where it is, for errors.
func (p *parser) schema(v any, ns, where string) (*Node, error) {
	switch t := v.(type) {
	case string:
		if typ, ok := primitiveTypes[t]; ok {
			return &Node{Type: typ}, nil
		}
		return p.ref(t, ns, where), nil
	case []any:
		n := &Node{Type: Union, Branches: make([]*Node, len(t))}
		for i, b := range t {
			bn, err := p.schema(b, ns, fmt.Sprintf("%s, union branch %d", where, i))
			if err != nil {
				return nil, err
			}
			if bn.Type == Union {
				return nil, fmt.Errorf("%s: union branch %d is a union: unions may not immediately contain unions", where, i)
			}
			n.Branches[i] = bn
		}
		p.unions = append(p.unions, unionAt{n, where})
		return n, nil
	case map[string]any:
		return p.object(t, ns, where)
	}
	return nil, fmt.Errorf("%s: a schema is a string, an array or an object, not %s", where, JSONKind(v))
}

// ref returns a reference to the named type name, linked later.
func (p *parser) ref(name, ns, where string) *Node {
	n := &Node{}
	p.refs = append(p.refs, pendingRef{node: n, name: name, ns: ns, where: where})
	return n
}

// object builds the node of a type written as a JSON object.
func (p *parser) object(m map[string]any, ns, where string) (*Node, error) {
	tv, ok := m["type"]
	if !ok {
		return nil, fmt.Errorf("%s: an object without \"type\"", where)
	}
	typ, ok := tv.(string)
	if !ok {
		return nil, fmt.Errorf("%s: \"type\" is %s, not a string", where, JSONKind(tv))
	}
	if t, ok := primitiveTypes[typ]; ok {
		n := &Node{Type: t}
		reserved, err := logical(n, m, where)
		if err != nil {
			return nil, err
		}
		n.Props = otherProps(m, reserved, "type")
		return n, nil
	}
	switch typ {
	case "record", "error":
		return p.named(Record, m, ns, where)
	case "enum":
		return p.named(Enum, m, ns, where)
	case "fixed":
		return p.named(Fixed, m, ns, where)
	case "array", "map":
		key, t := "items", Array
		if typ == "map" {
			key, t = "values", Map
		}
		c, ok := m[key]
		if !ok {
			return nil, fmt.Errorf("%s: %s without %q", where, typ, key)
		}
		cn, err := p.schema(c, ns, where+", "+key)
		if err != nil {
			return nil, err
		}
		n := &Node{Type: t}
		if t == Array {
			n.Items = cn
		} else {
			n.Values = cn
		}
		n.Props = otherProps(m, nil, "type", key)
		return n, nil
	}
	// {"type":"a.Name"}: a reference to a named type, which has none of
	// the attributes that define a type.
	for _, k := range []string{"fields", "symbols", "size", "items", "values"} {
		if _, ok := m[k]; ok {
			return nil, fmt.Errorf("%s: an object of type %s with %q: %s is not a record, enum, fixed, array or map", where, q(typ), k, q(typ))
		}
	}
	return p.ref(typ, ns, where), nil
}

// namedKeys are the attributes the model holds for each named type.
var namedKeys = map[Type][]string{
	Record: {"type", "name", "namespace", "doc", "aliases", "fields"},
	Enum:   {"type", "name", "namespace", "doc", "aliases", "symbols", "default"},
	Fixed:  {"type", "name", "namespace", "doc", "aliases", "size"},
}

// named builds a record, enum or fixed type and registers its name.
func (p *parser) named(t Type, m map[string]any, ns, where string) (*Node, error) {
	kind := t.String()
	nv, ok := m["name"]
	if !ok {
		return nil, fmt.Errorf("%s: %s without a name", where, kind)
	}
	name, ok := nv.(string)
	if !ok {
		return nil, fmt.Errorf("%s: the name of a %s is %s, not a string", where, kind, JSONKind(nv))
	}
	if !strings.Contains(name, ".") {
		if nsv, ok := m["namespace"]; ok {
			s, ok := nsv.(string)
			if !ok {
				return nil, fmt.Errorf("%s: the namespace of %s %s is %s, not a string", where, kind, q(name), JSONKind(nsv))
			}
			if s != "" && !validFullName(s) {
				return nil, fmt.Errorf("%s: %s %s has the invalid namespace %s", where, kind, q(name), q(s))
			}
			ns = s
		}
	}
	full := fullName(name, ns)
	if !validFullName(full) {
		return nil, fmt.Errorf("%s: invalid %s name %s", where, kind, q(full))
	}
	if _, ok := primitiveTypes[full[strings.LastIndexByte(full, '.')+1:]]; ok {
		return nil, fmt.Errorf("%s: %s %s is named after a primitive type", where, kind, q(full))
	}
	if _, dup := p.defs[full]; dup {
		return nil, fmt.Errorf("%s: %s is defined twice", where, q(full))
	}
	n := &Node{Type: t, Name: full}
	p.defs[full] = n
	where = kind + " " + Truncate(full, 100)
	if doc, ok := m["doc"].(string); ok {
		n.Doc = doc
	}
	aliases, err := stringList(m, "aliases", where)
	if err != nil {
		return nil, err
	}
	n.Aliases = qualifyAliases(aliases, full)
	reserved := namedKeys[t]
	switch t {
	case Record:
		if err := p.fields(n, m, where); err != nil {
			return nil, err
		}
	case Enum:
		if err := enum(n, m, where); err != nil {
			return nil, err
		}
	case Fixed:
		sv, ok := m["size"]
		if !ok {
			return nil, fmt.Errorf("%s: fixed without a size", where)
		}
		size, err := smallInt(sv)
		if err != nil {
			return nil, fmt.Errorf("%s: size: %v", where, err)
		}
		n.Size = size
		lk, err := logical(n, m, where)
		if err != nil {
			return nil, err
		}
		reserved = append(slices.Clone(reserved), lk...)
	}
	n.Props = otherProps(m, reserved)
	return n, nil
}

// fieldKeys are the attributes the model holds for a record field.
var fieldKeys = []string{"name", "type", "default", "doc", "aliases", "order"}

// fields builds the fields of record n.
func (p *parser) fields(n *Node, m map[string]any, where string) error {
	fv, ok := m["fields"]
	if !ok {
		return fmt.Errorf("%s: a record without \"fields\"", where)
	}
	list, ok := fv.([]any)
	if !ok {
		return fmt.Errorf("%s: \"fields\" is %s, not an array", where, JSONKind(fv))
	}
	n.Fields = make([]Field, len(list))
	names := make(map[string]bool, len(list))
	inner := namespaceOf(n.Name)
	for i, e := range list {
		fm, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: field %d is %s, not an object", where, i, JSONKind(e))
		}
		f := &n.Fields[i]
		name, ok := fm["name"].(string)
		if !ok {
			return fmt.Errorf("%s: field %d has no name", where, i)
		}
		if !validName(name) {
			return fmt.Errorf("%s: field %d has the invalid name %s", where, i, q(name))
		}
		if names[name] {
			return fmt.Errorf("%s: field %s is defined twice", where, q(name))
		}
		names[name] = true
		f.Name = name
		fwhere := where + ", field " + name
		tv, ok := fm["type"]
		if !ok {
			return fmt.Errorf("%s: no type", fwhere)
		}
		t, err := p.schema(tv, inner, fwhere)
		if err != nil {
			return err
		}
		f.Type = t
		if doc, ok := fm["doc"].(string); ok {
			f.Doc = doc
		}
		if f.Aliases, err = stringList(fm, "aliases", fwhere); err != nil {
			return err
		}
		if ov, ok := fm["order"]; ok {
			o, _ := ov.(string)
			if o != "ascending" && o != "descending" && o != "ignore" {
				return fmt.Errorf("%s: order is not \"ascending\", \"descending\" or \"ignore\"", fwhere)
			}
			f.Order = o
		}
		if dv, ok := fm["default"]; ok {
			raw, err := json.Marshal(dv)
			if err != nil {
				return fmt.Errorf("%s: default: %v", fwhere, err)
			}
			f.Default = raw
			p.defaults = append(p.defaults, fieldDefault{field: f, value: dv, record: n.Name})
		}
		f.Props = otherProps(fm, fieldKeys)
	}
	return nil
}

// enum reads the symbols and default of enum n.
func enum(n *Node, m map[string]any, where string) error {
	if _, ok := m["symbols"]; !ok {
		return fmt.Errorf("%s: an enum without symbols", where)
	}
	symbols, err := stringList(m, "symbols", where)
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(symbols))
	for _, s := range symbols {
		if !validName(s) {
			return fmt.Errorf("%s: invalid symbol %s", where, q(s))
		}
		if seen[s] {
			return fmt.Errorf("%s: symbol %s appears twice", where, q(s))
		}
		seen[s] = true
	}
	n.Symbols = symbols
	if dv, ok := m["default"]; ok {
		d, ok := dv.(string)
		if !ok || !seen[d] {
			return fmt.Errorf("%s: the default is not one of the symbols", where)
		}
		n.EnumDefault, n.HasEnumDefault = d, true
	}
	return nil
}

// stringList reads the attribute key of m, an array of strings; nil when
// absent.
func stringList(m map[string]any, key, where string) ([]string, error) {
	v, ok := m[key]
	if !ok {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: %q is %s, not an array", where, key, JSONKind(v))
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s: %s %d is %s, not a string", where, key, i, JSONKind(e))
		}
		out[i] = s
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// logicalTypes are the logical types of the specification, by the type
// that carries them. A logicalType attribute that names none of these for
// its type is kept as an attribute, and the type read as its carrier, as
// the specification says of unknown and invalid logical types.
var logicalTypes = map[Type][]string{
	Int:    {"date", "time-millis"},
	Long:   {"time-micros", "timestamp-millis", "timestamp-micros", "timestamp-nanos", "local-timestamp-millis", "local-timestamp-micros", "local-timestamp-nanos"},
	String: {"uuid"},
	Bytes:  {"decimal", "big-decimal"},
	Fixed:  {"decimal", "duration", "uuid"},
}

// logical reads the logical type of n from m, and returns the attributes it
// took. A decimal whose precision or scale is invalid is an error: its
// values would be read at another scale.
func logical(n *Node, m map[string]any, where string) ([]string, error) {
	lt, ok := m["logicalType"].(string)
	if !ok || !slices.Contains(logicalTypes[n.Type], lt) {
		return nil, nil
	}
	switch {
	case lt == "duration" && n.Size != 12, lt == "uuid" && n.Type == Fixed && n.Size != 16:
		return nil, nil
	case lt == "decimal":
		pv, ok := m["precision"]
		if !ok {
			return nil, fmt.Errorf("%s: decimal without a precision", where)
		}
		prec, err := smallInt(pv)
		if err != nil || prec < 1 {
			return nil, fmt.Errorf("%s: decimal precision is not a positive integer", where)
		}
		scale := 0
		if sv, ok := m["scale"]; ok {
			if scale, err = smallInt(sv); err != nil {
				return nil, fmt.Errorf("%s: decimal scale: %v", where, err)
			}
		}
		if scale > prec {
			return nil, fmt.Errorf("%s: decimal scale %d exceeds its precision %d", where, scale, prec)
		}
		if n.Type == Fixed {
			if most := maxDecimalDigits(n.Size); prec > most {
				return nil, fmt.Errorf("%s: decimal precision %d exceeds the %d digits a fixed of %d bytes holds", where, prec, most, n.Size)
			}
		}
		n.Logical, n.Precision, n.Scale = lt, prec, scale
		return []string{"logicalType", "precision", "scale"}, nil
	}
	n.Logical = lt
	return []string{"logicalType"}, nil
}

// maxDecimalDigits is the largest precision of a decimal in a fixed of size
// bytes: the digits of 2^(8·size-1)-1, the largest two's-complement value.
func maxDecimalDigits(size int) int {
	if size < 1 {
		return 0
	}
	return int(math.Floor(float64(8*size-1) * math.Log10(2)))
}

// smallInt reads a JSON number that is a non-negative integer below 2^31.
func smallInt(v any) (int, error) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s, not a number", JSONKind(v))
	}
	i, err := strconv.ParseInt(string(num), 10, 32)
	if err != nil || i < 0 {
		return 0, fmt.Errorf("%s is not an integer from 0 to 2^31-1", Truncate(string(num), 40))
	}
	return int(i), nil
}

// otherProps returns the attributes of m outside the reserved ones, sorted by
// key, as compact JSON.
func otherProps(m map[string]any, reserved []string, more ...string) []Prop {
	var out []Prop
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if slices.Contains(reserved, k) || slices.Contains(more, k) {
			continue
		}
		raw, _ := json.Marshal(m[k]) // decoded JSON always encodes
		out = append(out, Prop{Key: k, Value: raw})
	}
	return out
}

// validName reports whether s is a name of the specification:
// [A-Za-z_][A-Za-z0-9_]*.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// validFullName reports whether s is names joined by dots.
func validFullName(s string) bool {
	for part := range strings.SplitSeq(s, ".") {
		if !validName(part) {
			return false
		}
	}
	return true
}

// link points every reference made since the last call at its
// definition, the name as written in the enclosing namespace, else as a full
// name, then checks the unions, whose branches are known only now.
func (p *parser) link() error {
	for _, r := range p.refs {
		def := p.defs[fullName(r.name, r.ns)]
		if def == nil {
			def = p.defs[r.name]
		}
		if def == nil {
			return fmt.Errorf("%s: unknown type %s", r.where, q(r.name))
		}
		r.node.Type, r.node.Name, r.node.Def = def.Type, def.Name, def
	}
	p.refs = p.refs[:0]
	for _, u := range p.unions {
		seen := make(map[string]bool, len(u.node.Branches))
		for _, b := range u.node.Branches {
			key := b.Type.String()
			if b.Type.Named() {
				key = b.Name
			}
			if seen[key] {
				return fmt.Errorf("%s: the union has two branches of type %s", u.where, q(key))
			}
			seen[key] = true
		}
	}
	p.unions = p.unions[:0]
	return nil
}

// placeDefinitions makes the first use of each named type in the tree, in
// the order its JSON is written, the definition, and every later use a
// reference: a tree that uses types defined in other texts (its
// references), or before their definition, then stands alone.
func placeDefinitions(slot **Node, seen map[*Node]bool) {
	n := *slot
	if n.Def != nil {
		if seen[n.Def] {
			return
		}
		n = n.Def
		*slot = n
	} else if n.Type.Named() && seen[n] {
		*slot = RefTo(n)
		return
	}
	if n.Type.Named() {
		seen[n] = true
	}
	for i := range n.Fields {
		placeDefinitions(&n.Fields[i].Type, seen)
	}
	if n.Items != nil {
		placeDefinitions(&n.Items, seen)
	}
	if n.Values != nil {
		placeDefinitions(&n.Values, seen)
	}
	for i := range n.Branches {
		placeDefinitions(&n.Branches[i], seen)
	}
}

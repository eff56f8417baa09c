package avroschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	twmb "github.com/twmb/avro"

	"github.com/protoavro/protoavro/internal/safetext"
)

// This file is the only place that uses a third-party Avro module: the
// parser of schemas protoavro did not derive (container headers, registries).
// github.com/twmb/avro validates the text against the specification; its
// plain node tree is then converted into this package's model.

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
		if d, at := jsonDepth(t, l.MaxDepth); d > l.MaxDepth {
			return nil, fmt.Errorf("%w: %snested more than %d levels deep (at byte %d)", ErrInvalid, which(i, len(deps)), l.MaxDepth, at)
		}
	}
	// The parser checks every field default by encoding it, filling the
	// absent fields of a record default from their own defaults: records
	// nested 30 deep whose fields default to {} made a schema of 6 KB take
	// 3^30 steps. Defaults that would cost more than maxDefaultWork are
	// treated as invalid ones, before the parser sees them.
	var s *twmb.Schema
	var err error
	if work := defaultWork(texts); work > maxDefaultWork {
		err = fmt.Errorf("field defaults that expand into more than %d values", maxDefaultWork)
	} else {
		s, err = parseTexts(texts, false)
	}
	if err != nil {
		// A writer's field defaults play no part in reading its data, and
		// some writers produce invalid ones (avsc writes a long default of
		// -2^63 as -9223372036854776000): a schema valid but for its field
		// defaults is accepted without them.
		var perr error
		if !lenientDefaults {
			perr = err
		} else {
			s, perr = parseTexts(texts, true)
		}
		if perr != nil {
			return nil, fmt.Errorf("%w: %s", ErrInvalid, Truncate(err.Error(), 300))
		}
	}
	c := converter{defs: map[string]*Node{}}
	root := s.Root()
	n, err := c.node(root, "")
	if err != nil {
		return nil, err
	}
	if err := c.link(); err != nil {
		return nil, err
	}
	return n, nil
}

// which names text i of n dependencies and a schema in an error: "" for the
// schema itself.
func which(i, n int) string {
	if i == n {
		return ""
	}
	return fmt.Sprintf("reference %d of %d: ", i+1, n)
}

// parseTexts parses the last of texts with the named types of the others,
// parsed first in order; withoutDefaults removes every field default first.
func parseTexts(texts [][]byte, withoutDefaults bool) (*twmb.Schema, error) {
	if len(texts) == 1 { // no references: no cache, which decodes each text once more
		t := texts[0]
		if withoutDefaults {
			var err error
			if t, err = stripDefaultsText(t); err != nil {
				return nil, err
			}
		}
		return twmb.Parse(string(t))
	}
	var cache twmb.SchemaCache
	for i, t := range texts {
		if withoutDefaults {
			var err error
			if t, err = stripDefaultsText(t); err != nil {
				return nil, fmt.Errorf("%s%w", which(i, len(texts)-1), err)
			}
		}
		s, err := cache.Parse(string(t))
		if err != nil {
			return nil, fmt.Errorf("%s%w", which(i, len(texts)-1), err)
		}
		if i == len(texts)-1 {
			return s, nil
		}
	}
	panic("unreachable")
}

// maxDefaultWork bounds the values the field defaults of a schema expand
// into when they are checked: far above the defaults of real schemas.
const maxDefaultWork = 1 << 20

// defaultWork returns an upper bound on the values the parser encodes to
// check the field defaults of schema texts parsed together (dependencies
// first), capped just above maxDefaultWork; 0 if a text is not JSON (the
// parser says why). Types
// are found by name in the text, by full name or else by simple name, and
// a union counts every branch, so the bound is loose but linear to
// compute: the cost of each field's default is memoized, and a default
// that reaches itself (a record default that leaves the field out) counts
// as unbounded.
func defaultWork(texts [][]byte) int64 {
	if !slices.ContainsFunc(texts, mayExpand) {
		return 0
	}
	w := &workCounter{records: map[string][]map[string]any{}, fields: map[uintptr]*fieldWork{}}
	for _, text := range texts {
		d := json.NewDecoder(bytes.NewReader(text))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			return 0
		}
		w.collect(v, "")
	}
	var total int64
	for _, f := range w.order {
		if def, ok := f.m["default"]; ok {
			total = capAdd(total, w.fieldCost(f, def))
		}
	}
	return total
}

// mayExpand reports whether text may hold a field default that expands: an
// object or a non-empty array (of records), the only defaults that hold
// records. A
// schema without one (most: defaults are null, numbers and strings) needs no
// count, and is not decoded twice. Text with a \u escape, which could spell
// the key "default", is counted.
func mayExpand(text []byte) bool {
	if bytes.Contains(text, []byte(`\u`)) {
		return true
	}
	key := []byte(`"default"`)
	for i := bytes.Index(text, key); i >= 0; {
		j := skipSpace(text, i+len(key))
		if j < len(text) && text[j] == ':' {
			j = skipSpace(text, j+1)
			if j < len(text) && (text[j] == '{' || text[j] == '[' && skipSpace(text, j+1) < len(text) && text[skipSpace(text, j+1)] != ']') {
				return true // an object, or an array that is not empty
			}
		}
		next := bytes.Index(text[i+1:], key)
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// skipSpace returns the offset of the first byte at or after i that is not
// JSON white space.
func skipSpace(text []byte, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
		i++
	}
	return i
}

// workCounter computes defaultWork.
type workCounter struct {
	records map[string][]map[string]any // record definitions by full and by simple name
	fields  map[uintptr]*fieldWork      // by the identity of the field's JSON object
	order   []*fieldWork
}

// fieldWork is one record field of the text.
type fieldWork struct {
	m     map[string]any
	ns    string // the enclosing namespace, for the names in its type
	state uint8  // 0 unknown, 1 computing, 2 done
	cost  int64
}

// capAdd adds without passing the cap.
func capAdd(a, b int64) int64 { return min(a+b, maxDefaultWork+1) }

// fieldsOf returns the field objects of a record definition.
func fieldsOf(r map[string]any) []map[string]any {
	fs, _ := r["fields"].([]any)
	out := make([]map[string]any, 0, len(fs))
	for _, f := range fs {
		if fm, ok := f.(map[string]any); ok {
			out = append(out, fm)
		}
	}
	return out
}

// collect registers the record definitions and fields in the type
// expression v, in namespace ns.
func (w *workCounter) collect(v any, ns string) {
	switch t := v.(type) {
	case map[string]any:
		if kind, _ := t["type"].(string); kind == "record" || kind == "error" {
			name, _ := t["name"].(string)
			if n, ok := t["namespace"].(string); ok && !strings.Contains(name, ".") {
				ns = n
			}
			full := fullName(name, ns)
			ns = namespaceOf(full)
			w.records[full] = append(w.records[full], t)
			if short := full[strings.LastIndexByte(full, '.')+1:]; short != full {
				w.records[short] = append(w.records[short], t)
			}
			for _, f := range fieldsOf(t) {
				fw := &fieldWork{m: f, ns: ns}
				w.fields[reflect.ValueOf(f).Pointer()] = fw
				w.order = append(w.order, fw)
				w.collect(f["type"], ns)
			}
			return
		}
		for _, k := range []string{"type", "items", "values"} {
			if c, ok := t[k]; ok {
				w.collect(c, ns)
			}
		}
	case []any:
		for _, b := range t {
			w.collect(b, ns)
		}
	}
}

// fieldCost is the cost of checking the default def of field f, memoized.
func (w *workCounter) fieldCost(f *fieldWork, def any) int64 {
	switch f.state {
	case 1:
		return maxDefaultWork + 1 // the default reaches itself
	case 2:
		return f.cost
	}
	f.state = 1
	f.cost = w.valueCost(def, f.m["type"], f.ns)
	f.state = 2
	return f.cost
}

// valueCost bounds the values encoded for the default value v of the type
// expression t (in namespace ns).
func (w *workCounter) valueCost(v, t any, ns string) int64 {
	switch tt := t.(type) {
	case []any: // a union: any branch may be tried
		var c int64 = 1
		for _, b := range tt {
			c = capAdd(c, w.valueCost(v, b, ns))
		}
		return c
	case string:
		defs := w.records[fullName(tt, ns)]
		if len(defs) == 0 {
			defs = w.records[tt]
		}
		var c int64 = 1
		for _, r := range defs {
			c = capAdd(c, w.recordCost(v, r))
		}
		return c
	case map[string]any:
		switch kind, _ := tt["type"].(string); kind {
		case "record", "error":
			return w.recordCost(v, tt)
		case "array":
			items, _ := v.([]any)
			var c int64 = 1
			for _, item := range items {
				c = capAdd(c, w.valueCost(item, tt["items"], ns))
			}
			return c
		case "map":
			values, _ := v.(map[string]any)
			var c int64 = 1
			for _, val := range values {
				c = capAdd(c, w.valueCost(val, tt["values"], ns))
			}
			return c
		case "":
			return w.valueCost(v, tt["type"], ns)
		}
	}
	return 1
}

// recordCost bounds the values encoded for v as a default of record r: the
// fields v has, and the defaults of the others. Only an object expands.
func (w *workCounter) recordCost(v any, r map[string]any) int64 {
	obj, ok := v.(map[string]any)
	if !ok {
		return 1 // not a record value: refused at once
	}
	var c int64 = 1
	for _, f := range fieldsOf(r) {
		fw := w.fields[reflect.ValueOf(f).Pointer()]
		if fw == nil { // not reached by collect: a type the parser refuses
			fw = &fieldWork{m: f}
			w.fields[reflect.ValueOf(f).Pointer()] = fw
		}
		name, _ := f["name"].(string)
		if fv, ok := obj[name]; ok {
			c = capAdd(c, w.valueCost(fv, f["type"], fw.ns))
		} else if def, ok := f["default"]; ok {
			c = capAdd(c, w.fieldCost(fw, def))
		}
		if c > maxDefaultWork {
			return c
		}
	}
	return c
}

// stripDefaultsText returns text with every field default removed.
func stripDefaultsText(text []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	stripDefaults(v)
	return json.Marshal(v)
}

// stripDefaults deletes the "default" of every record field in a decoded
// schema (its depth is bounded by the limits, checked before).
func stripDefaults(v any) {
	switch t := v.(type) {
	case map[string]any:
		if fields, ok := t["fields"].([]any); ok {
			for _, f := range fields {
				if fm, ok := f.(map[string]any); ok {
					delete(fm, "default")
				}
			}
		}
		for _, c := range t {
			stripDefaults(c)
		}
	case []any:
		for _, c := range t {
			stripDefaults(c)
		}
	}
}

// jsonDepth returns the nesting depth of JSON text, stopping as soon as it
// exceeds max, and the offset where it did.
func jsonDepth(text []byte, max int) (int, int) {
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

// converter turns a twmb tree into nodes; references are linked once every
// definition is known.
type converter struct {
	defs map[string]*Node
	refs []pendingRef
}

type pendingRef struct {
	node     *Node
	name, ns string // the name as written and the enclosing namespace
}

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

func (c *converter) node(s *twmb.SchemaNode, ns string) (*Node, error) {
	if t, ok := primitiveTypes[s.Type]; ok {
		n := &Node{Type: t, Logical: s.LogicalType}
		if s.LogicalType == "decimal" {
			n.Precision, n.Scale = s.Precision, s.Scale
		}
		return n, c.props(n, s.Props)
	}
	var n *Node
	switch s.Type {
	case "record", "error":
		n = &Node{Type: Record}
	case "enum":
		n = &Node{Type: Enum, Symbols: s.Symbols, EnumDefault: s.EnumDefault, HasEnumDefault: s.HasEnumDefault}
	case "fixed":
		n = &Node{Type: Fixed, Size: s.Size, Logical: s.LogicalType}
		if s.LogicalType == "decimal" {
			n.Precision, n.Scale = s.Precision, s.Scale
		}
	case "array":
		n = &Node{Type: Array}
		items, err := c.node(s.Items, ns)
		if err != nil {
			return nil, err
		}
		n.Items = items
		return n, c.props(n, s.Props)
	case "map":
		n = &Node{Type: Map}
		values, err := c.node(s.Values, ns)
		if err != nil {
			return nil, err
		}
		n.Values = values
		return n, c.props(n, s.Props)
	case "union":
		n = &Node{Type: Union, Branches: make([]*Node, len(s.Branches))}
		for i := range s.Branches {
			b, err := c.node(&s.Branches[i], ns)
			if err != nil {
				return nil, err
			}
			n.Branches[i] = b
		}
		return n, nil
	default: // a reference to a named type
		n = &Node{}
		c.refs = append(c.refs, pendingRef{node: n, name: s.Type, ns: ns})
		return n, nil
	}
	// A named type.
	n.Name = fullName(s.Name, s.Namespace)
	n.Doc = s.Doc
	n.Aliases = qualifyAliases(s.Aliases, n.Name)
	if _, dup := c.defs[n.Name]; dup {
		return nil, fmt.Errorf("%w: %s is defined twice", ErrInvalid, n.Name)
	}
	c.defs[n.Name] = n
	inner := namespaceOf(n.Name)
	if n.Type == Record {
		n.Fields = make([]Field, len(s.Fields))
		for i := range s.Fields {
			sf := &s.Fields[i]
			t, err := c.node(&sf.Type, inner)
			if err != nil {
				return nil, err
			}
			f := Field{Name: sf.Name, Doc: sf.Doc, Type: t, Order: sf.Order}
			if err := c.fieldProps(&f, sf.Props); err != nil {
				return nil, err
			}
			if len(sf.Aliases) > 0 {
				f.Aliases = slices.Clone(sf.Aliases)
			}
			if sf.HasDefault {
				def := sf.Default
				if b, ok := def.([]byte); ok { // bytes and fixed defaults: code points 0-255
					def = BytesDefault(b)
				}
				raw, err := json.Marshal(def)
				if err != nil {
					return nil, fmt.Errorf("%w: default of field %s.%s: %v", ErrInvalid, n.Name, sf.Name, err)
				}
				f.Default = raw
			}
			n.Fields[i] = f
		}
	}
	return n, c.props(n, s.Props)
}

// props keeps the other attributes, sorted by key so output is stable.
func (c *converter) props(n *Node, props map[string]any) error {
	if len(props) == 0 {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		raw, err := json.Marshal(props[k])
		if err != nil {
			return fmt.Errorf("%w: attribute %q: %v", ErrInvalid, k, err)
		}
		n.Props = append(n.Props, Prop{Key: k, Value: raw})
	}
	return nil
}

// fieldProps keeps the other attributes of a field, sorted by key.
func (c *converter) fieldProps(f *Field, props map[string]any) error {
	var n Node
	if err := c.props(&n, props); err != nil {
		return fmt.Errorf("field %s: %w", Truncate(f.Name, 200), err)
	}
	f.Props = n.Props
	return nil
}

// link points every reference at its definition: the name as written in the
// enclosing namespace, else as a full name.
func (c *converter) link() error {
	for _, r := range c.refs {
		def := c.defs[fullName(r.name, r.ns)]
		if def == nil {
			def = c.defs[r.name]
		}
		if def == nil {
			return fmt.Errorf("%w: unknown type %q", ErrInvalid, Truncate(r.name, 200))
		}
		r.node.Type, r.node.Name, r.node.Def = def.Type, def.Name, def
	}
	return nil
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

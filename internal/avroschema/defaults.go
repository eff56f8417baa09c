package avroschema

// Field defaults of parsed schemas: the bound on what checking (and later
// filling in) a default can cost, and the check that each default is a value
// of its field's type.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

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

// checkDefaults checks every field default of the parsed texts: first that
// checking them is bounded (defaultWork), then that each is a value of its
// field's type.
func (p *parser) checkDefaults(texts [][]byte) error {
	if len(p.defaults) == 0 {
		return nil
	}
	if work := defaultWork(texts); work > maxDefaultWork {
		return fmt.Errorf("field defaults that expand into more than %d values", maxDefaultWork)
	}
	for _, d := range p.defaults {
		if err := checkValue(d.field.Type, d.value); err != nil {
			return fmt.Errorf("default of field %s.%s: %v", Truncate(d.record, 100), d.field.Name, err)
		}
	}
	return nil
}

// checkValue reports why the decoded JSON value v is not a value of type n
// as the specification writes defaults (bytes and fixed as strings of code
// points 0-255, a union's value as a value of one of its branches); nil if
// it is one. A record value may leave out the fields that have a default.
func checkValue(n *Node, v any) error {
	n = n.Deref()
	bad := func() error { return fmt.Errorf("%s is not a value of type %s", JSONKind(v), n.Type) }
	switch n.Type {
	case Null:
		if v != nil {
			return bad()
		}
	case Boolean:
		if _, ok := v.(bool); !ok {
			return bad()
		}
	case Int, Long, Float, Double:
		num, ok := v.(json.Number)
		if !ok {
			return bad()
		}
		var err error
		switch n.Type {
		case Int:
			_, err = strconv.ParseInt(string(num), 10, 32)
		case Long:
			_, err = strconv.ParseInt(string(num), 10, 64)
		case Float:
			_, err = strconv.ParseFloat(string(num), 32)
		default:
			_, err = strconv.ParseFloat(string(num), 64)
		}
		if err != nil {
			return fmt.Errorf("%s is not a value of type %s", Truncate(string(num), 40), n.Type)
		}
	case String, Enum:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		if n.Type == Enum && !slices.Contains(n.Symbols, s) {
			return fmt.Errorf("%s is not a symbol of enum %s", q(s), Truncate(n.Name, 100))
		}
	case Bytes, Fixed:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		for _, r := range s {
			if r > 0xFF {
				return fmt.Errorf("a string with the code point U+%04X is not a value of type %s (code points 0-255 are bytes)", r, n.Type)
			}
		}
		if n.Type == Fixed && utf8.RuneCountInString(s) != n.Size {
			return fmt.Errorf("%d bytes are not a value of fixed %s of %d bytes", utf8.RuneCountInString(s), Truncate(n.Name, 100), n.Size)
		}
	case Array:
		items, ok := v.([]any)
		if !ok {
			return bad()
		}
		for i, item := range items {
			if err := checkValue(n.Items, item); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
	case Map:
		values, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		for _, k := range slices.Sorted(maps.Keys(values)) {
			if err := checkValue(n.Values, values[k]); err != nil {
				return fmt.Errorf("key %s: %w", q(k), err)
			}
		}
	case Union:
		for _, b := range n.Branches {
			if checkValue(b, v) == nil {
				return nil
			}
		}
		return fmt.Errorf("%s is a value of no branch of the union", JSONKind(v))
	case Record:
		obj, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		for i := range n.Fields {
			f := &n.Fields[i]
			fv, ok := obj[f.Name]
			if !ok {
				if f.Default == nil {
					return fmt.Errorf("record %s: field %s is missing and has no default", Truncate(n.Name, 100), f.Name)
				}
				continue
			}
			if err := checkValue(f.Type, fv); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
	}
	return nil
}

package avroschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/protoavro/protoavro/internal/safetext"
)

// Comparison is what Diff compares.
type Comparison uint8

const (
	// Full compares every attribute that gives values a meaning or that
	// readers and writers act on, as Apache Avro Java's Schema.equals does
	// (and so avro-tools cat and concat): types, full names, logical types
	// with their precision and scale, fixed sizes, enum symbols and default,
	// record fields in order with their names, defaults and sort orders,
	// and every other attribute (props) of types and fields. Docs and
	// aliases are not compared, as Java does not compare them.
	Full Comparison = iota
	// Encoding compares what the binary encoding of a value and its
	// meaning depend on: Parsing Canonical Form (types, full names, field
	// names in order, enum symbols, fixed sizes) and logical types with
	// their precision and scale, which Parsing Canonical Form strips.
	// Data written with one schema reads as data written with the other
	// when they have no difference of this kind.
	Encoding
)

// Difference is the first place where two schemas differ.
type Difference struct {
	// Path is where in the schemas: the full name (or type) of the root,
	// then field names, [] for array items, {} for map values and
	// <branch N> for union branches (from 0), such as "ns.Foo.tags[].ts".
	// Names are escaped for printing.
	Path string
	// Attr names what differs: "type", "name", "logicalType", "precision",
	// "scale", "size", "symbols", "default", "fields", "order", an
	// attribute as "attribute \"key\"", ...
	Attr string
	// A and B are the attribute's values in the first and second schema,
	// escaped and shortened for printing ("none" when absent).
	A, B string
}

// String returns "PATH: ATTR A vs B", such as
// "Foo.ts: logicalType timestamp-millis vs timestamp-micros".
func (d *Difference) String() string {
	return fmt.Sprintf("%s: %s %s vs %s", d.Path, d.Attr, d.A, d.B)
}

// Diff returns the first difference between schemas a and b of the kind
// mode compares, in the order the schemas are written, or nil when there
// is none. Named types are compared once each, so recursive schemas end.
func Diff(a, b *Node, mode Comparison) *Difference {
	c := differ{mode: mode, seen: map[[2]*Node]bool{}}
	return c.node(rootPath(a), a, b)
}

// differ is the state of one Diff.
type differ struct {
	mode Comparison
	seen map[[2]*Node]bool // pairs of named definitions compared or being compared
}

// maxShown bounds each name or value a Difference shows.
const maxShown = 120

// rootPath is the path of a schema's root: its full name, or its type.
func rootPath(n *Node) string {
	if n.Type.Named() {
		return safetext.Truncate(n.Deref().Name, maxShown)
	}
	return n.Type.String()
}

// show escapes and shortens a string for a Difference, "none" when empty.
func show(s string) string {
	if s == "" {
		return "none"
	}
	return safetext.Truncate(s, maxShown)
}

func (c *differ) node(path string, a, b *Node) *Difference {
	a, b = a.Deref(), b.Deref()
	diff := func(attr, x, y string) *Difference { return &Difference{Path: path, Attr: attr, A: x, B: y} }
	if a.Type != b.Type {
		return diff("type", a.Type.String(), b.Type.String())
	}
	if a.Type.Named() {
		if a.Name != b.Name {
			return diff("name", show(a.Name), show(b.Name))
		}
		pair := [2]*Node{a, b}
		if c.seen[pair] {
			return nil
		}
		c.seen[pair] = true
	}
	if a.Logical != b.Logical {
		return diff("logicalType", show(a.Logical), show(b.Logical))
	}
	if a.Precision != b.Precision {
		return diff("precision", strconv.Itoa(a.Precision), strconv.Itoa(b.Precision))
	}
	if a.Scale != b.Scale {
		return diff("scale", strconv.Itoa(a.Scale), strconv.Itoa(b.Scale))
	}
	switch a.Type {
	case Fixed:
		if a.Size != b.Size {
			return diff("size", strconv.Itoa(a.Size), strconv.Itoa(b.Size))
		}
	case Enum:
		if d := c.symbols(path, a, b); d != nil {
			return d
		}
	}
	if c.mode == Full {
		if d := props(path, "", a.Props, b.Props); d != nil {
			return d
		}
	}
	switch a.Type {
	case Record:
		return c.fields(path, a, b)
	case Array:
		return c.node(path+"[]", a.Items, b.Items)
	case Map:
		return c.node(path+"{}", a.Values, b.Values)
	case Union:
		if len(a.Branches) != len(b.Branches) {
			return diff("branches", strconv.Itoa(len(a.Branches)), strconv.Itoa(len(b.Branches)))
		}
		for i := range a.Branches {
			if d := c.node(path+"<branch "+strconv.Itoa(i)+">", a.Branches[i], b.Branches[i]); d != nil {
				return d
			}
		}
	}
	return nil
}

// symbols compares the symbols of enums a and b, and their defaults in
// Full mode.
func (c *differ) symbols(path string, a, b *Node) *Difference {
	for i := range min(len(a.Symbols), len(b.Symbols)) {
		if a.Symbols[i] != b.Symbols[i] {
			return &Difference{Path: path, Attr: "symbol " + strconv.Itoa(i), A: show(a.Symbols[i]), B: show(b.Symbols[i])}
		}
	}
	if len(a.Symbols) != len(b.Symbols) {
		return &Difference{Path: path, Attr: "symbols", A: strconv.Itoa(len(a.Symbols)), B: strconv.Itoa(len(b.Symbols))}
	}
	if c.mode == Full && (a.HasEnumDefault != b.HasEnumDefault || a.EnumDefault != b.EnumDefault) {
		x, y := "none", "none"
		if a.HasEnumDefault {
			x = strconv.Quote(a.EnumDefault)
		}
		if b.HasEnumDefault {
			y = strconv.Quote(b.EnumDefault)
		}
		return &Difference{Path: path, Attr: "default", A: show(x), B: show(y)}
	}
	return nil
}

// fields compares the fields of records a and b, in order.
func (c *differ) fields(path string, a, b *Node) *Difference {
	for i := range min(len(a.Fields), len(b.Fields)) {
		fa, fb := &a.Fields[i], &b.Fields[i]
		if fa.Name != fb.Name {
			return &Difference{Path: path, Attr: "field " + strconv.Itoa(i), A: show(fa.Name), B: show(fb.Name)}
		}
		fp := path + "." + safetext.Truncate(fa.Name, maxShown)
		if c.mode == Full {
			if !sameJSON(fa.Default, fb.Default) {
				return &Difference{Path: fp, Attr: "default", A: showJSON(fa.Default), B: showJSON(fb.Default)}
			}
			if order(fa.Order) != order(fb.Order) {
				return &Difference{Path: fp, Attr: "order", A: show(order(fa.Order)), B: show(order(fb.Order))}
			}
			if d := props(fp, "field ", fa.Props, fb.Props); d != nil {
				return d
			}
		}
		if d := c.node(fp, fa.Type, fb.Type); d != nil {
			return d
		}
	}
	if len(a.Fields) != len(b.Fields) {
		d := &Difference{Path: path, Attr: "fields", A: strconv.Itoa(len(a.Fields)), B: strconv.Itoa(len(b.Fields))}
		if len(a.Fields) > len(b.Fields) {
			d.B += " (no " + show(a.Fields[len(b.Fields)].Name) + ")"
		} else {
			d.A += " (no " + show(b.Fields[len(a.Fields)].Name) + ")"
		}
		return d
	}
	return nil
}

// order returns a field's sort order, "ascending" when not written.
func order(o string) string {
	if o == "" {
		return "ascending"
	}
	return o
}

// props compares the other attributes of two types or fields (kind is
// "field " for fields), sorted by key as the parser keeps them.
func props(path, kind string, a, b []Prop) *Difference {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	ma, mb := make(map[string]json.RawMessage, len(a)), make(map[string]json.RawMessage, len(b))
	for _, p := range a {
		ma[p.Key] = p.Value
	}
	for _, p := range b {
		mb[p.Key] = p.Value
	}
	for _, ps := range [][]Prop{a, b} {
		for _, p := range ps {
			if va, vb := ma[p.Key], mb[p.Key]; !sameJSON(va, vb) {
				return &Difference{Path: path, Attr: kind + "attribute " + safetext.Quote(p.Key, maxShown), A: showJSON(va), B: showJSON(vb)}
			}
		}
	}
	return nil
}

// sameJSON reports whether two JSON texts (nil: absent) hold the same
// value: equal once compacted, as the parser writes values with sorted
// object keys.
func sameJSON(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// showJSON shows a JSON value for a Difference, "none" when absent.
func showJSON(v json.RawMessage) string {
	if v == nil {
		return "none"
	}
	return safetext.Truncate(string(v), maxShown)
}

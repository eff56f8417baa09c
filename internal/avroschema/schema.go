// Package avroschema is protoavro's model of an Avro schema: a plain tree of
// nodes that protoavro derives from protobuf descriptors, prints as JSON and
// as Parsing Canonical Form, fingerprints, compares (Diff), and parses from
// the untrusted schema text of container files and registries.
//
// The model holds what protoavro needs and no more: every type of the Avro
// 1.12 specification, names as full names, logical types with their decimal
// parameters, docs, defaults, field sort orders and other attributes (of
// types and of fields) as raw JSON. References to
// named types defined earlier in the tree are nodes of their own whose Def
// points at the definition, so a tree can be walked without a name table and
// recursive types are finite graphs.
package avroschema

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Type is an Avro schema type.
type Type uint8

// The Avro types.
const (
	Null Type = iota
	Boolean
	Int
	Long
	Float
	Double
	Bytes
	String
	Record
	Enum
	Array
	Map
	Union
	Fixed
)

var typeNames = [...]string{
	Null: "null", Boolean: "boolean", Int: "int", Long: "long", Float: "float",
	Double: "double", Bytes: "bytes", String: "string", Record: "record",
	Enum: "enum", Array: "array", Map: "map", Union: "union", Fixed: "fixed",
}

// String returns the type's name in schema JSON ("long", "record", ...).
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Primitive reports whether t is one of the eight primitive types.
func (t Type) Primitive() bool { return t <= String }

// Named reports whether t is a named type (record, enum, fixed).
func (t Type) Named() bool { return t == Record || t == Enum || t == Fixed }

// promotions are the writer types the specification lets a reader read as
// other types.
var promotions = map[Type][]Type{
	Int:    {Long, Float, Double},
	Long:   {Float, Double},
	Float:  {Double},
	String: {Bytes},
	Bytes:  {String},
}

// Promotes reports whether the specification's schema resolution promotes
// data of writer type w to reader type r (int to long, float or double; long
// to float or double; float to double; string and bytes to each other). A
// type does not promote to itself.
func Promotes(w, r Type) bool { return slices.Contains(promotions[w], r) }

// primitiveTypes maps primitive type names to their Type.
var primitiveTypes = map[string]Type{
	"null": Null, "boolean": Boolean, "int": Int, "long": Long,
	"float": Float, "double": Double, "bytes": Bytes, "string": String,
}

// Node is one schema in the tree.
type Node struct {
	Type Type

	// Name is the full name of a named type (record, enum, fixed), and of
	// the definition a reference points to.
	Name string

	// Def is set on references: nodes standing for a named type defined
	// elsewhere in the tree (earlier, or an enclosing record for recursive
	// types). A reference carries only Type, Name and Def.
	Def *Node

	Doc string

	// Aliases are the other full names of a named type, which a reader
	// schema matches writer types by: aliases as written resolved against
	// the namespace of Name, as the specification says (a dotted alias is a
	// full name; a leading dot, ".X", is the null namespace). They are not
	// part of Parsing Canonical Form.
	Aliases []string

	// Logical is the logicalType attribute, with Precision and Scale for
	// decimals.
	Logical          string
	Precision, Scale int

	// Props are the other attributes, in the order they are written.
	Props []Prop

	Fields   []Field  // record
	Symbols  []string // enum
	Items    *Node    // array
	Values   *Node    // map
	Branches []*Node  // union
	Size     int      // fixed

	// EnumDefault is the enum's default symbol, when HasEnumDefault.
	EnumDefault    string
	HasEnumDefault bool
}

// Field is one field of a record.
type Field struct {
	Name string
	Doc  string
	// Aliases are the field's other names, as written (field names have no
	// namespace), which a reader field matches writer fields by.
	Aliases []string
	Type    *Node
	// Default is the JSON text of the field's default, nil when it has none.
	Default json.RawMessage
	// Order is the field's sort order as written: "ascending",
	// "descending", "ignore", or "" when not written (ascending).
	Order string
	// Props are the field's other attributes, sorted by key.
	Props []Prop
}

// Prop is an attribute of a schema outside the ones the model names.
type Prop struct {
	Key   string
	Value json.RawMessage
}

// Deref returns the definition of a reference, and any other node itself.
func (n *Node) Deref() *Node {
	if n.Def != nil {
		return n.Def
	}
	return n
}

// IsRef reports whether n is a reference to a named type defined elsewhere.
func (n *Node) IsRef() bool { return n.Def != nil }

// RefTo returns a reference to the named type def.
func RefTo(def *Node) *Node { return &Node{Type: def.Type, Name: def.Name, Def: def} }

// Prim returns a primitive node of type t.
func Prim(t Type) *Node { return &Node{Type: t} }

// Nullable returns the union ["null", t].
func Nullable(t *Node) *Node { return &Node{Type: Union, Branches: []*Node{Prim(Null), t}} }

// Prop returns the value of the attribute key, or nil.
func (n *Node) Prop(key string) json.RawMessage {
	for _, p := range n.Props {
		if p.Key == key {
			return p.Value
		}
	}
	return nil
}

// Walk calls fn for n and every node below it, definitions once each
// (references are passed to fn but not followed).
func (n *Node) Walk(fn func(*Node)) {
	fn(n)
	if n.Def != nil {
		return
	}
	for i := range n.Fields {
		n.Fields[i].Type.Walk(fn)
	}
	if n.Items != nil {
		n.Items.Walk(fn)
	}
	if n.Values != nil {
		n.Values.Walk(fn)
	}
	for _, b := range n.Branches {
		b.Walk(fn)
	}
}

// Package avrojson converts Avro binary datums of any schema to and from the
// JSON encoding of the Avro specification, as Apache Avro Java's avro-tools
// tojson and fromjson write and read it: records as objects, unions other
// than null as an object whose one key is the branch's type name (the full
// name of a named type), bytes and fixed values as strings whose code points
// 0-255 are the byte values, enums as their symbols, NaN and infinities of
// float and double as the strings "NaN", "Infinity" and "-Infinity".
//
// It walks a schema parsed by internal/avroschema and needs no generated code
// or message type. Both directions are bounded: nesting depth, and the number
// of zero-size array and map items a datum may claim, are limited, and no
// allocation is sized by a length read from the input before the bytes it
// claims are known to be there.
package avrojson

import (
	"errors"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/limits"
)

// Limits bound the datums a [Schema] converts. A zero field takes its
// default.
type Limits struct {
	// MaxDepth bounds the nesting of records: a record inside more than
	// MaxDepth others is refused (default 1000, as protoavro's codecs
	// count and bound nesting; the unions, arrays and maps between two
	// records nest no deeper than the schema: avrobin.Nested).
	MaxDepth int
	// MaxEmptyItems bounds the values inside one datum whose encoding may
	// take no bytes, which the input's size alone cannot bound: the items of
	// arrays of such values (nulls, empty records) and the other records
	// nested in the datum that take no bytes (map values, fields), counted
	// as protoavro's codecs count them (default 1<<20, their bound).
	MaxEmptyItems int64
	// MaxDefaultValues bounds the values that field defaults give one datum
	// converted from JSON: the defaults of nested record types can expand a
	// value of 2 bytes into 3^30 records (default 1<<20).
	MaxDefaultValues int64
	// MaxJSONSize bounds the JSON of one datum (default 512 MiB): the
	// schema's names are written for values that take a byte or none, so
	// a datum of a few bytes could otherwise give terabytes.
	MaxJSONSize int
}

// Defaults of [Limits].
const (
	DefaultMaxDepth      = limits.Depth
	DefaultMaxEmptyItems = limits.DatumEmptyItems
	// DefaultMaxDefaultValues bounds the values from field defaults.
	DefaultMaxDefaultValues = 1 << 20
	// DefaultMaxJSONSize bounds the JSON of a datum: 8 times the largest
	// block protoavro's readers accept, above the JSON of any datum such a
	// block holds that the schema's names do not inflate (bytes and strings
	// take at most 6 bytes of JSON a byte).
	DefaultMaxJSONSize = 512 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxEmptyItems <= 0 {
		l.MaxEmptyItems = DefaultMaxEmptyItems
	}
	if l.MaxDefaultValues <= 0 {
		l.MaxDefaultValues = DefaultMaxDefaultValues
	}
	if l.MaxJSONSize <= 0 {
		l.MaxJSONSize = DefaultMaxJSONSize
	}
	return l
}

// ErrJSON reports a JSON value that does not match the schema. The other
// classes an *[Error] wraps are protoavro's data classes, shared with package
// ocf: ocf.ErrTruncated (a binary datum that ends early), ocf.ErrMalformed
// (binary data that is not a datum of the schema: a bad varint, an int out of
// range, a negative length, a union branch or enum index out of range, a
// boolean byte other than 0 or 1) and ocf.ErrLimit (a datum beyond a limit of
// [Limits]).
var ErrJSON = errors.New("JSON value does not match the schema")

// Error is an error at a place in a datum: Path is where in the datum the
// error is, as field names, [index] for array items, [key] for map values
// and <branch> for union branches, such as "order.items[3].price" (empty for
// the datum itself); Offset is the byte offset in the binary datum (for
// AppendJSON), or -1. It is the positioned error of the Avro binary reader
// the codecs share (internal/avrobin).
type Error = avrobin.Error

// within prefixes the path of err (an *Error) with seg.
func within(err error, seg string) error { return avrobin.Within(err, seg) }

func errAt(class error, off int, format string, args ...any) error {
	return avrobin.Errorf(class, off, format, args...)
}

// BranchName returns the name that tags a union branch of type n in JSON:
// the full name of a named type, else the type's name ("int", "array").
func BranchName(n *avroschema.Node) string {
	d := n.Deref()
	if d.Type.Named() {
		return d.Name
	}
	return d.Type.String()
}

// Schema is a schema ready for conversion under some Limits: which of its
// values can take no bytes is worked out once, in time linear in its size
// (avroschema.Empties). It is safe for concurrent use.
type Schema struct {
	root     *avroschema.Node
	lim      Limits
	empty    map[*avroschema.Node]bool // per record: can it take no bytes?
	defaults map[*avroschema.Field]fieldDefault
	// names indexes the field names of records, the symbols of enums and
	// the branch names of unions that have more than indexedNames of them,
	// so that a JSON value costs a lookup per name, not a scan of the
	// schema's list.
	names map[*avroschema.Node]map[string]int
}

// indexedNames is the most names a record, enum or union has for them to be
// looked up by a scan of its list rather than through Schema.names.
const indexedNames = 8

// fieldDefault is a field's default, parsed once.
type fieldDefault struct {
	v   any
	err error
}

// Compile prepares s for AppendJSON and AppendDatum under l.
func (l Limits) Compile(s *avroschema.Node) *Schema {
	c := &Schema{root: s, lim: l.withDefaults(), empty: avrobin.RecordEmpties(s), defaults: map[*avroschema.Field]fieldDefault{}}
	for n := range c.empty {
		for i := range n.Fields {
			if f := &n.Fields[i]; f.Default != nil {
				v, err := parseDefault(f.Default)
				c.defaults[f] = fieldDefault{v, err}
			}
		}
	}
	c.names = map[*avroschema.Node]map[string]int{}
	s.Walk(func(n *avroschema.Node) {
		switch {
		case n.Type == avroschema.Record && len(n.Fields) > indexedNames:
			c.names[n] = nameIndex(len(n.Fields), func(i int) string { return n.Fields[i].Name })
		case n.Type == avroschema.Enum && len(n.Symbols) > indexedNames:
			c.names[n] = nameIndex(len(n.Symbols), func(i int) string { return n.Symbols[i] })
		case n.Type == avroschema.Union && len(n.Branches) > indexedNames:
			c.names[n] = nameIndex(len(n.Branches), func(i int) string { return BranchName(n.Branches[i]) })
		}
	})
	return c
}

// nameIndex maps each of n names to its first index.
func nameIndex(n int, name func(int) string) map[string]int {
	m := make(map[string]int, n)
	for i := range n {
		if _, dup := m[name(i)]; !dup {
			m[name(i)] = i
		}
	}
	return m
}

// index returns the index of name among the n names of node, the fields of
// a record, the symbols of an enum or the branches of a union, or -1.
func (c *Schema) index(node *avroschema.Node, n int, name func(int) string, want string) int {
	if m, ok := c.names[node]; ok {
		if i, ok := m[want]; ok {
			return i
		}
		return -1
	}
	for i := range n {
		if name(i) == want {
			return i
		}
	}
	return -1
}

// zeroSize reports whether a value of n, a node of c's schema, can take no
// bytes.
func (c *Schema) zeroSize(n *avroschema.Node) bool {
	return avrobin.MinSize(n, c.recordEmpty) == 0
}

// recordEmpty reports whether a value of the record n can take no bytes.
func (c *Schema) recordEmpty(n *avroschema.Node) bool { return c.empty[n.Deref()] }

// minSize returns a lower bound on the bytes a value of n takes
// (avrobin.MinSize).
func (c *Schema) minSize(n *avroschema.Node) int { return avrobin.MinSize(n, c.recordEmpty) }

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
	"fmt"
	"strings"

	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/limits"
)

// Limits bound the datums a [Schema] converts. A zero field takes its
// default.
type Limits struct {
	// MaxDepth bounds the nesting of records, arrays, maps and unions
	// (default 1000, the depth protoavro's codecs allow).
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

// Error is an error at a place in a datum.
type Error struct {
	// Path is where in the datum the error is, as field names, [index] for
	// array items, [key] for map values and <branch> for union branches,
	// such as "order.items[3].price"; empty for the datum itself.
	Path string
	// Offset is the byte offset in the binary datum (for AppendJSON), or -1.
	Offset int
	// Err wraps one of the error classes.
	Err error
}

// Error returns "PATH at byte N: MESSAGE".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
	} else {
		b.WriteString("datum")
	}
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " at byte %d", e.Offset)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// within prefixes the path of err (an *Error) with seg.
func within(err error, seg string) error {
	var e *Error
	if errors.As(err, &e) {
		switch {
		case e.Path == "":
			e.Path = seg
		case strings.HasPrefix(e.Path, "["), strings.HasPrefix(e.Path, "<"):
			e.Path = seg + e.Path
		default:
			e.Path = seg + "." + e.Path
		}
	}
	return err
}

func errAt(class error, off int, format string, args ...any) error {
	return &Error{Offset: off, Err: fmt.Errorf("%w: %s", class, fmt.Sprintf(format, args...))}
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
}

// fieldDefault is a field's default, parsed once.
type fieldDefault struct {
	v   any
	err error
}

// Compile prepares s for AppendJSON and AppendDatum under l.
func (l Limits) Compile(s *avroschema.Node) *Schema {
	c := &Schema{root: s, lim: l.withDefaults(), empty: map[*avroschema.Node]bool{}, defaults: map[*avroschema.Field]fieldDefault{}}
	var e avroschema.Empties
	seen := map[*avroschema.Node]bool{}
	var walk func(n *avroschema.Node)
	walk = func(n *avroschema.Node) {
		n = n.Deref()
		if seen[n] {
			return
		}
		seen[n] = true
		switch n.Type {
		case avroschema.Record:
			c.empty[n] = e.CanBeEmpty(n)
			for i := range n.Fields {
				f := &n.Fields[i]
				if f.Default != nil {
					v, err := parseDefault(f.Default)
					c.defaults[f] = fieldDefault{v, err}
				}
				walk(f.Type)
			}
		case avroschema.Array:
			walk(n.Items)
		case avroschema.Map:
			walk(n.Values)
		case avroschema.Union:
			for _, b := range n.Branches {
				walk(b)
			}
		}
	}
	walk(s)
	return c
}

// zeroSize reports whether a value of n, a node of c's schema, can take no
// bytes.
func (c *Schema) zeroSize(n *avroschema.Node) bool {
	n = n.Deref()
	switch n.Type {
	case avroschema.Null:
		return true
	case avroschema.Fixed:
		return n.Size == 0
	case avroschema.Record:
		return c.empty[n]
	}
	return false
}

// minSize returns a lower bound on the bytes a value of n takes: 0 when it
// can take none, else the size of a float, double or fixed, else 1.
func (c *Schema) minSize(n *avroschema.Node) int {
	if c.zeroSize(n) {
		return 0
	}
	switch n = n.Deref(); n.Type {
	case avroschema.Float:
		return 4
	case avroschema.Double:
		return 8
	case avroschema.Fixed:
		return n.Size
	}
	return 1 // every other type starts with at least one byte
}

// emptyCount counts the zero-size values of one datum against
// Limits.MaxEmptyItems, the same way in both directions: n items of an
// array of values that can take no bytes, or one nested record that takes
// no bytes and is not such an item (item says it is; the datum itself is
// not counted).
type emptyCount struct {
	n    int64
	item bool
}

// add counts n zero-size values; false if they exceed max.
func (c *emptyCount) add(n, max int64) bool {
	if n > max-c.n {
		return false
	}
	c.n += n
	return true
}

// record counts a record at depth (empty: it takes no bytes), reporting
// false if the count exceeds max.
func (c *emptyCount) record(empty bool, depth int, max int64) bool {
	if c.item {
		c.item = false
		return true
	}
	return depth == 0 || !empty || c.add(1, max)
}

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

// Limits bound the datums AppendJSON and AppendBinary accept. A zero field
// takes its default.
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
}

// Defaults of [Limits].
const (
	DefaultMaxDepth      = limits.Depth
	DefaultMaxEmptyItems = limits.DatumEmptyItems
)

func (l Limits) withDefaults() Limits {
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxEmptyItems <= 0 {
		l.MaxEmptyItems = DefaultMaxEmptyItems
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

// zeroSize reports whether a datum of n can take no bytes, as minSize(n,
// depth) == 0 says, stopping at the first field that cannot.
func zeroSize(n *avroschema.Node, depth int) bool {
	n = n.Deref()
	switch n.Type {
	case avroschema.Null:
		return true
	case avroschema.Fixed:
		return n.Size == 0
	case avroschema.Record:
		if depth > 32 {
			return true
		}
		for i := range n.Fields {
			if !zeroSize(n.Fields[i].Type, depth+1) {
				return false
			}
		}
		return true
	}
	return false
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

// record counts a record of schema s at depth, reporting false if it
// exceeds max.
func (c *emptyCount) record(s *avroschema.Node, depth int, max int64) bool {
	if c.item {
		c.item = false
		return true
	}
	return depth == 0 || !zeroSize(s, 0) || c.add(1, max)
}

// minSize returns the fewest bytes a datum of n takes; depth bounds the
// walk through recursive records.
func minSize(n *avroschema.Node, depth int) int {
	n = n.Deref()
	switch n.Type {
	case avroschema.Null:
		return 0
	case avroschema.Float:
		return 4
	case avroschema.Double:
		return 8
	case avroschema.Fixed:
		return n.Size
	case avroschema.Record:
		if depth > 32 {
			return 0
		}
		s := 0
		for i := range n.Fields {
			s += minSize(n.Fields[i].Type, depth+1)
			if s > 1<<20 {
				return s
			}
		}
		return s
	}
	return 1 // every other type starts with at least one byte
}

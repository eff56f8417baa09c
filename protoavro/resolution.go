package protoavro

// The resolution rules of the Avro specification as a check of two
// schemas: every reason data written with one cannot be read with the
// other. The Kafka module's compatibility gate is this check. The rules it
// shares with the reader compiler (reader_compile.go, reader_values.go,
// timestamp.go) are here too: names and aliases (namesMatch), logical types
// (logicalOf, logicalMismatch); promotions are avroschema.Promotes.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/protoavro/protoavro/internal/avroschema"
)

// ResolutionProblem is one reason data written with one Avro schema cannot
// be read with another.
type ResolutionProblem struct {
	// Path is the field path, such as "Person.address.zip".
	Path string
	// Detail says what does not resolve.
	Detail string
}

// String formats the problem on one line.
func (p ResolutionProblem) String() string { return p.Path + ": " + p.Detail }

// CheckResolution returns every reason data written with writer cannot be
// read with reader, by the schema resolution rules of the Avro
// specification: names (and aliases), promotions, union branches, enum
// symbols and defaults, record fields and their defaults, fixed sizes. None
// means reader reads all of writer's data. It follows named types through
// references and terminates on recursive schemas.
//
// Where protoavro's reader (Codec.Resolve) is stricter than the
// specification, so is the check, so that it accepts no pair whose data
// that reader refuses: a writer time of day is no timestamp, and no
// timestamp or date a time of day, nor a plain int one; decimals need the
// same scale; and a reader record reads a writer record, not a union, at
// the top. Where that reader reads more than the specification allows (a
// writer's null as an empty list or map), the check follows the
// specification, as every Avro reader must read the data.
func CheckResolution(reader, writer *Schema) []ResolutionProblem {
	return resolveCheck(reader.root, writer.root)
}

// ParseSchemaExact is [ParseSchema] that refuses a field default that does
// not match its field's type, where ParseSchema drops it (some writers
// register such defaults). A check of compatibility needs the defaults of
// a new schema exact, since they decide it.
func ParseSchemaExact(text []byte) (*Schema, error) {
	n, err := avroschema.ParseExact(text)
	if err != nil {
		return nil, fmt.Errorf("protoavro: %w", err)
	}
	return newSchema(nil, Options{}, nil, n, nil), nil
}

// resolveCheck returns every reason data written with w cannot be read with
// r, by the resolution rules of the Avro specification.
func resolveCheck(r, w *avroschema.Node) []ResolutionProblem {
	c := &checker{seen: map[pair]bool{}}
	path := shortName(r.Deref())
	if r.Deref().Type == avroschema.Record && w.Deref().Type == avroschema.Union {
		// protoavro's reader reads records of a record type, not the
		// union index before one.
		c.fail(path, "writer %s cannot be read as reader %s: a reader record reads a writer record, not a union", describe(w), describe(r))
		return c.out
	}
	c.check(r, w, path)
	return c.out
}

// pair is a reader and a writer definition.
type pair [2]*avroschema.Node

// checker walks a reader and a writer schema together, recording every
// problem. References are followed (Deref), and a pair of definitions is
// checked once, so recursive schemas end.
type checker struct {
	seen map[pair]bool
	out  []ResolutionProblem
}

func shortName(n *avroschema.Node) string {
	if n.Name == "" {
		return n.Type.String()
	}
	return simpleName(n.Name)
}

func describe(n *avroschema.Node) string {
	n = n.Deref()
	if n.Name != "" {
		return n.Type.String() + " " + n.Name
	}
	if n.Type == avroschema.Union {
		parts := make([]string, len(n.Branches))
		for i, b := range n.Branches {
			parts[i] = describe(b)
		}
		return "union [" + strings.Join(parts, ", ") + "]"
	}
	return n.Type.String()
}

func (c *checker) fail(path, format string, a ...any) {
	c.out = append(c.out, ResolutionProblem{Path: path, Detail: fmt.Sprintf(format, a...)})
}

// namesMatch reports whether the reader's named type of full name rName and
// aliases rAliases (full names) reads the writer's named type of full name
// wName, as the specification and Java's SchemaCompatibility (which the
// registry runs) decide it: the same unqualified name, or a reader alias
// that is the writer's full name. The writer's aliases do not count.
func namesMatch(rName string, rAliases []string, wName string) bool {
	return simpleName(rName) == simpleName(wName) || slices.Contains(rAliases, wName)
}

// simpleName returns the last part of an Avro full name.
func simpleName(full string) string { return full[strings.LastIndexByte(full, '.')+1:] }

// logicalOf returns the logical type of s that resolution takes into
// account: its logicalType where the specification defines it for s's
// type, else "" (a logical type unknown, or invalid for its type, is
// ignored, and the value read as its underlying type).
func logicalOf(s *avroschema.Node) string {
	switch l := s.Logical; l {
	case "date", "time-millis":
		if s.Type == avroschema.Int {
			return l
		}
	case "time-micros", "timestamp-millis", "timestamp-micros", "timestamp-nanos",
		"local-timestamp-millis", "local-timestamp-micros", "local-timestamp-nanos":
		if s.Type == avroschema.Long {
			return l
		}
	case "decimal":
		if s.Type == avroschema.Bytes || s.Type == avroschema.Fixed {
			return l
		}
	}
	return ""
}

// isTimestamp reports whether a logical type is an instant or a local
// date and time: a timestamp-* or local-timestamp-*.
func isTimestamp(logical string) bool {
	return strings.HasPrefix(logical, "timestamp-") || strings.HasPrefix(logical, "local-timestamp-")
}

// logicalMismatch returns why a value of the writer's schema w, whose type
// is the reader's or promotes to it, cannot be read as the reader's logical
// type rLogical (for a decimal, of precision rPrecision and scale rScale),
// or "" when it can. Beyond the underlying types, which the specification
// resolves alone, protoavro's reader converts between units and refuses
// what has no meaning in the reader's type, and so does CheckResolution:
//   - a time of day (time-millis, time-micros) is no timestamp;
//   - a date is midnight UTC of the day as a timestamp, but no time of day,
//     nor is a timestamp; a time-micros reader reads an int only as a
//     time-millis (a plain int has no unit of time of day);
//   - a time of day is no date;
//   - a decimal reads another decimal only of the same scale (the unscaled
//     integer of another scale is another number); its precision only bounds
//     the values, and one out of the reader's range fails when read.
//
// A writer without logical type is read in the reader's.
func logicalMismatch(w *avroschema.Node, rLogical string, rPrecision, rScale int) string {
	wl := logicalOf(w)
	if wl == "" || wl == rLogical {
		if wl == "decimal" && w.Scale != rScale {
			return fmt.Sprintf("writer decimal(%d,%d) cannot be read as decimal(%d,%d): its scale differs", w.Precision, w.Scale, rPrecision, rScale)
		}
		if wl == "" && w.Type == avroschema.Int && rLogical == "time-micros" {
			return "writer int without logical type time-millis cannot be read as time-micros: a plain int has no unit of time of day"
		}
		return ""
	}
	timeOfDay := func(l string) bool { return l == "time-millis" || l == "time-micros" }
	switch {
	case isTimestamp(rLogical) && timeOfDay(wl):
		return fmt.Sprintf("writer %s %s, a time of day, cannot be read as %s", w.Type, wl, rLogical)
	case timeOfDay(rLogical) && (wl == "date" || isTimestamp(wl)):
		return fmt.Sprintf("writer %s %s cannot be read as %s, a time of day", w.Type, wl, rLogical)
	case rLogical == "date" && timeOfDay(wl):
		return fmt.Sprintf("writer %s %s, a time of day, cannot be read as a date", w.Type, wl)
	}
	return ""
}

func (c *checker) check(r, w *avroschema.Node, path string) {
	r, w = r.Deref(), w.Deref()
	p := pair{r, w}
	if c.seen[p] {
		return
	}
	c.seen[p] = true
	if w.Type == avroschema.Union {
		// Each writer branch resolves against the reader (or its union).
		for i, b := range w.Branches {
			if r.Type != avroschema.Union {
				c.check(r, b, path)
			} else if sel := selectBranch(r, b); sel != nil {
				c.check(sel, b, path)
			} else {
				c.fail(path, "writer union branch %d (%s) matches no reader branch of %s", i, describe(b), describe(r))
			}
		}
		return
	}
	if r.Type == avroschema.Union {
		if sel := selectBranch(r, w); sel != nil {
			c.check(sel, w, path)
		} else {
			c.fail(path, "writer %s matches no branch of reader %s", describe(w), describe(r))
		}
		return
	}
	if r.Type != w.Type && !avroschema.Promotes(w.Type, r.Type) {
		c.fail(path, "writer %s cannot be read as reader %s", describe(w), describe(r))
		return
	}
	switch r.Type {
	case avroschema.Record:
		if !namesMatch(r.Name, r.Aliases, w.Name) {
			c.fail(path, "record name %s does not match writer's %s", r.Name, w.Name)
			return
		}
		for i := range r.Fields {
			rf := &r.Fields[i]
			wf := findField(w, rf)
			if wf == nil {
				if rf.Default == nil {
					c.fail(path+"."+rf.Name, "reader field missing from the writer and has no default")
				}
				continue
			}
			c.check(rf.Type, wf.Type, path+"."+rf.Name)
		}
	case avroschema.Enum:
		if !namesMatch(r.Name, r.Aliases, w.Name) {
			c.fail(path, "enum name %s does not match writer's %s", r.Name, w.Name)
			return
		}
		if r.HasEnumDefault {
			return
		}
		var missing []string
		for _, s := range w.Symbols {
			if !slices.Contains(r.Symbols, s) {
				missing = append(missing, s)
			}
		}
		if len(missing) > 0 {
			c.fail(path, "writer enum symbols %s missing from reader enum %s, which has no default", strings.Join(missing, ", "), r.Name)
		}
	case avroschema.Fixed:
		if !namesMatch(r.Name, r.Aliases, w.Name) || r.Size != w.Size {
			c.fail(path, "fixed %s(%d) does not match writer's %s(%d)", r.Name, r.Size, w.Name, w.Size)
			return
		}
		c.logical(r, w, path)
	case avroschema.Array:
		c.check(r.Items, w.Items, path+"[]")
	case avroschema.Map:
		c.check(r.Values, w.Values, path+"{}")
	default:
		c.logical(r, w, path)
	}
}

// logical records the problem, if any, of reading the writer's value of
// w as the reader's logical type of r (logicalMismatch).
func (c *checker) logical(r, w *avroschema.Node, path string) {
	if d := logicalMismatch(w, logicalOf(r), r.Precision, r.Scale); d != "" {
		c.fail(path, "%s", d)
	}
}

// selectBranch returns the branch of the reader union r that w resolves
// against, as the specification chooses it (the first that matches): of
// w's type and, for a named type, of w's full name; else of w's type and a
// matching name (unqualified, or a reader alias); else the first that w's
// type promotes to. Nil if none.
func selectBranch(r, w *avroschema.Node) *avroschema.Node {
	w = w.Deref()
	for _, b := range r.Branches {
		if b := b.Deref(); b.Type == w.Type && b.Name == w.Name {
			return b
		}
	}
	for _, b := range r.Branches {
		if b := b.Deref(); b.Type == w.Type && namesMatch(b.Name, b.Aliases, w.Name) {
			return b
		}
	}
	for _, b := range r.Branches {
		if b := b.Deref(); avroschema.Promotes(w.Type, b.Type) {
			return b
		}
	}
	return nil
}

// findField returns the writer's field that the reader's field rf reads: the
// one of the same name, else one named by an alias of rf.
func findField(w *avroschema.Node, rf *avroschema.Field) *avroschema.Field {
	for i := range w.Fields {
		if w.Fields[i].Name == rf.Name {
			return &w.Fields[i]
		}
	}
	for _, a := range rf.Aliases {
		for i := range w.Fields {
			if w.Fields[i].Name == a {
				return &w.Fields[i]
			}
		}
	}
	return nil
}

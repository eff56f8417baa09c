package protoavro

// The resolution rules of the Avro specification as a check of two
// schemas: every reason data written with one cannot be read with the
// other. The Kafka module's compatibility gate is this check.

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
	c.check(r, w, shortName(r.Deref()))
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
	return unqualified(n.Name)
}

func unqualified(name string) string { return name[strings.LastIndexByte(name, '.')+1:] }

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

// namesMatch reports whether the reader's named type r matches the writer's
// w, as Java's SchemaCompatibility (which the registry runs) decides it: the
// same unqualified name, or a reader alias (a full name) that is the
// writer's full name.
func namesMatch(r, w *avroschema.Node) bool {
	if unqualified(r.Name) == unqualified(w.Name) {
		return true
	}
	for _, a := range r.Aliases {
		if a == w.Name {
			return true
		}
	}
	return false
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
			} else if !promotable(r, b) {
				c.fail(path, "writer union branch %d (%s) matches no reader branch of %s", i, describe(b), describe(r))
			}
		}
		return
	}
	if r.Type == avroschema.Union {
		if sel := selectBranch(r, w); sel != nil {
			c.check(sel, w, path)
		} else if !promotable(r, w) {
			c.fail(path, "writer %s matches no branch of reader %s", describe(w), describe(r))
		}
		return
	}
	if r.Type != w.Type {
		if !avroschema.Promotes(w.Type, r.Type) {
			c.fail(path, "writer %s cannot be read as reader %s", describe(w), describe(r))
		}
		return
	}
	switch r.Type {
	case avroschema.Record:
		if !namesMatch(r, w) {
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
		if !namesMatch(r, w) {
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
		if !namesMatch(r, w) || r.Size != w.Size {
			c.fail(path, "fixed %s(%d) does not match writer's %s(%d)", r.Name, r.Size, w.Name, w.Size)
		}
	case avroschema.Array:
		c.check(r.Items, w.Items, path+"[]")
	case avroschema.Map:
		c.check(r.Values, w.Values, path+"{}")
	}
}

// selectBranch returns the branch of the reader union r that w resolves
// against: of w's type and, for a named type, of w's full name, else of a
// matching name (unqualified, or an alias); nil if none.
func selectBranch(r, w *avroschema.Node) *avroschema.Node {
	w = w.Deref()
	for _, b := range r.Branches {
		if b := b.Deref(); b.Type == w.Type && b.Name == w.Name {
			return b
		}
	}
	for _, b := range r.Branches {
		if b := b.Deref(); b.Type == w.Type && namesMatch(b, w) {
			return b
		}
	}
	return nil
}

// promotable reports whether a branch of the reader union r reads w by
// promotion: the only way left once selectBranch found no branch of w's type
// (and name).
func promotable(r, w *avroschema.Node) bool {
	w = w.Deref()
	for _, b := range r.Branches {
		if avroschema.Promotes(w.Type, b.Deref().Type) {
			return true
		}
	}
	return false
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

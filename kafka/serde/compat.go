package serde

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/protoavro/protoavro/protoavro"
)

// Level is a compatibility level of the registry.
type Level int

// The compatibility levels. BACKWARD: the new schema reads data of the
// previous version; FORWARD: the previous version reads data of the new one;
// FULL: both. The TRANSITIVE forms check every earlier version, not only the
// latest.
const (
	LevelNone Level = iota
	LevelBackward
	LevelBackwardTransitive
	LevelForward
	LevelForwardTransitive
	LevelFull
	LevelFullTransitive
)

var levelNames = [...]string{"NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"}

// String returns the registry's name of the level, such as "FULL_TRANSITIVE".
func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// ParseLevel parses a level name (case-insensitive).
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if strings.EqualFold(s, n) {
			return Level(i), nil
		}
	}
	return 0, fmt.Errorf("serde: unknown compatibility level %q", s)
}

func (l Level) backward() bool {
	return l == LevelBackward || l == LevelBackwardTransitive || l == LevelFull || l == LevelFullTransitive
}
func (l Level) forward() bool {
	return l == LevelForward || l == LevelForwardTransitive || l == LevelFull || l == LevelFullTransitive
}
func (l Level) transitive() bool {
	return l == LevelBackwardTransitive || l == LevelForwardTransitive || l == LevelFullTransitive
}

// Incompatibility is one reason two schemas do not resolve.
type Incompatibility struct {
	// Version is the subject version checked against (0 in
	// CheckCompatibility, which numbers the previous schemas from 1).
	Version int
	// Direction is "new reads old" (backward) or "old reads new" (forward).
	Direction string
	// Path is the field path, such as "Person.address.zip".
	Path string
	// Detail says what does not resolve.
	Detail string
}

// String formats the incompatibility on one line.
func (i Incompatibility) String() string {
	return fmt.Sprintf("version %d, %s: %s: %s", i.Version, i.Direction, i.Path, i.Detail)
}

// Report is the result of a compatibility check.
type Report struct {
	// Subject is the subject checked ("" for CheckCompatibility).
	Subject string
	// Level is the level checked under.
	Level Level
	// Versions are the versions the new schema was checked against.
	Versions []int
	// Problems are every incompatibility found, field by field.
	Problems []Incompatibility
}

// Compatible reports whether no problem was found.
func (r *Report) Compatible() bool { return len(r.Problems) == 0 }

// Err returns nil when compatible, else an error wrapping ErrIncompatible
// that lists every problem.
func (r *Report) Err() error {
	if r.Compatible() {
		return nil
	}
	lines := make([]string, len(r.Problems))
	for i, p := range r.Problems {
		lines[i] = "  " + p.String()
	}
	what := "schema"
	if r.Subject != "" {
		what = "schema for subject " + r.Subject
	}
	return fmt.Errorf("%w: %s is not %v compatible (%d problems):\n%s", ErrIncompatible, what, r.Level, len(r.Problems), strings.Join(lines, "\n"))
}

// Check checks the Avro schema newSchema (JSON) against the versions of
// subject under the subject's compatibility level, locally, by Avro's
// resolution rules. A subject that does not exist yet is compatible.
func (r *Registry) Check(ctx context.Context, subject, newSchema string) (*Report, error) {
	lvl, err := r.Compatibility(ctx, subject)
	if err != nil {
		return nil, err
	}
	return r.CheckAt(ctx, subject, lvl, newSchema)
}

// CheckAt is Check under the given level instead of the subject's.
func (r *Registry) CheckAt(ctx context.Context, subject string, lvl Level, newSchema string) (*Report, error) {
	vs, err := r.Versions(ctx, subject)
	if err != nil && !errors.Is(err, ErrUnknownSubject) {
		return nil, err
	}
	var prev []string
	var nums []int
	for _, v := range vs {
		if v.Schema.Type != TypeAvro && v.Schema.Type != "" {
			return nil, fmt.Errorf("%w: %s version %d is %s, want AVRO", ErrWrongSchemaType, subject, v.Version, v.Schema.Type)
		}
		prev = append(prev, v.Schema.Text)
		nums = append(nums, v.Version)
	}
	rep, err := CheckCompatibility(lvl, newSchema, prev)
	if err != nil {
		return nil, err
	}
	rep.Subject = subject
	for i := range rep.Problems {
		rep.Problems[i].Version = nums[rep.Problems[i].Version-1]
	}
	for i, v := range rep.Versions {
		rep.Versions[i] = nums[v-1]
	}
	return rep, nil
}

// CheckCompatibility checks the Avro schema newSchema against previous
// (oldest first, numbered from 1 in the report) under lvl, by Avro's
// resolution rules. Non-transitive levels check the last previous schema
// only. Every schema must parse (ParseSchema's bounds apply).
func CheckCompatibility(lvl Level, newSchema string, previous []string) (*Report, error) {
	rep := &Report{Level: lvl}
	if lvl == LevelNone || len(previous) == 0 {
		return rep, nil
	}
	nw, err := parseCompat(newSchema)
	if err != nil {
		return nil, fmt.Errorf("new schema: %w", err)
	}
	from := len(previous) - 1
	if lvl.transitive() {
		from = 0
	}
	for i := len(previous) - 1; i >= from; i-- {
		old, err := parseCompat(previous[i])
		if err != nil {
			return nil, fmt.Errorf("previous schema %d: %w", i+1, err)
		}
		rep.Versions = append(rep.Versions, i+1)
		add := func(dir string, ps []problem) {
			for _, p := range ps {
				rep.Problems = append(rep.Problems, Incompatibility{Version: i + 1, Direction: dir, Path: p.path, Detail: p.detail})
			}
		}
		if lvl.backward() {
			add("new reads old", resolveCheck(nw, old))
		}
		if lvl.forward() {
			add("old reads new", resolveCheck(old, nw))
		}
	}
	return rep, nil
}

// node is a parsed Avro schema for the compatibility check.
type node struct {
	kind    string // primitive name, record, enum, array, map, fixed, union
	name    string // full name of named types
	aliases []string
	fields  []cfield
	symbols []string
	enumDef bool
	size    int
	items   *node // array items, map values
	union   []*node
}

type cfield struct {
	name    string
	aliases []string
	typ     *node
	hasDef  bool
}

// parseCompat validates text with protoavro.ParseSchema (bounded) and builds
// the node tree.
func parseCompat(text string) (*node, error) {
	if _, err := protoavro.ParseSchema([]byte(text)); err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadSchema, err)
	}
	p := &cparser{named: map[string]*node{}}
	return p.parse(v, "")
}

type cparser struct{ named map[string]*node }

func fullName(name, ns string) string {
	if strings.Contains(name, ".") || ns == "" {
		return name
	}
	return ns + "." + name
}

func (p *cparser) parse(v any, ns string) (*node, error) {
	switch t := v.(type) {
	case string:
		switch t {
		case "null", "boolean", "int", "long", "float", "double", "bytes", "string":
			return &node{kind: t}, nil
		}
		if n, ok := p.named[fullName(t, ns)]; ok {
			return n, nil
		}
		if n, ok := p.named[t]; ok {
			return n, nil
		}
		return nil, fmt.Errorf("%w: unknown type %q", ErrBadSchema, t)
	case []any:
		n := &node{kind: "union"}
		for _, b := range t {
			bn, err := p.parse(b, ns)
			if err != nil {
				return nil, err
			}
			n.union = append(n.union, bn)
		}
		return n, nil
	case map[string]any:
		typ, _ := t["type"].(string)
		name, _ := t["name"].(string)
		if s, ok := t["namespace"].(string); ok && !strings.Contains(name, ".") {
			ns = s
		}
		fn := fullName(name, ns)
		if i := strings.LastIndexByte(fn, '.'); i >= 0 {
			ns = fn[:i]
		} else if name != "" {
			ns = ""
		}
		var aliases []string
		if as, ok := t["aliases"].([]any); ok {
			for _, a := range as {
				if s, ok := a.(string); ok {
					aliases = append(aliases, fullName(s, ns))
				}
			}
		}
		switch typ {
		case "record", "error":
			n := &node{kind: "record", name: fn, aliases: aliases}
			p.named[fn] = n
			fs, _ := t["fields"].([]any)
			for _, f := range fs {
				fm, _ := f.(map[string]any)
				fname, _ := fm["name"].(string)
				ft, err := p.parse(fm["type"], ns)
				if err != nil {
					return nil, fmt.Errorf("field %s.%s: %w", fn, fname, err)
				}
				_, hasDef := fm["default"]
				cf := cfield{name: fname, typ: ft, hasDef: hasDef}
				if as, ok := fm["aliases"].([]any); ok {
					for _, a := range as {
						if s, ok := a.(string); ok {
							cf.aliases = append(cf.aliases, s)
						}
					}
				}
				n.fields = append(n.fields, cf)
			}
			return n, nil
		case "enum":
			n := &node{kind: "enum", name: fn, aliases: aliases}
			if ss, ok := t["symbols"].([]any); ok {
				for _, s := range ss {
					str, _ := s.(string)
					n.symbols = append(n.symbols, str)
				}
			}
			_, n.enumDef = t["default"]
			p.named[fn] = n
			return n, nil
		case "fixed":
			sz, _ := t["size"].(float64)
			n := &node{kind: "fixed", name: fn, aliases: aliases, size: int(sz)}
			p.named[fn] = n
			return n, nil
		case "array", "map":
			key := "items"
			if typ == "map" {
				key = "values"
			}
			it, err := p.parse(t[key], ns)
			if err != nil {
				return nil, err
			}
			return &node{kind: typ, items: it}, nil
		default:
			return p.parse(typ, ns) // {"type": "long", "logicalType": ...}
		}
	}
	return nil, fmt.Errorf("%w: unexpected JSON %T in schema", ErrBadSchema, v)
}

type problem struct{ path, detail string }

// resolveCheck returns every reason data written with w cannot be read with
// r, by the resolution rules of the Avro specification.
func resolveCheck(r, w *node) []problem {
	c := &checker{seen: map[[2]*node]bool{}}
	c.check(r, w, shortName(r))
	return c.out
}

type checker struct {
	seen map[[2]*node]bool
	out  []problem
}

func shortName(n *node) string {
	if n.name == "" {
		return n.kind
	}
	return n.name[strings.LastIndexByte(n.name, '.')+1:]
}

func describe(n *node) string {
	if n.name != "" {
		return n.kind + " " + n.name
	}
	if n.kind == "union" {
		parts := make([]string, len(n.union))
		for i, b := range n.union {
			parts[i] = describe(b)
		}
		return "union [" + strings.Join(parts, ", ") + "]"
	}
	return n.kind
}

func (c *checker) fail(path, format string, a ...any) {
	c.out = append(c.out, problem{path, fmt.Sprintf(format, a...)})
}

// matches reports whether w can be read as r without recording problems.
func matches(r, w *node) bool {
	sub := &checker{seen: map[[2]*node]bool{}}
	sub.check(r, w, "")
	return len(sub.out) == 0
}

func promotes(w, r string) bool {
	switch w {
	case "int":
		return r == "long" || r == "float" || r == "double"
	case "long":
		return r == "float" || r == "double"
	case "float":
		return r == "double"
	case "string":
		return r == "bytes"
	case "bytes":
		return r == "string"
	}
	return false
}

func namesMatch(r, w *node) bool {
	rs, ws := shortName(r), shortName(w)
	if r.name == w.name || rs == ws {
		return true
	}
	for _, a := range r.aliases {
		if a == w.name || a[strings.LastIndexByte(a, '.')+1:] == ws {
			return true
		}
	}
	return false
}

func (c *checker) check(r, w *node, path string) {
	pair := [2]*node{r, w}
	if c.seen[pair] {
		return
	}
	c.seen[pair] = true
	if w.kind == "union" {
		for i, b := range w.union {
			if r.kind == "union" {
				if !anyMatch(r, b) {
					c.fail(path, "writer union branch %d (%s) matches no reader branch of %s", i, describe(b), describe(r))
				}
				continue
			}
			c.check(r, b, path)
		}
		return
	}
	if r.kind == "union" {
		for _, b := range r.union {
			if b.kind == w.kind && (b.name == "" || namesMatch(b, w)) {
				c.check(b, w, path)
				return
			}
		}
		if !anyMatch(r, w) {
			c.fail(path, "writer %s matches no branch of reader %s", describe(w), describe(r))
		}
		return
	}
	if r.kind != w.kind {
		if !promotes(w.kind, r.kind) {
			c.fail(path, "writer %s cannot be read as reader %s", describe(w), describe(r))
		}
		return
	}
	switch r.kind {
	case "record":
		if !namesMatch(r, w) {
			c.fail(path, "record name %s does not match writer's %s", r.name, w.name)
			return
		}
		for _, rf := range r.fields {
			wf := findField(w, rf)
			if wf == nil {
				if !rf.hasDef {
					c.fail(path+"."+rf.name, "reader field missing from the writer and has no default")
				}
				continue
			}
			c.check(rf.typ, wf.typ, path+"."+rf.name)
		}
	case "enum":
		if !namesMatch(r, w) {
			c.fail(path, "enum name %s does not match writer's %s", r.name, w.name)
			return
		}
		if r.enumDef {
			return
		}
		var missing []string
		for _, s := range w.symbols {
			found := false
			for _, rs := range r.symbols {
				if rs == s {
					found = true
					break
				}
			}
			if !found {
				missing = append(missing, s)
			}
		}
		if len(missing) > 0 {
			c.fail(path, "writer enum symbols %s missing from reader enum %s, which has no default", strings.Join(missing, ", "), r.name)
		}
	case "fixed":
		if !namesMatch(r, w) || r.size != w.size {
			c.fail(path, "fixed %s(%d) does not match writer's %s(%d)", r.name, r.size, w.name, w.size)
		}
	case "array":
		c.check(r.items, w.items, path+"[]")
	case "map":
		c.check(r.items, w.items, path+"{}")
	}
}

func anyMatch(r, w *node) bool {
	for _, b := range r.union {
		if matches(b, w) {
			return true
		}
	}
	return false
}

func findField(w *node, rf cfield) *cfield {
	for i := range w.fields {
		if w.fields[i].name == rf.name {
			return &w.fields[i]
		}
	}
	for _, a := range rf.aliases {
		for i := range w.fields {
			if w.fields[i].name == a {
				return &w.fields[i]
			}
		}
	}
	return nil
}

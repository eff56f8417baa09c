package protoavro

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/avroschema"
)

// Schema is an Avro schema: derived from one protobuf message type under one
// set of mapping options (by [Options.Schema]), or parsed from JSON text (by
// [ParseSchema]) such as the writer schema of a container file. It is
// immutable and safe for concurrent use.
type Schema struct {
	desc      protoreflect.MessageDescriptor // nil for parsed schemas
	opts      Options                        // mapping options, as Options.mapping reduces them
	plan      *msgPlan                       // nil for parsed schemas
	root      *avroschema.Node
	named     []namedDef // every named type defined in root's tree
	canonical string
	crc       uint64
	sha       [32]byte
	codecs    codecSlots // compiled codecs, built on first use
}

// namedDef records one named Avro type of a schema tree and the protobuf
// type it came from.
type namedDef struct {
	name string
	desc protoreflect.Descriptor
	node *avroschema.Node
}

// Descriptor returns the message descriptor the schema was derived from, or
// nil for a parsed schema.
func (s *Schema) Descriptor() protoreflect.MessageDescriptor { return s.desc }

// Options returns the mapping options the schema was derived with, reduced
// to what the schema depends on: no Cache, UnknownEnums or AnyResolver, and
// under the Java profile only Profile. It returns the zero Options for a
// parsed schema.
func (s *Schema) Options() Options { return s.opts }

// FullName returns the Avro full name of the top-level type (a record for
// every derived schema), or the type name of an unnamed one ("long").
func (s *Schema) FullName() string {
	if s.root.Type.Named() {
		return s.root.Name
	}
	return s.root.Type.String()
}

// Canonical returns the schema's Parsing Canonical Form as defined by the
// Avro specification: only the attributes that matter for parsing, in a fixed
// order, with no white space. Logical types are stripped, as the
// specification and Apache Avro Java do.
func (s *Schema) Canonical() string { return s.canonical }

// Fingerprint returns the CRC-64-AVRO fingerprint of the canonical form, the
// one used by single-object encoding and by Apache Avro Java's
// SchemaNormalization.parsingFingerprint64.
func (s *Schema) Fingerprint() uint64 { return s.crc }

// SHA256 returns the SHA-256 fingerprint of the canonical form.
func (s *Schema) SHA256() [32]byte { return s.sha }

// String returns the canonical form.
func (s *Schema) String() string { return s.canonical }

// MarshalJSON returns the full schema as compact JSON, with defaults, docs
// and properties.
func (s *Schema) MarshalJSON() ([]byte, error) { return s.root.JSON(), nil }

// JSON returns the full schema as indented JSON (the content of an .avsc
// file), ending with a newline. A schema nested deeper than [ParseSchema]
// accepts (derived with raised [SchemaLimits]) is written without
// indentation, which would grow with the square of its depth.
func (s *Schema) JSON() ([]byte, error) {
	compact := s.root.JSON()
	if d, _ := avroschema.JSONDepth(compact, avroschema.DefaultLimits.MaxDepth); d > avroschema.DefaultLimits.MaxDepth {
		return append(compact, '\n'), nil
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, compact, "", "  "); err != nil {
		return nil, fmt.Errorf("protoavro: indent schema of %s: %w", s.FullName(), err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// ParseSchema parses Avro schema JSON text, such as the writer schema of a
// container file or a schema registry's, for [Codec.Resolve]. The text is
// untrusted: schemas over 16 MiB or nested over 256 levels are refused before
// parsing. Errors wrap [ErrInvalidSchema].
func ParseSchema(text []byte) (*Schema, error) {
	n, err := avroschema.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("protoavro: %w", err)
	}
	return newSchema(nil, Options{}, nil, n, nil), nil
}

// ParseSchemaWith parses Avro schema JSON text whose named types may be
// defined in other schemas, refs, parsed first in the order given
// (dependencies before the schemas that use them): a schema registry's
// references, such as those of Confluent's Avro serializers. The schema
// returned holds the definitions it uses from refs, and stands alone. The
// bounds of ParseSchema apply to text and refs together; errors wrap
// [ErrInvalidSchema] and name the reference at fault.
func ParseSchemaWith(text []byte, refs ...[]byte) (*Schema, error) {
	n, err := avroschema.DefaultLimits.ParseWith(refs, text)
	if err != nil {
		return nil, fmt.Errorf("protoavro: %w", err)
	}
	return newSchema(nil, Options{}, nil, n, nil), nil
}

// readsAs reports whether data written with s reads as data written with
// other: the same canonical form and the same logical types, decimal
// parameters included (avroschema.Encoding).
func (s *Schema) readsAs(other *Schema) bool {
	return s.canonical == other.canonical && avroschema.Diff(s.root, other.root, avroschema.Encoding) == nil
}

// newSchema wraps a schema tree and computes its canonical form and fingerprints.
func newSchema(md protoreflect.MessageDescriptor, o Options, p *msgPlan, root *avroschema.Node, named []namedDef) *Schema {
	o = o.mapping()
	canon := root.Canonical()
	return &Schema{
		desc:      md,
		opts:      o,
		plan:      p,
		root:      root,
		named:     named,
		canonical: canon,
		crc:       avroschema.Fingerprint64(canon),
		sha:       sha256.Sum256([]byte(canon)),
	}
}

// builder writes the schema tree of a plan. Named types are defined once
// per tree; later uses refer to them by name. It decides nothing about the
// mapping: every type, default and name comes from the plan (plan.go).
type builder struct {
	opts    Options
	cache   *Cache
	defined map[string]namedDef
	named   []namedDef
	// adoptWork bounds the named types that adopt may look through, in
	// all, to a small multiple of the plan's records: a cached schema
	// that does not fit is found out only by looking, and the schemas of a
	// cycle's records each hold the whole cycle.
	adoptWork int
}

// derive compiles the plan of md and builds its standalone schema, in time
// and memory linear in the plan. It does not consult or fill the cache
// entry of md itself; nested messages of generated code whose standalone
// schemas the cache holds are adopted from it, the others are built in place (deriving each
// nested message's own schema too would make the work quadratic in the
// nesting: a chain of n messages would derive n schemas of up to n records).
func derive(ctx context.Context, md protoreflect.MessageDescriptor, o Options, c *Cache) (*Schema, error) {
	p, plans, err := compilePlan(ctx, md, o)
	if err != nil {
		return nil, err
	}
	b := &builder{
		opts:      o,
		cache:     c,
		defined:   make(map[string]namedDef),
		adoptWork: 2*len(plans) + 64,
	}
	rec, err := b.record(p)
	if err != nil {
		return nil, err
	}
	if name, ns, ok := rec.AmbiguousRef(); ok {
		return nil, fmt.Errorf("%w: a reference to %s (of a file without a package) inside namespace %s would name %s.%s (%s), which the schema also holds; Avro has no spelling for it (docs/mapping.md)",
			ErrNameCollision, name, ns, ns, name, b.defined[ns+"."+name].desc.FullName())
	}
	markZeroSize(plans, b.defined)
	return newSchema(md, o, p, rec, b.named), nil
}

// define registers a named type in the tree, or reports a collision with a
// different protobuf type of the same Avro name.
func (b *builder) define(desc protoreflect.Descriptor, n *avroschema.Node) error {
	if prev, ok := b.defined[n.Name]; ok && prev.desc != desc {
		return collision(n.Name, prev.desc, desc)
	}
	d := namedDef{name: n.Name, desc: desc, node: n}
	b.named = append(b.named, d)
	b.defined[n.Name] = d
	return nil
}

func collision(name string, a, b protoreflect.Descriptor) error {
	return fmt.Errorf("%w: %q is the Avro name of both %s (in %s) and %s (in %s)", ErrNameCollision,
		name, a.FullName(), fileName(a), b.FullName(), fileName(b))
}

func fileName(d protoreflect.Descriptor) string {
	if f := d.ParentFile(); f != nil {
		return f.Path()
	}
	return "unknown file"
}

// lookup returns a reference to a named type already defined in the tree.
// It reports a collision if the name belongs to a different protobuf type.
func (b *builder) lookup(name string, desc protoreflect.Descriptor) (*avroschema.Node, bool, error) {
	prev, ok := b.defined[name]
	if !ok {
		return nil, false, nil
	}
	if prev.desc != desc {
		return nil, false, collision(name, prev.desc, desc)
	}
	return avroschema.RefTo(prev.node), true, nil
}

// adopt tries to reuse a cached standalone schema as a subtree. That is valid
// only when none of its named types is defined in this tree yet.
func (b *builder) adopt(s *Schema) (bool, error) {
	for i := range s.named {
		if prev, ok := b.defined[s.named[i].name]; ok {
			if prev.desc != s.named[i].desc {
				return false, collision(s.named[i].name, prev.desc, s.named[i].desc)
			}
			return false, nil
		}
	}
	for _, d := range s.named {
		if err := b.define(d.desc, d.node); err != nil {
			return false, err
		}
	}
	return true, nil
}

// messageRecord returns the record of a message used inside this tree: a
// reference if it is already defined, the cache's standalone schema of the
// message when it holds one that fits (for the types of generated code: a
// descriptor built at run time is looked up through a weak pointer, and
// the runtime's cost of making one grows with the descriptors of a file
// already so looked up), or a record built in place.
func (b *builder) messageRecord(p *msgPlan) (*avroschema.Node, error) {
	if ref, ok, err := b.lookup(p.avroName, p.desc); ok || err != nil {
		return ref, err
	}
	if p.level > 0 {
		return b.record(p) // deeper levels of a cycle are never standalone
	}
	if s := b.cache.loadRegistered(p.desc, b.opts); s != nil && len(s.named) <= b.adoptWork {
		b.adoptWork -= len(s.named)
		ok, err := b.adopt(s)
		if err != nil {
			return nil, err
		}
		if ok {
			return s.root, nil
		}
	}
	return b.record(p)
}

// record builds the record of a message (or a map entry) in place, defining
// it in this tree.
func (b *builder) record(p *msgPlan) (*avroschema.Node, error) {
	rec := &avroschema.Node{Type: avroschema.Record, Name: p.avroName, Fields: make([]avroschema.Field, len(p.fields))}
	if !p.entry {
		rec.Doc = b.doc(p.desc)
	}
	// The record is defined before its fields are built so that recursive
	// references can point to it.
	if err := b.define(p.desc, rec); err != nil {
		return nil, err
	}
	for i := range p.fields {
		f := &p.fields[i]
		t, err := b.fieldType(f)
		if err != nil {
			return nil, err
		}
		rec.Fields[i] = avroschema.Field{Name: f.name, Type: t, Default: f.def}
		if !p.entry {
			rec.Fields[i].Doc = b.doc(f.fd)
		}
	}
	if p.placeholder {
		rec.Fields = append(rec.Fields, avroschema.Field{Name: emptyPlaceholderName,
			Type: avroschema.Nullable(avroschema.Prim(avroschema.String)), Default: jsonDefault(nil),
			Doc: "Always null: the message has no fields, and engines need a column."})
	}
	return rec, nil
}

// fieldType builds the Avro type of a field from its mode.
func (b *builder) fieldType(f *fieldPlan) (*avroschema.Node, error) {
	switch f.mode {
	case modeList:
		items, err := b.value(&f.val)
		return &avroschema.Node{Type: avroschema.Array, Items: items}, err
	case modeMap:
		values, err := b.value(&f.val)
		return &avroschema.Node{Type: avroschema.Map, Values: values}, err
	case modeEntries:
		var entry *avroschema.Node
		var err error
		if f.entry.entry {
			entry, err = b.entryRecord(f.entry)
		} else {
			entry, err = b.messageRecord(f.entry)
		}
		return &avroschema.Node{Type: avroschema.Array, Items: entry}, err
	case modeNullable:
		t, err := b.value(&f.val)
		if err != nil {
			return nil, err
		}
		return avroschema.Nullable(t), nil
	}
	return b.value(&f.val)
}

// entryRecord returns the key/value record of a map entry.
func (b *builder) entryRecord(p *msgPlan) (*avroschema.Node, error) {
	if ref, ok, err := b.lookup(p.avroName, p.desc); ok || err != nil {
		return ref, err
	}
	return b.record(p)
}

// value builds the Avro type of one value.
func (b *builder) value(v *valuePlan) (*avroschema.Node, error) {
	switch v.kind {
	case vMessage:
		return b.messageRecord(v.msg)
	case vEnum:
		return b.enum(v)
	}
	n := avroschema.Prim(v.avroType())
	n.Logical, n.Precision = v.logicalType()
	switch {
	case v.kind == vString && v.javaString:
		n.Props = []avroschema.Prop{{Key: "avro.java.string", Value: json.RawMessage(`"String"`)}}
	case v.jsonText():
		// BigQuery loads a string so annotated as its JSON type.
		n.Props = []avroschema.Prop{{Key: "sqlType", Value: json.RawMessage(`"JSON"`)}}
	}
	return n, nil
}

// enum returns the enum schema of a value's enum type, defined on first use
// in the tree and referenced afterwards.
func (b *builder) enum(v *valuePlan) (*avroschema.Node, error) {
	t := v.enum
	if ref, ok, err := b.lookup(t.avroName, t.desc); ok || err != nil {
		return ref, err
	}
	n := b.cache.enum(t, b.opts, v.enumDef, b.doc(t.desc))
	if err := b.define(t.desc, n); err != nil {
		return nil, err
	}
	return n, nil
}

// newEnumNode builds the enum schema of t with its default symbol def.
func newEnumNode(t *enumTable, def int, doc string) *avroschema.Node {
	return &avroschema.Node{Type: avroschema.Enum, Name: t.avroName, Doc: doc, Symbols: t.symbols,
		EnumDefault: t.symbols[def], HasEnumDefault: true}
}

// doc returns the leading comment of d when d's file carries source info and
// the profile emits docs.
func (b *builder) doc(d protoreflect.Descriptor) string {
	if b.opts.Profile == JavaProfile {
		return ""
	}
	f := d.ParentFile()
	if f == nil {
		return ""
	}
	c := f.SourceLocations().ByDescriptor(d).LeadingComments
	if c == "" {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(c), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}

package protoavro

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/hamba/avro/v2"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Schema is the Avro schema derived from one protobuf message type under one
// set of mapping options. It is immutable and safe for concurrent use; obtain
// it from [Options.Schema].
type Schema struct {
	desc      protoreflect.MessageDescriptor
	opts      Options // mapping options; Cache is cleared
	record    *avro.RecordSchema
	named     []namedDef // every named type defined in record's tree
	canonical string
	crc       uint64
	sha       [32]byte
	codecs    codecSlots // compiled codecs, built on first use
}

// namedDef records one named Avro type of a schema tree and the protobuf
// type it came from.
type namedDef struct {
	name   string
	desc   protoreflect.Descriptor
	schema avro.NamedSchema
}

// Avro returns the schema in hamba/avro's model. Its top level is always a
// record. Callers must not modify it.
func (s *Schema) Avro() *avro.RecordSchema { return s.record }

// Descriptor returns the message descriptor the schema was derived from.
func (s *Schema) Descriptor() protoreflect.MessageDescriptor { return s.desc }

// Options returns the mapping options the schema was derived with (with a nil Cache).
func (s *Schema) Options() Options { return s.opts }

// FullName returns the Avro full name of the top-level record.
func (s *Schema) FullName() string { return s.record.FullName() }

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
func (s *Schema) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := writeSchemaJSON(&buf, s.record); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// JSON returns the full schema as indented JSON (the content of an .avsc
// file), ending with a newline.
func (s *Schema) JSON() ([]byte, error) {
	raw, err := s.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("protoavro: encode schema of %s: %w", s.desc.FullName(), err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("protoavro: indent schema of %s: %w", s.desc.FullName(), err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// newSchema wraps a derived record and computes its canonical form and fingerprints.
func newSchema(md protoreflect.MessageDescriptor, o Options, rec *avro.RecordSchema, named []namedDef) *Schema {
	o.Cache = nil
	o.UnknownEnums = 0
	canon := CanonicalForm(rec)
	crc := crc64Of(canon)
	return &Schema{
		desc:      md,
		opts:      o,
		record:    rec,
		named:     named,
		canonical: canon,
		crc:       crc,
		sha:       sha256.Sum256([]byte(canon)),
	}
}

// builder derives one schema tree. Named types are defined once per tree;
// later uses refer to them by name.
type builder struct {
	opts    Options
	cache   *Cache
	stack   *derivation
	defined map[string]namedDef
	named   []namedDef
}

// derivation is the chain of standalone derivations in progress, used to stop
// mutual recursion from deriving the same message over and over.
type derivation struct {
	desc protoreflect.MessageDescriptor
	next *derivation
}

func (d *derivation) contains(md protoreflect.MessageDescriptor) bool {
	for ; d != nil; d = d.next {
		if d.desc == md {
			return true
		}
	}
	return false
}

// derive builds the standalone schema of md. It does not consult or fill the
// top-level cache entry of md itself; nested messages go through the cache.
func derive(md protoreflect.MessageDescriptor, o Options, c *Cache, stack *derivation) (*Schema, error) {
	b := &builder{
		opts:    o,
		cache:   c,
		stack:   &derivation{desc: md, next: stack},
		defined: make(map[string]namedDef),
	}
	rec, err := b.record(md)
	if err != nil {
		return nil, err
	}
	return newSchema(md, o, rec, b.named), nil
}

// define registers a named type in the tree, or reports a collision with a
// different protobuf type of the same Avro name.
func (b *builder) define(name string, desc protoreflect.Descriptor, s avro.NamedSchema) error {
	if prev, ok := b.defined[name]; ok && prev.desc != desc {
		return collision(name, prev.desc, desc)
	}
	d := namedDef{name: name, desc: desc, schema: s}
	b.named = append(b.named, d)
	b.defined[name] = d
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

// lookup returns the schema to use for a named type already defined in the
// tree: a reference to it. It reports a collision if the name belongs to a
// different protobuf type.
func (b *builder) lookup(name string, desc protoreflect.Descriptor) (avro.Schema, bool, error) {
	prev, ok := b.defined[name]
	if !ok {
		return nil, false, nil
	}
	if prev.desc != desc {
		return nil, false, collision(name, prev.desc, desc)
	}
	return avro.NewRefSchema(prev.schema), true, nil
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
		if err := b.define(d.name, d.desc, d.schema); err != nil {
			return false, err
		}
	}
	return true, nil
}

// messageRecord returns the record schema of a message used inside this tree:
// a reference if it is already defined, a cached standalone subtree when one
// fits, or a record built in place.
func (b *builder) messageRecord(md protoreflect.MessageDescriptor) (avro.Schema, error) {
	name, err := b.recordName(md)
	if err != nil {
		return nil, err
	}
	if ref, ok, err := b.lookup(name, md); ok || err != nil {
		return ref, err
	}
	s := b.cache.load(md, b.opts)
	if s == nil && !b.stack.contains(md) {
		if s, err = b.cache.derive(md, b.opts, b.stack); err != nil {
			return nil, err
		}
	}
	if s != nil {
		ok, err := b.adopt(s)
		if err != nil {
			return nil, err
		}
		if ok {
			return s.record, nil
		}
	}
	return b.record(md)
}

// record builds the record of md in place, defining it in this tree.
func (b *builder) record(md protoreflect.MessageDescriptor) (*avro.RecordSchema, error) {
	name, err := b.recordName(md)
	if err != nil {
		return nil, err
	}
	fds := md.Fields()
	fields := make([]*avro.Field, fds.Len())
	var opts []avro.SchemaOption
	if doc := b.doc(md); doc != "" {
		opts = append(opts, avro.WithDoc(doc))
	}
	// The record is created before its fields are known so that recursive
	// references can point to it; fields shares its backing array.
	rec, err := avro.NewRecordSchema(name, "", fields, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: message %s: %v", ErrInvalidName, md.FullName(), err)
	}
	if err := b.define(name, md, rec); err != nil {
		return nil, err
	}
	for i := range fds.Len() {
		fd := fds.Get(i)
		if fields[i], err = b.field(fd); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// field builds the Avro field of fd.
func (b *builder) field(fd protoreflect.FieldDescriptor) (*avro.Field, error) {
	var (
		typ avro.Schema
		def any
		err error
	)
	if b.opts.Profile == JavaProfile {
		typ, def, err = b.javaField(fd)
	} else {
		typ, def, err = b.defaultField(fd)
	}
	if err != nil {
		return nil, err
	}
	var opts []avro.SchemaOption
	if def != avro.NoDefault {
		opts = append(opts, avro.WithDefault(def))
	}
	if doc := b.doc(fd); doc != "" {
		opts = append(opts, avro.WithDoc(doc))
	}
	f, err := avro.NewField(string(fd.Name()), typ, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: field %s: %v", ErrInvalidName, fd.FullName(), err)
	}
	return f, nil
}

// defaultField maps fd under the default profile; see docs/mapping.md.
func (b *builder) defaultField(fd protoreflect.FieldDescriptor) (avro.Schema, any, error) {
	switch {
	case fd.IsMap():
		return b.mapField(fd)
	case fd.IsList():
		items, err := b.element(fd)
		if err != nil {
			return nil, nil, err
		}
		return avro.NewArraySchema(items), []any{}, nil
	case fd.Cardinality() == protoreflect.Required:
		t, err := b.element(fd)
		return t, avro.NoDefault, err
	case fd.Message() != nil || fd.HasPresence():
		t, err := b.element(fd)
		if err != nil {
			return nil, nil, err
		}
		u, err := nullable(t)
		return u, nil, err
	default:
		t, err := b.element(fd)
		if err != nil {
			return nil, nil, err
		}
		return t, zeroDefault(fd, t), nil
	}
}

// nullable returns ["null", t].
func nullable(t avro.Schema) (avro.Schema, error) {
	u, err := avro.NewUnionSchema([]avro.Schema{avro.NewNullSchema(), t})
	if err != nil {
		return nil, fmt.Errorf("protoavro: internal error: %w", err)
	}
	return u, nil
}

// element returns the Avro type of one value of fd, ignoring cardinality and
// presence: the item type of a repeated field, the value type of a singular one.
func (b *builder) element(fd protoreflect.FieldDescriptor) (avro.Schema, error) {
	if md := fd.Message(); md != nil {
		if b.opts.Profile == DefaultProfile {
			if t, err := b.wellKnown(md); t != nil || err != nil {
				return t, err
			}
		}
		return b.messageRecord(md)
	}
	return b.scalar(fd)
}

// scalar returns the Avro type of a non-message field value.
func (b *builder) scalar(fd protoreflect.FieldDescriptor) (avro.Schema, error) {
	java := b.opts.Profile == JavaProfile
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return avro.NewPrimitiveSchema(avro.Boolean, nil), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return avro.NewPrimitiveSchema(avro.Int, nil), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if java {
			return avro.NewPrimitiveSchema(avro.Int, nil), nil
		}
		return avro.NewPrimitiveSchema(avro.Long, nil), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return avro.NewPrimitiveSchema(avro.Long, nil), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if !java && b.opts.Uint64 == Uint64AsDecimal {
			return avro.NewPrimitiveSchema(avro.Bytes, avro.NewDecimalLogicalSchema(20, 0)), nil
		}
		return avro.NewPrimitiveSchema(avro.Long, nil), nil
	case protoreflect.FloatKind:
		return avro.NewPrimitiveSchema(avro.Float, nil), nil
	case protoreflect.DoubleKind:
		return avro.NewPrimitiveSchema(avro.Double, nil), nil
	case protoreflect.StringKind:
		if java {
			return avro.NewPrimitiveSchema(avro.String, nil,
				avro.WithProps(map[string]any{"avro.java.string": "String"})), nil
		}
		return avro.NewPrimitiveSchema(avro.String, nil), nil
	case protoreflect.BytesKind:
		return avro.NewPrimitiveSchema(avro.Bytes, nil), nil
	case protoreflect.EnumKind:
		return b.enum(fd)
	}
	return nil, fmt.Errorf("%w: field %s has kind %v", ErrUnsupported, fd.FullName(), fd.Kind())
}

// enum returns the enum schema of fd's enum type, defined on first use in the
// tree and referenced afterwards.
func (b *builder) enum(fd protoreflect.FieldDescriptor) (avro.Schema, error) {
	ed := fd.Enum()
	name, err := b.enumName(ed)
	if err != nil {
		return nil, err
	}
	if ref, ok, err := b.lookup(name, ed); ok || err != nil {
		return ref, err
	}
	// The enum's own default symbol: the first value, except that the Java
	// profile uses the field's explicit default as ProtobufData does.
	def := 0
	if b.opts.Profile == JavaProfile && fd.HasDefault() && !fd.IsList() {
		def = ed.Values().ByNumber(fd.Default().Enum()).Index()
	}
	s, err := b.cache.enum(ed, b.opts, def, name, b.doc(ed))
	if err != nil {
		return nil, err
	}
	if err := b.define(name, ed, s); err != nil {
		return nil, err
	}
	return s, nil
}

// newEnumSchema builds the enum schema of ed.
func newEnumSchema(ed protoreflect.EnumDescriptor, name string, def int, doc string) (*avro.EnumSchema, error) {
	vals := ed.Values()
	symbols := make([]string, vals.Len())
	for i := range vals.Len() {
		symbols[i] = string(vals.Get(i).Name())
	}
	opts := []avro.SchemaOption{avro.WithDefault(symbols[def])}
	if doc != "" {
		opts = append(opts, avro.WithDoc(doc))
	}
	s, err := avro.NewEnumSchema(name, "", symbols, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: enum %s: %v", ErrInvalidName, ed.FullName(), err)
	}
	return s, nil
}

// mapField maps a protobuf map field under the default profile.
func (b *builder) mapField(fd protoreflect.FieldDescriptor) (avro.Schema, any, error) {
	key, val := fd.MapKey(), fd.MapValue()
	values, err := b.element(val)
	if err != nil {
		return nil, nil, err
	}
	if key.Kind() == protoreflect.StringKind || b.opts.MapKeys == MapKeysAsText {
		return avro.NewMapSchema(values), map[string]any{}, nil
	}
	entry, err := b.entryRecord(fd.Message(), values)
	if err != nil {
		return nil, nil, err
	}
	return avro.NewArraySchema(entry), []any{}, nil
}

// entryRecord builds the key/value record of a map entry message.
func (b *builder) entryRecord(md protoreflect.MessageDescriptor, values avro.Schema) (avro.Schema, error) {
	name, err := b.recordName(md)
	if err != nil {
		return nil, err
	}
	if ref, ok, err := b.lookup(name, md); ok || err != nil {
		return ref, err
	}
	keyType, err := b.scalar(md.Fields().ByNumber(1))
	if err != nil {
		return nil, err
	}
	kf, err := avro.NewField("key", keyType)
	if err != nil {
		return nil, fmt.Errorf("protoavro: internal error: %w", err)
	}
	vf, err := avro.NewField("value", values)
	if err != nil {
		return nil, fmt.Errorf("protoavro: internal error: %w", err)
	}
	rec, err := avro.NewRecordSchema(name, "", []*avro.Field{kf, vf})
	if err != nil {
		return nil, fmt.Errorf("%w: map entry %s: %v", ErrInvalidName, md.FullName(), err)
	}
	return rec, b.define(name, md, rec)
}

// zeroDefault is the Avro default of a field with implicit presence: the
// protobuf zero value of its kind.
func zeroDefault(fd protoreflect.FieldDescriptor, t avro.Schema) any {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return false
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return 0
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if t.Type() == avro.Int {
			return 0
		}
		return int64(0)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return int64(0)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if t.Type() == avro.Bytes {
			return "\u0000"
		}
		return int64(0)
	case protoreflect.FloatKind:
		return float32(0)
	case protoreflect.DoubleKind:
		return float64(0)
	case protoreflect.StringKind, protoreflect.BytesKind:
		return ""
	case protoreflect.EnumKind:
		return string(fd.Enum().Values().Get(0).Name())
	}
	return nil
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

// isFinite reports whether a float default can be written as JSON.
func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

package protoavro

// The reader compiler: resolves a writer schema against the reader's
// message type by Avro's rules (fields matched by name, missing fields
// left at their defaults, extra fields skipped, int→long→float→double
// promotions, enum symbols matched by name) into a reader program: a
// decRecord per record, its fields' value decoders (reader_values.go) and
// skip programs (reader_skip.go).

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avroschema"
)

// fieldOrder returns the indexes of the fields that emit output in the
// order proto.Marshal writes fields (by number, oneof members last, grouped
// by oneof), or nil when writer order already is that order. The members of
// one oneof keep writer order: proto.Marshal writes one, and when the data
// sets several the last in it wins, as when the output is not reordered.
func fieldOrder(fields []decField) []int {
	var idx []int
	for i := range fields {
		if fields[i].dec != nil {
			idx = append(idx, i)
		}
	}
	less := func(a, b *decField) bool {
		if (a.oneof >= 0) != (b.oneof >= 0) {
			return b.oneof >= 0
		}
		if a.oneof != b.oneof {
			return a.oneof < b.oneof
		}
		return a.oneof < 0 && a.num < b.num
	}
	sorted := true
	for j := 1; j < len(idx); j++ {
		if less(&fields[idx[j]], &fields[idx[j-1]]) {
			sorted = false
			break
		}
	}
	if sorted {
		return nil
	}
	// A stable sort: O(n log n) however many fields a foreign writer
	// record has, in whatever order.
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case less(&fields[a], &fields[b]):
			return -1
		case less(&fields[b], &fields[a]):
			return 1
		}
		return 0
	})
	return idx
}

// readerCompiler compiles reader programs from a writer schema and the
// reader's plan; records are memoized per (writer record, reader message)
// so recursive types terminate.
type readerCompiler struct {
	opts    Options
	records map[recordKey]*decRecord
	// empty memoizes canBeEmpty and skips the skip programs per
	// (dereferenced) writer node, so that compiling is linear in the
	// schema's size even when records are shared or nested deeply.
	empty avroschema.Empties
	skips map[*avroschema.Node]*skipProg
	names map[*msgPlan]map[string]int // field indexes of wide plans
	// enumDefaults holds the number of each reader enum's default symbol,
	// which a writer symbol unknown to the reader reads as.
	enumDefaults map[protoreflect.FullName]int32
}

type recordKey struct {
	w *avroschema.Node
	p *msgPlan
}

// compileReader builds the reader program of the reader schema's plan for
// data written with writer.
func compileReader(writer *avroschema.Node, reader *Schema, o Options) (*decRecord, error) {
	rc := &readerCompiler{opts: o, records: map[recordKey]*decRecord{}, skips: map[*avroschema.Node]*skipProg{},
		enumDefaults: enumDefaults(reader)}
	w := writer.Deref()
	if w.Type != avroschema.Record {
		return nil, fmt.Errorf("%w: writer schema is a %s, not a record", ErrIncompatible, w.Type)
	}
	return rc.record(w, reader.plan)
}

// enumDefaults maps each enum of the schema's tree to the number of its
// default symbol, which is not always the first (the Java profile takes the
// default of the field that defines the enum).
func enumDefaults(s *Schema) map[protoreflect.FullName]int32 {
	defs := map[protoreflect.FullName]int32{}
	for _, d := range s.named {
		ed, ok := d.desc.(protoreflect.EnumDescriptor)
		if !ok || !d.node.HasEnumDefault {
			continue
		}
		if ev := ed.Values().ByName(protoreflect.Name(d.node.EnumDefault)); ev != nil {
			defs[ed.FullName()] = int32(ev.Number())
		}
	}
	return defs
}

// record compiles a writer record against a reader message's plan.
func (rc *readerCompiler) record(w *avroschema.Node, p *msgPlan) (*decRecord, error) {
	k := recordKey{w, p}
	if r, ok := rc.records[k]; ok {
		if r.err != nil {
			return nil, cloneCompileError(r.err)
		}
		return r, nil
	}
	// A deeper level of a bounded recursive type (Node_depth1) reads the
	// writer's records of the type's own name (Node) too: data nested deeper
	// than the reader's bound then fails where it meets the carried
	// subtree, as CheckResolution, which knows no levels, refuses the pair.
	if !namesMatch(p.avroName, nil, w.Name) && simpleName(w.Name) != p.name {
		return nil, fmt.Errorf("%w: writer record %s cannot be read as message %s", ErrIncompatible, w.Name, p.desc.FullName())
	}
	r := &decRecord{name: p.name, fields: make([]decField, len(w.Fields)), zeroSize: rc.canBeEmpty(w)}
	if rc.opts.Profile == JavaProfile && p.desc.FullName() == "google.protobuf.Value" {
		if fd := p.desc.Fields().ByNumber(1); fd != nil && fd.Enum() != nil && fd.ContainingOneof() != nil {
			r.nullKind = []byte{byte(protowire.EncodeTag(1, protowire.VarintType)), 0}
		}
	}
	rc.records[k] = r
	seen := make([]bool, len(p.fields))
	for i := range w.Fields {
		wf := &w.Fields[i]
		df := decField{name: wf.Name}
		fi := rc.fieldIndex(p, wf.Name)
		if fi < 0 {
			df.skip = rc.skipper(wf.Type)
			r.fields[i] = df
			continue
		}
		f := &p.fields[fi]
		seen[fi] = true
		df.tag, df.num, df.oneof = f.tag, f.num, -1
		if od := f.fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			df.oneof = od.Index()
		}
		var err error
		if df.dec, err = rc.field(wf.Type, f); err != nil {
			return nil, rc.fail(r, wf.Name, inCompiledField(err, string(p.desc.FullName())+"."+f.name))
		}
		df.dropIfDefault = f.dropWire
		r.fields[i] = df
	}
	r.order = fieldOrder(r.fields)
	if r.order != nil {
		// The leading fields that are already in place need no moving.
		for r.keep < len(r.order) {
			next := 0 // writer index of the next emitting field after the kept ones
			if r.keep > 0 {
				next = r.order[r.keep-1] + 1
			}
			for next < len(r.fields) && r.fields[next].dec == nil {
				next++
			}
			if r.order[r.keep] != next {
				break
			}
			r.keep++
		}
		r.split = 0
		if r.keep > 0 {
			r.split = r.order[r.keep-1] + 1
		}
	}
	// Reader fields the writer lacks take their defaults: those of the
	// reader's schema, which some fields lack (a required field, the key
	// and value of a map entry record).
	for i := range p.fields {
		if !seen[i] && p.fields[i].def == nil {
			return nil, rc.fail(r, "", fmt.Errorf("%w: field %s, which has no default, is missing from writer record %s", ErrIncompatible, p.fields[i].fd.FullName(), w.Name))
		}
	}
	return r, nil
}

// fail marks the memoized record r as not resolving, for err, and returns
// err. Later uses of r get the error too, when compiled; programs that took
// r while it was being compiled (a recursive record reached through a
// union, whose branches fail only when data uses them) fail when they read
// it, at the writer field named field.
func (rc *readerCompiler) fail(r *decRecord, field string, err error) error {
	r.err = cloneCompileError(err)
	runErr := cloneCompileError(err)
	r.fields = []decField{{name: field, dec: func(st *decState, dst []byte, _ uint64) ([]byte, error) {
		return dst, &DataError{Offset: st.r.Pos, Err: runErr}
	}}}
	r.order, r.split, r.keep = nil, 0, 0
	return err
}

// fieldIndex returns the index of p's field named name, or -1: through an
// index built once per plan for wide records, so that matching the N fields
// of a writer record costs O(N).
func (rc *readerCompiler) fieldIndex(p *msgPlan, name string) int {
	if len(p.fields) <= 16 {
		return p.byName(name)
	}
	idx := rc.names[p]
	if idx == nil {
		idx = make(map[string]int, len(p.fields))
		for i := range p.fields {
			idx[p.fields[i].name] = i
		}
		if rc.names == nil {
			rc.names = map[*msgPlan]map[string]int{}
		}
		rc.names[p] = idx
	}
	if i, ok := idx[name]; ok {
		return i
	}
	return -1
}

// fieldCompileError is an error compiling the reader of a field, with the
// path of fields from the outermost record; its message names at most the
// outermost and innermost few, so that it stays short however deep the
// schemas nest.
type fieldCompileError struct {
	path []string // innermost first
	err  error
}

func (e *fieldCompileError) Error() string {
	var sb strings.Builder
	sb.WriteString("field ")
	n := len(e.path)
	for i := n - 1; i >= 0; i-- {
		if n > 8 && i == n-3 {
			fmt.Fprintf(&sb, "(%d more) > ", n-6)
			i = 3
		}
		sb.WriteString(e.path[i])
		if i > 0 {
			sb.WriteString(" > ")
		}
	}
	sb.WriteString(": ")
	sb.WriteString(e.err.Error())
	return sb.String()
}

func (e *fieldCompileError) Unwrap() error { return e.err }

// cloneCompileError returns a copy of err whose path later calls of
// inCompiledField extend without changing err's.
func cloneCompileError(err error) error {
	if fe, ok := err.(*fieldCompileError); ok {
		return &fieldCompileError{path: slices.Clone(fe.path), err: fe.err}
	}
	return err
}

// inCompiledField adds the field name to the path of a compile error.
func inCompiledField(err error, name string) error {
	if fe, ok := err.(*fieldCompileError); ok {
		fe.path = append(fe.path, name)
		return fe
	}
	return &fieldCompileError{path: []string{name}, err: err}
}

// field compiles the writer type of a field against the reader field.
func (rc *readerCompiler) field(w *avroschema.Node, f *fieldPlan) (valueDec, error) {
	w = w.Deref()
	if w.Type == avroschema.Union && f.mode != modeImplicit && f.mode != modeRequired {
		// A writer's optional value, array or map (["null", T]): its
		// branches resolve against the field, a null leaving a nullable
		// field unset and, as other Avro writers commonly declare optional
		// arrays and maps, a list or map empty. A field that cannot be null
		// takes the union as value does: a null fails.
		return rc.union(w, func(bt *avroschema.Node) (valueDec, error) { return rc.field(bt, f) }, ""), nil
	}
	if w.Type == avroschema.Null && f.mode == modeNullable {
		// The reader's ["null", T] takes a writer null: the field stays unset.
		return func(_ *decState, dst []byte, _ uint64) ([]byte, error) { return dst, nil }, nil
	}
	switch f.mode {
	case modeList:
		if w.Type != avroschema.Array {
			return nil, incompatible(w, "an array")
		}
		// A null item fails (see value): dropping it would lose it and
		// move the items after it.
		item, err := rc.value(w.Items, f.num, &f.val)
		if err != nil {
			return nil, err
		}
		return listDec(f.tag, item, f.packedOut, rc.minSize(w.Items)), nil
	case modeMap:
		if w.Type != avroschema.Map {
			return nil, incompatible(w, "a map")
		}
		val, err := rc.value(w.Values, 2, &f.val)
		if err != nil {
			return nil, err
		}
		return mapDec(f, val, 1+rc.minSize(w.Values)), nil
	case modeEntries:
		if w.Type != avroschema.Array {
			return nil, incompatible(w, "an array of map entries")
		}
		wr := w.Items.Deref()
		if wr.Type != avroschema.Record {
			return nil, incompatible(wr, "a map entry record")
		}
		rec, err := rc.record(wr, f.entry)
		if err != nil {
			return nil, err
		}
		tag := f.tag
		return listDec(tag, func(st *decState, dst []byte, _ uint64) ([]byte, error) {
			return st.nested(dst, tag, rec)
		}, false, rc.minSize(wr)), nil
	}
	return rc.value(w, f.num, &f.val)
}

func incompatible(w *avroschema.Node, want string) error {
	return fmt.Errorf("%w: writer type %s cannot be read as %s", ErrIncompatible, w.Type, want)
}

// minSize is the least number of bytes a value of the writer type takes,
// as avrobin.MinSize counts it for every reader of the module: 0 if it can
// be empty (null, fixed(0), a record of such values), the size of a float,
// double or fixed, else 1.
func (rc *readerCompiler) minSize(s *avroschema.Node) int {
	return avrobin.MinSize(s, rc.canBeEmpty)
}

// canBeEmpty reports whether a value of the writer type can take no bytes.
func (rc *readerCompiler) canBeEmpty(s *avroschema.Node) bool { return rc.empty.CanBeEmpty(s) }

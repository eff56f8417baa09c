package protoavro

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/safetext"
)

// This file holds the Avro reader: a program compiled from a writer schema
// and the reader's message type that transcodes Avro binary into protobuf
// wire bytes, resolving the two schemas by Avro's rules (fields matched by
// name, missing fields left at their defaults, extra fields skipped,
// int→long→float→double promotions, enum symbols matched by name).
// Unmarshal hands the wire bytes to proto.Unmarshal, which measured faster
// than setting fields one by one through protoreflect.

// decRecord reads one writer record and emits the reader message's fields.
type decRecord struct {
	name   string
	fields []decField // in writer order
	// order lists the fields with a reader field in proto.Marshal's field
	// order, when that differs from writer order: the output of the fields
	// from split on is then permuted into order[keep:]; the fields before
	// split are already in place.
	order       []int
	split, keep int
	// zeroSize records take no bytes in the writer's data: each counts
	// as a zero-size item, since its output (the reader's nested
	// messages) is not bounded by the input.
	zeroSize bool
	// err is why the record does not resolve (see readerCompiler.fail).
	err error
	// nullKind is the wire encoding of a google.protobuf.Value's null_value
	// (Java profile, whose mapping does not carry which member of a oneof
	// is set): a Value record that sets no member reads as JSON null, not as
	// a Value without a kind, which protojson refuses.
	nullKind []byte
}

type decField struct {
	name string
	dec  valueDec // nil: skip the writer's value
	tag  uint64   // the reader field's tag
	num  protowire.Number
	// oneof is the declaration index of the field's (non-synthetic) oneof,
	// or -1: proto.Marshal writes oneof members after the other fields.
	oneof int
	skip  *skipProg
	// implicit fields drop an emitted value equal to their default, so
	// unset fields stay unset.
	dropIfDefault []byte
}

// valueDec reads one writer value and emits it as the wire encoding of the
// reader field: with its tag, or without when tag is 0 (packed elements).
type valueDec func(st *decState, dst []byte, tag uint64) ([]byte, error)

type decState struct {
	r     avroReader
	depth int
	seg   []int  // stack of field segment bounds, for reordering
	tmp   []byte // scratch for reordering
	// itemCounted says that the value about to be read is an array item
	// already counted as a zero-size item, so nested does not count it again.
	itemCounted bool
	// anyOrder skips the reordering into proto.Marshal's field order, for
	// output that goes straight to proto.Unmarshal.
	anyOrder bool
}

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
	if n := simpleName(w.Name); n != p.name && n != simpleName(p.avroName) {
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

// simpleName returns the last part of an Avro full name.
func simpleName(full string) string { return full[strings.LastIndexByte(full, '.')+1:] }

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

// minSize is the least number of bytes a value of the writer type takes: 0
// if it can be empty (null, fixed(0), a record of such values), else 1.
func (rc *readerCompiler) minSize(s *avroschema.Node) int {
	if rc.canBeEmpty(s) {
		return 0
	}
	return 1
}

// hasEmptyRecords reports whether a record type of the schema can take no
// bytes (a message without fields): its values are then zero-size items,
// which readers bound per container block (docs/limits.md).
func hasEmptyRecords(s *Schema) bool {
	var e avroschema.Empties
	for _, d := range s.named {
		if d.node.Deref().Type == avroschema.Record && e.CanBeEmpty(d.node) {
			return true
		}
	}
	return false
}

// markZeroSize notes on each plan whether its record can take no bytes, by
// the rule the readers count zero-size items with (avroschema.Empties), so
// that the writers count them alike. defined holds the records of the
// plans' tree by Avro name.
func markZeroSize(plans []*msgPlan, defined map[string]namedDef) {
	var e avroschema.Empties
	for _, m := range plans {
		if d, ok := defined[m.avroName]; ok {
			m.zeroSize = e.CanBeEmpty(d.node)
		}
	}
}

// emptyItems returns the zero-size items inside the datum that dec reads,
// counted as ContainerReader counts them against its bound per block; its
// wire bytes go to scratch, returned for reuse.
func emptyItems(dec *decRecord, scratch, datum []byte) (int64, []byte, error) {
	st := newDecState(avroReader{avrobin.Reader{Buf: datum, Empty: avrobin.Budget{Max: math.MaxInt64}}}, false)
	out, err := st.record(scratch[:0], dec)
	n, end := st.r.Empty.N, st.r.Pos
	st.release()
	if err == nil {
		err = checkEnd(dec.name, end, len(datum))
	}
	return n, out, err
}

// canBeEmpty reports whether a value of the writer type can take no bytes.
func (rc *readerCompiler) canBeEmpty(s *avroschema.Node) bool { return rc.empty.CanBeEmpty(s) }

// listDec reads an Avro array into a repeated field with the given tag (of
// one element), packed or not. Every item takes at least minItemSize bytes.
func listDec(tag uint64, item valueDec, packed bool, minItemSize int) valueDec {
	num, _ := protowire.DecodeTag(tag)
	packedTag := protowire.EncodeTag(num, protowire.BytesType)
	return func(st *decState, dst []byte, _ uint64) ([]byte, error) {
		start := -1
		if packed {
			start = len(dst)
		}
		i := 0
		for {
			n, err := st.r.blockCount(minItemSize)
			if err != nil {
				return dst, err
			}
			if n == 0 {
				break
			}
			if packed && start == len(dst) {
				dst = protowire.AppendVarint(dst, packedTag)
				start = len(dst)
				dst = append(dst, 0)
			}
			for range n {
				t := tag
				if packed {
					t = 0
				}
				// An item of zero size is counted by blockCount already.
				st.itemCounted = minItemSize == 0
				dst, err = item(st, dst, t)
				st.itemCounted = false
				if err != nil {
					return dst, inIndex(err, i)
				}
				i++
			}
		}
		if packed && start >= 0 && start < len(dst) {
			dst = fixLength(dst, start)
		}
		return dst, nil
	}
}

// mapDec reads an Avro map into a map field: each entry becomes an entry
// message with the key (parsed back from text for non-string keys) and value.
// Every entry takes at least minEntrySize bytes.
func mapDec(f *fieldPlan, val valueDec, minEntrySize int) valueDec {
	tag := f.tag
	key := f.key
	valTag := protowire.EncodeTag(2, f.val.wt)
	return func(st *decState, dst []byte, _ uint64) ([]byte, error) {
		for {
			n, err := st.r.blockCount(minEntrySize)
			if err != nil {
				return dst, err
			}
			if n == 0 {
				return dst, nil
			}
			for range n {
				off := st.r.Pos
				k, err := st.r.bytes()
				if err != nil {
					return dst, err
				}
				dst = protowire.AppendVarint(dst, tag)
				start := len(dst)
				dst = append(dst, 0)
				if dst, err = appendMapKey(dst, key, k, off); err != nil {
					return dst, err
				}
				if dst, err = val(st, dst, valTag); err != nil {
					return dst, inField(err, safetext.Quote(string(k), maxKeyInPath))
				}
				dst = fixLength(dst, start)
			}
		}
	}
}

// maxKeyInPath bounds a map key quoted in an error's field path.
const maxKeyInPath = 64

// appendMapKey writes field 1 of a map entry from the Avro map key.
func appendMapKey(dst []byte, key *valuePlan, k []byte, off int) ([]byte, error) {
	if !utf8.Valid(k) {
		return dst, dataErr(ErrMalformed, off, "map key is not valid UTF-8")
	}
	if key.kind == vString {
		dst = protowire.AppendTag(dst, 1, protowire.BytesType)
		return protowire.AppendBytes(dst, k), nil
	}
	s := string(k)
	var v protoreflect.Value
	var err error
	switch key.kind {
	case vBool:
		var b bool
		b, err = strconv.ParseBool(s)
		if s != "true" && s != "false" {
			err = strconv.ErrSyntax
		}
		v = protoreflect.ValueOfBool(b)
	case vInt32, vSint32, vSfixed32:
		var x int64
		x, err = parseKeyInt(s, 32)
		v = protoreflect.ValueOfInt32(int32(x))
	case vInt64, vSint64, vSfixed64:
		var x int64
		x, err = parseKeyInt(s, 64)
		v = protoreflect.ValueOfInt64(x)
	case vUint32, vFixed32:
		var x uint64
		x, err = parseKeyUint(s, 32)
		v = protoreflect.ValueOfUint32(uint32(x))
	default: // uint64 and fixed64, whatever the Uint64 mapping
		var x uint64
		x, err = parseKeyUint(s, 64)
		v = protoreflect.ValueOfUint64(x)
	}
	if err != nil {
		return dst, dataErr(ErrMalformed, off, "map key %s is not a %v", safetext.Quote(s, maxKeyInPath), key.kind)
	}
	dst = protowire.AppendVarint(dst, protowire.EncodeTag(1, key.wt))
	return appendWireValue(dst, key, v), nil
}

// parseKeyInt parses a map key written as an integer's canonical text, the
// only form the writers write: a sign, a leading zero or "-0" is a syntax
// error, so that two Avro keys ("12", "012") never read as one protobuf key.
func parseKeyInt(s string, bits int) (int64, error) {
	x, err := strconv.ParseInt(s, 10, bits)
	if err == nil && strconv.FormatInt(x, 10) != s {
		err = strconv.ErrSyntax
	}
	return x, err
}

// parseKeyUint is parseKeyInt for unsigned keys.
func parseKeyUint(s string, bits int) (uint64, error) {
	x, err := strconv.ParseUint(s, 10, bits)
	if err == nil && strconv.FormatUint(x, 10) != s {
		err = strconv.ErrSyntax
	}
	return x, err
}

// fixLength writes the length of the bytes after the one-byte placeholder at
// start, widening the placeholder when the length needs more than one byte.
func fixLength(dst []byte, start int) []byte {
	n := len(dst) - start - 1
	if n < 0x80 {
		dst[start] = byte(n)
		return dst
	}
	w := protowire.SizeVarint(uint64(n))
	dst = append(dst, make([]byte, w-1)...)
	copy(dst[start+w:], dst[start+1:start+1+n])
	protowire.AppendVarint(dst[start:start], uint64(n))
	return dst
}

// nested reads a writer record into an embedded message field.
func (st *decState) nested(dst []byte, tag uint64, rec *decRecord) ([]byte, error) {
	st.depth++
	if st.depth > maxDepth {
		return dst, dataErr(ErrTooDeep, st.r.Pos, "more than %d nested records", maxDepth)
	}
	if rec.zeroSize && !st.itemCounted {
		if err := st.r.countEmpty(1, st.r.Pos); err != nil {
			return dst, err
		}
	}
	st.itemCounted = false
	_, wt := protowire.DecodeTag(tag)
	dst = protowire.AppendVarint(dst, tag)
	var err error
	if wt == protowire.StartGroupType {
		if dst, err = st.record(dst, rec); err != nil {
			return dst, err
		}
		num, _ := protowire.DecodeTag(tag)
		dst = protowire.AppendTag(dst, num, protowire.EndGroupType)
	} else {
		start := len(dst)
		dst = append(dst, 0)
		if dst, err = st.record(dst, rec); err != nil {
			return dst, err
		}
		dst = fixLength(dst, start)
	}
	st.depth--
	return dst, nil
}

// record reads the fields of one writer record.
func (st *decState) record(dst []byte, rec *decRecord) ([]byte, error) {
	if rec.nullKind != nil {
		n := len(dst)
		out, err := st.fields(dst, rec)
		if err == nil && len(out) == n {
			out = append(out, rec.nullKind...)
		}
		return out, err
	}
	return st.fields(dst, rec)
}

// fields reads the fields of one writer record, in the reader's field
// order unless st.anyOrder.
func (st *decState) fields(dst []byte, rec *decRecord) ([]byte, error) {
	if rec.order != nil && !st.anyOrder {
		return st.recordReordered(dst, rec)
	}
	var err error
	for i := range rec.fields {
		f := &rec.fields[i]
		if f.dec == nil {
			if err = f.skip.run(st); err != nil {
				return dst, inField(err, f.name)
			}
			continue
		}
		n := len(dst)
		if dst, err = f.dec(st, dst, f.tag); err != nil {
			return dst, inField(err, f.name)
		}
		if f.dropIfDefault != nil && bytes.Equal(dst[n:], f.dropIfDefault) {
			dst = dst[:n]
		}
	}
	return dst, nil
}

// recordReordered reads a record whose writer order is not field-number
// order: each field's output is a contiguous segment, and the segments are
// then permuted.
func (st *decState) recordReordered(dst []byte, rec *decRecord) ([]byte, error) {
	base := len(st.seg)
	var err error
	for i := range rec.fields {
		f := &rec.fields[i]
		n := len(dst)
		if i >= rec.split {
			st.seg = append(st.seg, n)
		}
		if f.dec == nil {
			if err = f.skip.run(st); err != nil {
				st.seg = st.seg[:base]
				return dst, inField(err, f.name)
			}
			continue
		}
		if dst, err = f.dec(st, dst, f.tag); err != nil {
			st.seg = st.seg[:base]
			return dst, inField(err, f.name)
		}
		if f.dropIfDefault != nil && bytes.Equal(dst[n:], f.dropIfDefault) {
			dst = dst[:n]
		}
	}
	st.seg = append(st.seg, len(dst))
	seg := st.seg[base:] // seg[i-split] is where writer field i starts
	tmp := st.tmp[:0]
	for _, i := range rec.order[rec.keep:] {
		tmp = append(tmp, dst[seg[i-rec.split]:seg[i-rec.split+1]]...)
	}
	copy(dst[seg[0]:], tmp)
	st.tmp = tmp
	st.seg = st.seg[:base]
	return dst, nil
}

// value compiles a writer type against one reader value (a singular field,
// a list element or a map value) of field number num. tag passed at run time
// overrides the value's own tag for packed elements (0) and map values
// (field 2).
func (rc *readerCompiler) value(w *avroschema.Node, num protowire.Number, v *valuePlan) (valueDec, error) {
	w = w.Deref()
	defTag := protowire.EncodeTag(num, v.wt)
	if w.Type == avroschema.Union {
		// The value has no null (a nullable field's unions are resolved by
		// field): a null branch fails when data uses it, as a writer null
		// does when the resolver is compiled.
		return rc.union(w, func(bt *avroschema.Node) (valueDec, error) { return rc.value(bt, num, v) },
			"a null cannot be read as "+v.kind.String()+", which has no null here"), nil
	}
	switch v.kind {
	case vMessage:
		if w.Type != avroschema.Record {
			return nil, incompatible(w, "record "+string(v.msg.desc.FullName()))
		}
		rec, err := rc.record(w, v.msg)
		if err != nil {
			return nil, err
		}
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			if tag == 0 {
				tag = defTag
			}
			return st.nested(dst, tag, rec)
		}, nil
	case vTimestamp:
		return timestampDec(w, v, defTag)
	case vDate, vTimeOfDay:
		return civilDec(w, v, defTag)
	case vCarrier, vJSON:
		return rc.wholeDec(w, v, defTag)
	case vWrapper:
		inner, err := rc.scalar(w, 1, v.inner)
		if err != nil {
			return nil, err
		}
		// The wrapped value has implicit presence: a zero value is omitted.
		zero := append(protowire.AppendVarint(nil, protowire.EncodeTag(1, v.inner.wt)), zeroWire(v.inner)...)
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			if tag == 0 {
				tag = defTag
			}
			dst = protowire.AppendVarint(dst, tag)
			start := len(dst)
			dst = append(dst, 0)
			var err error
			if dst, err = inner(st, dst, protowire.EncodeTag(1, 0)); err != nil {
				return dst, err
			}
			if bytes.Equal(dst[start+1:], zero) {
				dst = dst[:start+1]
			}
			return fixLength(dst, start), nil
		}, nil
	}
	return rc.scalar(w, num, v)
}

// union compiles a writer union against a reader value that is not a
// union, branch by branch with branch: a null branch leaves the field unset
// (a list or map empty), or, where the reader has no place for a null (a
// list item), fails with nullErr when the data uses it; a branch the reader
// cannot take fails only when the data uses it.
func (rc *readerCompiler) union(w *avroschema.Node, branch func(*avroschema.Node) (valueDec, error), nullErr string) valueDec {
	branches := make([]valueDec, len(w.Branches))
	nulls := make([]bool, len(w.Branches))
	for i, bt := range w.Branches {
		if bt.Type == avroschema.Null {
			nulls[i] = nullErr != ""
			continue // null: the field stays unset
		}
		d, err := branch(bt)
		if err != nil {
			// Resolution fails only if the writer actually uses this
			// branch; err is of class ErrIncompatible already.
			d = func(st *decState, dst []byte, _ uint64) ([]byte, error) {
				return dst, &DataError{Offset: st.r.Pos, Err: err}
			}
		}
		branches[i] = d
	}
	if len(branches) == 2 && branches[0] == nil && branches[1] != nil && !nulls[0] {
		// ["null", T], the common case: index 0 (byte 0) or 1 (byte 2).
		b := branches[1]
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			if st.r.Pos < len(st.r.Buf) {
				switch st.r.Buf[st.r.Pos] {
				case 0:
					st.r.Pos++
					return dst, nil
				case 2:
					st.r.Pos++
					return b(st, dst, tag)
				}
			}
			off := st.r.Pos
			i, err := st.r.long()
			if err != nil {
				return dst, err
			}
			return dst, dataErr(ErrMalformed, off, "union index %d of 2 branches", i)
		}
	}
	return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
		off := st.r.Pos
		i, err := st.r.index(len(branches), unionIndexError)
		if err != nil {
			return dst, err
		}
		if branches[i] == nil {
			if nulls[i] {
				return dst, dataErr(ErrIncompatible, off, "%s", nullErr)
			}
			return dst, nil
		}
		return branches[i](st, dst, tag)
	}
}

// wholeDec reads a message carried whole: protobuf bytes or protojson text,
// whichever the writer wrote (so a reader takes either carrier), checked by
// parsing it and written out as the message field. JSON is converted to the
// message's deterministic protobuf encoding.
func (rc *readerCompiler) wholeDec(w *avroschema.Node, v *valuePlan, defTag uint64) (valueDec, error) {
	if w.Type != avroschema.Bytes && w.Type != avroschema.String {
		return nil, incompatible(w, "a message carried as bytes or JSON ("+string(v.desc.FullName())+")")
	}
	isJSON := w.Type == avroschema.String
	resolver := resolverOrGlobal(rc.opts.AnyResolver)
	md := v.desc
	return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
		off := st.r.Pos
		b, err := st.r.bytes()
		if err != nil {
			return dst, err
		}
		m := dynamicpb.NewMessage(md)
		if isJSON {
			err = protojson.UnmarshalOptions{Resolver: resolver}.Unmarshal(b, m)
		} else {
			err = unmarshalUntrusted(b, m)
		}
		if err != nil {
			if isJSON {
				return dst, jsonError(nil, b, rc.opts.AnyResolver, off, string(md.FullName()), err)
			}
			return dst, dataErr(ErrMalformed, off, "%s: %v", md.FullName(), err)
		}
		if isJSON {
			if b, err = (proto.MarshalOptions{Deterministic: true, AllowPartial: true}).Marshal(m); err != nil {
				return dst, dataErr(ErrMalformed, off, "%s: %v", md.FullName(), err)
			}
		}
		if tag == 0 {
			tag = defTag
		}
		dst = protowire.AppendVarint(dst, tag)
		if num, wt := protowire.DecodeTag(tag); wt == protowire.StartGroupType {
			dst = append(dst, b...)
			return protowire.AppendTag(dst, num, protowire.EndGroupType), nil
		}
		return protowire.AppendBytes(dst, b), nil
	}, nil
}

// scalar compiles a writer primitive or enum against a scalar reader value
// of field number num. The tag given at run time carries the field number;
// its wire type bits are replaced by the value's. A tag of 0 writes the value
// alone (packed).
func (rc *readerCompiler) scalar(w *avroschema.Node, num protowire.Number, v *valuePlan) (valueDec, error) {
	own := protowire.EncodeTag(num, v.wt)
	wt := uint64(v.wt)
	emit := func(dst []byte, tag uint64) []byte {
		if tag == 0 {
			return dst
		}
		if tag == own {
			return protowire.AppendVarint(dst, tag)
		}
		return protowire.AppendVarint(dst, tag&^7|wt)
	}
	if v.kind == vEnum {
		if w.Type != avroschema.Enum {
			return nil, incompatible(w, "enum "+string(v.enum.desc.FullName()))
		}
		ed := v.enum.desc
		if n := simpleName(w.Name); n != string(ed.Name()) && n != simpleName(v.enum.avroName) {
			return nil, fmt.Errorf("%w: writer enum %s cannot be read as enum %s", ErrIncompatible, w.Name, ed.FullName())
		}
		numbers := make([]int32, len(w.Symbols))
		def := v.enum.numbers[0]
		if d, ok := rc.enumDefaults[ed.FullName()]; ok {
			def = d
		}
		for i, sym := range w.Symbols {
			if ev := ed.Values().ByName(protoreflect.Name(sym)); ev != nil {
				numbers[i] = int32(ev.Number())
			} else {
				numbers[i] = def // unknown symbol: the reader's default
			}
		}
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			i, err := st.r.index(len(numbers), "enum index %d of %d symbols")
			if err != nil {
				return dst, err
			}
			dst = emit(dst, tag)
			return protowire.AppendVarint(dst, uint64(int64(numbers[i]))), nil
		}, nil
	}
	wt0 := w.Type
	rt := v.avroType()
	if wt0 != rt && !avroschema.Promotes(wt0, rt) {
		return nil, incompatible(w, rt.String())
	}
	if (v.kind == vUint64Dec || v.kind == vFixed64Dec) && w.Logical == "decimal" && w.Scale != 0 {
		// The unscaled integer of another scale is another number: 1.23 of
		// decimal(20,2) is 123 unscaled. Avro's rules match decimals only
		// of the same scale.
		return nil, fmt.Errorf("%w: writer decimal(%d,%d) cannot be read as decimal(20,0): its scale differs", ErrIncompatible, w.Precision, w.Scale)
	}
	if d := fastScalar(wt0, v, own, wt); d != nil {
		return d, nil
	}
	kind := v.kind
	return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
		off := st.r.Pos
		var (
			i   int64
			f   float64
			b   []byte
			err error
		)
		switch wt0 {
		case avroschema.Boolean:
			var x bool
			x, err = st.r.boolean()
			if x {
				i = 1
			}
		case avroschema.Int:
			var x int32
			x, err = st.r.int()
			i, f = int64(x), float64(x)
		case avroschema.Long:
			i, err = st.r.long()
			f = float64(i)
		case avroschema.Float:
			var x float32
			x, err = st.r.float()
			f = float64(x)
		case avroschema.Double:
			f, err = st.r.double()
		case avroschema.String, avroschema.Bytes:
			b, err = st.r.bytes()
		}
		if err != nil {
			return dst, err
		}
		dst = emit(dst, tag)
		switch kind {
		case vBool, vInt64:
			return protowire.AppendVarint(dst, uint64(i)), nil
		case vInt32:
			return protowire.AppendVarint(dst, uint64(int64(int32(i)))), nil
		case vSint32, vSint64:
			return protowire.AppendVarint(dst, protowire.EncodeZigZag(i)), nil
		case vSfixed32:
			return protowire.AppendFixed32(dst, uint32(i)), nil
		case vSfixed64:
			return protowire.AppendFixed64(dst, uint64(i)), nil
		case vUint32, vFixed32:
			if !v.java32 && (i < 0 || i > math.MaxUint32) {
				return dst, dataErr(ErrOutOfRange, off, "%d does not fit %v", i, kind)
			}
			if kind == vFixed32 {
				return protowire.AppendFixed32(dst, uint32(i)), nil
			}
			return protowire.AppendVarint(dst, uint64(uint32(i))), nil
		case vUint64, vFixed64, vUint64Dec, vFixed64Dec:
			u := uint64(i)
			if kind == vUint64Dec || kind == vFixed64Dec {
				if u, err = decimalUint64(b, off); err != nil {
					return dst, err
				}
			}
			if v.wt == protowire.Fixed64Type {
				return protowire.AppendFixed64(dst, u), nil
			}
			return protowire.AppendVarint(dst, u), nil
		case vFloat:
			x := float32(f)
			if wt0 == avroschema.Long {
				x = float32(i) // rounded once, as Java's (float) long: float32(float64(i)) can round twice
			}
			return protowire.AppendFixed32(dst, math.Float32bits(x)), nil
		case vDouble:
			return protowire.AppendFixed64(dst, math.Float64bits(f)), nil
		case vString:
			if !utf8.Valid(b) {
				return dst, dataErr(ErrMalformed, off, "string is not valid UTF-8")
			}
			return protowire.AppendBytes(dst, b), nil
		case vBytes:
			return protowire.AppendBytes(dst, b), nil
		}
		return dst, dataErr(ErrMalformed, off, "internal error: kind %v", kind)
	}, nil
}

// fastScalar returns a specialised decoder for the common cases where the
// writer type is the reader's own, or nil.
func fastScalar(w avroschema.Type, v *valuePlan, own, wt uint64) valueDec {
	tagged := func(dst []byte, tag uint64) []byte { return appendFieldTag(dst, tag, own, wt) }
	k := v.kind
	switch {
	case (w == avroschema.Long && (k == vInt64 || k == vUint64 || k == vSint64)) ||
		(w == avroschema.Int && (k == vInt32 || k == vSint32)):
		zigzag := k == vSint64 || k == vSint32
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			off := st.r.Pos
			x, err := st.r.long()
			if err != nil {
				return dst, err
			}
			if w == avroschema.Int && (x < math.MinInt32 || x > math.MaxInt32) {
				return dst, dataErr(ErrMalformed, off, "int %d out of 32-bit range", x)
			}
			u := uint64(x)
			if zigzag {
				u = protowire.EncodeZigZag(x)
			}
			return protowire.AppendVarint(tagged(dst, tag), u), nil
		}
	case (w == avroschema.Float && k == vFloat) || (w == avroschema.Double && k == vDouble):
		size := 4
		if w == avroschema.Double {
			size = 8
		}
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			b, err := st.r.fixed(size)
			if err != nil {
				return dst, err
			}
			return append(tagged(dst, tag), b...), nil // both little-endian IEEE 754
		}
	case (w == avroschema.Bytes || w == avroschema.String) && (k == vBytes || k == vString):
		check := k == vString
		return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
			off := st.r.Pos
			b, err := st.r.bytes()
			if err != nil {
				return dst, err
			}
			if check && !utf8.Valid(b) {
				return dst, dataErr(ErrMalformed, off, "string is not valid UTF-8")
			}
			return protowire.AppendBytes(tagged(dst, tag), b), nil
		}
	}
	return nil
}

// appendFieldTag writes tag (0: none, for packed elements), with the wire
// type of the reader field when it is another field's tag (map values).
func appendFieldTag(dst []byte, tag, own, wt uint64) []byte {
	if tag != own {
		if tag == 0 {
			return dst
		}
		tag = tag&^7 | wt
	}
	if tag < 0x80 {
		return append(dst, byte(tag))
	}
	return protowire.AppendVarint(dst, tag)
}

// decimalUint64 parses a decimal(20,0) two's-complement value into a uint64.
func decimalUint64(b []byte, off int) (uint64, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if b[0]&0x80 != 0 {
		return 0, dataErr(ErrOutOfRange, off, "negative decimal for an unsigned field")
	}
	for len(b) > 8 && b[0] == 0 {
		b = b[1:]
	}
	if len(b) > 8 {
		return 0, dataErr(ErrOutOfRange, off, "decimal of %d bytes exceeds 64 bits", len(b))
	}
	var u uint64
	for _, c := range b {
		u = u<<8 | uint64(c)
	}
	return u, nil
}

// timestampDec reads a long (in the writer's timestamp unit, or the
// reader's when the writer has no logical type) into a Timestamp message. A
// writer date is midnight UTC of the day; a time of day is no instant.
func timestampDec(w *avroschema.Node, v *valuePlan, defTag uint64) (valueDec, error) {
	if w.Type != avroschema.Long && w.Type != avroschema.Int {
		return nil, incompatible(w, "a timestamp long")
	}
	prec := v.tsPrec
	days := false
	switch w.Logical {
	case "timestamp-millis", "local-timestamp-millis":
		prec = TimestampMillis
	case "timestamp-micros", "local-timestamp-micros":
		prec = TimestampMicros
	case "timestamp-nanos", "local-timestamp-nanos":
		prec = TimestampNanos
	case "date":
		days = w.Type == avroschema.Int
	case "time-millis", "time-micros":
		return nil, fmt.Errorf("%w: writer %s %s, a time of day, cannot be read as a Timestamp", ErrIncompatible, w.Type, w.Logical)
	}
	isInt := w.Type == avroschema.Int
	return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
		var x int64
		var err error
		if isInt {
			var y int32
			y, err = st.r.int()
			x = int64(y)
		} else {
			x, err = st.r.long()
		}
		if err != nil {
			return dst, err
		}
		secs, nanos := splitTimestamp(x, prec)
		if days {
			secs, nanos = x*86400, 0 // |x| < 2^31: no overflow
		}
		if tag == 0 {
			tag = defTag
		}
		dst = protowire.AppendVarint(dst, tag)
		start := len(dst)
		dst = append(dst, 0)
		if secs != 0 {
			dst = protowire.AppendVarint(protowire.AppendTag(dst, 1, protowire.VarintType), uint64(secs))
		}
		if nanos != 0 {
			dst = protowire.AppendVarint(protowire.AppendTag(dst, 2, protowire.VarintType), uint64(nanos))
		}
		return fixLength(dst, start), nil
	}, nil
}

// civilDec reads an int (date) into a google.type.Date, or a long
// (time-micros) or an int time-millis into a google.type.TimeOfDay.
func civilDec(w *avroschema.Node, v *valuePlan, defTag uint64) (valueDec, error) {
	date := v.kind == vDate
	per := int64(1) // microseconds per unit of the writer's time of day
	switch {
	case date && w.Type == avroschema.Int && (w.Logical == "" || w.Logical == "date"):
	case !date && w.Type == avroschema.Long && (w.Logical == "" || w.Logical == "time-micros"):
	case !date && w.Type == avroschema.Int && w.Logical == "time-millis":
		per = 1000
	default:
		return nil, fmt.Errorf("%w: writer %s %s cannot be read as %s", ErrIncompatible, w.Type, w.Logical, v.kind)
	}
	isInt := w.Type == avroschema.Int
	return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
		off := st.r.Pos
		var x int64
		var err error
		if isInt {
			var y int32
			y, err = st.r.int()
			x = int64(y)
		} else {
			x, err = st.r.long()
		}
		if err != nil {
			return dst, err
		}
		var f [4]int64
		if date {
			if x < minCivilDays || x > maxCivilDays {
				return dst, dataErr(ErrOutOfRange, off, "date %d days from 1970-01-01 is outside the years 1 to 9999 of google.type.Date", x)
			}
			f[0], f[1], f[2] = civilFromDays(x)
		} else {
			if x < 0 || x >= microsPerDay/per {
				return dst, dataErr(ErrOutOfRange, off, "time of day %d is outside 00:00:00 to 23:59:59.999999", x)
			}
			us := x * per
			f[0], f[1], f[2], f[3] = us/3_600_000_000, us/60_000_000%60, us/1_000_000%60, us%1_000_000*1000
		}
		if tag == 0 {
			tag = defTag
		}
		dst = protowire.AppendVarint(dst, tag)
		start := len(dst)
		dst = append(dst, 0)
		for i, x := range f {
			if x != 0 {
				dst = protowire.AppendVarint(protowire.AppendTag(dst, protowire.Number(i+1), protowire.VarintType), uint64(x))
			}
		}
		return fixLength(dst, start), nil
	}, nil
}

// unionIndexError formats a bad union branch index and the branch count.
const unionIndexError = "union index %d of %d branches"

// skipProg skips one writer value the reader has no field for. Programs
// are compiled once per writer node (see readerCompiler.skipper), so the
// item sizes of arrays and maps are not recomputed per value.
type skipProg struct {
	run func(st *decState) error
}

// skipper returns the skip program of writer type s, compiling it on first
// use; recursive types refer to the program being compiled.
func (rc *readerCompiler) skipper(s *avroschema.Node) *skipProg {
	t := s.Deref()
	if p := rc.skips[t]; p != nil {
		return p
	}
	p := &skipProg{}
	rc.skips[t] = p
	if rc.canBeEmpty(t) {
		// Types that can be empty always are (null, fixed(0) and records
		// of them): nothing to read, however deep the records nest.
		p.run = func(*decState) error { return nil }
		return p
	}
	switch t.Type {
	case avroschema.Null:
		p.run = func(*decState) error { return nil }
	case avroschema.Boolean:
		p.run = skipFixed(1)
	case avroschema.Int, avroschema.Long, avroschema.Enum:
		p.run = func(st *decState) error { _, err := st.r.long(); return err }
	case avroschema.Float:
		p.run = skipFixed(4)
	case avroschema.Double:
		p.run = skipFixed(8)
	case avroschema.String, avroschema.Bytes:
		p.run = func(st *decState) error { _, err := st.r.bytes(); return err }
	case avroschema.Fixed:
		p.run = skipFixed(t.Size)
	case avroschema.Union:
		branches := make([]*skipProg, len(t.Branches))
		for i, b := range t.Branches {
			branches[i] = rc.skipper(b)
		}
		p.run = func(st *decState) error {
			i, err := st.r.index(len(branches), unionIndexError)
			if err != nil {
				return err
			}
			return branches[i].run(st)
		}
	case avroschema.Record:
		fields := make([]*skipProg, len(t.Fields))
		for i := range t.Fields {
			fields[i] = rc.skipper(t.Fields[i].Type)
		}
		p.run = func(st *decState) error {
			st.depth++
			if st.depth > maxDepth {
				return dataErr(ErrTooDeep, st.r.Pos, "more than %d nested records", maxDepth)
			}
			for i, f := range fields {
				if err := f.run(st); err != nil {
					return inField(err, t.Fields[i].Name)
				}
			}
			st.depth--
			return nil
		}
	case avroschema.Array:
		item, minItem := rc.skipper(t.Items), rc.minSize(t.Items)
		p.run = func(st *decState) error { return skipBlocks(st, minItem, item.run) }
	case avroschema.Map:
		val, minEntry := rc.skipper(t.Values), 1+rc.minSize(t.Values)
		p.run = func(st *decState) error {
			return skipBlocks(st, minEntry, func(st *decState) error {
				if _, err := st.r.bytes(); err != nil {
					return err
				}
				return val.run(st)
			})
		}
	default:
		typ := t.Type
		p.run = func(st *decState) error { return dataErr(ErrIncompatible, st.r.Pos, "cannot skip a %s", typ) }
	}
	return p
}

func skipFixed(n int) func(st *decState) error {
	return func(st *decState) error { _, err := st.r.fixed(n); return err }
}

func skipBlocks(st *decState, minItemSize int, item func(st *decState) error) error {
	for {
		n, err := st.r.blockCount(minItemSize)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		for range n {
			if err := item(st); err != nil {
				return err
			}
		}
	}
}

var decStatePool = sync.Pool{New: func() any { return &decState{} }}

// newDecState takes a decState from the pool, set to read the datum of r.
func newDecState(r avroReader, anyOrder bool) *decState {
	st := decStatePool.Get().(*decState)
	st.r, st.depth, st.anyOrder, st.itemCounted = r, 0, anyOrder, false
	return st
}

// release returns st to the pool, keeping no reference to the datum.
func (st *decState) release() {
	st.r.Buf = nil
	decStatePool.Put(st)
}

// checkEnd is the error of a datum of type name that ends at pos of its n
// bytes: nil at the end, else the count of bytes left after it.
func checkEnd(name string, pos, n int) error {
	if pos == n {
		return nil
	}
	return &DataError{Path: name, Offset: pos, Err: fmt.Errorf("%w: %d bytes left after the datum", ErrMalformed, n-pos)}
}

// transcode runs a reader program over one datum.
func transcodeToProto(rec *decRecord, dst, data []byte, anyOrder bool) ([]byte, error) {
	st := newDecState(newAvroReader(data), anyOrder)
	n := len(dst)
	out, err := st.record(dst, rec)
	pos := st.r.Pos
	st.release()
	if err != nil {
		return dst[:n], inField(err, rec.name)
	}
	if err := checkEnd(rec.name, pos, len(data)); err != nil {
		return dst[:n], err
	}
	return out, nil
}

// TranscodeToProto converts the Avro binary encoding of one record, written
// with the codec's own schema, to the protobuf wire encoding of the message,
// appending to dst. It builds no message.
func (c *Codec) TranscodeToProto(dst, data []byte) ([]byte, error) {
	return transcodeToProto(c.dec, dst, data, false)
}

// Unmarshal decodes the Avro binary encoding of one record, written with the
// codec's own schema, into m, which is reset first. m may be a generated
// message or a dynamicpb message of the codec's type.
func (c *Codec) Unmarshal(data []byte, m proto.Message) error {
	if d := c.seenDirect(m); d != nil && d.readable {
		return c.unmarshalStruct(d.plan, data, m)
	}
	if err := c.check(m); err != nil {
		return err
	}
	if d := c.directPlan(m); d.readable && !isNilPointer(m) {
		return c.unmarshalStruct(d.plan, data, m)
	}
	return unmarshal(c, c.dec, data, m)
}

func unmarshal(c *Codec, rec *decRecord, data []byte, m proto.Message) error {
	if err := c.check(m); err != nil {
		return err
	}
	if isNilPointer(m) {
		return fmt.Errorf("%w: cannot decode into a nil %T", ErrWrongType, m)
	}
	bp := wirePool.Get().(*[]byte)
	wire, err := transcodeToProto(rec, (*bp)[:0], data, true)
	if err == nil {
		err = unmarshalWire(wire, m, string(c.schema.desc.FullName()))
	}
	if cap(wire) <= maxPooledBuffer {
		*bp = wire[:0]
		wirePool.Put(bp)
	}
	return err
}

// Resolver reads data written with another schema, such as an older or newer
// version of the message, into the codec's message type. It is safe for
// concurrent use.
type Resolver struct {
	codec  *Codec
	writer *Schema
	dec    *decRecord
}

// Resolve compiles a reader for data written with the writer schema, by
// Avro's schema resolution rules. It fails with ErrIncompatible when the
// schemas cannot be resolved (a reader field without default missing from the
// writer, a type that does not promote, a record of another name).
func (c *Codec) Resolve(writer *Schema) (*Resolver, error) {
	if writer == nil {
		return nil, fmt.Errorf("%w: nil writer schema", ErrIncompatible)
	}
	dec, err := compileReader(writer.root, c.schema, c.opts)
	if err != nil {
		return nil, err
	}
	return &Resolver{codec: c, writer: writer, dec: dec}, nil
}

// Unmarshal decodes one record written with the resolver's writer schema into m.
func (r *Resolver) Unmarshal(data []byte, m proto.Message) error {
	return unmarshal(r.codec, r.dec, data, m)
}

// TranscodeToProto converts one record written with the resolver's writer
// schema to the protobuf wire encoding of the reader's message type.
func (r *Resolver) TranscodeToProto(dst, data []byte) ([]byte, error) {
	return transcodeToProto(r.dec, dst, data, false)
}

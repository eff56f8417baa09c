package protoavro

// The reader program's interpreter: the state of one decoding (decState,
// pooled), records with their fields in the reader's order or reordered,
// nested records, arrays and maps, written out as protobuf wire bytes.

import (
	"bytes"
	"strconv"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/safetext"
)

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

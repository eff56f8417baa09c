package protoavro

// Value decoders, compiled per writer and reader type: scalars with their
// promotions, unions, enums, whole messages carried as bytes or JSON
// (Any, Struct and the like), decimals, dates and times of day.

import (
	"bytes"
	"fmt"
	"github.com/protoavro/protoavro/internal/pbjson"
	"math"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/avroschema"
)

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
			// The index in one byte (0 or 2), as writers write it, is
			// read inline: present is a call.
			if p := st.r.Pos; p < len(st.r.Buf) && st.r.Buf[p]|2 == 2 {
				st.r.Pos++
				if st.r.Buf[p] == 0 {
					return dst, nil
				}
			} else if present, err := st.r.present(); !present {
				return dst, err
			}
			return b(st, dst, tag)
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
	if err := readsAs(w, v); err != nil {
		return nil, fmt.Errorf("%w (a message carried as bytes or JSON: %s)", err, v.desc.FullName())
	}
	isJSON := w.Type == avroschema.String
	resolver := resolverOrGlobal(rc.opts.AnyResolver)
	md := v.desc
	structs := v.structs
	if structs == nil && pbjson.IsStructType(md) {
		structs = pbjson.Compile(md, pbjson.Options{})
	}
	return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
		off := st.r.Pos
		b, err := st.r.bytes()
		if err != nil {
			return dst, err
		}
		if tag == 0 {
			tag = defTag
		}
		if structs != nil {
			// A Struct, Value or ListValue: converted (JSON) or checked
			// (wire) without a message; what the fast path declines is
			// parsed below.
			if out, ok := appendStructs(structs, st, dst, tag, b, isJSON); ok {
				return out, nil
			}
		}
		m := dynamicpb.NewMessage(md)
		if isJSON {
			err = protojson.UnmarshalOptions{Resolver: resolver}.Unmarshal(b, m)
		} else {
			err = unmarshalUntrusted(b, m)
		}
		if err != nil {
			if isJSON {
				return dst, jsonError(nil, b, md, rc.opts.AnyResolver, off, string(md.FullName()), err)
			}
			return dst, dataErr(parseClass(err), off, "%s: %v", md.FullName(), err)
		}
		if isJSON {
			if b, err = (proto.MarshalOptions{Deterministic: true, AllowPartial: true}).Marshal(m); err != nil {
				return dst, dataErr(ErrMalformed, off, "%s: %v", md.FullName(), err)
			}
		}
		dst = protowire.AppendVarint(dst, tag)
		if num, wt := protowire.DecodeTag(tag); wt == protowire.StartGroupType {
			dst = append(dst, b...)
			return protowire.AppendTag(dst, num, protowire.EndGroupType), nil
		}
		return protowire.AppendBytes(dst, b), nil
	}, nil
}

// appendStructs appends the field of tag holding the Struct, Value or
// ListValue in b, its JSON (isJSON) or wire bytes, by the pbjson plan p;
// ok is false when p declines it (dst is then unchanged).
func appendStructs(p *pbjson.Plan, st *decState, dst []byte, tag uint64, b []byte, isJSON bool) ([]byte, bool) {
	n := len(dst)
	dst = protowire.AppendVarint(dst, tag)
	num, wt := protowire.DecodeTag(tag)
	group := wt == protowire.StartGroupType
	if !isJSON {
		// Checked by converting it to JSON, in scratch space.
		text, ok := p.AppendJSON(st.tmp[:0], b)
		st.tmp = text[:0]
		if !ok {
			return dst[:n], false
		}
		if group {
			dst = append(dst, b...)
			return protowire.AppendTag(dst, num, protowire.EndGroupType), true
		}
		return protowire.AppendBytes(dst, b), true
	}
	if group {
		out, ok := p.AppendWire(dst, b)
		if !ok {
			return dst[:n], false
		}
		return protowire.AppendTag(out, num, protowire.EndGroupType), true
	}
	start := len(dst)
	dst = append(dst, 0)
	out, ok := p.AppendWire(dst, b)
	if !ok {
		return dst[:n], false
	}
	return fixLength(out, start), true
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
		if !namesMatch(v.enum.avroName, nil, w.Name) {
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
	if err := readsAs(w, v); err != nil {
		return nil, err
	}
	wt0 := w.Type
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

// readsAs returns the ErrIncompatible error of reading a value of the
// writer's schema w as the reader's value v, by their Avro types
// (promotions) and logical types (logicalMismatch): the rules
// CheckResolution checks. Nil when it reads.
func readsAs(w *avroschema.Node, v *valuePlan) error {
	rt := v.avroType()
	if w.Type != rt && !avroschema.Promotes(w.Type, rt) {
		return incompatible(w, rt.String())
	}
	lt, precision := v.logicalType()
	if d := logicalMismatch(w, lt, precision, 0); d != "" {
		return fmt.Errorf("%w: %s", ErrIncompatible, d)
	}
	return nil
}

// civilDec reads an int (date) into a google.type.Date, or a long
// (time-micros) or an int time-millis into a google.type.TimeOfDay.
func civilDec(w *avroschema.Node, v *valuePlan, defTag uint64) (valueDec, error) {
	if err := readsAs(w, v); err != nil {
		return nil, fmt.Errorf("%w (%s)", err, v.kind)
	}
	date := v.kind == vDate
	per := int64(1) // microseconds per unit of the writer's time of day
	if logicalOf(w) == "time-millis" {
		per = 1000
	}
	isInt := w.Type == avroschema.Int
	return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
		off := st.r.Pos
		x, err := st.r.intOrLong(isInt)
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

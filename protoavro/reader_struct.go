package protoavro

import (
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/proto"
)

// This file holds the direct reader for generated message types under the
// default profile: it decodes Avro written with the codec's own schema
// straight into the fields of the generated Go struct, through the offsets
// of the struct plan (writer_struct.go), with the allocations proto.Unmarshal
// makes (one per message, string, bytes, list and explicit scalar) and no
// intermediate protobuf encoding. Other cases (dynamicpb, the Java profile,
// other writer schemas) transcode to wire bytes and call proto.Unmarshal.

// unmarshalStruct decodes data into m, a generated message of plan p's type.
func (c *Codec) unmarshalStruct(p *structPlan, data []byte, m proto.Message) error {
	sv := reflect.ValueOf(m).Elem()
	sv.SetZero() // as the generated Reset does: *m = M{}
	st := newDecState(newAvroReader(data), false)
	st.depth = -1 // the top-level record does not count, as in the transcoder
	err := st.decodeStruct(p, sv.Addr().UnsafePointer())
	pos := st.r.Pos
	st.release()
	if err != nil {
		return inField(err, c.enc.name)
	}
	return checkEnd(c.enc.name, pos, len(data))
}

// decodeStruct decodes a record into the struct of plan p at base (a *M's
// pointer). Fields are written in place through the offsets of the plan, as
// the writer reads them (see encodeStructField): []*M as []unsafe.Pointer,
// oneof interfaces as ifaceWords, with the itab the plan checked.
func (st *decState) decodeStruct(p *structPlan, base unsafe.Pointer) error {
	st.depth++
	if st.depth > maxDepth {
		return dataErr(ErrTooDeep, st.r.Pos, "more than %d nested records", maxDepth)
	}
	var block unsafe.Pointer // the scalar block, allocated at its first use
	for i := range p.fields {
		if err := st.decodeStructField(p, &p.fields[i], base, &block); err != nil {
			return inField(err, p.fields[i].f.name)
		}
	}
	if p.msg.placeholder {
		if err := st.skipPlaceholder(); err != nil {
			return inField(err, emptyPlaceholderName)
		}
	}
	st.depth--
	return nil
}

// skipPlaceholder skips the value of the placeholder field of a message
// without fields, ["null", "string"]: a null, or a string however long.
func (st *decState) skipPlaceholder() error {
	str, err := st.r.present()
	if str && err == nil {
		_, err = st.r.bytes()
	}
	return err
}

// decodeStructField decodes one field into the struct of plan p at base;
// block is the message's scalar block (nil until a field needs it).
func (st *decState) decodeStructField(p *structPlan, sf *structField, base unsafe.Pointer, block *unsafe.Pointer) error {
	f := sf.f
	fp := unsafe.Add(base, sf.offset)
	switch f.mode {
	case modeNullable:
		// The index in one byte (0 or 2), as writers write it, is read
		// inline: present is a call.
		if p := st.r.Pos; p < len(st.r.Buf) && st.r.Buf[p]|2 == 2 {
			st.r.Pos++
			if st.r.Buf[p] == 0 {
				return nil
			}
		} else if present, err := st.r.present(); !present {
			return err
		}
	case modeList:
		if sf.repr == gList {
			return st.decodeScalarList(sf, fp)
		}
		return st.decodeMessageList(sf, (*[]unsafe.Pointer)(fp))
	case modeMap, modeEntries:
		return st.decodeStructMap(sf, reflect.NewAt(p.typ, base).Elem().Field(sf.index))
	}
	// A present singular value (implicit, required, or union branch 1).
	switch sf.repr {
	case gValue:
		return st.setScalar(&f.val, sf.goKind, fp)
	case gPtr:
		var vp unsafe.Pointer
		if sf.inBlock {
			// One noscan allocation of uint64s (so 8-byte aligned) holds the
			// message's pointer-free scalars, each at its aligned offset: the
			// field's *T points inside it, which keeps it alive. It is
			// allocated in whole here, so blockOff is always within it.
			if *block == nil {
				*block = unsafe.Pointer(unsafe.SliceData(make([]uint64, p.blockWords)))
			}
			vp = unsafe.Add(*block, sf.blockOff)
		} else {
			vp = goScalars[sf.goKind].new()
		}
		if err := st.setScalar(&f.val, sf.goKind, vp); err != nil {
			return err
		}
		*(*unsafe.Pointer)(fp) = vp
		return nil
	case gBytes:
		if err := st.setScalar(&f.val, reflect.Slice, fp); err != nil {
			return err
		}
		if b := (*[]byte)(fp); *b == nil { // present but empty
			*b = []byte{}
		}
		return nil
	case gMsg:
		mp, err := st.newMessage(sf)
		if err != nil {
			return err
		}
		*(*unsafe.Pointer)(fp) = mp
		return nil
	case gOneof:
		// A new wrapper, whose only field (at offset 0) holds the value.
		wp := reflect.New(sf.wrapper.Elem()).UnsafePointer()
		if sf.wrapRep == gMsg {
			mp, err := st.newMessage(sf)
			if err != nil {
				return err
			}
			*(*unsafe.Pointer)(wp) = mp
		} else {
			if err := st.setScalar(&f.val, sf.goKind, wp); err != nil {
				return err
			}
			if sf.goKind == reflect.Slice && *(*[]byte)(wp) == nil {
				*(*[]byte)(wp) = []byte{} // a set bytes member is present even when empty
			}
		}
		*(*ifaceWords)(fp) = ifaceWords{tab: sf.itab, data: wp}
		return nil
	}
	return dataErr(ErrMalformed, st.r.Pos, "internal error: field representation %d", sf.repr)
}

// newMessage decodes a message value (record, Timestamp or wrapper) into a
// new M of the field's struct type mtyp and returns its pointer.
func (st *decState) newMessage(sf *structField) (unsafe.Pointer, error) {
	mp := reflect.New(sf.mtyp).UnsafePointer()
	v := sf.val
	switch v.kind {
	case vMessage:
		return mp, st.decodeStruct(sf.sub, mp)
	case vTimestamp:
		x, err := st.r.long()
		if err != nil {
			return mp, err
		}
		secs, nanos := splitTimestamp(x, v.tsPrec)
		*(*int64)(unsafe.Add(mp, sf.wk[0])) = secs
		*(*int32)(unsafe.Add(mp, sf.wk[1])) = int32(nanos)
		return mp, nil
	case vWrapper:
		return mp, st.setScalar(v.inner, sf.wkKind, unsafe.Add(mp, sf.wk[0]))
	}
	return mp, dataErr(ErrMalformed, st.r.Pos, "internal error: kind %d", v.kind)
}

// goScalar decodes one scalar into a settable Go value of the field's kind
// (an enum's named int32 type included), in place.
func (st *decState) goScalar(v *valuePlan, fv reflect.Value) error {
	return st.setScalar(v, fv.Kind(), fv.Addr().UnsafePointer())
}

// decodeMessageList decodes an Avro array of records (or Timestamps, or
// wrappers) into the []*M at s, read as []unsafe.Pointer: the same layout,
// and the same GC shape (all pointers), as protobuf-go's own
// pointer.AppendPointerSlice relies on.
func (st *decState) decodeMessageList(sf *structField, s *[]unsafe.Pointer) error {
	// 0 for records that take no bytes: those without fields, and those
	// whose fields are such records (required empty messages).
	minSize := sf.f.val.minSize()
	idx := 0
	return st.r.blocks(minSize, func(n int64) error {
		for j := range int(n) {
			// Grow as elements arrive, not by the count the input claims: a
			// block of up to maxListChunk elements takes one allocation.
			if l := len(*s); l == cap(*s) {
				ns := make([]unsafe.Pointer, l, l+listGrowth(int(n)-j, l))
				copy(ns, *s)
				*s = ns
			}
			mp, err := st.newMessage(sf)
			if err != nil {
				return inIndex(err, idx)
			}
			*s = append(*s, mp)
			idx++
		}
		return nil
	})
}

// decodeStructMap decodes an Avro map (string or text keys) or an array of
// entry records into a Go map field; a key read twice keeps its last value,
// as protobuf does.
func (st *decState) decodeStructMap(sf *structField, fv reflect.Value) error {
	mt := fv.Type()
	kt, vt := mt.Key(), mt.Elem()
	entries := sf.f.mode == modeEntries
	minSize := 1 // an entry record: a key takes a byte at least
	if !entries {
		minSize += sf.val.minSize() // the key's length, and the value
	}
	idx := 0
	return st.r.blocks(minSize, func(n int64) error {
		if fv.IsNil() {
			fv.Set(reflect.MakeMapWithSize(mt, min(int(n), maxListChunk)))
		}
		for range int(n) {
			kv, vv := reflect.New(kt).Elem(), reflect.New(vt).Elem()
			err := st.mapKey(sf, entries, kv)
			if err != nil {
				return inIndex(err, idx)
			}
			if sf.val.kind.isMessage() {
				var mp unsafe.Pointer
				if mp, err = st.newMessage(sf); err == nil {
					vv = reflect.NewAt(sf.mtyp, mp)
				}
			} else if err = st.goScalar(sf.val, vv); err == nil && vt.Kind() == reflect.Slice && vv.IsNil() {
				vv.SetBytes([]byte{}) // an empty bytes value
			}
			if err != nil {
				return inIndex(err, idx)
			}
			fv.SetMapIndex(kv, vv)
			idx++
		}
		return nil
	})
}

// mapKey decodes a map key into kv: an entry record's key, an Avro map's
// string key, or the text form of another key kind.
func (st *decState) mapKey(sf *structField, entries bool, kv reflect.Value) error {
	if entries {
		return st.goScalar(&sf.f.entry.fields[0].val, kv)
	}
	if !sf.f.textKey {
		return st.goScalar(sf.f.key, kv)
	}
	off := st.r.Pos
	b, err := st.r.bytes()
	if err != nil {
		return err
	}
	s := string(b)
	switch kv.Kind() {
	case reflect.Bool:
		if s != "true" && s != "false" {
			err = strconv.ErrSyntax
		}
		kv.SetBool(s == "true")
	case reflect.Int32, reflect.Int64:
		var x int64
		x, err = parseKeyInt(s, kv.Type().Bits())
		kv.SetInt(x)
	default: // unsigned
		var x uint64
		x, err = parseKeyUint(s, kv.Type().Bits())
		kv.SetUint(x)
	}
	if err != nil {
		return dataErr(ErrMalformed, off, "map key %q is not a %v", s, sf.f.key.kind)
	}
	return nil
}

// readablePlan reports whether the direct reader handles every field of p
// and of its nested plans.
func readablePlan(p *structPlan, seen map[*structPlan]bool) bool {
	if seen[p] {
		return true
	}
	seen[p] = true
	for i := range p.fields {
		sf := &p.fields[i]
		if sf.sub != nil && !readablePlan(sf.sub, seen) {
			return false
		}
	}
	return true
}

// setScalar decodes one scalar and stores it at p, a Go value of kind k (the
// generated struct's field, or the element of a pointer or slice).
func (st *decState) setScalar(v *valuePlan, k reflect.Kind, p unsafe.Pointer) error {
	off := st.r.Pos
	switch k {
	case reflect.Bool:
		b, err := st.r.boolean()
		*(*bool)(p) = b
		return err
	case reflect.Int32: // int32 kinds and enums
		if v.kind == vEnum {
			i, err := st.r.index(len(v.enum.numbers), "enum index %d of %d symbols")
			if err != nil {
				return err
			}
			*(*int32)(p) = v.enum.numbers[i]
			return nil
		}
		x, err := st.r.int()
		*(*int32)(p) = x
		return err
	case reflect.Uint32:
		x, err := st.r.long()
		if err != nil {
			return err
		}
		if x < 0 || x > math.MaxUint32 {
			return dataErr(ErrOutOfRange, off, "%d does not fit a 32-bit unsigned field", x)
		}
		*(*uint32)(p) = uint32(x)
		return nil
	case reflect.Int64, reflect.Uint64:
		if v.kind == vUint64Dec || v.kind == vFixed64Dec {
			b, err := st.r.bytes()
			if err != nil {
				return err
			}
			u, err := decimalUint64(b, off)
			*(*uint64)(p) = u
			return err
		}
		// A long, or the bits of a uint64 written as one.
		x, err := st.r.long()
		*(*int64)(p) = x
		return err
	case reflect.Float32:
		x, err := st.r.float()
		*(*float32)(p) = x
		return err
	case reflect.Float64:
		x, err := st.r.double()
		*(*float64)(p) = x
		return err
	case reflect.String:
		b, err := st.r.bytes()
		if err != nil {
			return err
		}
		if !utf8.Valid(b) {
			return dataErr(ErrMalformed, off, "string is not valid UTF-8")
		}
		*(*string)(p) = string(b)
		return nil
	case reflect.Slice: // bytes
		b, err := st.r.bytes()
		if err != nil {
			return err
		}
		if len(b) > 0 {
			*(*[]byte)(p) = append([]byte(nil), b...)
		}
		return nil
	}
	return dataErr(ErrMalformed, off, "internal error: Go kind %v", k)
}

// decodeScalarList decodes an Avro array of scalars into the slice at p.
func (st *decState) decodeScalarList(sf *structField, p unsafe.Pointer) error {
	minSize := sf.f.val.minSize()
	idx := 0
	return st.r.blocks(minSize, func(n int64) error {
		for left := int(n); left > 0; {
			k := min(left, maxListChunk)
			if err := st.decodeScalarChunk(sf, p, k, &idx); err != nil {
				return err
			}
			left -= k
		}
		return nil
	})
}

// maxListChunk bounds the elements a list grows by before they are read: a
// count in the input allocates nothing it has not justified by the bytes of
// the elements read so far.
const maxListChunk = 1 << 12

// listGrowth is how much a list of have elements grows by when left more
// are to come in its block: all of them up to maxListChunk, else by doubling.
func listGrowth(left, have int) int {
	if left <= maxListChunk {
		return left
	}
	return max(maxListChunk, have)
}

// decodeScalarChunk decodes the next n elements of a scalar list.
func (st *decState) decodeScalarChunk(sf *structField, p unsafe.Pointer, n int, idx *int) error {
	k := sf.goKind
	size := goScalars[k].size
	// Elements without pointers grow by their size alone: a []float64 as a
	// []uint64, a []bool as a []uint8, as an enum list is a []int32. A
	// switch, not a function in goScalars: growSlice is inlined in each
	// case, once for every chunk of every list.
	var base unsafe.Pointer
	switch k {
	case reflect.String:
		base = growSlice[string](p, n)
	case reflect.Slice: // [][]byte
		base = growSlice[[]byte](p, n)
	default:
		switch size {
		case 1:
			base = growSlice[uint8](p, n)
		case 4:
			base = growSlice[uint32](p, n)
		default:
			base = growSlice[uint64](p, n)
		}
	}
	for j := range n {
		ep := unsafe.Add(base, uintptr(j)*size)
		if err := st.setScalar(&sf.f.val, k, ep); err != nil {
			return inIndex(err, *idx)
		}
		if k == reflect.Slice && *(*[]byte)(ep) == nil {
			*(*[]byte)(ep) = []byte{} // an empty bytes element
		}
		*idx++
	}
	return nil
}

// growSlice extends the []T at p by n zero elements and returns the address
// of the first new one.
func growSlice[T any](p unsafe.Pointer, n int) unsafe.Pointer {
	s := (*[]T)(p)
	l := len(*s)
	if cap(*s)-l < n {
		c := l + n
		if l > 0 {
			c = max(c, 2*cap(*s)) // amortized, for lists read in chunks
		}
		ns := make([]T, l, c)
		copy(ns, *s)
		*s = ns
	}
	*s = (*s)[:l+n]
	return unsafe.Pointer(&(*s)[l])
}

// goScalarType is a Go type that generated structs hold scalars in, by
// what the direct reader and writer do with it untyped.
type goScalarType struct {
	size uintptr               // unsafe.Sizeof(T)
	new  func() unsafe.Pointer // new(T)
}

func goScalarOf[T any]() goScalarType {
	var zero T
	return goScalarType{
		size: unsafe.Sizeof(zero),
		new:  func() unsafe.Pointer { return unsafe.Pointer(new(T)) },
	}
}

// goScalars holds the Go scalar types of generated structs by their kind,
// the structField.goKind: enums are int32 kinds, bytes reflect.Slice.
var goScalars = [...]goScalarType{
	reflect.Bool:    goScalarOf[bool](),
	reflect.Int32:   goScalarOf[int32](),
	reflect.Int64:   goScalarOf[int64](),
	reflect.Uint32:  goScalarOf[uint32](),
	reflect.Uint64:  goScalarOf[uint64](),
	reflect.Float32: goScalarOf[float32](),
	reflect.Float64: goScalarOf[float64](),
	reflect.String:  goScalarOf[string](),
	reflect.Slice:   goScalarOf[[]byte](),
}

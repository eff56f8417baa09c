package protoavro

import (
	"google.golang.org/protobuf/reflect/protoreflect"
)

// UnknownEnumPolicy says what the codecs do with an enum number that has no
// symbol (proto3 open enums carry such numbers).
type UnknownEnumPolicy uint8

const (
	// UnknownEnumError fails with an error naming the field and the number.
	UnknownEnumError UnknownEnumPolicy = iota
	// UnknownEnumDefault writes the default symbol of the field's enum
	// schema instead: the first value (proto3: the zero value) or, under
	// JavaProfile, a proto2 field's explicit default, as the schema's
	// "default" names it. The original number is lost.
	UnknownEnumDefault
)

// enumTable is the plan of one enum type: its Avro name and symbols, and a
// map from numbers to symbol indexes and back, in constant time: a dense
// table over the range of numbers when it is compact, a map otherwise.
// Aliases share a number; the number maps to the first symbol declared with
// it, and every symbol maps back to its number.
type enumTable struct {
	desc     protoreflect.EnumDescriptor
	avroName string
	symbols  []string
	min      int32
	dense    []int32 // number-min -> index+1, 0 for no symbol
	sparse   map[int32]int32
	numbers  []int32 // symbol index -> number
}

// maxDenseEnumSpan bounds the dense table; wider enums use a map.
const maxDenseEnumSpan = 4096

func newEnumTable(ed protoreflect.EnumDescriptor, avroName string) *enumTable {
	vals := ed.Values()
	t := &enumTable{desc: ed, avroName: avroName, symbols: make([]string, vals.Len()), numbers: make([]int32, vals.Len())}
	lo, hi := int64(0), int64(0)
	for i := range vals.Len() {
		n := int32(vals.Get(i).Number())
		t.numbers[i] = n
		t.symbols[i] = string(vals.Get(i).Name())
		if i == 0 || int64(n) < lo {
			lo = int64(n)
		}
		if i == 0 || int64(n) > hi {
			hi = int64(n)
		}
	}
	if hi-lo < maxDenseEnumSpan {
		t.min = int32(lo)
		t.dense = make([]int32, hi-lo+1)
		for i := len(t.numbers) - 1; i >= 0; i-- { // first declared wins for aliases
			t.dense[t.numbers[i]-t.min] = int32(i) + 1
		}
	} else {
		t.sparse = make(map[int32]int32, len(t.numbers))
		for i := len(t.numbers) - 1; i >= 0; i-- {
			t.sparse[t.numbers[i]] = int32(i)
		}
	}
	return t
}

// index returns the symbol index of number n, applying the unknown-number
// policy: def is the index of the default symbol of the field's enum schema.
func (t *enumTable) index(n int32, off int, policy UnknownEnumPolicy, def int) (int, error) {
	if t.dense != nil {
		if d := int64(n) - int64(t.min); d >= 0 && d < int64(len(t.dense)) {
			if i := t.dense[d]; i > 0 {
				return int(i) - 1, nil
			}
		}
	} else if i, ok := t.sparse[n]; ok {
		return int(i), nil
	}
	if policy == UnknownEnumDefault {
		return def, nil
	}
	return 0, dataErr(ErrUnknownEnum, off, "%d is not a value of %s", n, t.desc.FullName())
}

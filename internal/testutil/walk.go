package testutil

import (
	"math"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ForEachMessage calls fn for every message held by the value v of field fd:
// a singular message, the messages of a list, or the message values of a map.
func ForEachMessage(fd protoreflect.FieldDescriptor, v protoreflect.Value, fn func(protoreflect.Message)) {
	switch {
	case fd.IsMap():
		if fd.MapValue().Message() != nil {
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				fn(mv.Message())
				return true
			})
		}
	case fd.IsList():
		if fd.Message() != nil {
			for i := range v.List().Len() {
				fn(v.List().Get(i).Message())
			}
		}
	case fd.Message() != nil:
		fn(v.Message())
	}
}

// DeleteEntries removes the entries of the map mp for which drop returns
// true (a map is not changed while it is ranged over).
func DeleteEntries(mp protoreflect.Map, drop func(protoreflect.MapKey, protoreflect.Value) bool) {
	var keys []protoreflect.MapKey
	mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		if drop(k, v) {
			keys = append(keys, k)
		}
		return true
	})
	for _, k := range keys {
		mp.Clear(k)
	}
}

// WalkMessages calls fn on every message directly held by m: singular
// fields, list elements and map values.
func WalkMessages(m protoreflect.Message, fn func(protoreflect.Message)) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		ForEachMessage(fd, v, fn)
		return true
	})
}

// SameScalar reports whether a and b are the same value of the scalar field
// fd, comparing floating-point values bit for bit (−0.0 is not 0, and a NaN
// equals only a NaN of the same bits), as protoavro's reader does when it
// drops values equal to a field's default.
func SameScalar(fd protoreflect.FieldDescriptor, a, b protoreflect.Value) bool {
	switch x := a.Interface().(type) {
	case float32:
		y, ok := b.Interface().(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y)
	case float64:
		y, ok := b.Interface().(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	}
	return a.Equal(b)
}

// ClearDefaults clears, recursively (lists and maps included), every set
// singular scalar field that is not required and holds its default value
// (SameScalar): what a mapping without presence, such as protoavro's Java
// profile, reads back as unset.
func ClearDefaults(m protoreflect.Message) {
	var clear []protoreflect.FieldDescriptor
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap() || fd.IsList() || fd.Message() != nil:
			ForEachMessage(fd, v, ClearDefaults)
		case fd.Cardinality() != protoreflect.Required && SameScalar(fd, v, fd.Default()):
			clear = append(clear, fd)
		}
		return true
	})
	for _, fd := range clear {
		m.Clear(fd)
	}
}

// CloneExact copies m through its encoding. proto.Clone drops −0.0 from
// fields without presence (it merges only non-zero values), which would make
// the copy differ from the original.
func CloneExact(m proto.Message) proto.Message {
	b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(m)
	if err != nil {
		panic(err)
	}
	c := m.ProtoReflect().Type().New().Interface()
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(b, c); err != nil {
		panic(err)
	}
	return c
}

// NullEmptyValues sets null_value in every google.protobuf.Value of m that
// sets no member: protoavro's Java profile reads such a Value as JSON null.
func NullEmptyValues(m protoreflect.Message) {
	md := m.Descriptor()
	if md.FullName() == "google.protobuf.Value" && m.WhichOneof(md.Oneofs().Get(0)) == nil {
		m.Set(md.Fields().ByNumber(1), protoreflect.ValueOfEnum(0))
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.IsMap() || fd.IsList() || fd.Message() != nil {
			ForEachMessage(fd, v, NullEmptyValues)
		}
		return true
	})
}

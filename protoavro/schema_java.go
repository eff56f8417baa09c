package protoavro

import (
	"github.com/hamba/avro/v2"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// javaField maps fd as Apache Avro Java's ProtobufData does: no presence,
// every optional field with the protobuf default as its Avro default, message
// fields as ["null", record], maps as arrays of their entry records.
func (b *builder) javaField(fd protoreflect.FieldDescriptor) (avro.Schema, any, error) {
	repeated := fd.Cardinality() == protoreflect.Repeated
	var (
		t   avro.Schema
		err error
	)
	if md := fd.Message(); md != nil {
		if t, err = b.messageRecord(md); err != nil {
			return nil, nil, err
		}
		if fd.Cardinality() == protoreflect.Optional {
			if t, err = nullable(t); err != nil {
				return nil, nil, err
			}
		}
	} else if t, err = b.scalar(fd); err != nil {
		return nil, nil, err
	}
	switch {
	case repeated:
		return avro.NewArraySchema(t), []any{}, nil
	case fd.Cardinality() == protoreflect.Required:
		return t, avro.NoDefault, nil
	case fd.Message() != nil:
		return t, nil, nil
	case fd.HasDefault():
		return t, javaDefault(fd), nil
	default:
		return t, zeroDefault(fd, t), nil
	}
}

// javaDefault converts an explicit proto2 default into the Avro default
// ProtobufData writes. Non-finite floating-point defaults have no JSON form
// (Java fails on them); the field then gets no default.
func javaDefault(fd protoreflect.FieldDescriptor) any {
	v := fd.Default()
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return v.Bool()
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return int(v.Int())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return int(int32(v.Uint())) // Java's int holds the same 32 bits
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return v.Int()
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return int64(v.Uint())
	case protoreflect.FloatKind:
		if !isFinite(v.Float()) {
			return avro.NoDefault
		}
		return float32(v.Float())
	case protoreflect.DoubleKind:
		if !isFinite(v.Float()) {
			return avro.NoDefault
		}
		return v.Float()
	case protoreflect.StringKind:
		return v.String()
	case protoreflect.BytesKind:
		return bytesDefault(v.Bytes())
	case protoreflect.EnumKind:
		return string(fd.DefaultEnumValue().Name())
	}
	return avro.NoDefault
}

// bytesDefault writes bytes as the Avro specification's default form for
// bytes: a string whose code points 0-255 are the byte values.
func bytesDefault(p []byte) string {
	r := make([]rune, len(p))
	for i, c := range p {
		r[i] = rune(c)
	}
	return string(r)
}

package protoavro

import (
	"github.com/hamba/avro/v2"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Full names of the well-known types with a dedicated mapping under the
// default profile. Every other well-known type (Duration, Struct, Value,
// ListValue, Any, Empty, FieldMask) maps like any message: a record that
// carries its fields exactly.
const (
	timestampName protoreflect.FullName = "google.protobuf.Timestamp"
)

// wrapperNames are the nine google/protobuf/wrappers.proto messages.
var wrapperNames = map[protoreflect.FullName]bool{
	"google.protobuf.DoubleValue": true,
	"google.protobuf.FloatValue":  true,
	"google.protobuf.Int64Value":  true,
	"google.protobuf.UInt64Value": true,
	"google.protobuf.Int32Value":  true,
	"google.protobuf.UInt32Value": true,
	"google.protobuf.BoolValue":   true,
	"google.protobuf.StringValue": true,
	"google.protobuf.BytesValue":  true,
}

// wellKnownKind classifies a message descriptor for the default profile.
type wellKnownKind uint8

const (
	notWellKnown wellKnownKind = iota
	wellKnownTimestamp
	wellKnownWrapper
)

// classifyWellKnown reports whether md is a well-known type with a dedicated
// mapping, checking its shape as well as its name.
func classifyWellKnown(md protoreflect.MessageDescriptor) wellKnownKind {
	name := md.FullName()
	if name == timestampName {
		f := md.Fields()
		s, n := f.ByNumber(1), f.ByNumber(2)
		if f.Len() == 2 && s != nil && s.Kind() == protoreflect.Int64Kind && n != nil && n.Kind() == protoreflect.Int32Kind {
			return wellKnownTimestamp
		}
		return notWellKnown
	}
	if wrapperNames[name] {
		f := md.Fields()
		if v := f.ByNumber(1); f.Len() == 1 && v != nil && v.Cardinality() != protoreflect.Repeated && v.Message() == nil {
			return wellKnownWrapper
		}
	}
	return notWellKnown
}

// timestampNanos is the Avro 1.12 logical type, which hamba/avro does not name.
const timestampNanos avro.LogicalType = "timestamp-nanos"

// wellKnown returns the dedicated Avro type of a well-known message used as a
// field value, or nil when md maps as an ordinary record. The type is never
// a union: the caller adds ["null", …] where the field has presence.
func (b *builder) wellKnown(md protoreflect.MessageDescriptor) (avro.Schema, error) {
	switch classifyWellKnown(md) {
	case wellKnownTimestamp:
		lt := avro.TimestampMicros
		switch b.opts.Timestamps {
		case TimestampMillis:
			lt = avro.TimestampMillis
		case TimestampNanos:
			lt = timestampNanos
		}
		return avro.NewPrimitiveSchema(avro.Long, avro.NewPrimitiveLogicalSchema(lt)), nil
	case wellKnownWrapper:
		return b.scalar(md.Fields().ByNumber(1))
	}
	return nil, nil
}

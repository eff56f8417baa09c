package protoavro

import (
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

package protoavro

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/anytype"
)

// jsonError classifies an error of protojson writing m (text nil) or
// reading text into a message of type md: a google.protobuf.Any whose type
// URL r (nil: protoregistry.GlobalTypes) does not know is an
// ErrUnknownAnyType that names the Any's field path within the value and
// its URL; any other error is ErrMalformed, as what names the value says.
func jsonError(m proto.Message, text []byte, md protoreflect.MessageDescriptor, r AnyResolver, off int, what string, err error) *DataError {
	var u anytype.Unknown
	var ok bool
	if text != nil {
		u, ok = anytype.InJSON(text, md, r)
	} else if m != nil {
		u, ok = anytype.InMessage(m.ProtoReflect(), r)
	}
	if ok {
		return dataErr(ErrUnknownAnyType, off, "%s, in %s", u.Describe(), what)
	}
	return dataErr(parseClass(err), off, "%s: %v", what, err)
}

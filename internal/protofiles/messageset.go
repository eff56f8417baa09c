package protofiles

import (
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
)

// plainMessageSets returns files with each MessageSet made a plain message,
// which protodesc builds: protodesc refuses message_set_wire_format (a
// proto1 feature) unless protobuf-go is built with its legacy tag, but
// protocompile compiles it, and the .proto files that use it (Google's
// among them) reach this module.
//
// A MessageSet has no fields, only extensions, and the option changes the
// wire format of its extensions alone. Extensions are not part of a
// message's Avro schema and are dropped from the data as unknown fields, so
// the Avro schema and every value converted are the same with the option
// or without it: a MessageSet is an empty record either way. To build as a
// plain message, it loses the option, its extension and reserved ranges
// are cut to the field numbers of plain messages (a MessageSet's go up to
// 2^31-1, a plain message's to 2^29-1), and the extensions of it beyond
// them are dropped, with the source info of a file that loses any of them
// (its paths index them). A
// message with the option that has fields is not a valid MessageSet and is
// left as it is, for protodesc to refuse. Files without a MessageSet, or
// an extension of one, are returned as they are; the others are copies.
func plainMessageSets(files []*descriptorpb.FileDescriptorProto) []*descriptorpb.FileDescriptorProto {
	sets := map[string]bool{} // full names, without the leading dot
	for _, f := range files {
		collectSets(f.GetPackage(), f.GetMessageType(), sets)
	}
	if len(sets) == 0 {
		return files
	}
	out := make([]*descriptorpb.FileDescriptorProto, len(files))
	for i, f := range files {
		out[i] = f
		if !touchesSets(f.GetPackage(), f.GetMessageType(), f.GetExtension(), sets) {
			continue
		}
		c := proto.Clone(f).(*descriptorpb.FileDescriptorProto)
		dropped := false
		c.Extension, dropped = keepExtensions(c.Extension, sets)
		if plainMessages(c.GetPackage(), c.MessageType, sets) || dropped {
			c.SourceCodeInfo = nil // its paths index what was dropped
		}
		out[i] = c
	}
	return out
}

// maxPlainNumber is the largest field number of a plain message.
const maxPlainNumber = int32(protowire.MaxValidNumber)

// isSet reports whether m is a valid MessageSet: the option, and no fields.
func isSet(m *descriptorpb.DescriptorProto) bool {
	return m.GetOptions().GetMessageSetWireFormat() && len(m.GetField()) == 0
}

func join(scope, name string) string {
	if scope == "" {
		return name
	}
	return scope + "." + name
}

// collectSets adds the full names of the MessageSets among ms, declared in
// scope, and the messages nested in them, to sets.
func collectSets(scope string, ms []*descriptorpb.DescriptorProto, sets map[string]bool) {
	for _, m := range ms {
		name := join(scope, m.GetName())
		if isSet(m) {
			sets[name] = true
		}
		collectSets(name, m.GetNestedType(), sets)
	}
}

// touchesSets reports whether ms (declared in scope) or xs hold a
// MessageSet or an extension of one.
func touchesSets(scope string, ms []*descriptorpb.DescriptorProto, xs []*descriptorpb.FieldDescriptorProto, sets map[string]bool) bool {
	for _, x := range xs {
		if extendsSet(x, sets) {
			return true
		}
	}
	for _, m := range ms {
		name := join(scope, m.GetName())
		if sets[name] || touchesSets(name, m.GetNestedType(), m.GetExtension(), sets) {
			return true
		}
	}
	return false
}

func extendsSet(x *descriptorpb.FieldDescriptorProto, sets map[string]bool) bool {
	return sets[strings.TrimPrefix(x.GetExtendee(), ".")]
}

// keepExtensions drops the extensions of a MessageSet in xs whose numbers
// a plain message cannot have, and reports whether it dropped any.
func keepExtensions(xs []*descriptorpb.FieldDescriptorProto, sets map[string]bool) ([]*descriptorpb.FieldDescriptorProto, bool) {
	kept := xs[:0]
	for _, x := range xs {
		if extendsSet(x, sets) && x.GetNumber() > maxPlainNumber {
			continue
		}
		kept = append(kept, x)
	}
	return kept, len(kept) < len(xs)
}

// plainMessages makes the MessageSets among ms (declared in scope) and the
// messages nested in them plain messages, in place, and drops the
// extensions declared in them that a plain message cannot have; it reports
// whether it dropped any extension or range.
func plainMessages(scope string, ms []*descriptorpb.DescriptorProto, sets map[string]bool) bool {
	dropped := false
	for _, m := range ms {
		name := join(scope, m.GetName())
		if sets[name] {
			m.Options.MessageSetWireFormat = nil
			ne, nr := len(m.ExtensionRange), len(m.ReservedRange)
			m.ExtensionRange = cutRanges(m.ExtensionRange, func(r *descriptorpb.DescriptorProto_ExtensionRange, end int32) { r.End = proto.Int32(end) })
			m.ReservedRange = cutRanges(m.ReservedRange, func(r *descriptorpb.DescriptorProto_ReservedRange, end int32) { r.End = proto.Int32(end) })
			dropped = dropped || len(m.ExtensionRange) < ne || len(m.ReservedRange) < nr
		}
		var d bool
		m.Extension, d = keepExtensions(m.Extension, sets)
		dropped = plainMessages(name, m.NestedType, sets) || d || dropped
	}
	return dropped
}

// numberRange is a range of field numbers of a DescriptorProto (end
// exclusive): an extension range or a reserved range.
type numberRange interface {
	GetStart() int32
	GetEnd() int32
}

// cutRanges cuts ranges to the field numbers of a plain message, setting
// each End past it with setEnd.
func cutRanges[R numberRange](rs []R, setEnd func(R, int32)) []R {
	kept := rs[:0]
	for _, r := range rs {
		if r.GetStart() > maxPlainNumber {
			continue
		}
		if r.GetEnd() > maxPlainNumber+1 {
			setEnd(r, maxPlainNumber+1)
		}
		kept = append(kept, r)
	}
	return kept
}

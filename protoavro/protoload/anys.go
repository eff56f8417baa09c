package protoload

import "google.golang.org/protobuf/reflect/protoreflect"

// HoldsAny reports whether a message of md may hold a google.protobuf.Any:
// md is one, or a field of md, or of a message its fields reach,
// transitively, is. The types such values pack are found only at run time
// (a resolver, the files a container file embeds); a message that holds
// no Any needs none.
func HoldsAny(md protoreflect.MessageDescriptor) bool {
	seen := map[protoreflect.FullName]bool{}
	var visit func(m protoreflect.MessageDescriptor) bool
	visit = func(m protoreflect.MessageDescriptor) bool {
		if m.FullName() == "google.protobuf.Any" {
			return true
		}
		if seen[m.FullName()] {
			return false
		}
		seen[m.FullName()] = true
		fields := m.Fields()
		for i := range fields.Len() {
			if f := fields.Get(i).Message(); f != nil && visit(f) {
				return true
			}
		}
		return false
	}
	return visit(md)
}

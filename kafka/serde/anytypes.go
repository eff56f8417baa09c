package serde

import (
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// fileTypes returns the message and extension types of fd and of every
// file it imports, transitively: those of a registry schema and its
// references, which resolve the google.protobuf.Any values of its records.
func fileTypes(fd protoreflect.FileDescriptor) *dynamicpb.Types {
	files := new(protoregistry.Files)
	seen := map[string]bool{}
	var add func(f protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] || f.IsPlaceholder() {
			return
		}
		seen[f.Path()] = true
		_ = files.RegisterFile(f) // a clashing name keeps the first definition
		imports := f.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).FileDescriptor)
		}
	}
	add(fd)
	return dynamicpb.NewTypes(files)
}

package serde

import (
	"slices"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/protoavro/protoload"
)

// fileTypes returns the message and extension types of fd and of every
// file it imports, transitively: those of a registry schema and its
// references, which resolve the google.protobuf.Any values of its records.
// Where two files define the same name, the schema's own file wins, then
// the files it imports first.
func fileTypes(fd protoreflect.FileDescriptor) *dynamicpb.Types {
	files := new(protoregistry.Files)
	for _, f := range slices.Backward(protoload.WithImports(fd)) {
		_ = files.RegisterFile(f) // a clashing name keeps the first definition
	}
	return dynamicpb.NewTypes(files)
}

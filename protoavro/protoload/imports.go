package protoload

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/protofiles"
)

// WithImports returns files and every file they import, transitively, each
// once (by path) and each after the files it imports: the order of a
// google.protobuf.FileDescriptorSet that protodesc.NewFiles builds, and the
// files whose types resolve the google.protobuf.Any values of messages of
// files. The order is stable: depth first, imports in declaration order,
// files in the order given. An import left unresolved (a placeholder, see
// [protoreflect.Descriptor.IsPlaceholder]) is left out.
func WithImports(files ...protoreflect.FileDescriptor) []protoreflect.FileDescriptor {
	all := protofiles.WithDeps(files...)
	out := all[:0]
	for _, f := range all {
		if !f.IsPlaceholder() {
			out = append(out, f)
		}
	}
	return out
}

// Package protofiles orders protobuf file descriptors as a
// FileDescriptorSet or a protoc plugin request needs them: every file after
// the files it imports.
package protofiles

import (
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// WithDeps returns roots and every file they import, transitively, each once
// (by path), each after its imports, in a stable order: depth first, imports
// in declaration order, roots in the order given. An import that is a
// placeholder (an unresolved file) is listed like any other.
func WithDeps(roots ...protoreflect.FileDescriptor) []protoreflect.FileDescriptor {
	return Following(nil, roots...)
}

// Following is WithDeps over the imports that follow accepts: it returns
// roots and the files they reach through imports that follow(importer,
// imported) accepts (every import when follow is nil), transitively, each
// once (by path), each after the imports followed from it, in the same
// order as WithDeps.
func Following(follow func(f, imp protoreflect.FileDescriptor) bool, roots ...protoreflect.FileDescriptor) []protoreflect.FileDescriptor {
	var out []protoreflect.FileDescriptor
	seen := map[string]bool{}
	var add func(f protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		imps := f.Imports()
		for i := range imps.Len() {
			if imp := imps.Get(i).FileDescriptor; follow == nil || follow(f, imp) {
				add(imp)
			}
		}
		out = append(out, f)
	}
	for _, f := range roots {
		add(f)
	}
	return out
}

// Protos returns the descriptor protos of WithDeps(roots...), in its order.
func Protos(roots ...protoreflect.FileDescriptor) []*descriptorpb.FileDescriptorProto {
	files := WithDeps(roots...)
	out := make([]*descriptorpb.FileDescriptorProto, len(files))
	for i, f := range files {
		out[i] = protodesc.ToFileDescriptorProto(f)
	}
	return out
}

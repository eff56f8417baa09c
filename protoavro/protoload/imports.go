package protoload

import (
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

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

// Bounds on the work protodesc.NewFiles does on the imports of one
// descriptor set (see [CheckImports]).
const (
	MaxPublicImportsFollowed = protofiles.MaxPublicImportsFollowed
	MaxImportsLookedAt       = protofiles.MaxImportsLookedAt
)

// ErrImportLimit reports a descriptor set beyond MaxPublicImportsFollowed
// or MaxImportsLookedAt.
var ErrImportLimit = protofiles.ErrImportLimit

// CheckImports refuses a descriptor set (untrusted: a container header's,
// a user's) on which protodesc.NewFiles would take time beyond linear in
// its size: for each import of each file, protodesc walks every public
// import reachable from it again, so that a chain of n files each importing
// the one before publicly takes time in n². It counts that walk exactly, in
// time linear in the set, and refuses a set on which it would follow more
// than MaxPublicImportsFollowed public imports or look at more than
// MaxImportsLookedAt imports, with an error wrapping ErrImportLimit that
// names the bound and the file where it was passed. Call it before
// protodesc.NewFiles; what else is wrong with the set is left to
// NewFiles to report. The sets this package builds are checked already.
func CheckImports(set *descriptorpb.FileDescriptorSet) error {
	return protofiles.CheckImports(set.GetFile())
}

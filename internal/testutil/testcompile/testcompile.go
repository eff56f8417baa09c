// Package testcompile compiles .proto files in-process for tests. It is a
// package of its own, apart from testutil, so that the modules whose tests
// use testutil do not need the compiler.
package testcompile

import (
	"context"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Protos compiles the .proto files names, found in importPath (the
// standard google/protobuf imports are built in), with source info, as the
// command line does, and returns them in order. A compile error fails the
// test.
func Protos(t testing.TB, importPath string, names ...string) []protoreflect.FileDescriptor {
	t.Helper()
	c := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{importPath}}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	files, err := c.Compile(context.Background(), names...)
	if err != nil {
		t.Fatalf("compile %v: %v", names, err)
	}
	out := make([]protoreflect.FileDescriptor, len(files))
	for i, f := range files {
		out[i] = f
	}
	return out
}

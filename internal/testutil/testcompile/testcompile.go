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

// Protos compiles the .proto files names, found in importPath, and returns
// them in order.
func Protos(t testing.TB, importPath string, names ...string) []protoreflect.FileDescriptor {
	t.Helper()
	return compile(t, &protocompile.SourceResolver{ImportPaths: []string{importPath}}, names)
}

// Sources compiles in-memory .proto files, sources mapping a file name to
// its content, and returns the files names in order.
func Sources(t testing.TB, sources map[string]string, names ...string) []protoreflect.FileDescriptor {
	t.Helper()
	return compile(t, &protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(sources)}, names)
}

// compile compiles names with the standard google/protobuf imports built in
// and source info kept, as the command line does; an error fails the test.
func compile(t testing.TB, r protocompile.Resolver, names []string) []protoreflect.FileDescriptor {
	t.Helper()
	c := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(r),
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

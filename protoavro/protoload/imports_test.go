package protoload_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/usage"
	"github.com/protoavro/protoavro/protoavro/protoload"
)

func TestWithImports(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"a.proto": `syntax = "proto3"; package t; import "b.proto"; import "c.proto"; message A { B b = 1; C c = 2; }`,
		"b.proto": `syntax = "proto3"; package t; import "c.proto"; import "google/protobuf/timestamp.proto"; message B { C c = 1; google.protobuf.Timestamp at = 2; }`,
		"c.proto": `syntax = "proto3"; package t; message C {}`,
		"d.proto": `syntax = "proto3"; package t; import "c.proto"; message D { C c = 1; }`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ts, err := protoload.Load(context.Background(), protoload.Input{ImportPaths: []string{dir}, Protos: []string{"a.proto", "d.proto"}})
	if err != nil {
		t.Fatal(err)
	}
	paths := func(files []protoreflect.FileDescriptor) []string {
		var out []string
		for _, f := range files {
			out = append(out, f.Path())
		}
		return out
	}
	roots := ts.Roots()
	want := []string{"c.proto", "google/protobuf/timestamp.proto", "b.proto", "a.proto", "d.proto"}
	if got := paths(protoload.WithImports(roots...)); !slices.Equal(got, want) {
		t.Errorf("WithImports(a, d) = %q, want %q", got, want)
	}
	if got := paths(protoload.WithImports(roots[1], roots[0])); !slices.Equal(got, []string{"c.proto", "d.proto", "google/protobuf/timestamp.proto", "b.proto", "a.proto"}) {
		t.Errorf("WithImports(d, a) = %q", got)
	}
	if got := paths(protoload.WithImports(timestamppb.File_google_protobuf_timestamp_proto)); !slices.Equal(got, []string{"google/protobuf/timestamp.proto"}) {
		t.Errorf("WithImports(timestamp.proto) = %q", got)
	}
	// An unresolved import is left out.
	fdp := &descriptorpb.FileDescriptorProto{Name: proto.String("e.proto"), Syntax: proto.String("proto3"), Dependency: []string{"missing.proto"}}
	e, err := protodesc.FileOptions{AllowUnresolvable: true}.New(fdp, new(protoregistry.Files))
	if err != nil {
		t.Fatal(err)
	}
	if e.Imports().Get(0).IsPlaceholder() != true {
		t.Fatal("missing.proto is not a placeholder")
	}
	if got := paths(protoload.WithImports(e)); !slices.Equal(got, []string{"e.proto"}) {
		t.Errorf("WithImports(e) = %q", got)
	}
	if got := protoload.WithImports(); len(got) != 0 {
		t.Errorf("WithImports() = %v", got)
	}
}

// TestDescriptorSetPublicImportChain: a descriptor set of 20,000 files each
// importing the one before publicly (--descriptor-set, NewTypes) is
// refused with protoload.ErrImportLimit naming the file where the bound was passed;
// the longest chain within the bound, 1,025 files, loads.
func TestDescriptorSetPublicImportChain(t *testing.T) {
	ctx := context.Background()
	long := testutil.ImportChain(20_000, true)
	_, err := protoload.Resolve(ctx, protoload.Input{DescriptorSets: []string{testutil.WriteDescriptorSet(t, long...)}, Message: "chain.M"})
	var ue *usage.Error
	if !errors.As(err, &ue) || !errors.Is(err, protoload.ErrImportLimit) || !strings.Contains(err.Error(), `at "f1025.proto"`) {
		t.Errorf("--descriptor-set: %v, want a usage error wrapping protoload.ErrImportLimit at f1025.proto", err)
	}
	if _, err := protoload.NewTypes(&descriptorpb.FileDescriptorSet{File: long}); !errors.Is(err, protoload.ErrImportLimit) {
		t.Errorf("NewTypes: %v, want protoload.ErrImportLimit", err)
	}
	if err := protoload.CheckImports(&descriptorpb.FileDescriptorSet{File: long}); !errors.Is(err, protoload.ErrImportLimit) {
		t.Errorf("CheckImports: %v, want protoload.ErrImportLimit", err)
	}
	md, err := protoload.Resolve(ctx, protoload.Input{DescriptorSets: []string{testutil.WriteDescriptorSet(t, testutil.ImportChain(1025, true)...)}, Message: "chain.M"})
	if err != nil || md.ParentFile().Path() != "f1024.proto" {
		t.Errorf("1,025 files: %v, %v", md, err)
	}
}

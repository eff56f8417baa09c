package protoload

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/usage"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

const protoDir = "../../testdata/proto"

func TestSuggest(t *testing.T) {
	t.Parallel()
	names := []string{"x.Z", "x.W", "x.LongerName", "acme.v1.Order", "acme.v1.Orders", "acme.v2.Order"}
	tests := []struct {
		query string
		want  []string
	}{
		{"x.Y", []string{"x.W", "x.Z"}},
		{"X.z", []string{"x.Z", "x.W"}},
		{"Order", []string{"acme.v1.Order", "acme.v2.Order"}},
		{"acme.v1.Ordr", []string{"acme.v1.Order", "acme.v1.Orders", "acme.v2.Order"}},
		{"nothing.like.it", nil},
	}
	for _, tt := range tests {
		if got := suggest(tt.query, names, 3); !slices.Equal(got, tt.want) {
			t.Errorf("suggest(%q) = %q, want %q", tt.query, got, tt.want)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"Order", "Ordr", 1}, {"äb", "ab", 1},
	} {
		if got := levenshtein(c.a, c.b); got != c.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// writeSet writes the files (not their imports) as a serialized
// FileDescriptorSet and returns its path.
func writeSet(t *testing.T, files ...protoreflect.FileDescriptor) string {
	t.Helper()
	fdps := make([]*descriptorpb.FileDescriptorProto, len(files))
	for i, f := range files {
		fdps[i] = protodesc.ToFileDescriptorProto(f)
	}
	return testutil.WriteDescriptorSet(t, fdps...)
}

// TestLoad loads the same file compiled and from a descriptor set without
// its standard imports, and finds a nested message in both.
func TestLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	compiled, err := Compile(ctx, []string{"kitchen/kitchen.proto"}, []string{protoDir}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	set := writeSet(t, compiled...)
	for _, in := range []Input{
		{Protos: []string{filepath.Join(protoDir, "kitchen", "kitchen.proto")}, ImportPaths: []string{protoDir}},
		{DescriptorSets: []string{set}},
		{DescriptorSets: []string{set, set}},
		{Protos: []string{"kitchen/kitchen.proto"}, ImportPaths: []string{protoDir}, DescriptorSets: []string{set}},
	} {
		ts, err := Load(ctx, in)
		if err != nil {
			t.Fatalf("%+v: %v", in, err)
		}
		if want := len(in.Protos); len(ts.Roots()) != want {
			t.Errorf("%+v: %d roots, want %d", in, len(ts.Roots()), want)
		}
		paths := make([]string, 0, len(ts.Files()))
		for _, f := range ts.Files() {
			paths = append(paths, f.Path())
		}
		if !slices.Contains(paths, "kitchen/kitchen.proto") || !slices.Contains(paths, "google/protobuf/timestamp.proto") {
			t.Errorf("%+v: files %q, want kitchen/kitchen.proto and its imports", in, paths)
		}
		if len(slices.Compact(slices.Sorted(slices.Values(paths)))) != len(paths) {
			t.Errorf("%+v: a file listed twice: %q", in, paths)
		}
		in.Message = ".protoavro.test.kitchen.Outer.Middle"
		md, err := Resolve(ctx, in)
		if err != nil || md.FullName() != "protoavro.test.kitchen.Outer.Middle" {
			t.Errorf("%+v: Resolve = %v, %v", in, md, err)
		}
		if md, err := ts.FindMessage("google.protobuf.Timestamp"); err != nil || md.FullName() != "google.protobuf.Timestamp" {
			t.Errorf("%+v: an imported message: %v, %v", in, md, err)
		}
	}
}

// TestLoadErrors: every bad input is a *usage.Error that says what is wrong.
func TestLoadErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tmp := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(tmp, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("dep.proto", "syntax = \"proto3\";\npackage d;\nmessage D {}\n")
	a := write("a.proto", "syntax = \"proto3\";\npackage h;\nimport \"dep.proto\";\nmessage Alpha { d.D d = 1; }\nenum E { E_ZERO = 0; }\nservice S {}\n")
	bad := write("bad.proto", "syntax = \"proto3\";\nmessage {\n")
	corrupt := write("corrupt.binpb", "\xff\xff\xff")
	compiled, err := Compile(ctx, []string{a}, []string{tmp}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	lacking := writeSet(t, compiled...) // without dep.proto
	kitchen := Input{Protos: []string{"kitchen/kitchen.proto"}, ImportPaths: []string{protoDir}}
	withMessage := func(in Input, m string) Input { in.Message = m; return in }
	protoA := Input{Protos: []string{a}, ImportPaths: []string{tmp}}
	for _, c := range []struct {
		in   Input
		want string
	}{
		{kitchen, "missing -m: name the message type, e.g. -m acme.v1.Order"},
		{Input{Message: "x.Y"}, "no input: give .proto files or --descriptor-set"},
		{withMessage(protoA, "h.E"), "-m h.E is an enum, not a message"},
		{withMessage(protoA, "h.S"), "-m h.S is a service, not a message"},
		{withMessage(protoA, "h.Alpa"), `unknown message "h.Alpa"; did you mean "h.Alpha"?`},
		{withMessage(protoA, "Alpha"), `unknown message "Alpha"; did you mean "h.Alpha"?`},
		{withMessage(protoA, "nothing.like.it"), `unknown message "nothing.like.it"`},
		{withMessage(kitchen, "protoavro.test.kitchen.OuterEnum"), `did you mean "protoavro.test.kitchen.Outer"`},
		{Input{Protos: []string{bad}, ImportPaths: []string{tmp}, Message: "x.Y"}, "bad.proto:2:"},
		{Input{Protos: []string{"missing.proto"}, ImportPaths: []string{tmp}, Message: "x.Y"}, "missing.proto: no such file or directory"},
		{Input{DescriptorSets: []string{filepath.Join(tmp, "nope.binpb")}, Message: "x.Y"}, "--descriptor-set: open "},
		{Input{DescriptorSets: []string{corrupt}, Message: "x.Y"}, "--descriptor-set " + corrupt + ": not a serialized FileDescriptorSet"},
		{Input{DescriptorSets: []string{lacking}, Message: "h.Alpha"}, "(the set lacks dep.proto: make it with protoc --include_imports; buf build includes imports)"},
	} {
		_, err := Resolve(ctx, c.in)
		var ue *usage.Error
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Resolve(%+v) = %v (%T), want a *usage.Error with %q", c.in, err, err, c.want)
		}
	}
	if md, err := Resolve(ctx, withMessage(protoA, "d.D")); err != nil || md.FullName() != "d.D" {
		t.Errorf("a message of an import: %v, %v", md, err)
	}
}

// ExampleResolve finds a message type in a .proto file, as a command line
// with -I testdata/proto -m NAME FILE.proto does.
func ExampleResolve() {
	md, err := Resolve(context.Background(), Input{
		Protos:      []string{"kitchen/kitchen.proto"},
		ImportPaths: []string{"../../testdata/proto"},
		Message:     "protoavro.test.kitchen.Point",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(md.FullName(), md.Fields().Len(), "fields")

	_, err = Resolve(context.Background(), Input{
		Protos:      []string{"kitchen/kitchen.proto"},
		ImportPaths: []string{"../../testdata/proto"},
		Message:     "protoavro.test.kitchen.Pont",
	})
	fmt.Println(err)
	// Output:
	// protoavro.test.kitchen.Point 2 fields
	// unknown message "protoavro.test.kitchen.Pont"; did you mean "protoavro.test.kitchen.Point", "protoavro.test.kitchen.Maps", "protoavro.test.kitchen.Outer"?
}

// TestResolver: the resolver of loaded files, from .proto files or from a
// FileDescriptorSet in memory (NewTypes), finds their messages by type
// URL and nothing else; NewTypes adds the standard imports a set lacks
// without changing the set, and says how to make a set that lacks others.
func TestResolver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	loaded, err := Load(ctx, Input{Protos: []string{"kitchen/kitchen.proto"}, ImportPaths: []string{protoDir}})
	if err != nil {
		t.Fatal(err)
	}
	compiled := loaded.Roots()
	var set descriptorpb.FileDescriptorSet
	for _, f := range compiled {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
	}
	fromSet, err := NewTypes(&set)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.File) != len(compiled) {
		t.Errorf("NewTypes changed the set: %d files, want %d", len(set.File), len(compiled))
	}
	for name, ts := range map[string]*Types{"Load": loaded, "NewTypes": fromSet} {
		mt, err := ts.Resolver().FindMessageByURL("type.googleapis.com/protoavro.test.kitchen.Point")
		if err != nil || mt.Descriptor().FullName() != "protoavro.test.kitchen.Point" {
			t.Errorf("%s: Point by URL: %v, %v", name, mt, err)
		}
		if _, err := ts.Resolver().FindMessageByURL("type.googleapis.com/google.protobuf.Duration"); err != nil {
			t.Errorf("%s: a standard import's message: %v", name, err)
		}
		if _, err := ts.Resolver().FindMessageByURL("type.googleapis.com/nowhere.Known"); !errors.Is(err, protoregistry.NotFound) {
			t.Errorf("%s: an unknown type: %v, want NotFound", name, err)
		}
		if fd, err := ts.Registry().FindFileByPath("kitchen/kitchen.proto"); err != nil || fd.Path() != "kitchen/kitchen.proto" {
			t.Errorf("%s: Registry: %v, %v", name, fd, err)
		}
	}

	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "dep.proto"), []byte("syntax = \"proto3\";\npackage d;\nmessage D {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "a.proto"), []byte("syntax = \"proto3\";\npackage h;\nimport \"dep.proto\";\nmessage A { d.D d = 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := Compile(ctx, []string{"a.proto"}, []string{tmp}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	lacking := &descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{protodesc.ToFileDescriptorProto(files[0])}}
	if _, err := NewTypes(lacking); err == nil || !strings.Contains(err.Error(), "the set lacks dep.proto") {
		t.Errorf("a set without an import: %v", err)
	}
}

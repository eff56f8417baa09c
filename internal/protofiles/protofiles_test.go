package protofiles

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// files builds the files of deps (path → imports) in one registry, in the
// order given, which must list every import before its importer.
func files(t *testing.T, order []string, deps map[string][]string) map[string]protoreflect.FileDescriptor {
	t.Helper()
	var reg protoregistry.Files
	out := map[string]protoreflect.FileDescriptor{}
	for _, p := range order {
		fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
			Name:       proto.String(p),
			Package:    proto.String("p"),
			Dependency: deps[p],
			Syntax:     proto.String("proto3"),
		}, &reg)
		if err != nil {
			t.Fatal(err)
		}
		if err := reg.RegisterFile(fd); err != nil {
			t.Fatal(err)
		}
		out[p] = fd
	}
	return out
}

func paths(fds []protoreflect.FileDescriptor) []string {
	var out []string
	for _, f := range fds {
		out = append(out, f.Path())
	}
	return out
}

func TestWithDeps(t *testing.T) {
	fs := files(t, []string{"c.proto", "b.proto", "d.proto", "a.proto", "e.proto"}, map[string][]string{
		"b.proto": {"c.proto"},
		"a.proto": {"b.proto", "c.proto", "d.proto"},
		"e.proto": {"d.proto"},
	})
	for _, c := range []struct {
		roots []string
		want  []string
	}{
		{[]string{"c.proto"}, []string{"c.proto"}},
		{[]string{"a.proto"}, []string{"c.proto", "b.proto", "d.proto", "a.proto"}},
		// Shared imports appear once, before the first root that needs them.
		{[]string{"e.proto", "a.proto"}, []string{"d.proto", "e.proto", "c.proto", "b.proto", "a.proto"}},
		// A root that another root imports is not repeated.
		{[]string{"a.proto", "b.proto"}, []string{"c.proto", "b.proto", "d.proto", "a.proto"}},
		{nil, nil},
	} {
		var roots []protoreflect.FileDescriptor
		for _, r := range c.roots {
			roots = append(roots, fs[r])
		}
		if got := paths(WithDeps(roots...)); !slices.Equal(got, c.want) {
			t.Errorf("WithDeps(%v) = %v, want %v", c.roots, got, c.want)
		}
		protos := Protos(roots...)
		var got []string
		for _, p := range protos {
			got = append(got, p.GetName())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Protos(%v) names %v, want %v", c.roots, got, c.want)
		}
	}
	// The protos are the files' own: a set of them builds again.
	set := &descriptorpb.FileDescriptorSet{File: Protos(fs["a.proto"], fs["e.proto"])}
	if _, err := protodesc.NewFiles(set); err != nil {
		t.Errorf("the protos do not build a registry: %v", err)
	}
}

func TestFollowing(t *testing.T) {
	fs := files(t, []string{"c.proto", "b.proto", "d.proto", "a.proto"}, map[string][]string{
		"b.proto": {"c.proto"},
		"a.proto": {"b.proto", "c.proto", "d.proto"},
	})
	// Only the imports of a.proto other than c.proto are followed: c.proto
	// is reached through b.proto, and listed before it.
	var asked []string
	follow := func(f, imp protoreflect.FileDescriptor) bool {
		asked = append(asked, f.Path()+">"+imp.Path())
		return f.Path() != "a.proto" || imp.Path() != "c.proto"
	}
	if got, want := paths(Following(follow, fs["a.proto"])), []string{"c.proto", "b.proto", "d.proto", "a.proto"}; !slices.Equal(got, want) {
		t.Errorf("Following(a) = %v, want %v", got, want)
	}
	if want := []string{"a.proto>b.proto", "b.proto>c.proto", "a.proto>c.proto", "a.proto>d.proto"}; !slices.Equal(asked, want) {
		t.Errorf("follow asked of %v, want %v", asked, want)
	}
	// No import followed: the roots alone, in their order.
	none := func(f, imp protoreflect.FileDescriptor) bool { return false }
	if got, want := paths(Following(none, fs["a.proto"], fs["b.proto"])), []string{"a.proto", "b.proto"}; !slices.Equal(got, want) {
		t.Errorf("Following(none, a, b) = %v, want %v", got, want)
	}
}

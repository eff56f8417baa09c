package protoavro

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

const largeEnumProto = `
syntax = "proto2";
package cachetest;
enum Big { B0 = 0; B1 = 1; B2 = 2; B3 = 3; }
message WithBig { optional Big e = 1; }
message Holder { optional WithBig a = 1; repeated WithBig b = 2; }
message Other { optional WithBig x = 1; optional Big y = 2; }
`

func TestCacheReturnsSameSchema(t *testing.T) {
	md := compileMessage(t, largeEnumProto, "cachetest.Holder")
	o := Options{Cache: NewCache()}
	s1 := mustSchema(t, o, md)
	s2 := mustSchema(t, o, md)
	if s1 != s2 {
		t.Fatal("second lookup derived a new schema")
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = o.Schema(md) }); n != 0 {
		t.Errorf("cached lookup allocates %v times", n)
	}
}

// TestCacheReusesNestedSchemas shows that the records of a generated
// message type whose schema the cache holds are reused, as the same
// objects, by every later schema nesting it, and that named types they
// define are referred to by name.
func TestCacheReusesNestedSchemas(t *testing.T) {
	o := Options{Cache: NewCache()}
	field := mustSchema(t, o, (&descriptorpb.FieldDescriptorProto{}).ProtoReflect().Descriptor())
	msg := mustSchema(t, o, (&descriptorpb.DescriptorProto{}).ProtoReflect().Descriptor())
	if items := fieldNamed(t, msg.root, "field").Type.Items; items != field.root {
		t.Error("DescriptorProto does not reuse the cached FieldDescriptorProto record")
	}
	file := mustSchema(t, o, (&descriptorpb.FileDescriptorProto{}).ProtoReflect().Descriptor())
	if items := fieldNamed(t, file.root, "message_type").Type.Items; items != msg.root {
		t.Error("FileDescriptorProto does not reuse the cached DescriptorProto record")
	}
	// FileDescriptorProto.extension: DescriptorProto's records define
	// FieldDescriptorProto, so the field refers to it by name.
	if ref := fieldNamed(t, file.root, "extension").Type.Items; !ref.IsRef() || ref.Def != field.root {
		t.Errorf("FileDescriptorProto.extension is %s, want a reference to the record of FieldDescriptorProto", ref.JSON())
	}
}

// TestCacheBuildsUncachedNested shows that deriving a schema does not
// derive the schemas of the messages it nests (which would make the work
// quadratic in the nesting): they are built in place.
func TestCacheBuildsUncachedNested(t *testing.T) {
	fd := testcompile.Sources(t, map[string]string{"test.proto": largeEnumProto}, "test.proto")[0]
	o := Options{Cache: NewCache()}
	mustSchema(t, o, testutil.FindMessage(fd, "cachetest.Holder"))
	if o.Cache.load(testutil.FindMessage(fd, "cachetest.WithBig"), o) != nil {
		t.Error("nested message WithBig was derived on its own while deriving Holder")
	}
	if n := o.Cache.Len(); n != 1 {
		t.Errorf("cache holds %d messages, want 1", n)
	}
}

func fieldNamed(t *testing.T, rec *avroschema.Node, name string) *avroschema.Field {
	t.Helper()
	for i := range rec.Fields {
		if rec.Fields[i].Name == name {
			return &rec.Fields[i]
		}
	}
	t.Fatalf("%s has no field %s", rec.Name, name)
	return nil
}

// TestCacheDistinguishesDescriptorVersions loads two versions of one message
// (same full name, different shape) and checks that neither gets the other's
// schema, in the same cache, in either order.
func TestCacheDistinguishesDescriptorVersions(t *testing.T) {
	v1 := compileMessage(t, `syntax = "proto3"; package ver; message M { int32 a = 1; }`, "ver.M")
	v2 := compileMessage(t, `syntax = "proto3"; package ver; message M { int64 a = 1; string b = 2; }`, "ver.M")
	o := Options{Cache: NewCache()}
	for range 2 {
		s1 := mustSchema(t, o, v1)
		s2 := mustSchema(t, o, v2)
		if got, want := s1.Canonical(), `{"name":"ver.M","type":"record","fields":[{"name":"a","type":"int"}]}`; got != want {
			t.Errorf("v1 schema = %s, want %s", got, want)
		}
		if got, want := s2.Canonical(), `{"name":"ver.M","type":"record","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]}`; got != want {
			t.Errorf("v2 schema = %s, want %s", got, want)
		}
		if s1.Descriptor() != v1 || s2.Descriptor() != v2 {
			t.Error("schemas carry the wrong descriptors")
		}
	}
}

// TestCacheNestedVersions checks the nested-record cache too: two holders
// whose nested message has the same name but different shapes.
func TestCacheNestedVersions(t *testing.T) {
	src := func(field string) string {
		return `syntax = "proto3"; package nv; message In { ` + field + ` } message Out { In in = 1; }`
	}
	o := Options{Cache: NewCache()}
	a := mustSchema(t, o, compileMessage(t, src("int32 x = 1;"), "nv.Out"))
	b := mustSchema(t, o, compileMessage(t, src("string y = 1;"), "nv.Out"))
	if !strings.Contains(a.Canonical(), `"x"`) || !strings.Contains(b.Canonical(), `"y"`) || a.Canonical() == b.Canonical() {
		t.Errorf("nested versions mixed up:\n%s\n%s", a.Canonical(), b.Canonical())
	}
}

func TestCacheConcurrent(t *testing.T) {
	mds := []protoreflect.MessageDescriptor{
		(&descriptorpb.FileDescriptorSet{}).ProtoReflect().Descriptor(),
		(&descriptorpb.DescriptorProto{}).ProtoReflect().Descriptor(),
		(&descriptorpb.FieldOptions{}).ProtoReflect().Descriptor(),
	}
	o := Options{Cache: NewCache()}
	const workers = 8
	results := make([][]*Schema, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, md := range mds {
				for _, opts := range []Options{o, {Profile: JavaProfile, Cache: o.Cache}} {
					s, err := opts.Schema(md)
					if err != nil {
						t.Error(err)
						return
					}
					results[w] = append(results[w], s)
				}
			}
		}()
	}
	wg.Wait()
	for w := 1; w < workers; w++ {
		for i := range results[0] {
			if results[w][i] != results[0][i] {
				t.Fatalf("worker %d got a different schema object for lookup %d", w, i)
			}
		}
	}
}

func TestPrivateCacheIsIndependent(t *testing.T) {
	md := (&descriptorpb.FileDescriptorProto{}).ProtoReflect().Descriptor()
	c1, c2 := NewCache(), NewCache()
	s1 := mustSchema(t, Options{Cache: c1}, md)
	s2 := mustSchema(t, Options{Cache: c2}, md)
	if s1 == s2 {
		t.Error("two private caches share a schema object")
	}
	if s1.Canonical() != s2.Canonical() {
		t.Error("two caches derived different schemas")
	}
	if c1.Len() == 0 {
		t.Error("private cache is empty after a derivation")
	}
}

func TestJavaNameCollision(t *testing.T) {
	files := testcompile.Sources(t, map[string]string{
		"a.proto": `syntax = "proto3"; package a; option java_package = "com.ex"; option java_multiple_files = true; message M { int32 x = 1; }`,
		"b.proto": `syntax = "proto3"; package b; option java_package = "com.ex"; option java_multiple_files = true; message M { string y = 1; }`,
		"h.proto": `syntax = "proto3"; package h; import "a.proto"; import "b.proto"; message H { a.M one = 1; b.M two = 2; }`,
	}, "h.proto")
	md := testutil.FindMessage(files[0], "h.H")
	_, err := Options{Profile: JavaProfile, Cache: NewCache()}.Schema(md)
	if !errors.Is(err, ErrNameCollision) {
		t.Fatalf("err = %v, want ErrNameCollision", err)
	}
	for _, want := range []string{"com.ex.M", "a.M", "b.M", "a.proto", "b.proto"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	// The default profile names them a.M and b.M: no collision.
	if _, err := (Options{Cache: NewCache()}).Schema(md); err != nil {
		t.Errorf("default profile: %v", err)
	}
}

func TestInvalidOptions(t *testing.T) {
	md := (&descriptorpb.FileDescriptorProto{}).ProtoReflect().Descriptor()
	for _, o := range []Options{{Profile: 9}, {Timestamps: 7}, {Uint64: 3}, {MapKeys: 4}} {
		if _, err := o.Schema(md); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%+v: err = %v, want ErrInvalidOptions", o, err)
		}
	}
	if _, err := (Options{}).Schema(nil); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("nil descriptor: err = %v", err)
	}
}

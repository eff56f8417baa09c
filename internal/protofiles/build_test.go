package protofiles

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// file returns a proto3 file named name that imports deps and declares a
// message M of a field typed by typeName (none: no field).
func file(name, pkg, typeName string, deps ...string) *descriptorpb.FileDescriptorProto {
	m := &descriptorpb.DescriptorProto{Name: proto.String("M")}
	if typeName != "" {
		m.Field = []*descriptorpb.FieldDescriptorProto{{
			Name: proto.String("f"), Number: proto.Int32(1), JsonName: proto.String("f"),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
			Type:  descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(typeName),
		}}
	}
	return &descriptorpb.FileDescriptorProto{Name: proto.String(name), Package: proto.String(pkg), Syntax: proto.String("proto3"),
		Dependency: deps, MessageType: []*descriptorpb.DescriptorProto{m}}
}

// TestNewFiles: the files of a set are built as protodesc.NewFiles builds
// them, imports first whatever their place in the set; a set with several
// faults is reported by the same one on every run; cycles and duplicates
// are refused.
func TestNewFiles(t *testing.T) {
	set := []*descriptorpb.FileDescriptorProto{
		file("a.proto", "a", ".b.M", "b.proto", "google/protobuf/struct.proto"),
		protodesc.ToFileDescriptorProto(structpb.File_google_protobuf_struct_proto),
		file("b.proto", "b", ".google.protobuf.Timestamp", "google/protobuf/timestamp.proto"),
		protodesc.ToFileDescriptorProto(timestamppb.File_google_protobuf_timestamp_proto),
	}
	r, err := NewFiles(set)
	if err != nil {
		t.Fatal(err)
	}
	want, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: set})
	if err != nil {
		t.Fatal(err)
	}
	if r.NumFiles() != want.NumFiles() || r.NumFiles() != 4 {
		t.Errorf("%d files, protodesc.NewFiles %d, want 4", r.NumFiles(), want.NumFiles())
	}
	d, err := r.FindDescriptorByName("a.M")
	if err != nil || d.(protoreflect.MessageDescriptor).Fields().Get(0).Message().FullName() != "b.M" {
		t.Errorf("a.M: %v", err)
	}

	// Two faults: the first in the set's order is reported, every time.
	bad := []*descriptorpb.FileDescriptorProto{
		file("x.proto", "x", ".nowhere.X"),
		file("y.proto", "y", ".elsewhere.Y"),
	}
	for range 50 {
		if _, err := NewFiles(bad); err == nil || !strings.Contains(err.Error(), "nowhere.X") {
			t.Fatalf("two faults: %v, want the first, nowhere.X", err)
		}
	}

	cycle := []*descriptorpb.FileDescriptorProto{file("p.proto", "p", "", "q.proto"), file("q.proto", "q", "", "p.proto")}
	if _, err := NewFiles(cycle); err == nil || !strings.Contains(err.Error(), "import cycle") {
		t.Errorf("a cycle: %v", err)
	}
	twice := []*descriptorpb.FileDescriptorProto{file("p.proto", "p", ""), file("p.proto", "p", "")}
	if _, err := NewFiles(twice); err == nil || !strings.Contains(err.Error(), "multiple times") {
		t.Errorf("a file twice: %v", err)
	}
}

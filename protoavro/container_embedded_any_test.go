package protoavro

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
)

// embeddedAnyFiles builds holder.proto (Holder, with an Any field, and
// Local, a type it may pack) and packed.proto (Packed, imported by
// nothing), in a registry of their own.
func embeddedAnyFiles(t *testing.T) (holder, packed protoreflect.FileDescriptor, types *dynamicpb.Types) {
	t.Helper()
	str := func(name string, num int32) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{
			Name: proto.String(name), JsonName: proto.String(name), Number: proto.Int32(num),
			Type:  descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
		}
	}
	files := new(protoregistry.Files)
	if err := files.RegisterFile(anypb.File_google_protobuf_any_proto); err != nil {
		t.Fatal(err)
	}
	build := func(fdp *descriptorpb.FileDescriptorProto) protoreflect.FileDescriptor {
		fd, err := protodesc.NewFile(fdp, files)
		if err != nil {
			t.Fatal(err)
		}
		if err := files.RegisterFile(fd); err != nil {
			t.Fatal(err)
		}
		return fd
	}
	holder = build(&descriptorpb.FileDescriptorProto{
		Name: proto.String("embany/holder.proto"), Package: proto.String("embany"), Syntax: proto.String("proto3"),
		Dependency: []string{"google/protobuf/any.proto"},
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("Holder"), Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("a"), JsonName: proto.String("a"), Number: proto.Int32(1),
				Type:     descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(),
				TypeName: proto.String(".google.protobuf.Any"),
				Label:    descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
			}}},
			{Name: proto.String("Local"), Field: []*descriptorpb.FieldDescriptorProto{str("note", 1)}},
		},
	})
	packed = build(&descriptorpb.FileDescriptorProto{
		Name: proto.String("embany/packed.proto"), Package: proto.String("embany.other"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("Packed"), Field: []*descriptorpb.FieldDescriptorProto{str("text", 1)}}},
	})
	return holder, packed, dynamicpb.NewTypes(files)
}

// TestContainerEmbeddedAnyTypes: a ContainerReader reading the embedded
// type, without an AnyResolver, resolves the Any values (carried as JSON)
// of types the file embeds: one of the message's own file, and one of a
// file given in ContainerOptions.ExtraFiles, in every descriptor mode
// (minimal embeds the own file's unreached types only as an extra file); its
// AnyResolver finds them too, for protojson. Without ExtraFiles, the
// other file's type is an ErrUnknownAnyType.
func TestContainerEmbeddedAnyTypes(t *testing.T) {
	holder, packed, types := embeddedAnyFiles(t)
	md := holder.Messages().ByName("Holder")
	pack := func(m protoreflect.MessageDescriptor, field, value string) proto.Message {
		p := dynamicpb.NewMessage(m)
		p.Set(m.Fields().ByName(protoreflect.Name(field)), protoreflect.ValueOfString(value))
		a, err := anypb.New(p)
		if err != nil {
			t.Fatal(err)
		}
		h := dynamicpb.NewMessage(md)
		h.Set(md.Fields().ByName("a"), protoreflect.ValueOfMessage(a.ProtoReflect()))
		return h
	}
	records := []proto.Message{
		pack(holder.Messages().ByName("Local"), "note", "own file"),
		pack(packed.Messages().ByName("Packed"), "text", "other file"),
	}
	write := func(mode DescriptorMode, extra []protoreflect.FileDescriptor) []byte {
		return writeContainer(t, md, ContainerOptions{
			Options:     Options{DynamicAsJSON: true, AnyResolver: types},
			Descriptors: mode,
			ExtraFiles:  extra,
		}, records...)
	}
	for _, mode := range []DescriptorMode{DescriptorsStripped, DescriptorsFull, DescriptorsMinimal} {
		for _, workers := range []int{1, 3} {
			extra := []protoreflect.FileDescriptor{packed}
			if mode == DescriptorsMinimal {
				// Minimal keeps of holder.proto only what Holder reaches.
				extra = append(extra, holder)
			}
			cr, err := NewContainerReader(bytes.NewReader(write(mode, extra)), ReaderOptions{Workers: workers})
			if err != nil {
				t.Fatalf("%v: %v", mode, err)
			}
			for i, want := range records {
				m := cr.NewMessage()
				if err := cr.Read(m); err != nil {
					t.Fatalf("%v, %d workers: record %d: %v", mode, workers, i, err)
				}
				got, err := protojson.MarshalOptions{Resolver: cr.AnyResolver()}.Marshal(m)
				if err != nil {
					t.Fatalf("%v: record %d as JSON: %v", mode, i, err)
				}
				wantJSON, _ := protojson.MarshalOptions{Resolver: types}.Marshal(want)
				if !sameJSONText(got, wantJSON) {
					t.Errorf("%v: record %d: got %s, want %s", mode, i, got, wantJSON)
				}
			}
			if err := cr.Read(cr.NewMessage()); err != io.EOF {
				t.Errorf("%v: after the records: %v", mode, err)
			}
		}
	}
	// Without ExtraFiles only the own file's type is embedded.
	cr, err := NewContainerReader(bytes.NewReader(write(DescriptorsStripped, nil)), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cr.Read(cr.NewMessage()); err != nil {
		t.Fatalf("own file's type: %v", err)
	}
	if err := cr.Read(cr.NewMessage()); !errors.Is(err, ErrUnknownAnyType) {
		t.Errorf("other file's type, not embedded: got %v, want ErrUnknownAnyType", err)
	}
	// A nil extra file is refused.
	if _, err := NewContainerWriter(io.Discard, md, ContainerOptions{ExtraFiles: []protoreflect.FileDescriptor{nil}}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("nil ExtraFiles entry: got %v, want ErrInvalidOptions", err)
	}
}

// sameJSONText reports whether a and b are the same JSON text but for
// spacing (protojson varies it).
func sameJSONText(a, b []byte) bool {
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}

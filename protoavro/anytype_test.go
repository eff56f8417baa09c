package protoavro

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
)

// TestUnknownAnyType: with DynamicAsJSON, an Any whose type the resolver
// does not know is an ErrUnknownAnyType, not ErrMalformed, on every path
// (Marshal, TranscodeToAvro, Unmarshal of a datum whose JSON text holds
// it), and the error names the type URL and the field; an Any packed in a
// known Any is found too. A *dynamicpb.Types and a *protoregistry.Types
// both serve as the AnyResolver.
func TestUnknownAnyType(t *testing.T) {
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name:       proto.String("anytype/holder.proto"),
		Package:    proto.String("anytype"),
		Syntax:     proto.String("proto3"),
		Dependency: []string{"google/protobuf/any.proto"},
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Holder"),
			Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("inner"), JsonName: proto.String("inner"), Number: proto.Int32(1),
				Type:     descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(),
				TypeName: proto.String(".google.protobuf.Any"),
				Label:    descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
			}},
		}},
	}, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	files := new(protoregistry.Files)
	if err := files.RegisterFile(fd); err != nil {
		t.Fatal(err)
	}
	dynTypes := dynamicpb.NewTypes(files)
	regTypes := new(protoregistry.Types)
	if err := regTypes.RegisterMessage(dynamicpb.NewMessageType(fd.Messages().Get(0))); err != nil {
		t.Fatal(err)
	}

	holder := func(inner *anypb.Any) *anypb.Any {
		m := dynamicpb.NewMessage(fd.Messages().Get(0))
		if inner != nil {
			m.Set(fd.Messages().Get(0).Fields().Get(0), protoreflect.ValueOfMessage(inner.ProtoReflect()))
		}
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return &anypb.Any{TypeUrl: "type.googleapis.com/anytype.Holder", Value: b}
	}
	unknown := &anypb.Any{TypeUrl: "type.googleapis.com/nowhere.Unknown", Value: []byte{8, 1}}
	md := (&kitchenpb.WellKnown{}).ProtoReflect().Descriptor()

	for rname, r := range map[string]AnyResolver{"dynamicpb.Types": dynTypes, "protoregistry.Types": regTypes} {
		c := mustCodecFor(t, Options{DynamicAsJSON: true, AnyResolver: r}, md)
		// Known: written and read back.
		known := &kitchenpb.WellKnown{Any: holder(nil)}
		datum, err := c.Marshal(known)
		if err != nil {
			t.Fatalf("%s: a known type: %v", rname, err)
		}
		back := &kitchenpb.WellKnown{}
		if err := c.Unmarshal(datum, back); err != nil || !proto.Equal(back, known) {
			t.Errorf("%s: read back %v (%v), want %v", rname, back, err, known)
		}
		for name, c2 := range map[string]struct {
			m    *kitchenpb.WellKnown
			path string
		}{
			"singular":    {&kitchenpb.WellKnown{Any: unknown}, "any"},
			"list":        {&kitchenpb.WellKnown{RepeatedAny: []*anypb.Any{holder(nil), unknown}}, "repeated_any"},
			"in a packed": {&kitchenpb.WellKnown{Any: holder(unknown)}, "inner"},
		} {
			wire, err := proto.Marshal(c2.m)
			if err != nil {
				t.Fatal(err)
			}
			_, errM := c.Marshal(c2.m)
			_, errT := c.TranscodeToAvro(nil, wire)
			for path, err := range map[string]error{"Marshal": errM, "TranscodeToAvro": errT} {
				if !errors.Is(err, ErrUnknownAnyType) || errors.Is(err, ErrMalformed) ||
					!strings.Contains(err.Error(), `"type.googleapis.com/nowhere.Unknown"`) || !strings.Contains(err.Error(), c2.path) {
					t.Errorf("%s, %s, %s: %v, want an ErrUnknownAnyType naming the URL and %s", rname, name, path, err, c2.path)
				}
			}
		}
	}

	// Reading: a datum written with a resolver, read by a codec without it.
	c := mustCodecFor(t, Options{DynamicAsJSON: true, AnyResolver: dynTypes}, md)
	datum, err := c.Marshal(&kitchenpb.WellKnown{Any: holder(nil)})
	if err != nil {
		t.Fatal(err)
	}
	global := mustCodecFor(t, Options{DynamicAsJSON: true}, md)
	err = global.Unmarshal(datum, &kitchenpb.WellKnown{})
	var de *DataError
	if !errors.Is(err, ErrUnknownAnyType) || !errors.As(err, &de) || de.Offset < 0 || !strings.Contains(err.Error(), "anytype.Holder") {
		t.Errorf("Unmarshal without the resolver: %v, want an ErrUnknownAnyType with the offset and the URL", err)
	}
}

package protoavro

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testutil"
)

// TestAnyResolver: with DynamicAsJSON, Any values of a type that only the
// codec's AnyResolver knows are written and read in every field shape
// (singular, list, map value, oneof member) and by every path: the struct
// writer, the wire writer (dynamicpb, TranscodeToAvro) and the reader.
// Without the resolver, the same values are an error.
func TestAnyResolver(t *testing.T) {
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name:    proto.String("anyresolver/private.proto"),
		Package: proto.String("anyresolver"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Private"),
			Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("note"), JsonName: proto.String("note"), Number: proto.Int32(1),
				Type:  descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(),
				Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
			}},
		}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mt := dynamicpb.NewMessageType(fd.Messages().Get(0))
	if _, err := protoregistry.GlobalTypes.FindMessageByName(mt.Descriptor().FullName()); err == nil {
		t.Fatal("the private type is registered globally: the test checks nothing")
	}
	types := new(protoregistry.Types)
	if err := types.RegisterMessage(mt); err != nil {
		t.Fatal(err)
	}
	private := mt.New()
	private.Set(mt.Descriptor().Fields().Get(0), protoreflect.ValueOfString("kept"))
	value, err := proto.Marshal(private.Interface())
	if err != nil {
		t.Fatal(err)
	}
	anyOf := func() *anypb.Any { return &anypb.Any{TypeUrl: "type.googleapis.com/anyresolver.Private", Value: value} }
	shapes := map[string]*kitchenpb.WellKnown{
		"singular": {Any: anyOf()},
		"list":     {RepeatedAny: []*anypb.Any{anyOf(), anyOf()}},
		"map":      {MapAny: map[string]*anypb.Any{"a": anyOf(), "b": anyOf()}},
		"oneof":    {Choice: &kitchenpb.WellKnown_OneofAny{OneofAny: anyOf()}},
	}
	md := (&kitchenpb.WellKnown{}).ProtoReflect().Descriptor()
	c := mustCodecFor(t, Options{DynamicAsJSON: true, AnyResolver: types}, md)
	global := mustCodecFor(t, Options{DynamicAsJSON: true}, md)
	for name, m := range shapes {
		datum, err := c.Marshal(m)
		if err != nil {
			t.Fatalf("%s: Marshal: %v", name, err)
		}
		dyn := dynamicpb.NewMessage(md)
		wire := testutil.Wire(t, m)
		if err := proto.Unmarshal(wire, dyn); err != nil {
			t.Fatal(err)
		}
		viaDyn, err := c.Marshal(dyn)
		if err != nil {
			t.Fatalf("%s: Marshal (dynamicpb): %v", name, err)
		}
		viaWire, err := c.TranscodeToAvro(nil, wire)
		if err != nil {
			t.Fatalf("%s: TranscodeToAvro: %v", name, err)
		}
		if string(viaDyn) != string(datum) || string(viaWire) != string(datum) {
			t.Errorf("%s: the paths write different datums", name)
		}
		got := &kitchenpb.WellKnown{}
		if err := c.Unmarshal(datum, got); err != nil {
			t.Fatalf("%s: Unmarshal: %v", name, err)
		}
		if !proto.Equal(got, m) {
			t.Errorf("%s: read back %v, want %v", name, got, m)
		}
		// Without the resolver, the type is unknown: an error, not data.
		if _, err := global.Marshal(m); err == nil || errors.Is(err, ErrWrongType) {
			t.Errorf("%s: Marshal without the resolver: %v, want an error naming the unresolved type", name, err)
		}
	}
}

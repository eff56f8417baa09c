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
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
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
			for path, err := range writeErrors(t, c, c2.m) {
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

// TestAnyTypeMemberClash: a google.protobuf.Any written as JSON (with
// DynamicAsJSON, the EngineReady options and the JSON recursion carrier)
// whose packed message has a set field with json_name "@type" is refused
// as ErrMalformed naming the field, the Any's field path and its type URL,
// on Marshal and TranscodeToAvro alike: its JSON would hold two "@type"
// members. The same message with the field unset, a field named "value"
// and a Struct with "@type" and "value" keys packed in an Any are written
// and read back.
func TestAnyTypeMemberClash(t *testing.T) {
	fd := testcompile.Sources(t, map[string]string{"clash.proto": `syntax = "proto3";
package clash;
import "google/protobuf/any.proto";
message Holder { google.protobuf.Any a = 1; }
message Node { Node child = 1; google.protobuf.Any a = 2; }
message P { int32 x = 1 [json_name = "@type"]; }
message Q { int32 value = 1; int32 v = 2 [json_name = "value2"]; }
`}, "clash.proto")[0]
	files := new(protoregistry.Files)
	for _, f := range []protoreflect.FileDescriptor{fd, structpb.File_google_protobuf_struct_proto} {
		if err := files.RegisterFile(f); err != nil {
			t.Fatal(err)
		}
	}
	types := dynamicpb.NewTypes(files)
	msg := func(name protoreflect.Name, set func(m *dynamicpb.Message)) *dynamicpb.Message {
		m := dynamicpb.NewMessage(fd.Messages().ByName(name))
		set(m)
		return m
	}
	packed := func(m proto.Message) *anypb.Any {
		// Deterministic, as protojson packs what it reads: the Any's bytes
		// are compared.
		a := new(anypb.Any)
		if err := anypb.MarshalFrom(a, m, proto.MarshalOptions{Deterministic: true}); err != nil {
			t.Fatal(err)
		}
		return a
	}
	setMsg := func(m *dynamicpb.Message, field protoreflect.Name, v proto.Message) {
		m.Set(m.Descriptor().Fields().ByName(field), protoreflect.ValueOfMessage(v.ProtoReflect()))
	}
	setInt := func(field protoreflect.Name, v int32) func(*dynamicpb.Message) {
		return func(m *dynamicpb.Message) {
			m.Set(m.Descriptor().Fields().ByName(field), protoreflect.ValueOfInt32(v))
		}
	}
	holder := func(a *anypb.Any) *dynamicpb.Message {
		return msg("Holder", func(m *dynamicpb.Message) { setMsg(m, "a", a) })
	}
	clashing := packed(msg("P", setInt("x", 5)))

	// Written as JSON, refused.
	engine := EngineReady()
	engine.AnyResolver = types
	carrier := Options{RecursionDepth: 1, RecursionCarrier: CarrierJSON, AnyResolver: types}
	deep := msg("Node", func(m *dynamicpb.Message) {
		setMsg(m, "child", msg("Node", func(c *dynamicpb.Message) { setMsg(c, "a", clashing) }))
	})
	for name, c := range map[string]struct {
		o    Options
		m    proto.Message
		path string
	}{
		"DynamicAsJSON": {Options{DynamicAsJSON: true, AnyResolver: types}, holder(clashing), "Holder.a"},
		"EngineReady":   {engine, holder(clashing), "Holder.a"},
		"carrier":       {carrier, deep, "Node.child"},
	} {
		for how, err := range writeErrors(t, mustCodec(t, c.o, c.m), c.m) {
			var de *DataError
			if !errors.Is(err, ErrMalformed) || errors.Is(err, ErrUnknownAnyType) || !errors.As(err, &de) || de.Path != c.path ||
				!strings.Contains(err.Error(), "clash.P.x") || !strings.Contains(err.Error(), `"@type"`) || !strings.Contains(err.Error(), "type.googleapis.com/clash.P") {
				t.Errorf("%s, %s: %v, want an ErrMalformed at %s naming clash.P.x and its Any", name, how, err, c.path)
			}
		}
	}

	// Written as JSON and read back.
	st, err := structpb.NewStruct(map[string]any{"@type": "x", "value": 1})
	if err != nil {
		t.Fatal(err)
	}
	codec := mustCodecFor(t, Options{DynamicAsJSON: true, AnyResolver: types}, fd.Messages().ByName("Holder"))
	for name, a := range map[string]*anypb.Any{
		"the field unset":       packed(msg("P", func(*dynamicpb.Message) {})),
		`a field named "value"`: packed(msg("Q", func(m *dynamicpb.Message) { setInt("value", 3)(m); setInt("v", 4)(m) })),
		`a Struct with "@type"`: packed(st),
		"an empty Any":          {},
		"a well-known type":     packed(structpb.NewStringValue("@type")),
	} {
		in := holder(a)
		datum, err := codec.Marshal(in)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		back := dynamicpb.NewMessage(in.Descriptor())
		if err := codec.Unmarshal(datum, back); err != nil || !proto.Equal(back, in) {
			t.Errorf("%s: read back %v (%v), want %v", name, back, err, in)
		}
	}
}

// writeErrors writes m with c's two writers, Marshal and TranscodeToAvro
// (of m's wire bytes), and returns their errors by writer.
func writeErrors(t *testing.T, c *Codec, m proto.Message) map[string]error {
	t.Helper()
	wire, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	_, errM := c.Marshal(m)
	_, errT := c.TranscodeToAvro(nil, wire)
	return map[string]error{"Marshal": errM, "TranscodeToAvro": errT}
}

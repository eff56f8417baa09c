package protoavro

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protoavro/protoavro/internal/testutil"
)

// fuzzOptions returns the options a fuzz input's byte selects: profile,
// map keys, recursion depth and carrier, dynamic types, and small or
// default limits.
func fuzzOptions(b byte) Options {
	o := Options{Cache: NewCache()}
	if b&1 != 0 {
		o.Profile = JavaProfile
	}
	if b&2 != 0 {
		o.MapKeys = MapAsEntryArray
	}
	o.RecursionDepth = int(b>>2) % 3
	if b&16 != 0 {
		o.RecursionCarrier, o.DynamicAsJSON = CarrierJSON, true
	}
	if b&32 != 0 {
		o.Limits = SchemaLimits{MaxDepth: 1 + int(b>>6), MaxTypes: 3 + int(b>>5), MaxFields: 8}
	}
	return o
}

// checkDerived checks a derivation of md under o: an error of a known
// class, or a schema within o's limits whose JSON parses back with the
// same canonical form.
func checkDerived(t *testing.T, md protoreflect.MessageDescriptor, o Options) {
	s, err := o.Schema(md)
	if err != nil {
		for _, class := range []error{ErrSchemaLimit, ErrNameCollision, ErrInvalidName, ErrUnsupported} {
			if errors.Is(err, class) {
				if len(err.Error()) > 4096 {
					t.Fatalf("error of %d bytes", len(err.Error()))
				}
				return
			}
		}
		t.Fatalf("%s: error of no class: %v", md.FullName(), err)
	}
	lim := o.Limits.resolved()
	if n := strings.Count(s.Canonical(), `"type":"record"`); n > lim.MaxTypes {
		t.Fatalf("%s: %d records, over MaxTypes %d", md.FullName(), n, lim.MaxTypes)
	}
	js, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseSchema(js)
	if err != nil {
		t.Fatalf("%s: the derived schema does not parse back: %v\n%s", md.FullName(), err, js)
	}
	if back.Canonical() != s.Canonical() {
		t.Fatalf("%s: canonical form changed by a round trip:\n%s\n%s", md.FullName(), s.Canonical(), back.Canonical())
	}
}

// FuzzDescriptorSchema derives the schema of every message (up to 20) of
// a serialized FileDescriptorSet, as a container header, a registry or a
// code generator's request gives one, under the options its first byte
// selects.
func FuzzDescriptorSchema(f *testing.F) {
	add := func(b byte, files ...*descriptorpb.FileDescriptorProto) {
		set, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: files})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, set)
	}
	for i, shape := range []testutil.HostileShape{testutil.Chain, testutil.Ring, testutil.Mesh, testutil.Wide, testutil.Star, testutil.Wheel, testutil.MapChain} {
		add(byte(i*37), testutil.HostileFile(shape, 9))
		add(byte(i*37+32), testutil.HostileFile(shape, 70))
	}
	add(0, protodesc.ToFileDescriptorProto(descriptorpb.File_google_protobuf_descriptor_proto))
	add(0x11, protodesc.ToFileDescriptorProto(descriptorpb.File_google_protobuf_descriptor_proto))
	add(0, testutil.GiantNameFile(300))
	f.Fuzz(func(t *testing.T, b byte, data []byte) {
		var set descriptorpb.FileDescriptorSet
		if proto.Unmarshal(data, &set) != nil {
			return
		}
		files, err := protodesc.NewFiles(&set)
		if err != nil {
			return
		}
		o := fuzzOptions(b)
		n := 0
		files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
			return forEachMessage(fd.Messages(), func(md protoreflect.MessageDescriptor) bool {
				if n++; n > 20 {
					return false
				}
				checkDerived(t, md, o)
				return true
			})
		})
	})
}

func forEachMessage(ms protoreflect.MessageDescriptors, fn func(protoreflect.MessageDescriptor) bool) bool {
	for i := range ms.Len() {
		if !fn(ms.Get(i)) || !forEachMessage(ms.Get(i).Messages(), fn) {
			return false
		}
	}
	return true
}

// FuzzPlan builds a graph of messages from its input (up to 16 messages;
// each pair of bytes adds a field: its kind, from scalars, an enum,
// messages, lists, maps with string and int64 keys, oneof members,
// Timestamp, Struct and wrappers, and the message it refers to) and
// derives the schema of its first message under the options of the first
// byte: the plan explores shapes of message graphs far faster than
// descriptor bytes do.
func FuzzPlan(f *testing.F) {
	for _, s := range []string{"", "\x00\x03\x04\x00", "\x05\x02\x05\x01\x05\x02\x00", "\x23\x03\x06\x00\x07\x01\x08\x02",
		"\x14\x04\x09\x01\x0a\x02\x0b\x03\x0c\x00\x0d\x01", "\x3c\x10" + strings.Repeat("\x04\x01", 30), "\xff\x08" + strings.Repeat("\x05\x07\x06\x03", 20)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 400 {
			return
		}
		md, err := fuzzGraph(data[1], data[2:])
		if err != nil {
			return
		}
		checkDerived(t, md, fuzzOptions(data[0]))
	})
}

// fuzzGraph builds the file of n = 1 + nb%16 messages whose fields the
// byte pairs of fields give, and returns its first message.
func fuzzGraph(nb byte, fields []byte) (protoreflect.MessageDescriptor, error) {
	n := 1 + int(nb)%16
	fdp := &descriptorpb.FileDescriptorProto{
		Name:       proto.String("fuzz.proto"),
		Package:    proto.String("fuzz"),
		Syntax:     proto.String("proto3"),
		Dependency: []string{"google/protobuf/timestamp.proto", "google/protobuf/struct.proto", "google/protobuf/wrappers.proto"},
		EnumType: []*descriptorpb.EnumDescriptorProto{{Name: proto.String("E"), Value: []*descriptorpb.EnumValueDescriptorProto{
			{Name: proto.String("E0"), Number: proto.Int32(0)}, {Name: proto.String("E1"), Number: proto.Int32(1)}}}},
	}
	msgs := make([]*descriptorpb.DescriptorProto, n)
	for i := range msgs {
		msgs[i] = &descriptorpb.DescriptorProto{Name: proto.String(fmt.Sprintf("M%d", i))}
	}
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	rep := descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	scalar := func(t descriptorpb.FieldDescriptorProto_Type) *descriptorpb.FieldDescriptorProto_Type {
		return t.Enum()
	}
	msgType := descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
	for i := 0; i+1 < len(fields); i += 2 {
		owner := msgs[(i/2)%n]
		num := int32(len(owner.Field) + 1)
		target := fmt.Sprintf(".fuzz.M%d", int(fields[i+1])%n)
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(fmt.Sprintf("f%d", num)), Number: proto.Int32(num), Label: opt}
		switch fields[i] % 14 {
		case 0:
			f.Type = scalar(descriptorpb.FieldDescriptorProto_TYPE_INT64)
		case 1:
			f.Type = scalar(descriptorpb.FieldDescriptorProto_TYPE_STRING)
		case 2:
			f.Type, f.TypeName = descriptorpb.FieldDescriptorProto_TYPE_ENUM.Enum(), proto.String(".fuzz.E")
		case 3, 4:
			f.Type, f.TypeName = msgType, proto.String(target)
		case 5:
			f.Type, f.TypeName, f.Label = msgType, proto.String(target), rep
		case 6, 7:
			entry := fmt.Sprintf("F%dEntry", num)
			key := descriptorpb.FieldDescriptorProto_TYPE_STRING
			if fields[i]%14 == 7 {
				key = descriptorpb.FieldDescriptorProto_TYPE_INT64
			}
			owner.NestedType = append(owner.NestedType, &descriptorpb.DescriptorProto{
				Name:    proto.String(entry),
				Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
				Field: []*descriptorpb.FieldDescriptorProto{
					{Name: proto.String("key"), Number: proto.Int32(1), Label: opt, Type: key.Enum()},
					{Name: proto.String("value"), Number: proto.Int32(2), Label: opt, Type: msgType, TypeName: proto.String(target)},
				},
			})
			f.Type, f.TypeName, f.Label = msgType, proto.String(fmt.Sprintf(".fuzz.%s.%s", owner.GetName(), entry)), rep
		case 8:
			if len(owner.OneofDecl) == 0 {
				owner.OneofDecl = []*descriptorpb.OneofDescriptorProto{{Name: proto.String("o")}}
			}
			f.Type, f.TypeName, f.OneofIndex = msgType, proto.String(target), proto.Int32(0)
		case 9:
			f.Type, f.TypeName = msgType, proto.String(".google.protobuf.Timestamp")
		case 10:
			f.Type, f.TypeName = msgType, proto.String(".google.protobuf.Struct")
		case 11:
			f.Type, f.TypeName = msgType, proto.String(".google.protobuf.Int64Value")
		case 12:
			f.Type, f.Proto3Optional = scalar(descriptorpb.FieldDescriptorProto_TYPE_DOUBLE), proto.Bool(true)
			owner.OneofDecl = append(owner.OneofDecl, &descriptorpb.OneofDescriptorProto{Name: proto.String(fmt.Sprintf("_f%d", num))})
			f.OneofIndex = proto.Int32(int32(len(owner.OneofDecl) - 1))
		case 13:
			f.Type, f.Label = scalar(descriptorpb.FieldDescriptorProto_TYPE_BYTES), rep
		}
		owner.Field = append(owner.Field, f)
	}
	fdp.MessageType = msgs
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		return nil, err
	}
	return fd.Messages().Get(0), nil
}

package mapkeys

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestSorted: string keys by their bytes, signed and unsigned integers by
// value, false before true.
func TestSorted(t *testing.T) {
	s, err := structpb.NewStruct(map[string]any{"b": 1, "a": 2, "B": 3, "ä": 4, "aa": 5})
	if err != nil {
		t.Fatal(err)
	}
	m := s.ProtoReflect()
	if got, want := names(Sorted(m.Get(m.Descriptor().Fields().ByName("fields")).Map())), []string{"B", "a", "aa", "b", "ä"}; !slices.Equal(got, want) {
		t.Errorf("string keys %q, want %q", got, want)
	}
	for _, c := range []struct {
		kind string
		keys []any
		want []string
	}{
		{"int64", []any{int64(10), int64(-3), int64(2), int64(-20)}, []string{"-20", "-3", "2", "10"}},
		{"sint32", []any{int32(7), int32(-7), int32(0)}, []string{"-7", "0", "7"}},
		{"uint64", []any{uint64(1 << 63), uint64(9), uint64(10)}, []string{"9", "10", "9223372036854775808"}},
		{"bool", []any{true, false}, []string{"false", "true"}},
	} {
		mp := mapOf(t, c.kind)
		for _, k := range c.keys {
			mp.Set(protoreflect.ValueOf(k).MapKey(), protoreflect.ValueOfString("v"))
		}
		if got := names(Sorted(mp)); !slices.Equal(got, c.want) {
			t.Errorf("%s keys %q, want %q", c.kind, got, c.want)
		}
	}
}

// mapOf returns an empty map<kind, string> of a dynamic message.
func mapOf(t *testing.T, kind string) protoreflect.Map {
	t.Helper()
	k := descriptorpb.FieldDescriptorProto_Type_value["TYPE_"+strings.ToUpper(kind)]
	fd := &descriptorpb.FileDescriptorProto{
		Name: proto.String("m.proto"), Syntax: proto.String("proto3"), Package: proto.String("m"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("M"),
			Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("m"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum(),
				Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(".m.M.MEntry"),
			}},
			NestedType: []*descriptorpb.DescriptorProto{{
				Name: proto.String("MEntry"), Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
				Field: []*descriptorpb.FieldDescriptorProto{
					{Name: proto.String("key"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_Type(k).Enum()},
					{Name: proto.String("value"), Number: proto.Int32(2), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()},
				},
			}},
		}},
	}
	f, err := protodesc.NewFile(fd, nil)
	if err != nil {
		t.Fatal(err)
	}
	md := f.Messages().Get(0)
	msg := dynamicpb.NewMessage(md)
	return msg.Mutable(md.Fields().Get(0)).Map()
}

// names returns the keys as text.
func names(keys []protoreflect.MapKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprint(k.Interface())
	}
	return out
}

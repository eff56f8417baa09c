package enginetest

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"

	"bytes"

	"github.com/protoavro/protoavro/protoavro"
)

// TestArrowEmptyRecords: messages with no fields (google.protobuf.Empty)
// under the preset, whose records have the placeholder field: Arrow reads
// them, nested (a struct of one null column per row) and as the top-level
// record, where a record without fields would give Arrow v18.8.0 batches of
// 0 rows, whatever the file holds (an Arrow record batch without columns has
// no rows).
func TestArrowEmptyRecords(t *testing.T) {
	fdp := &descriptorpb.FileDescriptorProto{
		Name: proto.String("e.proto"), Package: proto.String("e"), Syntax: proto.String("proto3"),
		Dependency: []string{"google/protobuf/empty.proto"},
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("E"),
			Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("id"), Number: proto.Int32(1), Type: descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()},
				{Name: proto.String("e"), Number: proto.Int32(2), Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(".google.protobuf.Empty"), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()},
				{Name: proto.String("l"), Number: proto.Int32(3), Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(".google.protobuf.Empty"), Label: descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()},
			},
		}},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	md := fd.Messages().Get(0)
	for _, which := range []string{"E", "Empty"} {
		d := md
		if which == "Empty" {
			d = (&emptypb.Empty{}).ProtoReflect().Descriptor()
		}
		var buf bytes.Buffer
		w, err := protoavro.NewContainerWriter(&buf, d, protoavro.ContainerOptions{Options: engineOptions()})
		if err != nil {
			t.Fatal(err)
		}
		m := dynamicpb.NewMessage(d)
		if which == "E" {
			m.Set(d.Fields().ByName("id"), protoreflect.ValueOfInt32(7))
			m.Set(d.Fields().ByName("e"), protoreflect.ValueOfMessage(dynamicpb.NewMessage(d.Fields().ByName("e").Message())))
		}
		for range 3 {
			if err := w.Write(m); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		s, _ := engineOptions().Schema(d)
		js, _ := s.JSON()
		f := &engineFile{md: d, data: buf.Bytes(), avsc: js}
		var got []string
		rows := arrowRead(t, f, 7, func(rec *array.Struct, first int) {
			for i := range rec.Len() {
				got = append(got, rec.ValueStr(i))
			}
		})
		want, wantRows := `{"e":{"__dummy_field_in_empty_struct":null},"id":7,"l":[]}`, int64(3)
		if which == "Empty" {
			want = `{"__dummy_field_in_empty_struct":null}`
		}
		if rows != wantRows {
			t.Errorf("%s (%s): Arrow reads %d rows of 3, want %d", which, s.Canonical(), rows, wantRows)
		}
		for i, g := range got {
			if i < int(wantRows) && g != want {
				t.Errorf("%s row %d: %s, want %s", which, i, g, want)
			}
		}
	}
}

// TestArrowGoogleTypes: under the preset, google.type.Date and TimeOfDay
// (here with their upstream shapes, built at run time) read in Arrow as
// date32 and time64[us].
func TestArrowGoogleTypes(t *testing.T) {
	i32 := func(name string, n int32) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n),
			Type: descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()}
	}
	msg := func(name string, n int32, typ string) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n), TypeName: proto.String(typ),
			Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()}
	}
	fdp := &descriptorpb.FileDescriptorProto{
		Name: proto.String("gt.proto"), Package: proto.String("google.type"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("Date"), Field: []*descriptorpb.FieldDescriptorProto{i32("year", 1), i32("month", 2), i32("day", 3)}},
			{Name: proto.String("TimeOfDay"), Field: []*descriptorpb.FieldDescriptorProto{i32("hours", 1), i32("minutes", 2), i32("seconds", 3), i32("nanos", 4)}},
			{Name: proto.String("C"), Field: []*descriptorpb.FieldDescriptorProto{msg("d", 1, ".google.type.Date"), msg("t", 2, ".google.type.TimeOfDay")}},
		},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	md := fd.Messages().ByName("C")
	m := dynamicpb.NewMessage(md)
	set := func(field string, vals ...int32) {
		sub := dynamicpb.NewMessage(md.Fields().ByName(protoreflect.Name(field)).Message())
		for i, v := range vals {
			sub.Set(sub.Descriptor().Fields().ByNumber(protoreflect.FieldNumber(i+1)), protoreflect.ValueOfInt32(v))
		}
		m.Set(md.Fields().ByName(protoreflect.Name(field)), protoreflect.ValueOfMessage(sub))
	}
	set("d", 2024, 2, 29)
	set("t", 23, 59, 58, 123456000)
	var buf bytes.Buffer
	w, err := protoavro.NewContainerWriter(&buf, md, protoavro.ContainerOptions{Options: engineOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(m); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s, _ := engineOptions().Schema(md)
	js, _ := s.JSON()
	var got []string
	rows := arrowRead(t, &engineFile{md: md, data: buf.Bytes(), avsc: js}, 1, func(rec *array.Struct, first int) {
		for i := range rec.NumField() {
			got = append(got, rec.Field(i).DataType().String()+" "+rec.Field(i).ValueStr(0))
		}
	})
	want := []string{"date32 2024-02-29", "time64[us] 23:59:58.123456"}
	if rows != 1 || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Arrow reads %d rows: %q, want %q", rows, got, want)
	}
}

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

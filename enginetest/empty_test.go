package enginetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protoavro/protoavro/protoavro/protoload"
)

// TestArrowEmptyRecords: messages with no fields (google.protobuf.Empty)
// under the preset, whose records have the placeholder field: Arrow reads
// them, nested (a struct of one null column per row) and as the top-level
// record, where a record without fields would give Arrow v18.8.0 batches of
// 0 rows, whatever the file holds (an Arrow record batch without columns has
// no rows).
func TestArrowEmptyRecords(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3";
package e;
import "google/protobuf/empty.proto";
message E { int32 id = 1; google.protobuf.Empty e = 2; repeated google.protobuf.Empty l = 3; }`, "e.E")
	for _, which := range []string{"E", "Empty"} {
		d := md
		if which == "Empty" {
			d = (&emptypb.Empty{}).ProtoReflect().Descriptor()
		}
		m := dynamicpb.NewMessage(d)
		if which == "E" {
			m.Set(d.Fields().ByName("id"), protoreflect.ValueOfInt32(7))
			m.Set(d.Fields().ByName("e"), protoreflect.ValueOfMessage(dynamicpb.NewMessage(d.Fields().ByName("e").Message())))
		}
		f := writeFile(t, d, []proto.Message{m, m, m}, engineOptions(), 0)
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
			t.Errorf("%s (%s): Arrow reads %d rows of 3, want %d", which, f.avsc, rows, wantRows)
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
	md := compileMessage(t, `syntax = "proto3";
package google.type;
message Date { int32 year = 1; int32 month = 2; int32 day = 3; }
message TimeOfDay { int32 hours = 1; int32 minutes = 2; int32 seconds = 3; int32 nanos = 4; }
message C { Date d = 1; TimeOfDay t = 2; }`, "google.type.C")
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
	var got []string
	rows := arrowRead(t, writeFile(t, md, []proto.Message{m}, engineOptions(), 0), 1, func(rec *array.Struct, first int) {
		for i := range rec.NumField() {
			got = append(got, rec.Field(i).DataType().String()+" "+rec.Field(i).ValueStr(0))
		}
	})
	want := []string{"date32 2024-02-29", "time64[us] 23:59:58.123456"}
	if rows != 1 || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Arrow reads %d rows: %q, want %q", rows, got, want)
	}
}

// compileMessage compiles the .proto text src and returns its message name.
func compileMessage(t *testing.T, src, name string) protoreflect.MessageDescriptor {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "test.proto")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	md, err := protoload.Resolve(context.Background(), protoload.Input{Protos: []string{path}, ImportPaths: []string{dir}, Message: name})
	if err != nil {
		t.Fatal(err)
	}
	return md
}

package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// googleTypeFiles writes one record of google.type.Date, TimeOfDay, a
// Timestamp with nanoseconds and an empty message to a container file under
// each profile of the test: "engine" (EngineReady) and "default" (the
// default profile with GoogleTypes and EmptyPlaceholder). It returns the
// files' paths by profile name.
func googleTypeFiles(t *testing.T) map[string]string {
	t.Helper()
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
		Dependency: []string{"google/protobuf/timestamp.proto"},
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("Date"), Field: []*descriptorpb.FieldDescriptorProto{i32("year", 1), i32("month", 2), i32("day", 3)}},
			{Name: proto.String("TimeOfDay"), Field: []*descriptorpb.FieldDescriptorProto{i32("hours", 1), i32("minutes", 2), i32("seconds", 3), i32("nanos", 4)}},
			{Name: proto.String("Nothing")},
			{Name: proto.String("C"), Field: []*descriptorpb.FieldDescriptorProto{msg("d", 1, ".google.type.Date"), msg("t", 2, ".google.type.TimeOfDay"),
				msg("ts", 3, ".google.protobuf.Timestamp"), msg("n", 4, ".google.type.Nothing")}},
		},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	md := fd.Messages().ByName("C")
	m := dynamicpb.NewMessage(md)
	set := func(field string, vals ...int64) {
		f := md.Fields().ByName(protoreflect.Name(field))
		sub := dynamicpb.NewMessage(f.Message())
		for i, v := range vals {
			sf := sub.Descriptor().Fields().ByNumber(protoreflect.FieldNumber(i + 1))
			if sf.Kind() == protoreflect.Int64Kind {
				sub.Set(sf, protoreflect.ValueOfInt64(v))
			} else {
				sub.Set(sf, protoreflect.ValueOfInt32(int32(v)))
			}
		}
		m.Set(f, protoreflect.ValueOfMessage(sub))
	}
	set("d", 2024, 2, 29)
	set("t", 23, 59, 58, 123456000)
	set("ts", 1700000000, 123456789)
	set("n")
	files := map[string]string{}
	dir := t.TempDir()
	for name, o := range map[string]protoavro.Options{
		"engine":  protoavro.EngineReady(),
		"default": {GoogleTypes: true, EmptyPlaceholder: true},
	} {
		var buf bytes.Buffer
		w, err := protoavro.NewContainerWriter(&buf, md, protoavro.ContainerOptions{Options: o})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".avro")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files[name] = path
	}
	return files
}

// TestPythonReadsGoogleTypes: Python avro reads the logical types of the
// preset's google.type.Date (date: datetime.date), TimeOfDay (time-micros:
// datetime.time), a Timestamp with nanoseconds under the default profile
// (timestamp-nanos, which Python avro 1.11 reads as the exact long, with a
// warning) and the placeholder of an empty message.
func TestPythonReadsGoogleTypes(t *testing.T) {
	py := python()
	testutil.Need(t, py != nil, pythonReason)
	files := googleTypeFiles(t)
	script := `import sys, avro.datafile, avro.io
r = avro.datafile.DataFileReader(open(sys.argv[1], "rb"), avro.io.DatumReader())
for d in r:
    print(repr(d["d"]), repr(d["t"]), repr(d["ts"]), repr(d["n"]))
`
	for _, tc := range []struct {
		name string
		want string
	}{
		{"engine", "datetime.date(2024, 2, 29) datetime.time(23, 59, 58, 123456) datetime.datetime(2023, 11, 14, 22, 13, 20, 123456, tzinfo="},
		{"default", "datetime.date(2024, 2, 29) datetime.time(23, 59, 58, 123456) 1700000000123456789 "},
	} {
		out, err := exec.Command(py.exe, "-c", script, files[tc.name]).Output()
		if err != nil || !strings.HasPrefix(string(out), tc.want) || !strings.HasSuffix(strings.TrimSpace(string(out)), "{'__dummy_field_in_empty_struct': None}") {
			t.Errorf("%s: %s reads %s (%v), want %s...", tc.name, py, out, err, tc.want)
		}
		t.Logf("%s: %s", tc.name, out)
	}
}

// TestJavaReadsGoogleTypes: Java Avro parses the logical types of the
// preset's google.type.Date (date), TimeOfDay (time-micros) and Timestamp
// (timestamp-micros) from the file's schema and reads their values: days
// since the epoch, microseconds since midnight, microseconds since the
// epoch. Under the default profile, a Timestamp with nanoseconds is
// timestamp-nanos, which Java Avro 1.8 does not know: it reads the exact
// long. The empty message's placeholder field reads as null.
func TestJavaReadsGoogleTypes(t *testing.T) {
	j := needBuilt(t, javaTools(), javaReason)
	files := googleTypeFiles(t)
	days := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC).Unix() / 86400
	micros := (((23*60+59)*60+58)*1000000 + 123456)
	type field struct {
		Field       string  `json:"field"`
		LogicalType *string `json:"logicalType"`
		Value       string  `json:"value"`
	}
	lt := func(s string) *string { return &s }
	for _, tc := range []struct {
		name string
		want []field
	}{
		{"engine", []field{
			{"d", lt("date"), fmt.Sprint(days)},
			{"t", lt("time-micros"), fmt.Sprint(micros)},
			{"ts", lt("timestamp-micros"), "1700000000123456"},
			{"n", nil, `{"__dummy_field_in_empty_struct": null}`},
		}},
		{"default", []field{
			{"d", lt("date"), fmt.Sprint(days)},
			{"t", lt("time-micros"), fmt.Sprint(micros)},
			{"ts", nil, "1700000000123456789"},
			{"n", nil, `{"__dummy_field_in_empty_struct": null}`},
		}},
	} {
		out := j.run(t, "logical", files[tc.name])
		var got []field
		dec := json.NewDecoder(bytes.NewReader(out))
		for dec.More() {
			var f field
			if err := dec.Decode(&f); err != nil {
				t.Fatalf("%s: %v in %s", tc.name, err, out)
			}
			got = append(got, f)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: Java Avro %s reads %s, want %d fields", tc.name, j.version, out, len(tc.want))
		}
		for i, w := range tc.want {
			g := got[i]
			if g.Field != w.Field || g.Value != w.Value || (g.LogicalType == nil) != (w.LogicalType == nil) || (g.LogicalType != nil && *g.LogicalType != *w.LogicalType) {
				t.Errorf("%s: Java Avro %s reads field %d as %s, want %+v (logical type %v)", tc.name, j.version, i, out, w, ptrString(w.LogicalType))
			}
		}
		t.Logf("%s: %s", tc.name, out)
	}
}

func ptrString(s *string) string {
	if s == nil {
		return "none"
	}
	return *s
}

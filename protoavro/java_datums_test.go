package protoavro

import (
	"bufio"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

type javaDatum struct {
	name        string
	proto, avro []byte
}

// readJavaDatums parses testdata/reference/avro2147/datums.txt.
func readJavaDatums(t testing.TB) []javaDatum {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "reference", "avro2147", "datums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []javaDatum
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# "):
			out = append(out, javaDatum{name: line[2:]})
		case strings.HasPrefix(line, "proto_hex: "):
			out[len(out)-1].proto = mustHex(t, line[len("proto_hex: "):])
		case strings.HasPrefix(line, "avro_hex: "):
			out[len(out)-1].avro = mustHex(t, line[len("avro_hex: "):])
		}
	}
	if len(out) == 0 {
		t.Fatal("no datums")
	}
	return out
}

func mustHex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// clearDefaults clears every set field equal to its default, recursively:
// the Java profile carries no presence, so a field explicitly set to its
// default decodes as unset.
func clearDefaults(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			if fd.Message() != nil {
				for i := range v.List().Len() {
					clearDefaults(v.List().Get(i).Message())
				}
			}
		case fd.Message() != nil:
			clearDefaults(v.Message())
		case fd.Cardinality() != protoreflect.Required && v.Equal(fd.Default()):
			m.Clear(fd)
		}
		return true
	})
}

func TestJavaProfileDatums(t *testing.T) {
	c, err := Options{Profile: JavaProfile}.Codec((&avro2147pb.Foo{}).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range readJavaDatums(t) {
		t.Run(d.name, func(t *testing.T) {
			msg := &avro2147pb.Foo{}
			if err := proto.Unmarshal(d.proto, msg); err != nil {
				t.Fatal(err)
			}
			got, err := c.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(got) != hex.EncodeToString(d.avro) {
				t.Errorf("Marshal:\ngot  %x\nwant %x", got, d.avro)
			}
			got, err = c.TranscodeToAvro(nil, d.proto)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(got) != hex.EncodeToString(d.avro) {
				t.Errorf("TranscodeToAvro:\ngot  %x\nwant %x", got, d.avro)
			}
			back := &avro2147pb.Foo{}
			if err := c.Unmarshal(d.avro, back); err != nil {
				t.Fatal(err)
			}
			want := proto.Clone(msg)
			clearDefaults(want.ProtoReflect())
			if !proto.Equal(back, want) {
				t.Errorf("Unmarshal:\ngot  %v\nwant %v", back, want)
			}
		})
	}
}

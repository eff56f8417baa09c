package protoavro

import (
	"encoding/hex"
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testutil"
	"google.golang.org/protobuf/proto"
)

// readJavaDatums returns the reference datums of
// testdata/reference/avro2147/datums.txt.
func readJavaDatums(t testing.TB) []testutil.ReferenceDatum {
	t.Helper()
	ds, err := testutil.ReferenceDatums()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestJavaProfileDatums(t *testing.T) {
	c := mustCodec(t, Options{Profile: JavaProfile}, &avro2147pb.Foo{})
	for _, d := range readJavaDatums(t) {
		t.Run(d.Name, func(t *testing.T) {
			msg := &avro2147pb.Foo{}
			if err := proto.Unmarshal(d.Proto, msg); err != nil {
				t.Fatal(err)
			}
			got, err := c.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(got) != hex.EncodeToString(d.Avro) {
				t.Errorf("Marshal:\ngot  %x\nwant %x", got, d.Avro)
			}
			got, err = c.TranscodeToAvro(nil, d.Proto)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(got) != hex.EncodeToString(d.Avro) {
				t.Errorf("TranscodeToAvro:\ngot  %x\nwant %x", got, d.Avro)
			}
			back := &avro2147pb.Foo{}
			if err := c.Unmarshal(d.Avro, back); err != nil {
				t.Fatal(err)
			}
			want := proto.Clone(msg)
			testutil.ClearDefaults(want.ProtoReflect())
			if !proto.Equal(back, want) {
				t.Errorf("Unmarshal:\ngot  %v\nwant %v", back, want)
			}
		})
	}
}

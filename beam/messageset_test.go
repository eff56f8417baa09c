package protoavrobeam

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/beam/internal/beamtest"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// TestConvertMessageSet: a type that reaches a MessageSet, which
// protobuf-go's descriptor builder refuses, converts on prism from its
// descriptor set as protoc writes it (the option kept) and as TypeOf gives
// it from the compiled .proto file: delimited records whose MessageSets
// hold items and JSON lines both come out of the shards, read by
// protoavro's reader as the shards embed their type, as the records with
// the MessageSets' items dropped (extensions are not part of the Avro
// data), as protoavro encode converts them. ReadAvro without a Type takes
// the type of a file that protoavro wrote, whose header embeds the
// MessageSet with its option.
func TestConvertMessageSet(t *testing.T) {
	file := testcompile.Sources(t, map[string]string{"msset.proto": testutil.MessageSetProto}, "msset.proto")[0]
	md := file.Messages().ByName("M")
	fromTypeOf, err := TypeOf(md, protoavro.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fdp := protodesc.ToFileDescriptorProto(file)
	if !fdp.GetMessageType()[0].GetOptions().GetMessageSetWireFormat() {
		t.Fatal("the compiled file lost message_set_wire_format: the test does not test MessageSets")
	}
	set, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{fdp}})
	if err != nil {
		t.Fatal(err)
	}
	fromSet := Type{Message: "msset.M", Descriptors: set, Options: protoavro.Options{}.String()}

	// Records: a MessageSet with items beyond and within the plain field
	// numbers, x, and MessageSets in a repeated field.
	tag := protowire.AppendTag
	var wire []byte
	wire = protowire.AppendBytes(tag(wire, 1, protowire.BytesType), append(testutil.MessageSetItem(1000000000), testutil.MessageSetItem(100)...))
	wire = protowire.AppendVarint(tag(wire, 2, protowire.VarintType), 1)
	wire = protowire.AppendBytes(tag(wire, 3, protowire.BytesType), testutil.MessageSetItem(100))
	wire = protowire.AppendBytes(tag(wire, 3, protowire.BytesType), nil)
	if err := proto.Unmarshal(wire, dynamicpb.NewMessage(md)); err != nil {
		t.Fatal(err)
	}
	in := t.TempDir()
	if err := os.WriteFile(filepath.Join(in, "m.delimited"), protowire.AppendBytes(nil, wire), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "m.jsonl"), []byte(`{"x":2}`+"\n"+`{"ms":{},"x":3}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// What the records hold once the items are dropped.
	want := map[int32]string{1: `ms:{} x:1 more:{} more:{}`, 2: `x:2`, 3: `ms:{} x:3`}

	out := t.TempDir()
	p, s := beam.NewPipelineWithRoot()
	for name, ty := range map[string]Type{"typeof": fromTypeOf, "set": fromSet} {
		for _, f := range []struct {
			format Format
			glob   string
		}{{Delimited, "m.delimited"}, {JSONLines, "m.jsonl"}} {
			if _, err := Convert(s, ty, f.format, filepath.Join(in, f.glob), filepath.Join(out, name+"-"+string(f.format)), WriteOptions{Shards: 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	// ReadAvro without a Type reads files that protoavro writes for the
	// type: their header embeds the MessageSet with its option.
	h, err := protoavro.ContainerHeader(md, protoavro.ContainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&readAvroFn{}).readerOptions(&ocf.Header{Metadata: h.Metadata}); err != nil {
		t.Errorf("ReadAvro of a file protoavro wrote: %v", err)
	}
	for name, records := range map[string]int{"typeof-delimited": 1, "set-delimited": 1, "typeof-jsonl": 2, "set-jsonl": 2} {
		n := 0
		beamtest.Each(t, ShardName(filepath.Join(out, name), 0, 1, ".avro"), func(_ *protoavro.ContainerReader, m proto.Message) {
			n++
			got := dynamicpb.NewMessage(md)
			b, _ := proto.Marshal(m)
			if err := proto.Unmarshal(b, got); err != nil {
				t.Fatal(err)
			}
			x := got.Get(md.Fields().ByName("x")).Int()
			w := dynamicpb.NewMessage(md)
			if err := prototext.Unmarshal([]byte(want[int32(x)]), w); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got, w) {
				t.Errorf("%s: record %v, want %s", name, got, want[int32(x)])
			}
		})
		if n != records {
			t.Errorf("%s: %d records, want %d", name, n, records)
		}
	}
}

package pbjson

import (
	"os"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
)

// BenchmarkAVRO2147 converts the records of testdata/avro2147.delimited
// (1,000 AVRO-2147 messages) both ways, beside protojson's generic path on
// dynamicpb messages (what the command did before):
//
//	go test -run '^$' -bench . -benchmem -count 6 ./internal/pbjson | tee pbjson.txt
//	benchstat pbjson.txt
func BenchmarkAVRO2147(b *testing.B) {
	data, err := os.ReadFile("../../testdata/avro2147.delimited")
	if err != nil {
		b.Fatal(err)
	}
	var wires, texts [][]byte
	size, tsize := 0, 0
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	for len(data) > 0 {
		n, k := protowire.ConsumeVarint(data)
		wires = append(wires, data[k:k+int(n)])
		data = data[k+int(n):]
		m := dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(wires[len(wires)-1], m); err != nil {
			b.Fatal(err)
		}
		t, err := protojson.Marshal(m)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, t)
		size += int(n)
		tsize += len(t)
	}
	p := Compile(md, Options{})
	var buf []byte
	bench := func(name string, n int, op func(i int) bool) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				for i := range wires {
					if !op(i) {
						b.Fatal("declined")
					}
				}
			}
		})
	}
	bench("AppendJSON", tsize, func(i int) (ok bool) { buf, ok = p.AppendJSON(buf[:0], wires[i]); return ok })
	bench("AppendWire", tsize, func(i int) (ok bool) { buf, ok = p.AppendWire(buf[:0], texts[i]); return ok })
	m := dynamicpb.NewMessage(md)
	bench("protojson.Marshal", tsize, func(i int) bool { return slow(md, m, wires[i], &buf, true) })
	bench("protojson.Unmarshal", tsize, func(i int) bool { return slow(md, m, texts[i], &buf, false) })
}

// slow is the generic path: proto.Unmarshal and protojson.Marshal, or
// protojson.Unmarshal and deterministic proto.Marshal.
func slow(md protoreflect.MessageDescriptor, m *dynamicpb.Message, in []byte, buf *[]byte, toJSON bool) bool {
	var err error
	if toJSON {
		if err = proto.Unmarshal(in, m); err == nil {
			*buf, err = protojson.MarshalOptions{}.MarshalAppend((*buf)[:0], m)
		}
		return err == nil
	}
	if err = protojson.Unmarshal(in, m); err == nil {
		*buf, err = proto.MarshalOptions{Deterministic: true}.MarshalAppend((*buf)[:0], m)
	}
	return err == nil
}

package pbjson

import (
	"fmt"
	"os"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testutil"
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

// BenchmarkMaps formats, with a Formatter, the records of
// protoavro.test.kitchen.Maps (a map of every key kind) from a corpus of
// edge-value and random messages, and one record of a map of 1,000
// distinct string keys.
func BenchmarkMaps(b *testing.B) {
	md := testutil.FindMessage(kitchen(b).ParentFile(), "protoavro.test.kitchen.Maps")
	p := Compile(md, Options{})
	var wires [][]byte
	for _, m := range testutil.Corpus(md, testutil.CorpusConfig{Edges: 2, Random: 50}, testutil.Nanos, "bench") {
		w, err := deterministic.Marshal(m)
		if err != nil {
			b.Fatal(err)
		}
		wires = append(wires, w)
	}
	var large []byte
	for i := range 1000 {
		large = appendEntry(large, 12, protowire.BytesType, fmt.Appendf(nil, "key%04d", (i*7919)%1000), fmt.Appendf(nil, "v%d", i))
	}
	f := p.Formatter()
	var buf []byte
	run := func(name string, wires [][]byte) {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				for _, w := range wires {
					var ok bool
					if buf, ok = f.AppendJSON(buf[:0], w); !ok {
						b.Fatal("declined")
					}
				}
			}
		})
	}
	run("corpus", wires)
	run("1000keys", [][]byte{large})
}

// appendEntry appends a map entry of field num with the key and value of
// wire type t (a varint's value as its protowire.AppendVarint bytes).
func appendEntry(dst []byte, num protowire.Number, t protowire.Type, key, value []byte) []byte {
	var e []byte
	e = appendEntryField(e, 1, t, key)
	e = appendEntryField(e, 2, t, value)
	dst = protowire.AppendTag(dst, num, protowire.BytesType)
	return protowire.AppendBytes(dst, e)
}

// appendEntryField appends field num of a map entry, of wire type t, with
// the value v (a varint's or a fixed number's bytes, or the contents of
// a length-delimited value); nil omits the field.
func appendEntryField(dst []byte, num protowire.Number, t protowire.Type, v []byte) []byte {
	if v == nil {
		return dst
	}
	dst = protowire.AppendTag(dst, num, t)
	if t == protowire.BytesType {
		return protowire.AppendBytes(dst, v)
	}
	return append(dst, v...)
}

// Benchmarks of the AVRO-2147 case: the message Foo, which holds a nested
// message with a 676-symbol enum. Apache Avro Java once rebuilt that nested
// schema on every datum; protoavro derives it once and reuses it.
//
// Run them side by side and compare ratios within one run:
//
//	go test -run '^$' -bench AVRO2147 -benchmem -count 10 . | tee bench.txt
//	benchstat bench.txt
//
// The comparisons with other Go Avro libraries (linkedin/goavro, hamba/avro)
// are in the nested module bench/, so that those benchmarks' dependencies stay
// out of the library's go.mod:
//
//	cd bench && go test -run '^$' -bench AVRO2147 -benchmem -count 10 .
package protoavro_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/protoavro"
	"google.golang.org/protobuf/proto"
)

func BenchmarkAVRO2147(b *testing.B) {
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()

	// SchemaCached: a lookup in the cache after the first derivation.
	b.Run("SchemaCached", func(b *testing.B) {
		if _, err := protoavro.SchemaOf(md); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := protoavro.SchemaOf(md); err != nil {
				b.Fatal(err)
			}
		}
	})

	msg := benchDatum()
	zz := benchDatum()
	zz.Bar.Enum = avro2147pb.LargeEnum_ZZ.Enum()
	codec, err := protoavro.Options{}.Codec(md)
	if err != nil {
		b.Fatal(err)
	}
	wire, err := proto.Marshal(msg)
	if err != nil {
		b.Fatal(err)
	}
	data, err := codec.Marshal(msg)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 256)

	// Baselines: protobuf's own marshalling of the same message.
	b.Run("ProtoMarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if buf, err = (proto.MarshalOptions{}).MarshalAppend(buf[:0], msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ProtoUnmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := proto.Unmarshal(wire, &avro2147pb.Foo{}); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if buf, err = codec.MarshalAppend(buf[:0], msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	// MarshalViaWire: the alternative implementation measured against the
	// direct writer: proto.Marshal, then the wire-to-Avro transcoder (the
	// path dynamicpb messages take).
	b.Run("MarshalViaWire", func(b *testing.B) {
		b.ReportAllocs()
		var w []byte
		for b.Loop() {
			if w, err = (proto.MarshalOptions{}).MarshalAppend(w[:0], msg); err != nil {
				b.Fatal(err)
			}
			if buf, err = codec.TranscodeToAvro(buf[:0], w); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("MarshalZZ", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if buf, err = codec.MarshalAppend(buf[:0], zz); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := codec.Unmarshal(data, &avro2147pb.Foo{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("TranscodeToAvro", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if buf, err = codec.TranscodeToAvro(buf[:0], wire); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("TranscodeToProto", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if buf, err = codec.TranscodeToProto(buf[:0], data); err != nil {
				b.Fatal(err)
			}
		}
	})

	// MarshalUncached: schema and codec derived for every datum, as
	// Apache Avro Java did before the AVRO-2147 fix.
	b.Run("MarshalUncached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, err := protoavro.Options{Cache: protoavro.NewCache()}.Codec(md)
			if err != nil {
				b.Fatal(err)
			}
			if buf, err = c.MarshalAppend(buf[:0], msg); err != nil {
				b.Fatal(err)
			}
		}
	})

	// SchemaUncached: the whole derivation, nested record and 676-symbol
	// enum included, with a fresh cache each time (what AVRO-2147 did per datum).
	b.Run("SchemaUncached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := (protoavro.Options{Cache: protoavro.NewCache()}).Schema(md); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchDatum is the AVRO-2147 datum of testdata/reference/avro2147/figures.md.
func benchDatum() *avro2147pb.Foo {
	return &avro2147pb.Foo{
		Int32: proto.Int32(0), Int64: proto.Int64(2), Uint32: proto.Uint32(3), Uint64: proto.Uint64(4),
		Sint32: proto.Int32(5), Sint64: proto.Int64(6), Fixed32: proto.Uint32(7), Fixed64: proto.Uint64(8),
		Sfixed32: proto.Int32(9), Sfixed64: proto.Int64(10), Float: proto.Float32(1), Double: proto.Float64(2),
		Bool: proto.Bool(true), String_: proto.String("foo"), Bytes: []byte("bar"),
		Enum: avro2147pb.A_X.Enum(), IntArray: []int32{27}, Syms: []avro2147pb.A{avro2147pb.A_Y},
		Bar: &avro2147pb.MessageWithLargeEnum{Enum: avro2147pb.LargeEnum_AA.Enum()},
	}
}

// BenchmarkAVRO2147Parallel marshals and unmarshals through one shared codec
// from every core.
func BenchmarkAVRO2147Parallel(b *testing.B) {
	codec, err := protoavro.Options{}.Codec((&avro2147pb.Foo{}).ProtoReflect().Descriptor())
	if err != nil {
		b.Fatal(err)
	}
	msg := benchDatum()
	data, err := codec.Marshal(msg)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Marshal", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			buf := make([]byte, 0, 256)
			for pb.Next() {
				var err error
				if buf, err = codec.MarshalAppend(buf[:0], msg); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := codec.Unmarshal(data, &avro2147pb.Foo{}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkContainer writes and reads container files of varied Foo records
// with each block codec. SetBytes is the size of the records' protobuf
// encoding, so MB/s compares with the input a pipeline holds.
func BenchmarkContainer(b *testing.B) {
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	const n = 10000
	msgs := make([][]byte, n)
	wireBytes := 0
	for i := range msgs {
		m := benchDatum()
		m.Int32 = proto.Int32(int32(i))
		m.Bar.Enum = avro2147pb.LargeEnum(1 + i%676).Enum()
		m.IntArray = append(m.IntArray, int32(i*7), int32(-i))
		msgs[i], _ = proto.Marshal(m)
		wireBytes += len(msgs[i])
	}
	for _, comp := range []protoavro.Compression{protoavro.CompressionNull, protoavro.CompressionDeflate, protoavro.CompressionSnappy, protoavro.CompressionZstd} {
		var file bytes.Buffer
		b.Run("Write/"+string(comp), func(b *testing.B) {
			b.SetBytes(int64(wireBytes))
			b.ReportAllocs()
			for b.Loop() {
				file.Reset()
				w, err := protoavro.NewContainerWriter(&file, md, protoavro.ContainerOptions{Compression: comp})
				if err != nil {
					b.Fatal(err)
				}
				for _, wire := range msgs {
					if err := w.WriteWire(wire); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
		data := bytes.Clone(file.Bytes())
		b.Run("Read/"+string(comp), func(b *testing.B) {
			b.SetBytes(int64(wireBytes))
			benchReadWire(b, data, n, protoavro.ReaderOptions{})
		})
	}
}

// BenchmarkContainerReadWorkers reads a 200,000-record zstd file of the
// AVRO-2147 datum with the sequential reader and with 2 workers
// (ReaderOptions.Workers), the library side of `protoavro decode --workers`:
//
//	go test -run '^$' -bench ContainerReadWorkers -benchmem -count 6 . | tee read.txt
func BenchmarkContainerReadWorkers(b *testing.B) {
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	const n = 200_000
	var file bytes.Buffer
	w, err := protoavro.NewContainerWriter(&file, md, protoavro.ContainerOptions{Compression: protoavro.CompressionZstd})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		m := benchDatum()
		m.Int32 = proto.Int32(int32(i))
		m.Bar.Enum = avro2147pb.LargeEnum(1 + i%676).Enum()
		if err := w.Write(m); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	data := file.Bytes()
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			benchReadWire(b, data, n, protoavro.ReaderOptions{Workers: workers})
		})
	}
}

// benchReadWire reads the n records of the Foo container file data as wire
// bytes, per iteration.
func benchReadWire(b *testing.B, data []byte, n int, opts protoavro.ReaderOptions) {
	b.ReportAllocs()
	opts.Message = (&avro2147pb.Foo{}).ProtoReflect().Type()
	var wire []byte
	for b.Loop() {
		r, err := protoavro.NewContainerReader(bytes.NewReader(data), opts)
		if err != nil {
			b.Fatal(err)
		}
		for range n {
			if wire, err = r.ReadWire(wire[:0]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

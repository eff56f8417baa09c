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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/tracepb"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func BenchmarkAVRO2147(b *testing.B) {
	msg := testutil.AVRO2147Datum()
	md := msg.ProtoReflect().Descriptor()
	zz := testutil.AVRO2147Datum()
	zz.Bar.Enum = avro2147pb.LargeEnum_ZZ.Enum()
	codec, err := protoavro.Options{}.Codec(md)
	if err != nil {
		b.Fatal(err)
	}
	wire, werr := proto.Marshal(msg)
	data, derr := codec.Marshal(msg)
	if err := errors.Join(werr, derr); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 256)
	var w []byte

	// Each case is one operation on the datum, run in b.Loop with allocations
	// reported; the operations that append reuse buf.
	ops := []benchOp{
		// SchemaCached: a lookup in the cache after the first derivation
		// (the codec above made it).
		{"SchemaCached", func() error { _, err := protoavro.SchemaOf(md); return err }},

		// MarshalViaWire: the alternative implementation measured against the
		// direct writer: proto.Marshal, then the wire-to-Avro transcoder (the
		// path dynamicpb messages take).
		{"MarshalViaWire", func() error {
			if w, err = (proto.MarshalOptions{}).MarshalAppend(w[:0], msg); err != nil {
				return err
			}
			buf, err = codec.TranscodeToAvro(buf[:0], w)
			return err
		}},
		{"MarshalZZ", func() error { buf, err = codec.MarshalAppend(buf[:0], zz); return err }},

		// MarshalUncached: schema and codec derived for every datum, as
		// Apache Avro Java did before the AVRO-2147 fix.
		{"MarshalUncached", func() error {
			c, err := protoavro.Options{Cache: protoavro.NewCache()}.Codec(md)
			if err != nil {
				return err
			}
			buf, err = c.MarshalAppend(buf[:0], msg)
			return err
		}},

		// SchemaUncached: the whole derivation, nested record and 676-symbol
		// enum included, with a fresh cache each time (what AVRO-2147 did per
		// datum).
		{"SchemaUncached", func() error { _, err := (protoavro.Options{Cache: protoavro.NewCache()}).Schema(md); return err }},
	}
	for _, bc := range append(ops, codecOps(codec, msg, wire, data, 256)...) {
		runOp(b, bc.name, 0, bc.op)
	}
}

// benchOp is one operation of a benchmark, run by runOp.
type benchOp struct {
	name string
	op   func() error
}

// codecOps are the operations of BenchmarkAVRO2147 and BenchmarkOTLPTraces
// on msg, whose protobuf encoding is wire and Avro datum data: the
// baselines, protobuf's own marshalling of msg; codec's marshalling and
// transcoding; and the floors, a bare descriptor-driven walk over the
// protobuf bytes that produces nothing, and a plain copy of them. The
// operations that append reuse one buffer of capacity bufCap.
func codecOps(codec *protoavro.Codec, msg proto.Message, wire, data []byte, bufCap int) []benchOp {
	buf := make([]byte, 0, bufCap)
	var err error
	md := msg.ProtoReflect().Descriptor()
	newMsg := msg.ProtoReflect().Type().New
	return []benchOp{
		{"ProtoMarshal", func() error { buf, err = (proto.MarshalOptions{}).MarshalAppend(buf[:0], msg); return err }},
		{"ProtoUnmarshal", func() error { return proto.Unmarshal(wire, newMsg().Interface()) }},
		{"Marshal", func() error { buf, err = codec.MarshalAppend(buf[:0], msg); return err }},
		{"Unmarshal", func() error { return codec.Unmarshal(data, newMsg().Interface()) }},
		{"TranscodeToAvro", func() error { buf, err = codec.TranscodeToAvro(buf[:0], wire); return err }},
		{"TranscodeToProto", func() error { buf, err = codec.TranscodeToProto(buf[:0], data); return err }},
		{"Walk", newWireWalker(md).walkOp(wire)},
		{"Copy", func() error { buf = append(buf[:0], wire...); return nil }},
	}
}

// runOp runs one operation as a sub-benchmark with allocations reported, and
// bytes per operation when size > 0.
func runOp(b *testing.B, name string, size int, op func() error) {
	b.Run(name, func(b *testing.B) {
		if size > 0 {
			b.SetBytes(int64(size))
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := op(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAVRO2147Parallel marshals and unmarshals through one shared codec
// from every core.
func BenchmarkAVRO2147Parallel(b *testing.B) {
	codec, err := protoavro.Options{}.Codec((&avro2147pb.Foo{}).ProtoReflect().Descriptor())
	if err != nil {
		b.Fatal(err)
	}
	msg := testutil.AVRO2147Datum()
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
		m := testutil.AVRO2147Datum()
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
				if err := writeContainer(&file, md, protoavro.ContainerOptions{Compression: comp}, msgs); err != nil {
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
	msgs := make([][]byte, n)
	for i := range msgs {
		m := testutil.AVRO2147Datum()
		m.Int32 = proto.Int32(int32(i))
		m.Bar.Enum = avro2147pb.LargeEnum(1 + i%676).Enum()
		msgs[i], _ = proto.Marshal(m)
	}
	var file bytes.Buffer
	if err := writeContainer(&file, md, protoavro.ContainerOptions{Compression: protoavro.CompressionZstd}, msgs); err != nil {
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

// writeContainer writes the protobuf-encoded records msgs to file as one
// container file.
func writeContainer(file *bytes.Buffer, md protoreflect.MessageDescriptor, opts protoavro.ContainerOptions, msgs [][]byte) error {
	w, err := protoavro.NewContainerWriter(file, md, opts)
	if err != nil {
		return err
	}
	for _, wire := range msgs {
		if err := w.WriteWire(wire); err != nil {
			return err
		}
	}
	return w.Close()
}

// BenchmarkOTLPTraces measures a real-world datum: one OpenTelemetry
// TracesData batch of 512 spans with attributes, events and links
// (testdata/otlp_traces.pb, written by internal/cmd/genotlp), beside
// protobuf's own marshalling of the same batch:
//
//	go test -run '^$' -bench OTLPTraces -benchmem -count 10 . | tee otlp.txt
//	benchstat otlp.txt
func BenchmarkOTLPTraces(b *testing.B) {
	wire, err := os.ReadFile(filepath.Join("testdata", "otlp_traces.pb"))
	if err != nil {
		b.Fatal(err)
	}
	msg := &tracepb.TracesData{}
	if err := proto.Unmarshal(wire, msg); err != nil {
		b.Fatal(err)
	}
	codec, err := protoavro.Options{}.Codec(msg.ProtoReflect().Descriptor())
	if err != nil {
		b.Fatal(err)
	}
	data, err := codec.Marshal(msg)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range codecOps(codec, msg, wire, data, 2*max(len(wire), len(data))) {
		runOp(b, bc.name, len(wire), bc.op)
	}
}

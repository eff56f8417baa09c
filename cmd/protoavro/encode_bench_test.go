package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/records"
)

// BenchmarkEncodeParts compares `protoavro encode --codec null --workers 1`
// on 100,000 AVRO-2147 records (the sample ×100) with the sum of its parts
// done in one goroutine in the same run: reading the length-delimited input
// and TranscodeToAvro of every record. The goal, stated with the others in
// internal/cmd/benchreport: the command within 1.5× of its parts.
//
//	go test -run '^$' -bench EncodeParts -benchmem -count 10 ./cmd/protoavro | tee parts.txt
//	benchstat parts.txt
func BenchmarkEncodeParts(b *testing.B) {
	sample, err := os.ReadFile(sampleFile)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	in := filepath.Join(dir, "in.delimited")
	if err := os.WriteFile(in, bytes.Repeat(sample, 100), 0o644); err != nil {
		b.Fatal(err)
	}
	size := int64(len(sample)) * 100
	out := filepath.Join(dir, "out.avro")

	b.Run("Command", func(b *testing.B) {
		b.SetBytes(size)
		args := encodeArgs("--in", in, "--out", out, "--codec", "null", "--workers", "1")
		for b.Loop() {
			var stderr bytes.Buffer
			if code := run(args, nil, io.Discard, &stderr); code != 0 {
				b.Fatalf("encode: exit code %d: %s", code, stderr.String())
			}
		}
	})
	b.Run("Parts", func(b *testing.B) {
		b.SetBytes(size)
		codec, err := protoavro.Options{}.Codec((&avro2147pb.Foo{}).ProtoReflect().Descriptor())
		if err != nil {
			b.Fatal(err)
		}
		var buf []byte
		for b.Loop() {
			f, err := os.Open(in)
			if err != nil {
				b.Fatal(err)
			}
			d := records.NewDelimited(f)
			n := 0
			for {
				rec, _, err := d.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				if buf, err = codec.TranscodeToAvro(buf[:0], rec); err != nil {
					b.Fatal(err)
				}
				n++
			}
			f.Close()
			if n != 100_000 {
				b.Fatalf("%d records", n)
			}
		}
	})
}

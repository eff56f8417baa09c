package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/tracepb"
)

// benchInput is a record stream of BenchmarkFormats: the same records in
// both formats and as an Avro container file.
type benchInput struct {
	name    string
	types   []string // the type flags
	records int
	dir     string
}

// avro2147Input is testdata/avro2147.delimited (1,000 records) × 20.
func avro2147Input(b *testing.B) benchInput {
	one, err := os.ReadFile("../../testdata/avro2147.delimited")
	if err != nil {
		b.Fatal(err)
	}
	in := benchInput{name: "avro2147", types: []string{"-I", "../../testdata/proto", "-m", "protoavro.avro2147.Foo", "avro2147.proto"},
		records: 20 * 1000, dir: b.TempDir()}
	in.write(b, bytes.Repeat(one, 20))
	return in
}

// otlpInput is the spans of testdata/otlp_traces.pb (512 spans with
// attributes, events and links) × 40, one Span per record.
func otlpInput(b *testing.B) benchInput {
	wire, err := os.ReadFile("../../testdata/otlp_traces.pb")
	if err != nil {
		b.Fatal(err)
	}
	var td tracepb.TracesData
	if err := proto.Unmarshal(wire, &td); err != nil {
		b.Fatal(err)
	}
	var one []byte
	n := 0
	for _, rs := range td.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				w, err := proto.MarshalOptions{Deterministic: true}.Marshal(s)
				if err != nil {
					b.Fatal(err)
				}
				one = protowire.AppendVarint(one, uint64(len(w)))
				one = append(one, w...)
				n++
			}
		}
	}
	in := benchInput{name: "otlp-spans", types: []string{"-I", "../../third_party/opentelemetry-proto", "-m", "opentelemetry.proto.trace.v1.Span",
		"opentelemetry/proto/trace/v1/trace.proto"}, records: 40 * n, dir: b.TempDir()}
	in.write(b, bytes.Repeat(one, 40))
	return in
}

// path returns the input's file of the given name.
func (in benchInput) path(name string) string { return filepath.Join(in.dir, name) }

// write writes the delimited records and makes the other files from them
// with the command: in.avro, and in.jsonl decoded from it.
func (in benchInput) write(b *testing.B, delimited []byte) {
	if err := os.WriteFile(in.path("in.delimited"), delimited, 0o644); err != nil {
		b.Fatal(err)
	}
	benchRun(b, append(append([]string{"encode"}, in.types...), "--in", in.path("in.delimited"), "--out", in.path("in.avro")))
	benchRun(b, []string{"decode", "--in", in.path("in.avro"), "--format", "jsonl", "--out", in.path("in.jsonl")})
}

// benchRun runs the command, failing b if it fails.
func benchRun(b *testing.B, args []string) {
	var stderr bytes.Buffer
	if code := run(args, bytes.NewReader(nil), io.Discard, &stderr); code != 0 {
		b.Fatalf("protoavro %v: exit %d: %s", args, code, stderr.Bytes())
	}
}

// BenchmarkFormats measures encode and decode of the same records as
// length-delimited protobuf and as JSON Lines, in process (the goal: JSON
// Lines within 3× of delimited, both directions):
//
//	go test -run '^$' -bench Formats -benchmem -count 6 ./cmd/protoavro | tee formats.txt
//	benchstat formats.txt
func BenchmarkFormats(b *testing.B) {
	for _, in := range []benchInput{avro2147Input(b), otlpInput(b)} {
		for _, workers := range []int{1, 2} {
			for _, op := range []string{"encode", "decode"} {
				for _, format := range []string{"delimited", "jsonl"} {
					var args []string
					size := int64(0)
					if op == "encode" {
						args = append(append([]string{"encode"}, in.types...), "--in", in.path("in."+format),
							"--format", format, "--out", in.path("out.avro"))
						st, err := os.Stat(in.path("in." + format))
						if err != nil {
							b.Fatal(err)
						}
						size = st.Size()
					} else {
						args = []string{"decode", "--in", in.path("in.avro"), "--format", format, "--out", in.path("out." + format)}
						st, err := os.Stat(in.path("in.avro"))
						if err != nil {
							b.Fatal(err)
						}
						size = st.Size()
					}
					args = append(args, "--workers", fmt.Sprint(workers))
					b.Run(fmt.Sprintf("%s/workers=%d/%s/%s", in.name, workers, op, format), func(b *testing.B) {
						b.SetBytes(size)
						for b.Loop() {
							benchRun(b, args)
						}
						b.ReportMetric(float64(in.records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
					})
				}
			}
		}
	}
}

// BenchmarkDecodeSkipBad measures decode of a sound file with and without
// --skip-bad, with 1 and 2 workers: salvaging costs nothing until there is
// damage, and its reading is parallel too.
//
//	go test -run '^$' -bench DecodeSkipBad -benchmem -count 6 ./cmd/protoavro | tee skipbad.txt
func BenchmarkDecodeSkipBad(b *testing.B) {
	in := avro2147Input(b)
	st, err := os.Stat(in.path("in.avro"))
	if err != nil {
		b.Fatal(err)
	}
	for _, format := range []string{"delimited", "jsonl"} {
		for _, workers := range []int{1, 2} {
			for _, skip := range []bool{false, true} {
				args := []string{"decode", "--in", in.path("in.avro"), "--format", format, "--out", in.path("out"), "--workers", fmt.Sprint(workers)}
				if skip {
					args = append(args, "--skip-bad")
				}
				b.Run(fmt.Sprintf("%s/workers=%d/skip-bad=%v", format, workers, skip), func(b *testing.B) {
					b.SetBytes(st.Size())
					for b.Loop() {
						benchRun(b, args)
					}
					b.ReportMetric(float64(in.records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
				})
			}
		}
	}
}

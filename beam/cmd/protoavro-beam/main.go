// Command protoavro-beam converts protobuf files to sharded Avro container
// files on Apache Beam: on the prism runner in this process by default, or
// on Dataflow, Flink or Spark with the standard Beam flags.
//
// Usage:
//
//	protoavro-beam --input GLOB --output PREFIX [--format delimited|jsonl]
//	    [--shards N] [--codec null|deflate|snappy|zstd] [--profile default|java]
//	    [-I DIR]... [--descriptor-set FILE]... -m FULL.NAME [FILE.proto...]
//	    [Beam flags: --runner, --endpoint, --environment_type, --project, ...]
//
// It reads the files matching --input (length-delimited protobuf, or JSON
// Lines of protojson objects with --format jsonl), converts every record to
// Avro and writes --shards files PREFIX-SSSSS-of-NNNNN.avro, each a complete
// container file with the schema, the message type and its descriptors in
// its header. The message type comes from .proto files compiled in-process
// (-I import paths, standard imports built in) or from a serialized
// FileDescriptorSet (protoc -o, buf build -o).
//
// Example, from the repository root (prism, in process):
//
//	cd beam && go run ./cmd/protoavro-beam -I ../testdata/proto -m protoavro.avro2147.Foo \
//	    --input '../testdata/avro2147.delimited' --output /tmp/foo --shards 2 avro2147.proto
//
// Exit status: 0 success, 1 a failed pipeline, 2 a usage error.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	protoavrobeam "github.com/protoavro/protoavro/beam"
	"github.com/protoavro/protoavro/internal/protoload"
	"github.com/protoavro/protoavro/internal/usage"
	"github.com/protoavro/protoavro/protoavro"
)

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

var (
	input    = flag.String("input", "", "`GLOB` of the input files (any Beam filesystem: a local path, gs://...)")
	output   = flag.String("output", "", "`PREFIX` of the output files: PREFIX-SSSSS-of-NNNNN.avro")
	format   = flag.String("format", "delimited", "input format: delimited (length-delimited protobuf) or jsonl (protojson lines)")
	shards   = flag.Int("shards", 1, "number of output files")
	codec    = flag.String("codec", "null", "block codec: null, deflate, snappy or zstd")
	profile  = flag.String("profile", "default", "mapping profile: default or java")
	message  = new(string)
	cpuprof  = flag.String("cpuprofile", "", "write a CPU profile of this process (prism and the loopback worker run in it) to `FILE`")
	imports  stringList
	descSets stringList
)

func init() {
	protoload.RegisterFlags(flag.CommandLine, &imports, &descSets, message)
}

func main() {
	flag.Parse()
	beam.Init()
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "protoavro-beam:", err)
		if usage.Is(err) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	if *input == "" || *output == "" {
		return usage.Errorf("--input and --output are required")
	}
	if *shards < 1 {
		return usage.Errorf("--shards %d: want at least 1", *shards)
	}
	comp, err := protoavro.ParseCompression(*codec)
	if err != nil {
		return usage.Wrap(err)
	}
	prof, err := protoavro.ParseProfile(*profile)
	if err != nil {
		return usage.Wrap(err)
	}
	md, err := protoload.Resolve(ctx, protoload.Input{
		Protos:         flag.Args(),
		ImportPaths:    imports,
		DescriptorSets: descSets,
		Message:        *message,
	})
	if err != nil {
		return usage.Wrap(err)
	}
	t, err := protoavrobeam.TypeOf(md, protoavro.Options{Profile: prof})
	if err != nil {
		return usage.Wrap(err)
	}
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			return usage.Wrap(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	p, s := beam.NewPipelineWithRoot()
	if _, err := protoavrobeam.Convert(s, t, protoavrobeam.Format(*format), *input, *output,
		protoavrobeam.WriteOptions{Shards: *shards, Compression: comp}); err != nil {
		return usage.Wrap(err)
	}
	if err := beamx.Run(ctx, p); err != nil {
		return fmt.Errorf("pipeline failed: %w", err)
	}
	return nil
}

package main

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/protoavro"
)

// decodeCommand is "protoavro decode": an Avro container file to protobuf
// records.
var decodeCommand = &command{
	name:    "decode",
	summary: "convert an Avro container file to protobuf records",
	usage:   decodeUsage,
	run:     runDecode,
}

// decodeUsage is the help text of "protoavro decode".
var decodeUsage = `Usage: protoavro decode [--in FILE|-] [--out FILE|-] [--format delimited|jsonl]
                       [-I DIR]... [--descriptor-set FILE]... [-m NAME] [FILE.proto...]
                       [--workers N] [--progress]

Convert an Avro Object Container File to a stream of protobuf messages.

Without type flags the records are read as the message type embedded in the
file by "protoavro encode" (no .proto files needed). With -m (and .proto
files or --descriptor-set) they are read into that message type instead,
for example a newer version of it: Avro's schema resolution fills fields
the file lacks with their defaults and drops fields the type lacks. That is
also how to read a container file written by another program.

Output formats:
  delimited  Length-delimited protobuf: each message preceded by its size as
             a varint (Go's protodelim, Java's parseDelimitedFrom). Messages
             are marshalled deterministically. Default.
  jsonl      JSON Lines: one compact protobuf JSON (protojson) object per line.

Flags:
  --in FILE              Input file; "-" (the default) is standard input.
  --out FILE             Output file; "-" (the default) is standard output.
                         A file is written under a temporary name in the
                         same directory and renamed when the command
                         succeeds; on failure nothing is created and an
                         existing file is left unchanged.
  --format FORMAT        Output format: delimited (default) or jsonl.
` + strings.Replace(typeFlagsUsage, "                         Required.\n",
	"                         Optional: without it the type embedded in the\n                         file is used.\n", 1) + `  --workers N            Goroutines that decompress and decode blocks, and
                         that format records. Default: GOMAXPROCS (the
                         number of CPUs).
  --progress             Show progress on standard error (records, bytes
                         read, rate, and an ETA when the input is a regular
                         file). On by default when standard error is a
                         terminal; --progress=false turns it off.
  -h, --help             Print this help.

On success a one-line summary goes to standard error. Exit status is 0 on
success, 1 for a damaged or unreadable container file, and 2 for a bad
command line or input that cannot be loaded.
`

// runDecode implements "protoavro decode".
func runDecode(args []string, std stdio) error {
	fs := newFlagSet("decode")
	var types typeFlags
	types.register(fs)
	var (
		format  formatFlag
		prog    progressFlag
		workers = intFlag{n: runtime.GOMAXPROCS(0), min: 1}
	)
	fs.Var(&format, "format", "output format: delimited or jsonl")
	fs.Var(&workers, "workers", "formatting goroutines")
	fs.Var(&prog, "progress", "show progress")
	inPath := fs.String("in", "-", "input file")
	outPath := fs.String("out", "-", "output file")
	positional, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := checkPaths(*inPath, *outPath, ""); err != nil {
		return err
	}
	if format.f == formatDelimited {
		if err := checkTerminal(*outPath, std, "protobuf"); err != nil {
			return err
		}
	}
	ropts := protoavro.ReaderOptions{Options: protoavro.Options{Cache: protoavro.NewCache()}}
	explicit := types.message != "" || len(positional) > 0 || len(types.descriptorSets) > 0 || len(types.importPaths) > 0
	if explicit {
		md, err := types.resolve(positional)
		if err != nil {
			return err
		}
		ropts.Message = dynamicpb.NewMessageType(md)
	}
	start := time.Now()
	in, err := openInput(*inPath, "--in", std)
	if err != nil {
		return err
	}
	defer in.close()
	// With an explicit type, the mapping options are still the file's.
	ropts.FileOptions = true
	ropts.Workers = workers.n
	cr, err := protoavro.NewContainerReader(in.r, ropts)
	if err != nil {
		return fmt.Errorf("%s: %w", in.name, stripPrefix(err))
	}
	out, err := createOutput(*outPath, std)
	if err != nil {
		return err
	}
	defer out.abort()
	p := startProgress(std, prog, "decoding", in.size, start)
	err = decodeRecords(cr, in.name, out, format.f, workers.n, p, std)
	p.finish()
	if err != nil {
		return err
	}
	if err := out.commit(); err != nil {
		return err
	}
	fmt.Fprintf(std.err, "protoavro: decoded %s (%s in, %s out, %s, %s) in %s\n",
		plural(cr.Records(), "record"), formatBytes(cr.Offset()), formatBytes(out.written()),
		plural(cr.Blocks(), "block"), cr.Compression(), formatDuration(time.Since(start)))
	return nil
}

// decodeRecords reads every record of cr and writes it to out. Records are
// read as wire bytes, which are those of deterministic proto.Marshal, and
// written length-delimited as they are, or, on worker goroutines, parsed
// and formatted as JSON.
// Errors of the input start with its name.
func decodeRecords(cr *protoavro.ContainerReader, name string, out *output, format recordFormat, workers int, p *progress, std stdio) error {
	fresh := func() *decodeBatch { return &decodeBatch{m: cr.NewMessage()} }
	reset := func(b *decodeBatch) {
		b.first, b.wire, b.ends, b.out, b.err = cr.Records(), b.wire[:0], b.ends[:0], b.out[:0], nil
	}
	add := func(b *decodeBatch) (int, int, error) {
		var err error
		if b.wire, err = cr.ReadWire(b.wire); err != nil {
			if err == io.EOF {
				return 0, 0, err
			}
			return 0, 0, fmt.Errorf("%s: %w", name, stripPrefix(err))
		}
		b.ends = append(b.ends, len(b.wire))
		p.update(cr.Records(), cr.Offset())
		return len(b.ends), len(b.wire), nil
	}
	take := func(b *decodeBatch) error {
		if b.err != nil {
			return b.err
		}
		if _, err := out.Write(b.out); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
		return nil
	}
	work := func(b *decodeBatch) { b.err = b.format(format) }
	return runBatches(std.ctx.Done(), workers, work, fresh, reset, add, take)
}

// decodeBatch is a run of records that a worker formats.
type decodeBatch struct {
	// first is the index of the first record.
	first int64
	// wire holds the records' wire bytes; ends[i] is the end of record i.
	wire []byte
	ends []int
	// out is the formatted records.
	out []byte
	err error
	m   proto.Message
}

// format parses each record of b into b.m and appends it to b.out in the
// output format. It runs on a worker goroutine.
func (b *decodeBatch) format(format recordFormat) error {
	start := 0
	for i, end := range b.ends {
		wire := b.wire[start:end]
		start = end
		if err := b.formatOne(format, wire); err != nil {
			return fmt.Errorf("record %d: %w", b.first+int64(i), err)
		}
	}
	return nil
}

// formatOne appends one record to b.out: the wire bytes, length-delimited,
// or the record parsed into b.m as one line of JSON.
func (b *decodeBatch) formatOne(format recordFormat, wire []byte) error {
	if format != formatJSONL {
		b.out = protowire.AppendVarint(b.out, uint64(len(wire)))
		b.out = append(b.out, wire...)
		return nil
	}
	if err := proto.Unmarshal(wire, b.m); err != nil {
		return err
	}
	// protojson.MarshalOptions{} is the compact form: one line.
	n := len(b.out)
	var err error
	if b.out, err = (protojson.MarshalOptions{}).MarshalAppend(b.out, b.m); err != nil {
		return err
	}
	if bytes.IndexByte(b.out[n:], '\n') >= 0 {
		return fmt.Errorf("JSON output spans lines")
	}
	b.out = append(b.out, '\n')
	return nil
}

// stripPrefix removes the "protoavro: " that errors of the library start
// with, for errors the command wraps with more context.
func stripPrefix(err error) error {
	if msg, ok := strings.CutPrefix(err.Error(), "protoavro: "); ok {
		return &strippedError{msg: msg, err: err}
	}
	return err
}

// strippedError is an error with a shorter message that still unwraps to
// the original.
type strippedError struct {
	msg string
	err error
}

func (e *strippedError) Error() string { return e.msg }
func (e *strippedError) Unwrap() error { return e.err }

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/anytype"
	"github.com/protoavro/protoavro/internal/otlpid"
	"github.com/protoavro/protoavro/internal/pbjson"
	"github.com/protoavro/protoavro/internal/usage"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/protoload"
	"github.com/protoavro/protoavro/protoavro/records"
)

// encodeCommand is "protoavro encode": protobuf records to an Avro
// container file.
var encodeCommand = &command{
	name:    "encode",
	summary: "convert protobuf records to an Avro container file",
	usage:   encodeUsage,
	run:     runEncode,
}

// encodeUsage is the help text of "protoavro encode".
const encodeUsage = `Usage: protoavro encode [-I DIR]... [--descriptor-set FILE]... -m NAME [FILE.proto...]
                       [--in FILE|-]... [INPUT...] [--out FILE|-]
                       [--format delimited|size32|jsonl] [--discard-unknown]
                       [--codec null|deflate|snappy|zstd]
                       [--workers N] [--block-size BYTES] [MAPPING FLAGS]
                       [--descriptors stripped|full|minimal|none]
                       [--shard-records N] [--shard-size BYTES]
                       [--progress] [--skip-bad [--rejects FILE]]

Convert a stream of protobuf messages of one type to an Avro Object
Container File. The file embeds the Avro schema, the message's descriptors
and the mapping options, so "protoavro decode" needs no .proto files. When
the message may hold google.protobuf.Any values, the .proto files named on
the command line and the files of the --descriptor-set files are embedded
too, with their imports, so that the types they pack travel with the data.

` + inputsHelp + `
Input formats:
  delimited  Length-delimited protobuf: each message preceded by its size as
             a varint (Go's protodelim, Java's writeDelimitedTo). Messages
             are converted on --workers goroutines.
  size32     Protobuf messages each preceded by its size as 4 bytes,
             big-endian: the OpenTelemetry Collector's file exporter with
             format proto, Java's DataOutputStream.writeInt before each
             message. Never told from the first bytes. Records compressed
             one by one (the file exporter's compression without its
             native compression) are not read.
  jsonl      JSON Lines: one protobuf JSON (protojson) object per line, in
             UTF-8; a byte-order mark at the very start of the input is
             skipped, UTF-16 and UTF-32 are refused (iconv -f UTF-16 -t
             UTF-8 converts them). Its google.protobuf.Any values resolve
             to the types loaded: name the .proto files of the packed
             types too, or give a --descriptor-set made with
             --include_imports. Blank lines are skipped. A member that
             names no field of its message is refused with its path
             (entries[3].labels), unless --discard-unknown.
Without --format each input's format is told from its first bytes: text
starting with "{" is JSON Lines, anything else length-delimited. Two
starts are refused before any record is read: a JSON array ("["; jq -c
'.[]' turns it into JSON Lines), and two zero bytes, which start a 4-byte
big-endian size below 65,536 (give --format size32, or --format delimited
if they are empty messages).

Kubernetes objects are read in their protobuf form, as messages of the
types in k8s.io/api: the API server's protobuf wraps each in an envelope,
the magic "k8s\x00" then a runtime.Unknown whose raw field holds the
object, which is refused in every binary format until unwrapped. kubectl's
JSON is not their protobuf JSON (a metav1.Time is a string there, a
message in the .proto).

Fields of binary records that the message does not declare (unknown
fields, such as those a newer version of the .proto added) are dropped,
as protobuf parsers drop them; the summary counts the records that had
some, and the JSON records whose unknown members --discard-unknown drops.

A record that cannot be converted stops the command with an error naming
its index (from 0) and the byte offset where it starts in the input; no
output file is left behind. With --skip-bad such records are skipped,
counted in the summary and, with --rejects, copied to a file in the input
format. A broken length prefix or a truncated record always stops the
command: the records after it cannot be found.

Flags:
` + typeFlagsUsage + docsUsage + `  --in FILE              Input file or glob pattern; "-" is standard input.
                         May repeat.
  --out FILE             Output file; "-" (the default) is standard output.
                         A file is written under a temporary name in the
                         same directory and renamed when the command
                         succeeds; on failure nothing is created and an
                         existing file is left unchanged. A symbolic link
                         keeps pointing to the new file; a character device
                         or a FIFO (/dev/null, a named pipe) is written in
                         place.
  --format FORMAT        Input format: delimited, size32 or jsonl.
                         Default: delimited or jsonl, told from each
                         input's first bytes.
  --discard-unknown      JSON Lines: drop the members that name no field of
                         their message, at any depth (in lists, maps and the
                         messages packed in Any values too), rather than
                         refuse the record; the summary counts the records
                         that had some. An enum value name that the enum
                         does not declare, and an Any without "@type", are
                         still refused: dropping them would change a value.
  --codec CODEC          Block compression: null (default), deflate, snappy
                         or zstd.
  --workers N            Goroutines that convert and compress blocks, at
                         most 1024. Default: GOMAXPROCS (the number of
                         CPUs).
  --block-size BYTES     Uncompressed size at which a block is closed, e.g.
                         262144, 256K or 1M; at most 64M. Default 256K.
                         Whatever the size, a block is closed before its
                         data would exceed 54 MiB, so that readers, which
                         accept 64 MiB, read it (docs/limits.md).
` + mappingFlagsUsage + `  --descriptors MODE     Protobuf descriptors embedded in the file, which let
                         decode work without .proto files: stripped (the
                         default: the message's file and all its imports,
                         without comments), full (with comments), minimal
                         (only the types the message uses, and, for Any
                         values, the .proto files named and the files of
                         the descriptor sets, whole) or none (decode then
                         needs -m).
  --shard-records N      Write the output as shards of at most N records,
                         each a complete container file named by --out with
                         its number: a decimal verb in it, %d or %0Nd
                         (out-%03d.avro), or else "-NNNNN" before the
                         extension (out-00000.avro).
                         The shards of an earlier run numbered past this
                         run's last one are removed.
  --shard-size BYTES     Start a new shard once one reaches BYTES, with an
                         optional suffix K, M or G (1K = 1024), e.g. 128M
                         or 2G; a shard may pass it by the blocks that
                         were in flight, up to --workers blocks.
` + progressFlagUsage + `  --skip-bad             Skip records that cannot be converted instead of
                         stopping.
  --rejects FILE         With --skip-bad: write the skipped records to FILE,
                         in the input format (with the input's length
                         prefixes, or lines).
  -h, --help             Print this help.

On success a one-line summary goes to standard error. Exit status is 0 on
success, 1 for bad input data or an output whose writing fails (a full
disk), and 2 for a bad command line, input that cannot be loaded or an
output file that cannot be created (no such directory, no permission).
`

// descriptorsFlag is a --descriptors flag.
type descriptorsFlag struct {
	m protoavro.DescriptorMode
}

// String returns the mode's name.
func (f *descriptorsFlag) String() string { return f.m.String() }

// Set parses a mode name.
func (f *descriptorsFlag) Set(v string) error {
	m, err := protoavro.ParseDescriptorMode(v)
	if err != nil {
		return errors.New("want stripped, full, minimal or none")
	}
	f.m = m
	return nil
}

// splitInputs separates the positional arguments of encode and decode into
// .proto files and input files.
func splitInputs(positional []string) (protos, inputs []string) {
	for _, a := range positional {
		if strings.HasSuffix(a, ".proto") {
			protos = append(protos, a)
		} else {
			inputs = append(inputs, a)
		}
	}
	return protos, inputs
}

// streamFlags are the flags that encode and decode share: the message type
// and mapping, the format of the protobuf records, the inputs, the output
// and the skipping of bad records.
type streamFlags struct {
	types   typeFlags
	mapping mappingFlags
	format  formatFlag
	prog    progressFlag
	in      stringList
	out     string
	skipBad bool
	rejects string
	// shards, when set (by encode, whose shard flags decide what --out
	// names), is called by parse after the flags are parsed, for the
	// output's shard set.
	shards func() (*shardSet, error)
}

// register defines the flags in fs.
func (f *streamFlags) register(fs *flag.FlagSet) {
	f.types.register(fs)
	f.mapping.register(fs)
	fs.Var(&f.format, "format", "protobuf record format: delimited or jsonl")
	fs.Var(&f.prog, "progress", "show progress")
	fs.Var(&f.in, "in", "input file")
	fs.StringVar(&f.out, "out", "-", "output file")
	fs.BoolVar(&f.skipBad, "skip-bad", false, "skip bad records")
	fs.StringVar(&f.rejects, "rejects", "", "file for the skipped records")
}

// parse parses args with fs and returns the .proto files and the inputs
// (--in and the other arguments, globs expanded), after checking that
// --rejects comes with --skip-bad and that no file has two roles.
func (f *streamFlags) parse(fs *flag.FlagSet, args []string) (protos, inputs []string, err error) {
	positional, err := parseArgs(fs, args)
	if err != nil {
		return nil, nil, err
	}
	protos, extra := splitInputs(positional)
	if f.rejects != "" && !f.skipBad {
		return nil, nil, usage.Errorf("--rejects needs --skip-bad")
	}
	if inputs, err = expandInputs(append(f.in, extra...), "--in"); err != nil {
		return nil, nil, err
	}
	read := append(slices.Clone(inputs), f.types.descriptorSets...)
	read = append(read, f.types.protoPaths(protos)...)
	out := fileRole{"--out", f.out}
	if f.shards != nil {
		shards, err := f.shards()
		if err != nil {
			return nil, nil, err
		}
		if shards.sharded {
			// --out is a pattern, not a file: its shards are checked.
			if err := shards.checkFiles(read, f.rejects); err != nil {
				return nil, nil, err
			}
			out.path = ""
		}
	}
	if err := checkPaths(read, out, fileRole{"--rejects", f.rejects}); err != nil {
		return nil, nil, err
	}
	if f.rejects == "-" && (f.out == "" || f.out == "-") {
		return nil, nil, usage.Errorf("--out and --rejects both go to standard output; give --out FILE")
	}
	return protos, inputs, nil
}

// openRejects creates the --rejects output, or returns nil without the
// flag (commit and abort take nil as no output).
func (f *streamFlags) openRejects(std stdio) (*output, error) {
	if f.rejects == "" {
		return nil, nil
	}
	return createOutput(f.rejects, "--rejects", std)
}

// runEncode implements "protoavro encode".
func runEncode(args []string, std stdio) error {
	fs := newFlagSet("encode")
	var (
		codec        = codecFlag{c: protoavro.CompressionNull}
		workers      = intFlag{min: 1, max: maxWorkers}
		blockSize    = sizeFlag{min: 1, max: 64 << 20}
		shardRecords = intFlag{min: 1}
		shardSize    = sizeFlag{min: 1, max: math.MaxInt}
		descriptors  descriptorsFlag
		sf           streamFlags
	)
	fs.Var(&codec, "codec", "block codec: null, deflate, snappy or zstd")
	fs.Var(&workers, "workers", "conversion goroutines")
	fs.Var(&blockSize, "block-size", "uncompressed block size")
	fs.Var(&shardRecords, "shard-records", "records per shard")
	fs.Var(&shardSize, "shard-size", "bytes per shard")
	fs.Var(&descriptors, "descriptors", "embedded descriptors")
	sf.format.input = true // size32 is an input format
	sf.register(fs)
	sf.types.registerDocs(fs)
	e := &encoder{std: std}
	fs.BoolVar(&e.discardUnknown, "discard-unknown", false, "drop the JSON members that name no field")
	// The shard flags decide what --out names, which parse checks
	// against the inputs.
	sf.shards = func() (s *shardSet, err error) {
		sharded := shardRecords.n > 0 || shardSize.n > 0
		e.shards, err = newShardSet(sf.out, sharded, int64(shardRecords.n), int64(shardSize.n), std)
		return e.shards, err
	}
	protos, inputs, err := sf.parse(fs, args)
	if err != nil {
		return err
	}
	if err := checkTerminal(sf.out, std, "Avro"); err != nil {
		return err
	}
	md, types, err := sf.types.resolveTypes(std.ctx, protos)
	if err != nil {
		return err
	}
	start := time.Now()
	e.resolver = types.Resolver()
	e.md, e.skip, e.several = md, sf.skipBad, len(inputs) > 1
	if sf.format.set {
		e.format = &sf.format.f
	}
	// The rejects are records in the input's format: binary unless the
	// input is JSON Lines.
	if sf.rejects == "-" && !(sf.format.set && sf.format.f == formatJSONL) && isTerminal(std.out) {
		return usage.Errorf("--rejects -: refusing to write binary protobuf records to a terminal: give --rejects FILE or redirect standard output (or --format jsonl for JSON Lines input)")
	}
	if e.rejects, err = sf.openRejects(std); err != nil {
		return err
	}
	defer e.rejects.abort()
	mopts, err := sf.mapping.options("")
	if err != nil {
		return err
	}
	mopts.AnyResolver = e.resolver
	e.opts = protoavro.ContainerOptions{
		Options:     mopts,
		Compression: codec.c,
		BlockSize:   blockSize.n,
		Workers:     workers.n,
		Descriptors: descriptors.m,
	}
	// The types packed in Any values travel with the data: the .proto
	// files named on the command line and the files of the descriptor
	// sets are embedded too.
	if protoload.HoldsAny(md) {
		if e.opts.ExtraFiles, err = anyFiles(md, types, e.opts, len(sf.types.descriptorSets) > 0, std); err != nil {
			return err
		}
	}
	if e.opts.Workers == 0 {
		e.opts.Workers = runtime.GOMAXPROCS(0)
	}
	e.workers = e.opts.Workers
	if e.codec, err = e.opts.Options.Codec(md); err != nil {
		return err
	}
	e.initJSON(md)
	e.opts.Input = e.jsonToWire
	defer e.shards.abort()
	defer e.closeWriter() // stops the workers after an error
	if err := e.openShard(); err != nil {
		return err
	}
	e.prog = startProgress(std, sf.prog, "encoding", totalSize(inputs), start)
	for _, path := range inputs {
		if err = e.encodeInput(path); err != nil {
			break
		}
	}
	if err == nil {
		err = e.endShard()
	}
	e.prog.finish()
	if err != nil {
		return err
	}
	if err := e.rejects.commit(); err != nil {
		return err
	}
	if err := e.shards.commit(); err != nil {
		return err
	}
	shards, stale := "", ""
	if e.shards.sharded {
		shards = ", " + plural(int64(len(e.shards.done)), "shard")
	}
	if n := len(e.shards.stale); n > 0 {
		stale = fmt.Sprintf("; removed %s of an earlier run (%s)", plural(int64(n), "shard"), listNames(e.shards.stale))
	}
	for _, k := range e.shards.kept {
		if _, err := fmt.Fprintf(std.err, "protoavro: warning: kept %s: it is named like a shard of --out %s, past this run's last one\n", k, sf.out); err != nil {
			return fmt.Errorf("write a warning to standard error: %w", err)
		}
	}
	rounded, unknown := "", ""
	if e.rounded > 0 {
		rounded = fmt.Sprintf("; %s rounded to the precision of the mapping (timestamp-micros, -millis or time-micros)", plural(e.rounded, "value"))
	}
	if e.unknown > 0 {
		unknown = fmt.Sprintf("; %s had unknown fields dropped", plural(e.unknown, "record"))
	}
	return summary(std, "protoavro: encoded %s (%s in, %s out, %s, %s%s) in %s; %d skipped%s%s%s%s\n",
		plural(e.records, "record"), formatBytes(e.bytesIn), formatBytes(e.bytesOut),
		plural(e.blocks, "block"), e.opts.Compression, shards, formatDuration(time.Since(start)),
		e.skipped, skipNote(e.firstBad, sf.rejects), rounded, unknown, stale)
}

// listNames lists paths for a summary: all of them up to three, else the
// first and the last.
func listNames(paths []string) string {
	if len(paths) <= 3 {
		return strings.Join(paths, ", ")
	}
	return paths[0] + " ... " + paths[len(paths)-1]
}

// summary prints the summary line of a command; a failed write is the
// command's error.
func summary(std stdio, format string, args ...any) error {
	if _, err := fmt.Fprintf(std.err, format, args...); err != nil {
		return fmt.Errorf("write the summary to standard error: %w", err)
	}
	return nil
}

// totalSize returns the sum of the sizes of the inputs when all are
// regular files (compressed ones count as unknown), else -1.
func totalSize(paths []string) int64 {
	var n int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if p == "-" || err != nil || !st.Mode().IsRegular() {
			return -1
		}
		n += st.Size()
	}
	return n
}

// fileRole is a file that a command writes, with the flag that names it.
type fileRole struct {
	flag, path string
}

// checkPaths refuses a command line that names one file for two roles: an
// output that is one of the inputs (the command would replace what it
// reads), or two outputs (they would mix). inputs are the files the command
// reads. Paths name the same file when they are equal once cleaned, or
// when [os.SameFile] says so (a symbolic link to the file, a hard link);
// standard input and output ("-" or "") and character devices such as
// /dev/null, which take any number of readers and writers, never do.
func checkPaths(inputs []string, outputs ...fileRole) error {
	for i, out := range outputs {
		for _, in := range inputs {
			if sameFile(in, out.path) {
				as := ""
				if filepath.Clean(in) != filepath.Clean(out.path) {
					as = " (" + in + ")"
				}
				return usage.Errorf("%s %s is also an input%s; refusing to overwrite it", out.flag, out.path, as)
			}
		}
		for _, other := range outputs[i+1:] {
			if sameFile(out.path, other.path) {
				return usage.Errorf("%s and %s name the same file %s", out.flag, other.flag, out.path)
			}
		}
	}
	return nil
}

// sameFile reports whether paths a and b name one file, for [checkPaths].
func sameFile(a, b string) bool {
	if a == "" || a == "-" || b == "" || b == "-" {
		return false
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && sa.Mode()&os.ModeCharDevice != 0 {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// checkTerminal refuses to write binary data to standard output when it is
// a terminal, like gzip does.
func checkTerminal(outPath string, std stdio, what string) error {
	if (outPath == "" || outPath == "-") && isTerminal(std.out) {
		return usage.Errorf("refusing to write binary %s data to a terminal: give --out FILE or redirect standard output", what)
	}
	return nil
}

// errInterrupted stops a command on SIGINT or SIGTERM.
var errInterrupted = errors.New("interrupted")

// interrupted returns errInterrupted once done is closed (by SIGINT or
// SIGTERM), for the loops of the commands to check between records or
// blocks.
func interrupted(done <-chan struct{}) error {
	select {
	case <-done:
		return errInterrupted
	default:
		return nil
	}
}

// encoder is the state of one "protoavro encode" run.
type encoder struct {
	std  stdio
	md   protoreflect.MessageDescriptor
	opts protoavro.ContainerOptions
	// resolver holds every loaded type: it resolves google.protobuf.Any.
	resolver *dynamicpb.Types
	// format is the --format flag's value, nil to sniff each input.
	format *recordFormat
	// several says that there are several inputs: errors name the file.
	several bool
	cw      *protoavro.ContainerWriter
	codec   *protoavro.Codec
	workers int
	prog    *progress
	skip    bool
	rejects *output // nil without --rejects
	shards  *shardSet
	skipped int64
	// rounded counts the values the mapping rounded (ContainerWriter.Rounded).
	rounded int64
	// unknown counts the records that had unknown fields dropped
	// (ContainerWriter.DroppedUnknown): binary records' fields that the
	// message does not declare, and JSON members that --discard-unknown
	// drops.
	unknown int64
	// discardUnknown is --discard-unknown: JSON members that name no field
	// are dropped, not refused.
	discardUnknown bool
	// droppedMark is the unknown field that jsonToWire appends to the wire
	// bytes of a JSON record whose unknown members it dropped, for the
	// writer to drop and count (droppedMark).
	droppedMark []byte
	// firstBad is the error of the first skipped record.
	firstBad error
	// otlp lists the bytes fields named like OTLP trace and span IDs.
	otlp []protoreflect.FieldDescriptor
	// json converts JSON lines to wire bytes without protojson's generic
	// path; what it declines goes to protojson.
	json *pbjson.Plan
	// msgs holds the dynamicpb messages that protojson reads JSON lines
	// into when json declines them, one per worker at a time.
	msgs sync.Pool
	// lines places the JSON lines in their inputs: the line of record
	// index i is that of the last mark at or before i, plus the records
	// between them. A mark is kept where blank lines or a new input break
	// the count.
	lines   []lineMark
	pruneAt int

	// inputs are the inputs read so far, the current one last.
	inputs []inputMark
	// inBase is the number of bytes of the inputs before the current one.
	inBase int64
	// given counts the records handed to writers; shardFirst is given when
	// the current shard started; shardGiven counts the current shard's.
	given, shardFirst int64
	// Totals over the finished shards and the current one.
	bytesIn, bytesOut, records, blocks int64
}

// inputMark is an input of encode, for its errors.
type inputMark struct {
	name string
	// first is the global index of its first record.
	first int64
	// hint is appended to the errors of the input when its first bytes
	// say that --format is wrong.
	hint string
	// format is the format of its records.
	format recordFormat
	// jsonl says that its records are JSON lines.
	jsonl bool
}

// lineMark is the line of the JSON record of global index index.
type lineMark struct{ index, line int64 }

// openShard starts the next output shard with its own container writer.
func (e *encoder) openShard() error {
	out, err := e.shards.next()
	if err != nil {
		return err
	}
	opts := e.opts
	if e.skip {
		opts.OnBadRecord = e.onBadRecord
	}
	cw, err := protoavro.NewContainerWriter(out, e.md, opts)
	if err != nil {
		return err
	}
	e.cw, e.shardFirst = cw, e.given
	return nil
}

// endShard closes the current writer and finishes its shard.
func (e *encoder) endShard() error {
	if e.cw == nil {
		return nil
	}
	err := e.recordError(e.cw.Close())
	e.records += e.cw.Records()
	e.rounded += e.cw.Rounded()
	e.unknown += e.cw.DroppedUnknown()
	e.blocks += e.cw.Blocks()
	e.bytesOut += e.cw.BytesWritten()
	e.cw = nil
	e.lines = e.lines[:0] // every record given so far is written or skipped
	if err != nil {
		return err
	}
	return e.shards.finish()
}

// closeWriter stops the current writer's workers after an error.
func (e *encoder) closeWriter() {
	if e.cw != nil {
		_ = e.cw.Close()
	}
}

// write hands one record, as wire bytes, to the writer, and ends the
// shard when it is full.
func (e *encoder) write(wire []byte, offset int64) error {
	if err := e.ensureShard(); err != nil {
		return err
	}
	if err := e.cw.WriteWireAt(wire, offset); err != nil {
		return e.recordError(err)
	}
	return e.written()
}

// writeInput hands one record, as a JSON line, to the writer, whose
// workers convert it (jsonToWire), and ends the shard when it is full.
func (e *encoder) writeInput(raw []byte, offset, line int64) error {
	if err := e.ensureShard(); err != nil {
		return err
	}
	if n := len(e.lines); n == 0 || e.lines[n-1].line+e.given-e.lines[n-1].index != line {
		e.pruneLines()
		e.lines = append(e.lines, lineMark{e.given, line})
	}
	if err := e.cw.WriteInputAt(raw, offset); err != nil {
		return e.recordError(err)
	}
	return e.written()
}

// pruneLines drops the line marks that no record in flight needs: those
// before the last one at or before the records the writer wrote. It runs
// when the marks have doubled since the last time.
func (e *encoder) pruneLines() {
	if len(e.lines) < max(e.pruneAt, 1024) {
		return
	}
	done := e.shardFirst + e.cw.Records() - 1 // every record before it is written or skipped
	k := sort.Search(len(e.lines), func(i int) bool { return e.lines[i].index > done }) - 1
	if k > 0 {
		e.lines = append(e.lines[:0], e.lines[k:]...)
	}
	e.pruneAt = 2 * len(e.lines)
}

// lineOf returns the line of the JSON record of global index i, or 0.
func (e *encoder) lineOf(i int64) int64 {
	k := sort.Search(len(e.lines), func(j int) bool { return e.lines[j].index > i }) - 1
	if k < 0 {
		return 0
	}
	return e.lines[k].line + i - e.lines[k].index
}

// ensureShard opens the next shard when the last one was ended full: a
// shard is started by the record that goes into it, so that a run whose
// records fill the last shard exactly leaves no empty shard after it.
func (e *encoder) ensureShard() error {
	if e.cw != nil {
		return nil
	}
	return e.openShard()
}

// written counts a record handed to the writer and ends the shard when it
// is full; the next record starts the next one.
func (e *encoder) written() error {
	e.given++
	s := e.shards
	if !s.sharded {
		return nil
	}
	full := s.records > 0 && e.given-e.shardFirst >= s.records
	if s.size > 0 && e.cw.BytesWritten() >= s.size {
		full = true
	}
	if !full {
		return nil
	}
	return e.endShard()
}

// encodeInput reads the records of one input.
func (e *encoder) encodeInput(path string) error {
	in, err := openInput(path, "--in", e.std)
	if err != nil {
		return err
	}
	defer in.close()
	mark := inputMark{name: in.name, first: e.given}
	head, _ := in.r.Peek(headSize)
	format, hint, err := inputFormat(e.format, head)
	mark.hint, mark.format, mark.jsonl = hint, format, format == formatJSONL
	e.inputs = append(e.inputs, mark)
	switch {
	case err != nil: // a format that is not guessed
	case format == formatJSONL:
		err = e.encodeJSONL(in.r)
	default:
		err = e.encodeDelimited(in.r, format)
	}
	e.inBase = e.bytesIn
	if de := (*decompressError)(nil); errors.As(err, &de) {
		// The record readers do not know the input's name.
		return fmt.Errorf("%s: %w", in.name, err)
	}
	return e.inputError(err)
}

// headSize is how much of an input encode looks at to tell its format.
const headSize = 4096

// looksBinary reports whether head, the first bytes of an input, looks
// like binary data rather than JSON Lines: before its first line that is a
// JSON object, a line has bytes that JSON text cannot hold (control
// characters other than tab, carriage return and line feed, or bytes that
// are not UTF-8; a character cut at the end of the window is not counted).
// The lines before it may be text: the length prefix of a protobuf record
// can be a digit or a letter followed by a line feed, the tag of its
// first field. A JSON array, or bad JSON text, is not binary.
func looksBinary(head []byte) bool {
	full := len(head) >= headSize
	for rest := head; len(rest) > 0; {
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		rest = after
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] == '{' && json.Valid(t) {
			return false
		}
		for len(line) > 0 {
			r, size := utf8.DecodeRune(line)
			if r == utf8.RuneError && size <= 1 {
				if full && len(rest) == 0 && !utf8.FullRune(line) {
					break
				}
				return true
			}
			if r < 0x20 && r != '\t' && r != '\r' {
				return true
			}
			line = line[size:]
		}
	}
	return false
}

// inputError adds the name of the current input (with several inputs)
// and its format hint to an error of its records.
func (e *encoder) inputError(err error) error {
	if err == nil || len(e.inputs) == 0 {
		return err
	}
	return e.markError(err, e.inputs[len(e.inputs)-1])
}

// markError adds the name of input m (with several inputs) and its format
// hint to an error of its records; other errors are returned as they are.
func (e *encoder) markError(err error, m inputMark) error {
	var re *recordError
	if !errors.As(err, &re) || errors.Is(err, errMarked) {
		return err
	}
	if m.hint != "" {
		err = fmt.Errorf("%w (%s)", err, m.hint)
	}
	if e.several {
		err = fmt.Errorf("%s: %w", m.name, err)
	}
	return &markedError{err}
}

// errMarked is matched by errors that name their input already.
var errMarked = errors.New("marked")

// markedError is an error that names its input: markError leaves it alone.
type markedError struct{ error }

// Unwrap returns the error.
func (e *markedError) Unwrap() error { return e.error }

// Is matches errMarked.
func (e *markedError) Is(target error) bool { return target == errMarked }

// encodeDelimited feeds length-prefixed records, in binary format f, to
// the writer, which converts them on its workers.
func (e *encoder) encodeDelimited(r io.Reader, f recordFormat) error {
	dr := newBinaryReader(f, r)
	return e.feed(func() (bool, error) {
		rec, off, err := dr.Next()
		e.bytesIn = e.inBase + dr.Offset()
		if err != nil {
			return err == io.EOF, err
		}
		return false, e.write(rec, off)
	})
}

// encodeJSONL feeds JSON lines to the writer, whose workers convert them
// (jsonToWire) and report those that do not convert as its other bad
// records, in input order.
func (e *encoder) encodeJSONL(r io.Reader) error {
	lr := records.NewLines(r)
	return e.feed(func() (bool, error) {
		raw, off, line, err := lr.Next()
		e.bytesIn = e.inBase + lr.Offset()
		if err != nil && err != io.EOF && e.cw != nil {
			// A bad record before the line is reported first.
			if ferr := e.cw.Flush(); ferr != nil {
				return false, e.recordError(ferr)
			}
		}
		if err != nil {
			return err == io.EOF, err
		}
		return false, e.writeInput(raw, off, line)
	})
}

// feed runs next once per record of an input until the input ends: next
// reads a record, sets e.bytesIn to the input's offset after it and hands
// the record to the writer, or returns end (and io.EOF) at the end of the
// input. Before each record feed looks at the interrupt, after each it
// updates the progress.
func (e *encoder) feed(next func() (end bool, err error)) error {
	done := e.std.ctx.Done()
	for {
		if err := interrupted(done); err != nil {
			return err
		}
		end, err := next()
		if end {
			return nil
		}
		if err != nil {
			return err
		}
		e.prog.update(e.given, e.bytesIn)
	}
}

// initJSON prepares jsonToWire for the records of md, with the types of
// e.resolver.
func (e *encoder) initJSON(md protoreflect.MessageDescriptor) {
	e.droppedMark = droppedMark(md)
	e.otlp = otlpid.Fields(md)
	e.json = pbjson.Compile(md, pbjson.Options{Suspect: e.suspectID, Resolver: e.resolver})
	e.msgs.New = func() any { return dynamicpb.NewMessage(md) }
}

// jsonToWire is the writer's ContainerOptions.Input: it converts a JSON
// line to wire bytes appended to dst, as deterministic proto.Marshal
// writes what protojson reads (by the pbjson fast path, or protojson into
// a dynamicpb message). It runs on the writer's workers. A line with
// members that name no field is refused, or, with --discard-unknown, read
// without them: its wire bytes then end in e.droppedMark, an unknown field
// that the writer drops and counts, so that the records counted are those
// written, not those skipped as bad after this conversion.
func (e *encoder) jsonToWire(dst, raw []byte) ([]byte, error) {
	text := bytes.TrimRight(raw, "\r\n")
	if e.discardUnknown {
		// The fast path drops the members that name no field, as
		// protojson's DiscardUnknown does, in the messages that it reads
		// itself; it declines the rest (such as the values that
		// --discard-unknown refuses) for protojsonToWire to read or
		// refuse.
		if out, dropped, ok := e.json.AppendWireDiscardUnknown(dst, text); ok {
			if dropped {
				out = append(out, e.droppedMark...)
			}
			return out, nil
		}
	} else if out, ok := e.json.AppendWire(dst, text); ok {
		return out, nil
	}
	return e.protojsonToWire(dst, text)
}

// protojsonToWire is jsonToWire for the lines that the fast path declines:
// protojson reads text, a line without its line break, and says what is
// wrong with it.
func (e *encoder) protojsonToWire(dst, text []byte) ([]byte, error) {
	m := e.msgs.Get().(*dynamicpb.Message)
	defer e.msgs.Put(m)
	opts := protojson.UnmarshalOptions{Resolver: e.resolver}
	err := opts.Unmarshal(text, m)
	dropped := false
	if err != nil {
		// Strict first: a line read again only when it has unknown
		// members, which a line of the common case has not.
		u := anytype.UnknownInJSON(text, m.Descriptor(), e.resolver)
		switch {
		case u.AnyFound:
			return dst, unknownAny(u.Any)
		case u.Field.Kind == 0:
		case !e.discardUnknown:
			return dst, unknownMember(u.Field)
		case u.Other.Kind != 0:
			return dst, unknownMember(u.Other)
		default:
			opts.DiscardUnknown = true
			err = opts.Unmarshal(text, m)
			dropped = err == nil
		}
	}
	switch {
	case err != nil:
		perr := protoError(err, e.otlp)
		// protojson reads a lone surrogate escape as text cut short, or
		// blames the escape after it: say what it is, and where.
		if msg := perr.Error(); msg == "unexpected EOF" || strings.Contains(msg, "invalid escape code") {
			if col, esc, ok := loneSurrogate(text); ok {
				return dst, fmt.Errorf("syntax error (column %d): %s in a string is a lone UTF-16 surrogate: a character above U+FFFF is escaped as a pair, \\uD800-\\uDBFF then \\uDC00-\\uDFFF", col, esc)
			}
		}
		return dst, perr
	case len(e.otlp) > 0:
		// A hex ID that protojson took for base64 has wrong bytes.
		if err := otlpid.Check(m, e.otlp); err != nil {
			return dst, err
		}
	}
	out, err := proto.MarshalOptions{Deterministic: true}.MarshalAppend(dst, m)
	if err == nil && dropped {
		out = append(out, e.droppedMark...)
	}
	return out, err
}

// droppedMark returns the unknown field that marks the wire bytes of a
// JSON record whose unknown members were dropped: an empty
// length-delimited field of number 19,000, the first of the numbers
// reserved for protobuf implementations, which no .proto can declare (or
// the next number md does not declare, for a descriptor built otherwise).
func droppedMark(md protoreflect.MessageDescriptor) []byte {
	num := protowire.FirstReservedNumber
	for md.Fields().ByNumber(num) != nil {
		num++
	}
	return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.BytesType), 0)
}

// anyFiles returns the files that encode embeds, with the message's, for
// the types that the records' Any values pack: the .proto files named on
// the command line and, with sets (--descriptor-set given), every loaded
// file. When the files of the sets cannot be embedded (the header would
// be larger than readers accept, or files clash by name) it says so on
// standard error and embeds the named .proto files alone.
func anyFiles(md protoreflect.MessageDescriptor, types *protoload.Types, opts protoavro.ContainerOptions, sets bool, std stdio) ([]protoreflect.FileDescriptor, error) {
	if !sets {
		return types.Roots(), nil
	}
	opts.ExtraFiles = types.Files()
	_, err := protoavro.ContainerHeader(md, opts)
	if err == nil || !errors.Is(err, protoavro.ErrInvalidOptions) {
		return opts.ExtraFiles, nil // another error is NewContainerWriter's to report
	}
	if _, werr := fmt.Fprintf(std.err, "protoavro: warning: the files of --descriptor-set are not embedded (%s): decode needs them again (-m and --descriptor-set) to resolve the types that google.protobuf.Any values pack\n", errorLine(err)); werr != nil {
		return nil, fmt.Errorf("write a warning to standard error: %w", werr)
	}
	return types.Roots(), nil
}

// loneSurrogate finds the first \u escape in a string of the JSON text
// that is half of a UTF-16 surrogate pair without the other half, which
// protobuf JSON refuses (it is no Unicode character). It returns the
// escape's column (from 1, in bytes) and the escape; ok is false when
// there is none, or when a bad escape comes before it.
func loneSurrogate(text []byte) (col int, esc string, ok bool) {
	inString := false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString:
			if i+1 < len(text) && strings.IndexByte(`"\\/bfnrt`, text[i+1]) >= 0 {
				i++
				continue
			}
			r, ok := hexEscape(text[i:])
			if !ok {
				return 0, "", false // a bad escape comes first
			}
			switch {
			case r >= 0xD800 && r < 0xDC00:
				if low, ok := hexEscape(text[i+6:]); ok && low >= 0xDC00 && low < 0xE000 {
					i += 11
					continue
				}
				return i + 1, string(text[i : i+6]), true
			case r >= 0xDC00 && r < 0xE000:
				return i + 1, string(text[i : i+6]), true
			}
			i += 5
		}
	}
	return 0, "", false
}

// hexEscape reads a \uXXXX escape at the start of b.
func hexEscape(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// onBadRecord is the writer's OnBadRecord with --skip-bad: it counts the
// record and copies it to the rejects in its input's format (a JSON line
// as it was, a binary record with its length prefix, a varint or 4 bytes).
func (e *encoder) onBadRecord(re *protoavro.RecordError) error {
	e.skipped++
	if e.firstBad == nil {
		e.firstBad = e.recordError(re)
	}
	if e.rejects == nil {
		return nil
	}
	_, m := e.inputOf(e.shardFirst + re.Index)
	if m.jsonl {
		if _, err := e.rejects.Write(re.Record); err != nil {
			return err
		}
		if n := len(re.Record); n == 0 || re.Record[n-1] != '\n' {
			if _, err := e.rejects.Write([]byte{'\n'}); err != nil {
				return err
			}
		}
		return nil
	}
	var prefix [binaryMaxVarint]byte
	if _, err := e.rejects.Write(appendPrefix(prefix[:0], m.format, len(re.Record))); err != nil {
		return err
	}
	_, err := e.rejects.Write(re.Record)
	return err
}

// binaryMaxVarint is the longest varint, and longer than a 4-byte prefix.
const binaryMaxVarint = 10

// skipNote describes what was skipped for the summary: where it went
// (rejects, when given) and first, the first error skipped; nothing when
// first is nil.
func skipNote(first error, rejects string) string {
	if first == nil {
		return ""
	}
	var b strings.Builder
	if rejects != "" {
		fmt.Fprintf(&b, " (written to %s)", rejects)
	}
	fmt.Fprintf(&b, "; first: %s", errorLine(first))
	return b.String()
}

// recordError rewrites a record error of the writer, which names the
// record's index in the shard and its input offset, in the words of the
// command's own record errors: its index in its input, and the line of a
// JSON line.
func (e *encoder) recordError(err error) error {
	var re *protoavro.RecordError
	if errors.As(err, &re) && re.Offset >= 0 {
		global := e.shardFirst + re.Index
		_, m := e.inputOf(global)
		out := &recordError{Index: global - m.first, Offset: re.Offset, Err: stripPrefix(re.Err)}
		if m.jsonl {
			out.Line = e.lineOf(global)
		}
		return e.markError(out, m)
	}
	return err
}

// inputOf returns the input of the record of global index i.
func (e *encoder) inputOf(i int64) (int, inputMark) {
	k, m := -1, inputMark{}
	for j, in := range e.inputs {
		if in.first <= i {
			k, m = j, in
		}
	}
	return k, m
}

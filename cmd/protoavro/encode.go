package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/protoavro"
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
                       [--in FILE|-] [--out FILE|-] [--format delimited|jsonl]
                       [--codec null|deflate|snappy|zstd] [--workers N]
                       [--block-size BYTES] [--profile default|java]
                       [--progress] [--skip-bad [--rejects FILE]]

Convert a stream of protobuf messages of one type to an Avro Object
Container File. The file embeds the Avro schema, the message's descriptors
and the mapping options, so "protoavro decode" needs no .proto files.

Input formats:
  delimited  Length-delimited protobuf: each message preceded by its size as
             a varint (Go's protodelim, Java's writeDelimitedTo). Messages
             are converted on --workers goroutines. Default.
  jsonl      JSON Lines: one protobuf JSON (protojson) object per line.
             Blank lines are skipped.

A record that cannot be converted stops the command with an error naming
its index (from 0) and the byte offset where it starts in the input; no
output file is left behind. With --skip-bad such records are skipped,
counted in the summary and, with --rejects, copied to a file in the input
format. A broken length prefix or a truncated record always stops the
command: the records after it cannot be found.

Flags:
` + typeFlagsUsage + `  --in FILE              Input file; "-" (the default) is standard input.
  --out FILE             Output file; "-" (the default) is standard output.
                         A file is written under a temporary name in the
                         same directory and renamed when the command
                         succeeds; on failure nothing is created and an
                         existing file is left unchanged.
  --format FORMAT        Input format: delimited (default) or jsonl.
  --codec CODEC          Block compression: null (default), deflate, snappy
                         or zstd.
  --workers N            Goroutines that convert and compress blocks.
                         Default: GOMAXPROCS (the number of CPUs).
  --block-size BYTES     Uncompressed size at which a block is closed, e.g.
                         262144, 256K or 1M; at most 64M. Default 256K.
  --profile NAME         Mapping profile: "default" or "java". Default
                         "default".
  --progress             Show progress on standard error (records, bytes
                         read, rate, and an ETA when the input is a regular
                         file). On by default when standard error is a
                         terminal; --progress=false turns it off.
  --skip-bad             Skip records that cannot be converted instead of
                         stopping.
  --rejects FILE         With --skip-bad: write the skipped records to FILE,
                         in the input format (length-delimited or lines).
  -h, --help             Print this help.

On success a one-line summary goes to standard error. Exit status is 0 on
success, 1 for bad input data, and 2 for a bad command line or input that
cannot be loaded.
`

// runEncode implements "protoavro encode".
func runEncode(args []string, std stdio) error {
	fs := newFlagSet("encode")
	var types typeFlags
	types.register(fs)
	var (
		profile   profileFlag
		format    formatFlag
		codec     = codecFlag{c: protoavro.CompressionNull}
		workers   = intFlag{min: 1}
		blockSize = sizeFlag{min: 1, max: 64 << 20}
		prog      progressFlag
	)
	fs.Var(&profile, "profile", "mapping profile: default or java")
	fs.Var(&format, "format", "input format: delimited or jsonl")
	fs.Var(&codec, "codec", "block codec: null, deflate, snappy or zstd")
	fs.Var(&workers, "workers", "conversion goroutines")
	fs.Var(&blockSize, "block-size", "uncompressed block size")
	fs.Var(&prog, "progress", "show progress")
	inPath := fs.String("in", "-", "input file")
	outPath := fs.String("out", "-", "output file")
	skipBad := fs.Bool("skip-bad", false, "skip records that cannot be converted")
	rejectsPath := fs.String("rejects", "", "file for the skipped records")
	positional, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if *rejectsPath != "" && !*skipBad {
		return usageErrorf("--rejects needs --skip-bad")
	}
	if err := checkPaths(*inPath, *outPath, *rejectsPath); err != nil {
		return err
	}
	if err := checkTerminal(*outPath, std, "Avro"); err != nil {
		return err
	}
	md, err := types.resolve(positional)
	if err != nil {
		return err
	}
	start := time.Now()
	in, err := openInput(*inPath, "--in", std)
	if err != nil {
		return err
	}
	defer in.close()

	e := &encoder{
		std:    std,
		md:     md,
		format: format.f,
		skip:   *skipBad,
	}
	if *rejectsPath != "" {
		if e.rejects, err = createOutput(*rejectsPath, std); err != nil {
			return err
		}
		defer e.rejects.abort()
	}
	out, err := createOutput(*outPath, std)
	if err != nil {
		return err
	}
	defer out.abort()
	opts := protoavro.ContainerOptions{
		Options:     protoavro.Options{Profile: profile.p, Cache: protoavro.NewCache()},
		Compression: codec.c,
		BlockSize:   blockSize.n,
		Workers:     workers.n,
	}
	if opts.Workers == 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if e.skip && e.format == formatDelimited {
		// JSON lines are checked before they reach the writer.
		opts.OnBadRecord = e.onBadRecord
	}
	if e.codec, err = opts.Options.Codec(md); err != nil {
		return err
	}
	cw, err := protoavro.NewContainerWriter(out, md, opts)
	if err != nil {
		return err
	}
	defer cw.Close() // stops the workers after an error; a no-op after Close
	e.cw = cw
	e.workers = opts.Workers
	e.prog = startProgress(std, prog, "encoding", in.size, start)
	if e.format == formatJSONL {
		err = e.encodeJSONL(in.r)
	} else {
		err = e.encodeDelimited(in.r)
	}
	if err == nil {
		err = cw.Close()
	}
	err = inputRecordError(err)
	e.prog.finish()
	if err != nil {
		return err
	}
	if e.rejects != nil {
		if err := e.rejects.commit(); err != nil {
			return err
		}
	}
	if err := out.commit(); err != nil {
		return err
	}
	fmt.Fprintf(std.err, "protoavro: encoded %s (%s in, %s out, %s, %s) in %s; %d skipped%s\n",
		plural(cw.Records(), "record"), formatBytes(e.bytesIn), formatBytes(out.written()),
		plural(cw.Blocks(), "block"), opts.Compression, formatDuration(time.Since(start)),
		e.skipped, e.skipNote(*rejectsPath))
	return nil
}

// checkPaths rejects a command line that names one file for two roles,
// which would overwrite the input or mix outputs.
func checkPaths(in, out, rejects string) error {
	same := func(a, b string) bool {
		if a == "" || a == "-" || b == "" || b == "-" {
			return false
		}
		if filepath.Clean(a) == filepath.Clean(b) {
			return true
		}
		sa, errA := os.Stat(a)
		sb, errB := os.Stat(b)
		return errA == nil && errB == nil && os.SameFile(sa, sb)
	}
	switch {
	case same(out, rejects):
		return usageErrorf("--out and --rejects name the same file %s", out)
	case same(in, rejects):
		return usageErrorf("--in and --rejects name the same file %s", in)
	case rejects == "-" && (out == "" || out == "-"):
		return usageErrorf("--out and --rejects both go to standard output; give --out FILE")
	}
	return nil
}

// checkTerminal refuses to write binary data to standard output when it is
// a terminal, like gzip does.
func checkTerminal(outPath string, std stdio, what string) error {
	if (outPath == "" || outPath == "-") && isTerminal(std.out) {
		return usageErrorf("refusing to write binary %s data to a terminal: give --out FILE or redirect standard output", what)
	}
	return nil
}

// errInterrupted stops a command on SIGINT or SIGTERM.
var errInterrupted = errors.New("interrupted")

// encoder is the state of one "protoavro encode" run.
type encoder struct {
	std     stdio
	md      protoreflect.MessageDescriptor
	format  recordFormat
	cw      *protoavro.ContainerWriter
	codec   *protoavro.Codec
	workers int
	prog    *progress
	skip    bool
	rejects *output // nil without --rejects
	skipped int64
	// firstBad is the error of the first skipped record.
	firstBad error
	bytesIn  int64
}

// encodeDelimited feeds length-delimited records to the writer, which
// converts them on its workers.
func (e *encoder) encodeDelimited(r io.Reader) error {
	dr := newDelimitedReader(r)
	done := e.std.ctx.Done()
	for {
		select {
		case <-done:
			return errInterrupted
		default:
		}
		rec, off, err := dr.next()
		e.bytesIn = dr.off
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := e.cw.WriteWireAt(rec, off); err != nil {
			return err
		}
		e.prog.update(dr.index, dr.off)
	}
}

// encodeJSONL reads JSON lines and feeds their wire bytes to the writer.
// Lines are parsed in batches on worker goroutines, each into a dynamicpb
// message that is then marshalled and converted once, so that a record
// that cannot be converted is reported (or skipped, and copied to the
// rejects as the line it was) in input order with its line number; the
// writer converts the good ones again on its own workers.
func (e *encoder) encodeJSONL(r io.Reader) error {
	lr := newLineReader(r)
	fresh := func() *jsonBatch { return &jsonBatch{m: dynamicpb.NewMessage(e.md)} }
	add := func(b *jsonBatch) (int, int, error) {
		raw, off, line, err := lr.next()
		e.bytesIn = lr.off
		if err != nil {
			return 0, 0, err
		}
		if len(b.ends) == 0 {
			b.first = lr.index - 1
		}
		b.raw = append(b.raw, raw...)
		b.ends = append(b.ends, len(b.raw))
		b.offsets = append(b.offsets, off)
		b.lines = append(b.lines, line)
		e.prog.update(lr.index, lr.off)
		return len(b.ends), len(b.raw), nil
	}
	return runBatches(e.std.ctx.Done(), e.workers, e.convertLines, fresh, (*jsonBatch).reset, add, e.writeLines)
}

// jsonBatch is a run of JSON lines that a worker converts.
type jsonBatch struct {
	// first is the input index of the first record.
	first int64
	// raw holds the lines as read, concatenated; ends[i] is the end of
	// line i in raw.
	raw  []byte
	ends []int
	// offsets and lines are the input offsets and line numbers.
	offsets []int64
	lines   []int64
	// wire holds the converted records; wends[i] is the end of record i.
	wire  []byte
	wends []int
	// errs[i] is the error of record i, nil when it converted.
	errs    []error
	m       *dynamicpb.Message
	scratch []byte
}

// reset empties b for reuse.
func (b *jsonBatch) reset() {
	b.raw, b.ends, b.offsets, b.lines = b.raw[:0], b.ends[:0], b.offsets[:0], b.lines[:0]
	b.wire, b.wends, b.errs = b.wire[:0], b.wends[:0], b.errs[:0]
}

// convertLines parses each line of b into a message, marshals it
// deterministically and checks that it converts to Avro. It runs on a
// worker goroutine.
func (e *encoder) convertLines(b *jsonBatch) {
	marshal := proto.MarshalOptions{Deterministic: true}
	start := 0
	for _, end := range b.ends {
		text := bytes.TrimRight(b.raw[start:end], "\r\n")
		start = end
		n := len(b.wire)
		err := protojson.Unmarshal(text, b.m)
		if err != nil {
			err = protoError(err)
		} else if b.wire, err = marshal.MarshalAppend(b.wire, b.m); err == nil {
			b.scratch, err = e.codec.TranscodeToAvro(b.scratch[:0], b.wire[n:])
		}
		if err != nil {
			b.wire = b.wire[:n]
		}
		b.errs = append(b.errs, err)
		b.wends = append(b.wends, len(b.wire))
	}
}

// writeLines hands the converted records of b to the writer and skips or
// reports the others.
func (e *encoder) writeLines(b *jsonBatch) error {
	rs, ws := 0, 0
	for i, err := range b.errs {
		raw, wire := b.raw[rs:b.ends[i]], b.wire[ws:b.wends[i]]
		rs, ws = b.ends[i], b.wends[i]
		if err != nil {
			re := &recordError{index: b.first + int64(i), offset: b.offsets[i], line: b.lines[i], err: stripPrefix(err)}
			if err := e.skipLine(re, raw); err != nil {
				return err
			}
			continue
		}
		if err := e.cw.WriteWireAt(wire, b.offsets[i]); err != nil {
			return err
		}
	}
	return nil
}

// skipLine handles a JSON line that cannot be converted: without
// --skip-bad it returns re; with it, it counts the line and copies it to
// the rejects as it was.
func (e *encoder) skipLine(re *recordError, raw []byte) error {
	if !e.skip {
		return re
	}
	e.skipped++
	if e.firstBad == nil {
		e.firstBad = re
	}
	if e.rejects != nil {
		if _, err := e.rejects.Write(raw); err != nil {
			return err
		}
		if raw[len(raw)-1] != '\n' {
			if _, err := e.rejects.Write([]byte{'\n'}); err != nil {
				return err
			}
		}
	}
	return nil
}

// onBadRecord is the writer's OnBadRecord with --skip-bad: it counts the
// record and copies it, re-delimited, to the rejects.
func (e *encoder) onBadRecord(re *protoavro.RecordError) error {
	e.skipped++
	if e.firstBad == nil {
		e.firstBad = inputRecordError(re)
	}
	if e.rejects != nil {
		var prefix [binaryMaxVarint]byte
		if _, err := e.rejects.Write(protowire.AppendVarint(prefix[:0], uint64(len(re.Record)))); err != nil {
			return err
		}
		if _, err := e.rejects.Write(re.Record); err != nil {
			return err
		}
	}
	return nil
}

// binaryMaxVarint is the longest varint.
const binaryMaxVarint = 10

// skipNote describes the skipped records for the summary: where they went
// and why the first one was skipped.
func (e *encoder) skipNote(rejects string) string {
	if e.skipped == 0 {
		return ""
	}
	var b strings.Builder
	if rejects != "" {
		fmt.Fprintf(&b, " (written to %s)", rejects)
	}
	fmt.Fprintf(&b, "; first: %s", errorLine(e.firstBad))
	return b.String()
}

// inputRecordError rewrites a record error of the writer, which names the
// record's input offset, in the words of the command's own record errors.
func inputRecordError(err error) error {
	var re *protoavro.RecordError
	if errors.As(err, &re) && re.Offset >= 0 {
		return &recordError{index: re.Index, offset: re.Offset, err: stripPrefix(re.Err)}
	}
	return err
}

// protoError shortens an error of protojson for a one-line message: it
// drops the "proto: " prefix and, since every record is one line, turns
// "(line 1:12)" into "(column 12)".
func protoError(err error) error {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "proto:"); ok {
		msg = strings.TrimLeft(rest, " \u00a0")
	}
	msg = strings.Replace(msg, "(line 1:", "(column ", 1)
	return errors.New(msg)
}

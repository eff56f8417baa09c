package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/anytype"
	"github.com/protoavro/protoavro/internal/pbjson"
	"github.com/protoavro/protoavro/internal/usage"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
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
var decodeUsage = `Usage: protoavro decode [--in FILE|-]... [FILE.avro...] [--out FILE|-]
                       [--format delimited|jsonl]
                       [-I DIR]... [--descriptor-set FILE]... [-m NAME] [FILE.proto...]
                       [--workers N] [--progress] [--skip-bad [--rejects FILE]] [MAPPING FLAGS]

Convert Avro Object Container Files to a stream of protobuf messages.

` + inputsHelp + `
Without type flags the records are read as the message type embedded in the
file by "protoavro encode" (no .proto files needed); every input must then
embed the same type (by full name), as one output holds one type. A file
without one (encode --descriptors none) needs -m. With -m (and .proto files
or --descriptor-set) the records are read into that message type instead,
for example a newer version of it: Avro's schema resolution fills fields
the file lacks with their defaults and drops fields the type lacks. That is
also how to read a container file written by another program, and how to
read files of different versions of a type into one output.

Output formats:
  delimited  Length-delimited protobuf: each message preceded by its size as
             a varint (Go's protodelim, Java's parseDelimitedFrom). Messages
             are marshalled deterministically. Default.
  jsonl      JSON Lines: one compact protobuf JSON (protojson) object per line.

A record that does not decode, or a damaged file, stops the command at the
first error. With --skip-bad they are skipped: a record holding a value its
message type cannot take (a null for a field that has none, as in the
nullable columns Spark writes, a number out of the field's range, invalid
UTF-8) alone, its end found by the file's schema; a record whose end cannot
be found (damaged data) with the rest of its block, whose records cannot be
told apart; a damaged block with everything up to the next sync marker.
What was skipped is counted in the summary: records skipped in blocks that
were read, and the damaged blocks and bytes skipped, whose records are not
known and not counted.

The google.protobuf.Any values of the records (JSON Lines output, Any
carried as JSON) resolve, without type flags, to the types embedded in the
file (encode embeds the .proto files named on its command line) and those
built into protoavro; with -m, to the types loaded: name the .proto files
of the packed types too, or give a --descriptor-set made with
--include_imports. A record that protobuf JSON cannot write (an Any of an
unknown type, a Struct Value with no kind, an Any packing a set field whose
json_name is "@type") is an error, or skipped with
--skip-bad.

Flags:
  --in FILE              Input file or glob pattern; "-" is standard input.
                         May repeat.
  --out FILE             Output file; "-" (the default) is standard output.
                         A file is written under a temporary name in the
                         same directory and renamed when the command
                         succeeds; on failure nothing is created and an
                         existing file is left unchanged. A character
                         device or a FIFO is written in place.
  --format FORMAT        Output format: delimited (default) or jsonl.
` + strings.Replace(typeFlagsUsage, "                         Required.\n",
	"                         Optional: without it the type embedded in the\n                         file is used.\n", 1) + mappingFlagsUsage + `  (Mapping flags)        Without them the records are read with the mapping
                         recorded in the file, which gives the messages as
                         they were written. With -m they choose the mapping
                         of its type (the file's schema is resolved against
                         it); without -m they are refused, except
                         --unknown-enums, which applies either way and,
                         given alone, keeps the file's mapping.
  --workers N            Goroutines that decompress and decode blocks, and
                         that format records, at most 1024. Default:
                         GOMAXPROCS (the number of CPUs).
` + progressFlagUsage + `  --skip-bad             Skip bad records and damaged blocks instead of
                         stopping.
  --rejects FILE         With --skip-bad: write the skipped bytes to FILE, one
                         after the other, unframed: the Avro datum of a
                         record skipped alone, or the rest of its block, as
                         in the block's decompressed data; the bytes of a
                         damaged block up to the next sync marker, as in the
                         file; the protobuf wire bytes of records that decode
                         but cannot be written (not valid protobuf, or with
                         no JSON form).
  -h, --help             Print this help.

On success a one-line summary goes to standard error. Exit status is 0 on
success, 1 for a damaged or unreadable container file or an output whose
writing fails (a full disk), and 2 for a bad command line, input that
cannot be loaded or an output file that cannot be created (no such
directory, no permission).
`

// runDecode implements "protoavro decode".
func runDecode(args []string, std stdio) error {
	fs := newFlagSet("decode")
	var (
		workers = intFlag{n: runtime.GOMAXPROCS(0), min: 1, max: maxWorkers}
		sf      streamFlags
	)
	fs.Var(&workers, "workers", "formatting goroutines")
	sf.register(fs)
	protos, inputs, err := sf.parse(fs, args)
	if err != nil {
		return err
	}
	if sf.format.f == formatDelimited {
		if err := checkTerminal(sf.out, std, "protobuf"); err != nil {
			return err
		}
	}
	ropts := protoavro.ReaderOptions{Options: protoavro.Options{Cache: protoavro.NewCache(), Limits: sf.mapping.limits}}
	// google.protobuf.Any resolves to the loaded types; without type flags,
	// to the types embedded in each file and those compiled into the
	// program (the reader's default: ContainerReader.AnyResolver).
	var resolver protoavro.AnyResolver
	explicit := sf.types.message != "" || len(protos) > 0 || len(sf.types.descriptorSets) > 0 || len(sf.types.importPaths) > 0
	if explicit {
		md, types, err := sf.types.resolveTypes(std.ctx, protos)
		if err != nil {
			return err
		}
		ropts.Message = dynamicpb.NewMessageType(md)
		resolver = types.Resolver()
	}
	// The mapping options are the file's (recorded by encode), unless mapping
	// flags choose the reader's: with -m, the type is read by them, resolving
	// the file's schema. --unknown-enums alone keeps the file's mapping.
	ropts.FileOptions = true
	if sf.mapping.given() {
		reader := readerMappingFlags(&sf.mapping)
		if len(reader) > 0 && !explicit {
			verb := "needs"
			if len(reader) > 1 {
				verb = "need"
			}
			return usage.Errorf("%s %s -m: without it the records are read with the mapping recorded in the file, which gives the messages as they were written (of the mapping flags, only --unknown-enums applies)", strings.Join(reader, ", "), verb)
		}
		if ropts.Options, err = sf.mapping.options(""); err != nil {
			return err
		}
		ropts.FileOptions = len(reader) == 0
	}
	if explicit {
		ropts.Options.AnyResolver = resolver
	}
	ropts.Workers = workers.n
	start := time.Now()
	d := &decoder{format: sf.format.f, workers: workers.n, skip: sf.skipBad, std: std, embedded: !explicit}
	if d.rejects, err = sf.openRejects(std); err != nil {
		return err
	}
	defer d.rejects.abort()
	out, err := createOutput(sf.out, "--out", std)
	if err != nil {
		return err
	}
	defer out.abort()
	d.out = out
	d.prog = startProgress(std, sf.prog, "decoding", totalSize(inputs), start)
	codecs := map[protoavro.Compression]bool{}
	for _, path := range inputs {
		var c protoavro.Compression
		if c, err = d.decodeInput(path, ropts); err != nil {
			break
		}
		codecs[c] = true
	}
	d.prog.finish()
	if err != nil {
		return err
	}
	if err := d.rejects.commit(); err != nil {
		return err
	}
	if err := out.commit(); err != nil {
		return err
	}
	names := make([]string, 0, len(codecs))
	for c := range codecs {
		names = append(names, string(c))
	}
	slices.Sort(names)
	skipped := ""
	if d.skip {
		blocks := plural(d.skippedBlocks, "damaged block")
		if d.skippedBlocks > 0 {
			blocks += " (records not counted)"
		}
		skipped = fmt.Sprintf("; %s, %s and %s skipped%s", plural(d.skippedRecords, "record"),
			blocks, formatBytes(d.skippedBytes), skipNote(d.firstBad, sf.rejects))
	}
	return summary(std, "protoavro: decoded %s (%s in, %s out, %s, %s) in %s%s\n",
		plural(d.records, "record"), formatBytes(d.bytesIn), formatBytes(out.written()),
		plural(d.blocks, "block"), strings.Join(names, ", "), formatDuration(time.Since(start)), skipped)
}

// decoder is the state of one "protoavro decode" run.
type decoder struct {
	std     stdio
	out     *output
	format  recordFormat
	workers int
	prog    *progress
	skip    bool
	rejects *output // nil without --rejects
	// Totals over the inputs.
	records, blocks, bytesIn                    int64
	skippedRecords, skippedBlocks, skippedBytes int64
	// firstBad is the first error skipped.
	firstBad error
	// embedded is set when the records are read as the type embedded in
	// each file (no -m); typeName and typeFile are then the type of the
	// first input and its name, which every other input must embed too.
	embedded           bool
	typeName, typeFile string
}

// readerMappingFlags returns the mapping flags given that choose the
// reader's mapping: all of them but --unknown-enums, which is a policy of
// the reading, not part of the schema.
func readerMappingFlags(m *mappingFlags) []string {
	var flags []string
	for _, f := range mappingFlagNames {
		if _, ok := m.set[f.key]; ok && f.key != "enums" {
			flags = append(flags, "--"+f.flag)
		}
	}
	return flags
}

// decodeInput decodes the container file at path.
func (d *decoder) decodeInput(path string, ropts protoavro.ReaderOptions) (protoavro.Compression, error) {
	in, err := openInput(path, "--in", d.std)
	if err != nil {
		return "", err
	}
	defer in.close()
	// The header first: without -m, a file must embed its message type,
	// the same as the other inputs'. (The defaults of ocf.ReaderOptions are
	// the limits of protoavro.NewContainerReader.)
	or, err := ocf.NewReader(in.r, ocf.ReaderOptions{})
	if err != nil {
		return "", fmt.Errorf("%s: %w", in.name, err)
	}
	meta := or.Header().Metadata
	if d.embedded && (meta[protoavro.MetaMessage] == nil || meta[protoavro.MetaDescriptors] == nil) {
		return "", usage.Errorf("%s has no embedded protobuf type (it was written with encode --descriptors none, or by another program): give its message type with -m and the .proto files or --descriptor-set that define it", in.name)
	}
	cr, err := protoavro.NewContainerReaderFrom(or, ropts)
	if err != nil {
		return "", fmt.Errorf("%s: %w", in.name, readError(err))
	}
	if d.embedded {
		name := string(cr.MessageType().Descriptor().FullName())
		if d.typeFile == "" {
			d.typeName, d.typeFile = name, in.name
		} else if name != d.typeName {
			return "", usage.Errorf("%s embeds message type %s, but %s embeds %s: one output holds one type; decode them separately, or give -m to read them all as one type", in.name, name, d.typeFile, d.typeName)
		}
	}
	base, records0 := d.bytesIn, d.records
	err = d.decodeRecords(cr, in.name, func() {
		d.prog.update(records0+cr.Records(), base+cr.Offset())
	})
	d.blocks += cr.Blocks()
	d.bytesIn += cr.Offset()
	return cr.Compression(), err
}

// rejectsWriter returns where skipped bytes go: the rejects, or nowhere.
func (d *decoder) rejectsWriter() io.Writer {
	if d.rejects == nil {
		return nil
	}
	return d.rejects
}

// decodeRecords reads every record of cr and writes it to d.out. Records
// are read as wire bytes, which are those of deterministic proto.Marshal,
// and written length-delimited as they are, or, on worker goroutines,
// parsed and formatted as JSON. Errors of the input start with its name.
// With --skip-bad, damage is skipped with [protoavro.ContainerReader.Resync].
func (d *decoder) decodeRecords(cr *protoavro.ContainerReader, name string, progress func()) error {
	if d.format == formatDelimited {
		return d.decodeDelimited(cr, name, progress)
	}
	m := cr.NewMessage()
	// watch notes a packed type whose JSON form clashes with its Any's
	// (anytype.Clash): from then on, each record is checked for one.
	watch := &anytype.Watch{FullResolver: cr.AnyResolver()}
	plan := pbjson.Compile(m.ProtoReflect().Descriptor(), pbjson.Options{Resolver: watch})
	fresh := func() *decodeBatch {
		return &decodeBatch{m: cr.NewMessage(), json: plan.Formatter(), resolver: watch}
	}
	reset := func(b *decodeBatch) {
		b.first, b.wire, b.out, b.err, b.bad = cr.Records(), b.wire[:0], b.out[:0], nil, b.bad[:0]
		b.skips, b.count = b.skips[:0], 0
	}
	// Whole blocks go to the batches as the reader gives them,
	// length-delimited; the workers split them.
	add := func(b *decodeBatch) (int, int, error) {
		out, n, skipped, err := d.nextDelimited(cr, name)
		if err != nil {
			return 0, 0, err
		}
		if skipped > 0 {
			// Skipped records count as read: keep the indexes right.
			if b.count > 0 {
				b.skips = append(b.skips, skipMark{at: b.count, n: skipped})
			} else {
				b.first += skipped
			}
		}
		b.wire = append(b.wire, out...)
		b.count += n
		progress()
		return b.count, len(b.wire), nil
	}
	take := func(b *decodeBatch) error {
		if b.err != nil {
			return b.err
		}
		for _, bad := range b.bad {
			d.skippedRecords++
			if d.firstBad == nil {
				d.firstBad = bad.err
			}
			if d.rejects != nil {
				if _, err := d.rejects.Write(bad.wire); err != nil {
					return err
				}
			}
		}
		d.records += int64(b.count - len(b.bad))
		if _, err := d.out.Write(b.out); err != nil {
			return err
		}
		return nil
	}
	work := func(b *decodeBatch) { b.err = b.format(d.skip, name) }
	err := runBatches(d.std.ctx.Done(), d.workers, work, fresh, reset, add, take)
	var we *writeError
	if errors.As(err, &we) {
		return we
	}
	return err
}

// nextDelimited returns the next records of cr, length-delimited, as
// [protoavro.ContainerReader.NextDelimited] does, skipping damage with
// --skip-bad; skipped is the number of records skipped before them. It
// returns io.EOF after the last record.
func (d *decoder) nextDelimited(cr *protoavro.ContainerReader, name string) (out []byte, n int, skipped int64, err error) {
	for {
		if out, n, err = cr.NextDelimited(); err == nil || err == io.EOF {
			return out, n, skipped, err
		}
		err = fmt.Errorf("%s: %w", name, readError(err))
		if !d.skip {
			return nil, 0, skipped, err
		}
		sk, rerr := cr.Resync(d.rejectsWriter())
		d.skippedRecords += sk.Records
		d.skippedBlocks += sk.Blocks
		d.skippedBytes += sk.Bytes
		skipped += sk.Records
		if d.firstBad == nil {
			d.firstBad = err
		}
		if rerr == io.EOF {
			return nil, 0, skipped, io.EOF
		}
		if rerr != nil {
			return nil, 0, skipped, err
		}
	}
}

// decodeDelimited writes the records of cr length-delimited, in the
// reading goroutine: the wire bytes need no formatting. Whole blocks come
// length-delimited from the reader (whose workers decode them), and go to
// the output as they are.
func (d *decoder) decodeDelimited(cr *protoavro.ContainerReader, name string, progress func()) error {
	done := d.std.ctx.Done()
	for {
		if err := interrupted(done); err != nil {
			return err
		}
		out, n, _, err := d.nextDelimited(cr, name)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := d.out.Write(out); err != nil {
			return err
		}
		d.records += int64(n)
		progress()
	}
}

// decodeBatch is a run of records that a worker formats.
type decodeBatch struct {
	// first is the index of the first record.
	first int64
	// wire holds count records length-delimited.
	wire  []byte
	count int
	// out is the formatted records.
	out []byte
	err error
	m   proto.Message
	// json formats records without protojson's generic path; what it
	// declines goes to proto.Unmarshal and protojson.
	json *pbjson.Formatter
	// resolver resolves google.protobuf.Any for protojson and the JSON
	// plan, noting the types that anytype.ClashInMessage looks for.
	resolver *anytype.Watch
	// skips mark records skipped between the batch's records.
	skips []skipMark
	// bad are the records skipped because they are not valid protobuf.
	bad []unformatted
}

// skipMark says that n records were skipped before record at of a batch.
type skipMark struct {
	at int
	n  int64
}

// unformatted is a record that decoded but could not be formatted.
type unformatted struct {
	wire []byte
	err  error
}

// format formats each record of b as a line of JSON, appended to b.out;
// with skip, records that fail go to b.bad. It runs on a worker goroutine.
func (b *decodeBatch) format(skip bool, name string) error {
	index, skips := b.first, b.skips
	// The records come length-delimited (the reader wrote them); nothing
	// is kept per record, however small the records.
	for pos, i := 0, 0; pos < len(b.wire); i++ {
		size, w := protowire.ConsumeVarint(b.wire[pos:])
		if w < 0 || size > uint64(len(b.wire)-pos-w) {
			return fmt.Errorf("%s: internal error: bad length prefix at batch byte %d", name, pos)
		}
		wire := b.wire[pos+w : pos+w+int(size)]
		pos += w + int(size)
		for len(skips) > 0 && skips[0].at == i {
			index += skips[0].n
			skips = skips[1:]
		}
		n := len(b.out)
		if err := b.formatOne(wire); err != nil {
			err = fmt.Errorf("%s: record %d: %w", name, index, err)
			if !skip {
				return err
			}
			b.out = b.out[:n]
			b.bad = append(b.bad, unformatted{wire: slices.Clone(wire), err: err})
		}
		index++
	}
	return nil
}

// formatOne appends one record to b.out as one line of JSON: by the pbjson
// fast path, or parsed into b.m and formatted by protojson.
func (b *decodeBatch) formatOne(wire []byte) error {
	n := len(b.out)
	var ok bool
	if b.out, ok = b.json.AppendJSON(b.out, wire); ok {
		if b.resolver.Seen() {
			if err := b.checkClash(wire); err != nil {
				b.out = b.out[:n]
				return err
			}
		}
		b.out = append(b.out, '\n')
		return nil
	}
	if err := proto.Unmarshal(wire, b.m); err != nil {
		return err
	}
	// protojson.MarshalOptions{} is the compact form: one line. On an
	// error, MarshalAppend returns nil: b.out is kept.
	out, err := (protojson.MarshalOptions{Resolver: b.resolver}).MarshalAppend(b.out, b.m)
	if err != nil {
		if u, ok := anytype.InMessage(b.m.ProtoReflect(), b.resolver); ok {
			return unknownAny(u)
		}
		return protoError(err, nil)
	}
	if b.resolver.Seen() {
		if c, ok := anytype.ClashInMessage(b.m.ProtoReflect(), b.resolver); ok {
			return clashError(c)
		}
	}
	b.out = out
	if bytes.IndexByte(b.out[n:], '\n') >= 0 {
		return fmt.Errorf("JSON output spans lines")
	}
	b.out = append(b.out, '\n')
	return nil
}

// checkClash refuses the record of wire bytes whose JSON holds a
// google.protobuf.Any with two "@type" members (anytype.Clash).
func (b *decodeBatch) checkClash(wire []byte) error {
	if err := proto.Unmarshal(wire, b.m); err != nil {
		return err
	}
	if c, ok := anytype.ClashInMessage(b.m.ProtoReflect(), b.resolver); ok {
		return clashError(c)
	}
	return nil
}

// clashError is the error of a record whose JSON would hold a
// google.protobuf.Any with two "@type" members.
func clashError(c anytype.Clash) error {
	return fmt.Errorf("%w: the record cannot be written as JSON: %s", protoavro.ErrMalformed, c.Describe())
}

// The advice that ends the library's error of an incompatibility of a file
// written with other mapping options than the reader's, and the command's.
const (
	libraryOptionsHint = "; ReaderOptions.FileOptions reads it with them)"
	commandOptionsHint = "; decode reads it with them without the mapping flags)"
)

// readError is an error of protoavro's container reader, for the command
// to wrap: without its "protoavro: ", and with the command's advice on
// reading a file with the mapping options it records rather than the
// library's.
func readError(err error) error {
	err = stripPrefix(err)
	if msg, ok := strings.CutSuffix(err.Error(), libraryOptionsHint); ok {
		return &strippedError{msg: msg + commandOptionsHint, err: err}
	}
	return err
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

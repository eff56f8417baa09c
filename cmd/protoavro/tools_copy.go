package main

// The avro-tools commands that copy container files: cat (a selection of
// records) and concat (whole files).

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/usage"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// catCommand is "protoavro cat".
var catCommand = &command{
	name:    "cat",
	summary: "copy a selection of records of Avro container files to a new one (avro-tools cat)",
	usage:   catUsage,
	run:     runCat,
}

const catUsage = `Usage: protoavro cat [--offset N] [--limit N] [--sample RATE] [--codec NAME]
                    [--out FILE|-] FILE.avro...

Copy records of Avro Object Container Files with one schema to a new
container file, in order: skip the first --offset records, keep a --sample
fraction of the rest (evenly spread: record k after the offset is kept when
floor((k+1)*RATE) > floor(k*RATE), so the choice is deterministic), and
stop after --limit records. Every block read from is decompressed and its
records checked against the schema, as tojson reads them but without
converting them; blocks taken whole are then copied as they are stored
when the codec does not change. Blocks before the offset are neither
decompressed nor checked: their records are counted from the block
headers. Glob patterns (*, ?, [...]) among the files are expanded; "-"
reads standard input, once, unless it is a terminal.

Unlike avro-tools cat, every argument is an input: the output is --out
FILE, or standard output without it, never the last argument ("protoavro
cat --limit 10 --out part.avro in.avro" is "avro-tools cat --limit 10
in.avro part.avro"). The fraction is --sample, not --samplerate, and picks
other records than avro-tools does.

Flags:
  --offset N             Skip the first N records. Default 0.
  --limit N              Copy at most N records. Default: no limit.
  --sample RATE          Keep this fraction of the records, from 0 to 1.
                         Default 1.
` + copyUsageTail

// concatCommand is "protoavro concat".
var concatCommand = &command{
	name:    "concat",
	summary: "concatenate Avro container files with one schema, copying blocks (avro-tools concat)",
	usage:   concatUsage,
	run:     runConcat,
}

const concatUsage = `Usage: protoavro concat [--codec NAME] [--out FILE|-] FILE.avro...

Concatenate Avro Object Container Files with one schema into one. Every
block is decompressed and its records checked against the schema, as
tojson reads them but without converting them; blocks are then copied as
they are stored when their codec is the output's, and compressed again
otherwise. Glob patterns (*, ?, [...]) among the files are expanded; "-"
reads standard input, once, unless it is a terminal.

Unlike avro-tools concat, every argument is an input: the output is --out
FILE, or standard output without it, never the last argument ("protoavro
concat --out all.avro a.avro b.avro" is "avro-tools concat a.avro b.avro
all.avro"). Files with different codecs are accepted (blocks of another
codec are compressed again); there is no -appendToFirst.

Flags:
` + copyUsageTail

// copyUsageTail ends the help of cat and concat.
const copyUsageTail = `  --codec NAME           Block codec of the output: null, deflate, snappy
                         or zstd. Default: the first file's.
  --out FILE             Output file; "-" (the default) is standard output,
                         refused when it is a terminal. Written under a
                         temporary name, renamed on success.
  -h, --help             Print this help.

The files must have the same schema and the same metadata other than
avro.*; the output takes the first file's. Schemas are compared whole, as
avro-tools compares them: types, names, logical types with precision and
scale, fixed sizes, enum symbols, fields in order with their names,
defaults and orders, and other attributes (not docs or aliases). The error
names the first difference, such as "Foo.ts: logicalType timestamp-millis
vs timestamp-micros". A
summary goes to standard error. A damaged block (records that do not
match its count or the schema, data that does not decompress) stops the
command with an error naming the file, the block and its byte offset, and
the record when one is at fault; so do files whose records number more
than 2^63-1 together. The output is then not written. Exit status is 0 on
success, 1 for a damaged file or files with different schemas, and 2 for a
bad command line or a file that cannot be opened.
`

// selection is which records cat copies.
type selection struct {
	offset int64
	limit  int64 // -1: no limit
	rate   float64
}

// rateFlag is the --sample flag: a fraction from 0 to 1.
type rateFlag struct{ r float64 }

// String returns the rate.
func (f *rateFlag) String() string { return strconv.FormatFloat(f.r, 'g', -1, 64) }

// Set parses a rate.
func (f *rateFlag) Set(v string) error {
	r, err := strconv.ParseFloat(v, 64)
	if err != nil || !(r >= 0 && r <= 1) {
		return errors.New("want a fraction from 0 to 1, e.g. 0.01")
	}
	f.r = r
	return nil
}

// copyFlags registers --codec and --out.
func copyFlags(fs *flag.FlagSet) (*codecFlag, *string) {
	var codec codecFlag
	fs.Var(&codec, "codec", "output block codec")
	return &codec, fs.String("out", "-", "output file")
}

func runCat(args []string, std stdio) error {
	fs := newFlagSet("cat")
	codec, out := copyFlags(fs)
	sel := selection{rate: 1}
	offset := intFlag{min: 0}
	limit := intFlag{n: -1, min: 0}
	rate := rateFlag{r: 1}
	fs.Var(&offset, "offset", "records to skip")
	fs.Var(&limit, "limit", "records to copy at most")
	fs.Var(&rate, "sample", "fraction of records to keep")
	files, err := parseFiles(fs, args, "cat")
	if err != nil {
		return err
	}
	sel.offset, sel.limit, sel.rate = int64(offset.n), int64(limit.n), rate.r
	return copyContainers("cat", files, *out, flagGiven(fs, "out"), codec.c, sel, std)
}

func runConcat(args []string, std stdio) error {
	fs := newFlagSet("concat")
	codec, out := copyFlags(fs)
	files, err := parseFiles(fs, args, "concat")
	if err != nil {
		return err
	}
	return copyContainers("concat", files, *out, flagGiven(fs, "out"), codec.c, selection{limit: -1, rate: 1}, std)
}

// flagGiven reports whether the flag name was given on the command line
// parsed by fs.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// outputHint is the note that errors about the last file of cat or concat
// name carry when --out is not given: avro-tools takes the output as the
// last argument, protoavro reads it as one more input.
func outputHint(name string) string {
	return fmt.Sprintf("%s reads every argument as an input; its output is --out FILE, or standard output without it, where avro-tools %s takes the last argument", name, name)
}

// checkLastFile refuses, before anything is read, a last file that cannot
// be an input because it does not exist, with [outputHint]: the mistake
// of a command line written for avro-tools, whose last argument is the
// output. Standard input on a terminal is refused by [checkStdinContainers].
func checkLastFile(name, last string) error {
	if last == "-" {
		return nil
	}
	if _, err := os.Stat(last); errors.Is(err, fs.ErrNotExist) {
		return usage.Errorf("%s: no such file or directory (%s)", last, outputHint(name))
	}
	return nil
}

// copier is the state of one cat or concat run.
type copier struct {
	sel      selection
	w        *ocf.Writer
	seen     int64 // records read, over all files
	kept     int64 // records after the offset considered for the sample
	taken    int64 // records written
	copied   int64 // blocks copied as stored
	recoded  int64 // blocks decompressed and compressed again
	buf, raw []byte
}

// copyContainers copies the selected records of files to outPath with the
// given codec ("" keeps the first file's). outGiven says that --out was
// given: without it, with two files or more, the last may be meant as the
// output, as avro-tools takes it, and errors about it say how protoavro
// takes the output instead ([outputHint]).
func copyContainers(name string, files []string, outPath string, outGiven bool, codec protoavro.Compression, sel selection, std stdio) error {
	if len(files) == 0 {
		return usage.Errorf("%s: give the container files to read (\"-\" for standard input)", name)
	}
	if err := checkPaths(files, fileRole{"--out", outPath}); err != nil {
		return err
	}
	// hint adds outputHint to an error about the last file, or about the
	// output, when the last file may be meant as the output.
	hint := func(err error) error { return err }
	if !outGiven && len(files) > 1 {
		hint = func(err error) error { return fmt.Errorf("%w (%s)", err, outputHint(name)) }
		if err := checkLastFile(name, files[len(files)-1]); err != nil {
			return err
		}
	}
	// Standard input is checked after the last file, not first as
	// containerFiles checks it for the read commands: a missing last file,
	// perhaps meant as the output, is said first, with the hint.
	if err := checkStdinContainers(files, std); err != nil {
		if files[len(files)-1] == "-" {
			err = hint(err)
		}
		return err
	}
	if err := checkTerminal(outPath, std, "Avro"); err != nil {
		return hint(err)
	}
	first, err := openContainer(files[0], std)
	if err != nil {
		return err
	}
	defer first.close()
	if err := first.parseSchema(); err != nil {
		return err
	}
	h := first.or.Header()
	if codec == "" {
		codec = h.Codec
	}
	out, err := createOutput(outPath, "--out", std)
	if err != nil {
		return err
	}
	defer out.abort()
	w, err := ocf.NewWriter(out, ocf.WriterOptions{Schema: h.Schema, Codec: codec, Metadata: userMetadata(h.Metadata)})
	if err != nil {
		return fmt.Errorf("%s: %w", first.in.name, err)
	}
	cp := &copier{sel: sel, w: w}
	for i, path := range files {
		c := first
		if i > 0 {
			if c, err = openContainer(path, std); err != nil {
				if i == len(files)-1 {
					err = hint(err)
				}
				return err
			}
			err = c.parseSchema()
			if err == nil {
				err = sameKind(first, c)
			}
		}
		if err == nil {
			err = cp.copyFile(c)
		}
		if i > 0 {
			c.close()
		}
		if err != nil {
			return err
		}
		if cp.done() {
			break
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if err := out.commit(); err != nil {
		return err
	}
	return summary(std, "protoavro: wrote %s%s in %s (%s): %d copied as stored, %d compressed again\n",
		plural(cp.taken, "record"), toStdout(outPath), plural(w.Blocks(), "block"), codec, cp.copied, cp.recoded)
}

// toStdout is " to standard output" when outPath names it, for the summary
// of a command whose output may be a file: written without --out, the
// records are on standard output, and the summary says so.
func toStdout(outPath string) string {
	if outPath == "" || outPath == "-" {
		return " to standard output"
	}
	return ""
}

// userMetadata returns the metadata outside the avro.* keys.
func userMetadata(meta map[string][]byte) map[string][]byte {
	m := map[string][]byte{}
	for k, v := range meta {
		if !strings.HasPrefix(k, "avro.") {
			m[k] = v
		}
	}
	return m
}

// sameKind checks that c has the schema and metadata of first, both with
// their schemas parsed. The schemas are compared whole, as avro-tools
// compares them (avroschema.Full): the same canonical form with another
// logical type, decimal scale or default would mean other values.
func sameKind(first, c *container) error {
	if d := avroschema.Diff(first.schema, c.schema, avroschema.Full); d != nil {
		return fmt.Errorf("%s: its schema differs from the schema of %s at %s (%s vs %s): files with different schemas cannot be concatenated",
			c.in.name, first.in.name, d, first.in.name, c.in.name)
	}
	ma, mb := userMetadata(first.or.Header().Metadata), userMetadata(c.or.Header().Metadata)
	for _, k := range slices.Sorted(maps.Keys(ma)) {
		if v, ok := mb[k]; !ok || !bytes.Equal(v, ma[k]) {
			return fmt.Errorf("%s: metadata %q differs from that of %s", c.in.name, k, first.in.name)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			return fmt.Errorf("%s: metadata %q is not in %s", c.in.name, k, first.in.name)
		}
	}
	return nil
}

// done reports whether the limit is reached.
func (cp *copier) done() bool { return cp.sel.limit >= 0 && cp.taken >= cp.sel.limit }

// copyFile copies the selected records of c. Every block copied, whole or
// in part, is decompressed and its records checked against the schema by
// the skipper first, so that a block whose records do not match its count
// or the schema is an error, not a copy that fails its readers later.
func (cp *copier) copyFile(c *container) error {
	sameCodec := c.or.Header().Codec == cp.w.Codec()
	for !cp.done() {
		b, err := c.nextBlock(true)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if b.Count > math.MaxInt64-cp.seen {
			return c.totalError(b)
		}
		start := cp.seen
		cp.seen += b.Count
		if cp.seen <= cp.sel.offset {
			continue // before the offset: not even decompressed
		}
		if cp.raw, err = c.or.Decompress(cp.raw[:0], b); err != nil {
			return fmt.Errorf("%s: %w", c.in.name, err)
		}
		whole := cp.sel.rate == 1 && start >= cp.sel.offset && (cp.sel.limit < 0 || cp.taken+b.Count <= cp.sel.limit)
		if !whole {
			count, data, err := cp.selectRecords(c, b, start)
			if err != nil {
				return err
			}
			cp.taken += count
			if count == 0 {
				continue
			}
			if err := cp.w.WriteBlock(count, data); err != nil {
				return fmt.Errorf("write output: %w", err)
			}
			cp.recoded++
			continue
		}
		if err := c.checkRecords(b, cp.raw); err != nil {
			return err
		}
		cp.taken += b.Count
		cp.kept += b.Count
		if sameCodec {
			if err := cp.w.WriteRawBlock(b.Count, b.Data); err != nil {
				return fmt.Errorf("write output: %w", err)
			}
			cp.copied++
			continue
		}
		if err := cp.w.WriteBlock(b.Count, cp.raw); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
		cp.recoded++
	}
	return nil
}

// selectRecords returns the selected records of block b (decompressed in
// cp.raw), whose first record has index start, and their count.
func (cp *copier) selectRecords(c *container, b ocf.Block, start int64) (int64, []byte, error) {
	if err := c.checkEmptyRecords(b, len(cp.raw)); err != nil {
		return 0, nil, err
	}
	cp.buf = cp.buf[:0]
	data := cp.raw
	var count int64
	for i := range b.Count {
		// Where the record ends, read by the skipper as tojson reads it,
		// without decoding it.
		r := avrobin.Reader{Buf: data}
		if err := c.skip.Skip(&r); err != nil {
			return 0, nil, c.recordError(b, i, len(cp.raw)-len(data), err)
		}
		rec := data[:r.Pos]
		data = data[r.Pos:]
		if start+i < cp.sel.offset {
			continue
		}
		k := cp.kept
		cp.kept++
		if math.Floor(float64(k+1)*cp.sel.rate) <= math.Floor(float64(k)*cp.sel.rate) {
			continue
		}
		cp.buf = append(cp.buf, rec...)
		count++
		if cp.sel.limit >= 0 && cp.taken+count >= cp.sel.limit {
			// The records after the limit are not copied, nor read.
			return count, cp.buf, nil
		}
	}
	if len(data) != 0 {
		return 0, nil, c.trailingError(b, len(data))
	}
	return count, cp.buf, nil
}

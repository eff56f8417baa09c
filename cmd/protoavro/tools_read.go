package main

// The avro-tools commands that read any Avro container file, with or
// without a protobuf type: tojson, getschema, getmeta, count.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avrojson"
	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/limits"
	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/internal/usage"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// container is an open container file: its input, reader and parsed schema.
type container struct {
	in     *input
	or     *ocf.Reader
	schema *avroschema.Node // nil until parseSchema
	conv   *avrojson.Schema // schema, compiled for conversion
	skip   *avrobin.Skipper // schema, compiled to find where records end
	done   <-chan struct{}  // closed on an interrupt
}

// openContainer opens path ("-": standard input) and reads its header. A
// file that cannot be opened is a [usage.Error]; a bad header is a data error
// naming the file.
func openContainer(path string, std stdio) (*container, error) {
	in, err := openInput(path, "", std)
	if err != nil {
		return nil, err
	}
	or, err := ocf.NewReader(in.r, ocf.ReaderOptions{})
	if err != nil {
		in.close()
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	return &container{in: in, or: or, done: std.ctx.Done()}, nil
}

// checkStdinContainers refuses "-" among files when standard input is a
// terminal, as gzip -d does: nothing typed on a terminal is a container
// file, and its line discipline would change the bytes of one pasted in.
// The commands that read container files check it before reading any.
func checkStdinContainers(files []string, std stdio) error {
	if slices.Contains(files, "-") && isTerminal(std.in) {
		return usage.Errorf("-: refusing to read binary Avro data from a terminal: give the file, or redirect standard input")
	}
	return nil
}

// interrupted returns errInterrupted after an interrupt, checked before each
// block.
func (c *container) interrupted() error { return interrupted(c.done) }

// parseSchema parses the writer schema of the file.
func (c *container) parseSchema() error {
	s, err := avroschema.Parse(c.or.Header().Schema)
	if err != nil {
		return fmt.Errorf("%s: avro.schema: %w", c.in.name, err)
	}
	c.schema, c.conv, c.skip = s, avrojson.Limits{}.Compile(s), avrobin.NewSkipper(s, avrojson.DefaultMaxDepth)
	return nil
}

func (c *container) close() { c.in.close() }

// nextBlock returns the next block of the file, decompressed unless raw
// (then as stored), after checking for an interrupt; io.EOF after the
// last block. A read error names the file.
func (c *container) nextBlock(raw bool) (ocf.Block, error) {
	if err := c.interrupted(); err != nil {
		return ocf.Block{}, err
	}
	next := c.or.Next
	if raw {
		next = c.or.NextRaw
	}
	b, err := next()
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: %w", c.in.name, err)
	}
	return b, err
}

// recordError is a bad record of a container file: where it is and why.
func (c *container) recordError(b ocf.Block, i int64, off int, err error) error {
	return fmt.Errorf("%s: record %d (block %d at byte %d, byte %d of its data): %w",
		c.in.name, c.or.Records()-b.Count+i, b.Index, b.Offset, off, err)
}

// totalError is block b of c, whose records, added to those of the files
// read before, number more than an int64 holds.
func (c *container) totalError(b ocf.Block) error {
	return fmt.Errorf("%s: block %d at byte %d: %w: with its %s, the files hold more than %d records",
		c.in.name, b.Index, b.Offset, ocf.ErrLimit, plural(b.Count, "record"), int64(math.MaxInt64))
}

// checkEmptyRecords refuses a block that claims more records than its data
// can hold, counting those that take no bytes (an empty record, a null
// schema) against the bound of protoavro's readers (docs/limits.md: 65,536
// plus 64 per byte of the block's decompressed data), so that a block
// header claiming 2^50 empty records does not keep a command looping.
func (c *container) checkEmptyRecords(b ocf.Block, dataLen int) error {
	limit := limits.BlockEmpty(dataLen)
	if empty := limits.BlockRecords(b.Count, dataLen); empty > limit {
		return fmt.Errorf("%s: block %d at byte %d: %w: %d records in %d bytes exceed the limit of %d zero-size records per block",
			c.in.name, b.Index, b.Offset, ocf.ErrMalformed, b.Count, dataLen, limit)
	}
	return nil
}

// checkRecords checks that data, the decompressed data of block b, holds
// exactly b.Count records of the file's schema, found by the skipper (the
// bounds of tojson, without decoding the values): a block whose records do
// not match their count or the schema is an error naming the file, the
// record, the block and the byte offset.
func (c *container) checkRecords(b ocf.Block, data []byte) error {
	if err := c.checkEmptyRecords(b, len(data)); err != nil {
		return err
	}
	off := 0
	for i := range b.Count {
		// Each record read on its own, so that the skipper's offsets are
		// within the record, as tojson's are.
		r := avrobin.Reader{Buf: data[off:]}
		if err := c.skip.Skip(&r); err != nil {
			return c.recordError(b, i, off, err)
		}
		off += r.Pos
	}
	if rest := len(data) - off; rest != 0 {
		return c.trailingError(b, rest)
	}
	return nil
}

// trailingError is a block with bytes after its last record.
func (c *container) trailingError(b ocf.Block, rest int) error {
	return fmt.Errorf("%s: block %d at byte %d: %d bytes after its %d records", c.in.name, b.Index, b.Offset, rest, b.Count)
}

// eachRecord calls fn with the JSON of every record of the file, block by
// block (valid until fn returns). Records are delimited by decoding them
// against the schema, so a malformed record is an error.
func (c *container) eachRecord(fn func(js []byte) error) error {
	var scratch []byte
	for {
		b, err := c.nextBlock(false)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := c.checkEmptyRecords(b, len(b.Data)); err != nil {
			return err
		}
		data := b.Data
		for i := range b.Count {
			var n int
			scratch, n, err = c.conv.AppendJSON(scratch[:0], data)
			if err != nil {
				return c.recordError(b, i, len(b.Data)-len(data), err)
			}
			if err := fn(scratch); err != nil {
				return err
			}
			data = data[n:]
		}
		if len(data) != 0 {
			return c.trailingError(b, len(data))
		}
	}
}

// tojsonCommand is "protoavro tojson".
var tojsonCommand = &command{
	name:    "tojson",
	summary: "print the records of any Avro container file as JSON (avro-tools tojson)",
	usage:   tojsonUsage,
	run:     runToJSON,
}

const tojsonUsage = `Usage: protoavro tojson [--pretty] FILE.avro...

Print the records of Avro Object Container Files on standard output, one
JSON value per line, in the JSON encoding of the Avro specification, as
Apache Avro's avro-tools tojson writes it: a union value other than null is
an object whose one key names the branch ({"string": "x"}, {"acme.Order":
{...}}), bytes and fixed values are strings whose code points 0-255 are the
byte values, NaN and infinities are the strings "NaN", "Infinity" and
"-Infinity". Logical types are printed as their underlying values. The
files need not be written by protoavro; no message type is needed. Glob
patterns (*, ?, [...]) among the files are expanded; "-" reads standard
input, once, unless it is a terminal.

Flags:
  --pretty               Indent each record over several lines.
  -h, --help             Print this help.

Exit status is 0 on success, 1 for a damaged file or a record that does not
match the file's schema (the error names the record and byte offset), and 2
for a bad command line or a file that cannot be opened.
`

func runToJSON(args []string, std stdio) error {
	fs := newFlagSet("tojson")
	pretty := fs.Bool("pretty", false, "indent records")
	files, err := containerFiles(fs, args, "tojson", "read", std)
	if err != nil {
		return err
	}
	out, err := createOutput("-", "--out", std)
	if err != nil {
		return err
	}
	defer out.abort()
	var ind bytes.Buffer
	for _, path := range files {
		c, err := openContainer(path, std)
		if err != nil {
			return err
		}
		err = c.parseSchema()
		if err == nil {
			err = c.eachRecord(func(js []byte) error {
				// Written as it is (out buffers it): a record's JSON can
				// be hundreds of MiB, so it is not copied to add the
				// newline.
				if *pretty {
					ind.Reset()
					_ = json.Indent(&ind, js, "", "  ")
					js = ind.Bytes()
				}
				if _, err := out.Write(js); err != nil {
					return err
				}
				return out.w.WriteByte('\n')
			})
		}
		c.close()
		if err != nil {
			_ = out.commit() // what was read stays printed
			return err
		}
	}
	return out.commit()
}

// getschemaCommand is "protoavro getschema".
var getschemaCommand = &command{
	name:    "getschema",
	summary: "print the schema of any Avro container file (avro-tools getschema)",
	usage:   getschemaUsage,
	run:     runGetSchema,
}

const getschemaUsage = `Usage: protoavro getschema FILE.avro

Print the writer schema of an Avro Object Container File (its avro.schema
metadata) as indented JSON, with control and format characters in its
strings (terminal escapes, bidirectional overrides) written as \u
escapes, and invalid UTF-8 as U+FFFD: the same schema, safe to print.
FILE may be a glob pattern that matches one file; "-" reads standard
input, unless it is a terminal.

Flags:
  -h, --help             Print this help.

Exit status is 0 on success, 1 for a damaged file, and 2 for a bad command
line or a file that cannot be opened.
`

func runGetSchema(args []string, std stdio) error {
	c, err := openOne("getschema", args, nil, std)
	if err != nil {
		return err
	}
	defer c.close()
	var b bytes.Buffer
	if err := json.Indent(&b, c.or.Header().Schema, "", "  "); err != nil {
		return fmt.Errorf("%s: avro.schema is not JSON: %w", c.in.name, err)
	}
	out := append(safeJSON(b.Bytes()), '\n')
	_, err = stdout(std).Write(out)
	return err
}

// safeJSON returns JSON text with every character in its strings that could
// act on a terminal (control and format characters: C0 and C1 controls,
// bidirectional overrides; see internal/safetext) written as a \u escape,
// and invalid UTF-8 as U+FFFD, as JSON readers read it: the same JSON
// value, safe to print. Other characters (é, 中文) stay as they are, and so
// does the white space between tokens. Text with nothing to escape is
// returned as it is.
func safeJSON(text []byte) []byte {
	if !slices.ContainsFunc(text, func(c byte) bool { return c < 0x20 || c >= 0x7f }) {
		return text // printable ASCII
	}
	out := make([]byte, 0, len(text)+64)
	inString, escaped := false, false
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case inString && escaped:
				escaped = false
			case inString && c == '\\':
				escaped = true
			case c == '"':
				inString = !inString
			}
			space := c == ' ' || c == '\t' || c == '\n' || c == '\r'
			if c < 0x20 && (inString || !space) || c == 0x7f {
				out = safetext.AppendJSONEscape(out, rune(c))
			} else {
				out = append(out, c)
			}
			i++
			continue
		}
		var n int
		out, n = safetext.AppendJSONChar(out, text[i:])
		i += n
	}
	return out
}

// openOne parses the flags of a command that reads one container file and
// opens it. register, if not nil, defines the command's flags.
func openOne(name string, args []string, register func(*flag.FlagSet), std stdio) (*container, error) {
	fs := newFlagSet(name)
	if register != nil {
		register(fs)
	}
	files, err := containerFiles(fs, args, name, oneContainer, std)
	if err != nil {
		return nil, err
	}
	return openContainer(files[0], std)
}

// getmetaCommand is "protoavro getmeta".
var getmetaCommand = &command{
	name:    "getmeta",
	summary: "print the metadata of any Avro container file (avro-tools getmeta)",
	usage:   getmetaUsage,
	run:     runGetMeta,
}

const getmetaUsage = `Usage: protoavro getmeta [--key KEY] FILE.avro

Print the metadata of an Avro Object Container File, one "KEY<TAB>VALUE"
line per key in key order, as avro-tools getmeta does. Values that are not
short printable text (protoavro.descriptors) are shown as their size in
bytes; avro.schema is shown whole. Control and format characters in keys
and in the schema are escaped (\x1b, \u202e; \u escapes in the schema's
JSON strings). With --key, print only that key's value, as its raw bytes,
escaped as above when standard output is a terminal. FILE may be a glob
pattern that matches one file; "-" reads standard input, unless it is a
terminal.

Flags:
  --key KEY              Print the raw value of one metadata key.
  -h, --help             Print this help.

Exit status is 0 on success, 1 for a damaged file or a missing --key, and 2
for a bad command line or a file that cannot be opened.
`

func runGetMeta(args []string, std stdio) error {
	var key *string
	c, err := openOne("getmeta", args, func(fs *flag.FlagSet) { key = fs.String("key", "", "metadata key") }, std)
	if err != nil {
		return err
	}
	defer c.close()
	meta := c.or.Header().Metadata
	if *key != "" {
		v, ok := meta[*key]
		if !ok {
			return fmt.Errorf("%s: no metadata key %s (%s)", c.in.name, safetext.Quote(*key, 200), listKeys(meta))
		}
		if isTerminal(std.out) && !safetext.Safe(string(v)) {
			// Raw bytes for a pipe or a file; on a terminal, nothing
			// that acts on it.
			v = append([]byte(safetext.Escape(string(v), 0)), '\n')
		}
		_, err := stdout(std).Write(v)
		return err
	}
	var b bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		v := meta[k]
		key := safetext.Escape(k, 0)
		switch {
		case showable(v):
			fmt.Fprintf(&b, "%s\t%s\n", key, v)
		case k == ocf.MetaSchema && len(v) > 0:
			// The schema as stored, unless it holds what would act on
			// a terminal: then with that escaped, still JSON when it is.
			text := safetext.Escape(string(v), 0)
			if json.Valid(v) {
				text = string(safeJSON(v))
			}
			fmt.Fprintf(&b, "%s\t%s\n", key, text)
		default:
			fmt.Fprintf(&b, "%s\t(%d bytes, binary)\n", key, len(v))
		}
	}
	_, err = stdout(std).Write(b.Bytes())
	return err
}

// Bounds of the list of keys in the error of a missing getmeta --key.
const (
	maxListedKeys = 20  // keys named
	maxListedKey  = 100 // bytes of each key
)

// listKeys says which keys meta has, for an error: at most maxListedKeys
// of them in key order, each quoted, escaped and cut to maxListedKey bytes,
// and how many more there are.
func listKeys(meta map[string][]byte) string {
	if len(meta) == 0 {
		return "it has no metadata"
	}
	keys := slices.Sorted(maps.Keys(meta))
	var b strings.Builder
	b.WriteString("it has ")
	for i, k := range keys[:min(len(keys), maxListedKeys)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(safetext.Quote(k, maxListedKey))
	}
	if more := len(keys) - maxListedKeys; more > 0 {
		fmt.Fprintf(&b, " and %d more", more)
	}
	return b.String()
}

// countCommand is "protoavro count".
var countCommand = &command{
	name:    "count",
	summary: "count the records of Avro container files from their block headers (avro-tools count)",
	usage:   countUsage,
	run:     runCount,
}

const countUsage = `Usage: protoavro count FILE.avro...

Print the number of records of Avro Object Container Files, summed from the
block headers without decompressing or decoding the records (the block
sizes and sync markers are checked). With several files, print one
"COUNT<TAB>FILE" line per file (the name with control and format
characters escaped) and a "COUNT<TAB>total" line. Glob patterns (*, ?,
[...]) among the files are expanded; "-" reads standard input, once,
unless it is a terminal.

Flags:
  -h, --help             Print this help.

Exit status is 0 on success, 1 for a damaged file (the count up to the
damage is printed) or files whose records number more than 2^63-1
together (the error names the block that passes it), and 2 for a bad
command line or a file that cannot be opened.
`

func runCount(args []string, std stdio) error {
	fs := newFlagSet("count")
	files, err := containerFiles(fs, args, "count", "count", std)
	if err != nil {
		return err
	}
	// A count that cannot be written (a full disk, a closed pipe) is a
	// failure, named as the other commands name it.
	out := stdout(std)
	var total int64
	for _, path := range files {
		c, err := openContainer(path, std)
		if err != nil {
			return err
		}
		// The blocks as stored, through the loop of the other commands, so
		// that a damaged file gets their error; the total is checked
		// block by block, so that a total past an int64 names the block.
		var b ocf.Block
		for err == nil {
			if b, err = c.nextBlock(true); err == nil && total > math.MaxInt64-c.or.Records() {
				err = c.totalError(b)
			}
		}
		c.close()
		n := c.or.Records()
		var werr error
		if len(files) == 1 {
			_, werr = fmt.Fprintln(out, n)
		} else {
			_, werr = fmt.Fprintf(out, "%d\t%s\n", n, safetext.Escape(c.in.name, 0))
		}
		if werr != nil {
			return werr
		}
		if err != io.EOF {
			return err // the count before the damage is printed
		}
		total += n
	}
	if len(files) > 1 {
		if _, err := fmt.Fprintf(out, "%d\ttotal\n", total); err != nil {
			return err
		}
	}
	return nil
}

// parseFiles parses the flags of the avro-tools command name as [parseArgs]
// does and returns its file arguments with their glob patterns expanded
// ([expandGlobs]), as Apache Avro's avro-tools expands them.
func parseFiles(fs *flag.FlagSet, args []string, name string) ([]string, error) {
	files, err := parseArgs(fs, args)
	if err != nil {
		return nil, err
	}
	return expandGlobs(files, name)
}

// oneContainer is the verb of [containerFiles] for the commands that read
// exactly one container file.
const oneContainer = ""

// containerFiles parses the flags of the avro-tools command name and
// returns the container files that its arguments give, their glob
// patterns expanded ([parseFiles]): at least one, or exactly one when verb
// is oneContainer. No file is a [usage.Error] asking for the files to verb
// ("read", "count"), more than one for a command that takes one says how
// many were given, and standard input on a terminal is refused
// ([checkStdinContainers]); all before any file is read.
func containerFiles(fs *flag.FlagSet, args []string, name, verb string, std stdio) ([]string, error) {
	files, err := parseFiles(fs, args, name)
	switch {
	case err != nil:
		return nil, err
	case verb == oneContainer && len(files) != 1:
		return nil, usage.Errorf("%s takes one file, got %d (run \"protoavro %s -h\" for usage)", name, len(files), name)
	case len(files) == 0:
		return nil, usage.Errorf("%s: give the container files to %s (\"-\" for standard input)", name, verb)
	}
	if err := checkStdinContainers(files, std); err != nil {
		return nil, err
	}
	return files, nil
}

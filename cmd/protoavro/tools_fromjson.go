package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/protoavro/protoavro/internal/avrojson"
	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/limits"
	"github.com/protoavro/protoavro/internal/usage"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// fromjsonCommand is "protoavro fromjson".
var fromjsonCommand = &command{
	name:    "fromjson",
	summary: "write Avro JSON records and a schema to an Avro container file (avro-tools fromjson)",
	usage:   fromjsonUsage,
	run:     runFromJSON,
}

const fromjsonUsage = `Usage: protoavro fromjson (--schema FILE.avsc|JSON | --schema-file FILE.avsc)
                         [--codec NAME] [--max-value-size SIZE]
                         [--out FILE|-] [FILE.json|-]

Write JSON values in the JSON encoding of the Avro specification (what
tojson and avro-tools tojson print: unions as {"type": value}, bytes as
code points 0-255), one after another (JSON Lines, or indented), to an Avro
Object Container File with the schema of FILE.avsc. A record field missing
from the JSON takes its default; an object with a key twice is refused
(JSON readers keep different ones of them). A schema with a default that
is not a value of its field's type is refused, naming the field (a
union's default may be a value of any of its branches, as the Avro 1.12
specification has it, and is written in the first it matches). The input,
which may be a glob pattern that matches one file, defaults to standard
input.

As in avro-tools fromjson, the schema is --schema-file FILE or --schema
with its JSON text, the input is one file and the output standard output;
--out FILE writes a file instead (a second argument is refused, not taken
for the output). There is no --level, nor the xz and bzip2 codecs.

Flags:
  --schema FILE|JSON     The Avro schema of the records: its JSON text
                         when it starts with {, [ or " (after white space),
                         as avro-tools --schema takes it; otherwise the
                         .avsc file that holds it (./NAME for a file whose
                         name starts so). This or --schema-file is
                         required.
  --schema-file FILE     The .avsc file of the schema, as avro-tools
                         --schema-file takes it.
  --codec NAME           Block codec: null, deflate, snappy or zstd.
                         Default null.
  --max-value-size SIZE  Largest JSON value, with the white space before
                         it: a larger one is refused before it is read
                         whole. Bytes, or with a suffix K, M or G (1K =
                         1024); from 1K to 1G. Default 64M.
  --out FILE             Output file; "-" (the default) is standard output,
                         refused when it is a terminal. Written under a
                         temporary name, renamed on success.
  -h, --help             Print this help.

A value that does not match the schema stops the command with an error
naming its index (from 0), its byte offset in the input and the path of the
offending field. Numbers must fit their type: an int or long out of its
range, or a float or double beyond the largest finite value (1e309 for a
double, 3.5e38 for a float), is refused rather than written as another
value or as an infinity ("Infinity" and "NaN" are written as strings);
numbers too small to represent are written as zero. A summary goes to
standard error. Exit status is 0 on success, 1 for a value that does not
match the schema, input that is not JSON or a value over
--max-value-size, and 2 for a bad command line, a missing file or a
schema that does not parse.
`

// schemaSource is the schema of fromjson: --schema, its JSON text or the
// file that holds it, or --schema-file, the file.
type schemaSource struct {
	arg, file string
}

// check refuses neither or both flags.
func (s schemaSource) check() error {
	switch {
	case s.arg == "" && s.file == "":
		return usage.Errorf("missing --schema: give the Avro schema of the records (--schema-file FILE.avsc, or --schema with the file or the schema's JSON text)")
	case s.arg != "" && s.file != "":
		return usage.Errorf("--schema and --schema-file both give the schema; give one of them")
	}
	return nil
}

// isText reports whether --schema is the schema's JSON text: its first
// character after white space starts a JSON object, array or string, as a
// schema's text does (a record, a union, a primitive type's name) and the
// name of an .avsc file rarely does.
func (s schemaSource) isText() bool {
	t := strings.TrimLeft(s.arg, " \t\r\n")
	return t != "" && strings.ContainsRune(`{["`, rune(t[0]))
}

// path returns the file that holds the schema and the flag that named it,
// or "" when --schema is the schema's text.
func (s schemaSource) path() (path, flag string) {
	switch {
	case s.file != "":
		return s.file, "--schema-file"
	case s.isText():
		return "", "--schema"
	}
	return s.arg, "--schema"
}

// parse reads and parses the schema. A file that cannot be read, text
// over the size of the largest schema file, and a schema that does not
// parse are [usage.Error]s naming the flag (and the file).
func (s schemaSource) parse() (*avroschema.Node, error) {
	path, flag := s.path()
	var text []byte
	where := flag + " (JSON text)"
	if path == "" {
		if len(s.arg) > limits.SchemaFile {
			return nil, usage.Errorf("%s: %d bytes, more than the %d of the largest schema", where, len(s.arg), limits.SchemaFile)
		}
		text = []byte(s.arg)
	} else {
		var err error
		if text, err = limits.ReadFile(path, limits.SchemaFile); err != nil {
			return nil, usage.Errorf("%s: %w", flag, err)
		}
		where = flag + " " + path
	}
	// Exact: the defaults are the values written for missing fields, so
	// a schema with an invalid one is refused, naming the field, rather
	// than read without its defaults.
	schema, err := avroschema.ParseExact(text)
	if err != nil {
		if path == "" && fileExists(s.arg) {
			return nil, usage.Errorf("%s: %w (a file of this name exists: give it as ./%s, or with --schema-file)", where, err, s.arg)
		}
		return nil, usage.Errorf("%s: %w", where, err)
	}
	return schema, nil
}

// fileExists reports whether a file is named name.
func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// fromjsonBlockSize is the size of the blocks fromjson writes, before
// compression.
const fromjsonBlockSize = 256 << 10

func runFromJSON(args []string, std stdio) error {
	fs := newFlagSet("fromjson")
	codec, outPath := copyFlags(fs)
	var src schemaSource
	fs.StringVar(&src.arg, "schema", "", "schema text or file")
	fs.StringVar(&src.file, "schema-file", "", "schema file")
	maxValue := sizeFlag{min: 1 << 10, max: 1 << 30}
	fs.Var(&maxValue, "max-value-size", "largest JSON value")
	files, err := parseFiles(fs, args, "fromjson")
	if err != nil {
		return err
	}
	if err := src.check(); err != nil {
		return err
	}
	if len(files) > 1 {
		return usage.Errorf("fromjson takes one input file, got %d (its output is --out FILE, or standard output without it)", len(files))
	}
	inPath := "-"
	if len(files) == 1 {
		inPath = files[0]
	}
	read := []string{inPath}
	if path, _ := src.path(); path != "" {
		read = append(read, path)
	}
	if err := checkPaths(read, fileRole{"--out", *outPath}); err != nil {
		return err
	}
	schema, err := src.parse()
	if err != nil {
		return err
	}
	if err := checkTerminal(*outPath, std, "Avro"); err != nil {
		return err
	}
	in, err := openInput(inPath, "", std)
	if err != nil {
		return err
	}
	defer in.close()
	out, err := createOutput(*outPath, "--out", std)
	if err != nil {
		return err
	}
	defer out.abort()
	w, err := ocf.NewWriter(out, ocf.WriterOptions{Schema: schema.JSON(), Codec: codec.c})
	if err != nil {
		return err
	}
	values := avrojson.NewValueReader(in.r, maxValue.n)
	conv := avrojson.Limits{}.Compile(schema)
	// The builder closes blocks at fromjsonBlockSize, at 65,536 records,
	// and before their zero-size values exceed what readers accept
	// (docs/limits.md).
	blocks := ocf.NewBlockBuilder(fromjsonBlockSize, func(count int64, data []byte) error {
		if err := w.WriteBlock(count, data); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
		return nil
	})
	done := std.ctx.Done()
	for index := int64(0); ; index++ {
		if err := interrupted(done); err != nil {
			return err
		}
		raw, at, err := values.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			var se *json.SyntaxError
			switch {
			case errors.As(err, &se):
				return fmt.Errorf("%s: value %d: not JSON at byte %d: %w", in.name, index, se.Offset, err)
			case errors.Is(err, ocf.ErrLimit):
				return fmt.Errorf("%s: value %d: %w (--max-value-size)", in.name, index, err)
			}
			return fmt.Errorf("%s: value %d after byte %d: not JSON: %w", in.name, index, at, err)
		}
		next, e, err := conv.AppendDatum(blocks.Data(), raw)
		if err != nil {
			return fmt.Errorf("%s: value %d at byte %d: %w", in.name, index, at, err)
		}
		if err := blocks.Add(next, e); err != nil {
			if errors.Is(err, ocf.ErrLimit) {
				return fmt.Errorf("%s: value %d at byte %d: %w", in.name, index, at, err)
			}
			return err
		}
	}
	if err := blocks.Flush(); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if err := out.commit(); err != nil {
		return err
	}
	return summary(std, "protoavro: wrote %s%s in %s (%s)\n", plural(w.Records(), "record"), toStdout(*outPath), plural(w.Blocks(), "block"), w.Codec())
}

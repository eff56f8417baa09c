package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

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

const fromjsonUsage = `Usage: protoavro fromjson --schema FILE.avsc [--codec NAME] [--max-value-size SIZE]
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

Flags:
  --schema FILE          The Avro schema (.avsc) of the records. Required.
  --codec NAME           Block codec: null, deflate, snappy or zstd.
                         Default null.
  --max-value-size SIZE  Largest JSON value, with the white space before
                         it: a larger one is refused before it is read
                         whole. Bytes, or with a suffix K, M or G (1K =
                         1024); from 1K to 1G. Default 64M.
  --out FILE             Output file; "-" (the default) is standard output.
                         Written under a temporary name, renamed on success.
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

// fromjsonBlockSize is the size of the blocks fromjson writes, before
// compression.
const fromjsonBlockSize = 256 << 10

func runFromJSON(args []string, std stdio) error {
	fs := newFlagSet("fromjson")
	codec, outPath := copyFlags(fs)
	schemaPath := fs.String("schema", "", "schema file")
	maxValue := sizeFlag{min: 1 << 10, max: 1 << 30}
	fs.Var(&maxValue, "max-value-size", "largest JSON value")
	files, err := parseFiles(fs, args, "fromjson")
	if err != nil {
		return err
	}
	if *schemaPath == "" {
		return usage.Errorf("missing --schema: give the Avro schema (.avsc) of the records")
	}
	if len(files) > 1 {
		return usage.Errorf("fromjson takes one input file, got %d", len(files))
	}
	inPath := "-"
	if len(files) == 1 {
		inPath = files[0]
	}
	if err := checkPaths([]string{inPath, *schemaPath}, fileRole{"--out", *outPath}); err != nil {
		return err
	}
	text, err := limits.ReadFile(*schemaPath, limits.SchemaFile)
	if err != nil {
		return usage.Errorf("--schema: %w", err)
	}
	// Exact: the defaults are the values written for missing fields, so
	// a schema with an invalid one is refused, naming the field, rather
	// than read without its defaults.
	schema, err := avroschema.ParseExact(text)
	if err != nil {
		return usage.Errorf("--schema %s: %w", *schemaPath, err)
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
	return summary(std, "protoavro: wrote %s in %s (%s)\n", plural(w.Records(), "record"), plural(w.Blocks(), "block"), w.Codec())
}

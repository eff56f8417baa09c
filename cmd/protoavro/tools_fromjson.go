package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

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

const fromjsonUsage = `Usage: protoavro fromjson --schema FILE.avsc [--codec NAME] [--out FILE|-] [FILE.json|-]

Write JSON values in the JSON encoding of the Avro specification (what
tojson and avro-tools tojson print: unions as {"type": value}, bytes as
code points 0-255), one after another (JSON Lines, or indented), to an Avro
Object Container File with the schema of FILE.avsc. A record field missing
from the JSON takes its default. The input, which may be a glob pattern
that matches one file, defaults to standard input.

Flags:
  --schema FILE          The Avro schema (.avsc) of the records. Required.
  --codec NAME           Block codec: null, deflate, snappy or zstd.
                         Default null.
  --out FILE             Output file; "-" (the default) is standard output.
                         Written under a temporary name, renamed on success.
  -h, --help             Print this help.

A value that does not match the schema stops the command with an error
naming its index (from 0), its byte offset in the input and the path of the
offending field. A summary goes to standard error. Exit status is 0 on
success, 1 for a value that does not match the schema or input that is not
JSON, and 2 for a bad command line, a missing file or a schema that does
not parse.
`

// fromjsonBlockSize is the size of the blocks fromjson writes, before
// compression.
const fromjsonBlockSize = 256 << 10

func runFromJSON(args []string, std stdio) error {
	fs := newFlagSet("fromjson")
	codec, outPath := copyFlags(fs)
	schemaPath := fs.String("schema", "", "schema file")
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
	if err := checkPaths(inPath, "", *outPath); *outPath != "-" && *outPath != "" && err != nil {
		return usage.Errorf("fromjson: input %s is also the output", inPath)
	}
	text, err := os.ReadFile(*schemaPath)
	if err != nil {
		return usage.Errorf("--schema: %w", err)
	}
	schema, err := avroschema.Parse(text)
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
	dec := json.NewDecoder(bufio.NewReaderSize(in.r, 64<<10))
	var (
		block []byte
		count int64
		index int64
	)
	done := std.ctx.Done()
	for ; ; index++ {
		if err := interrupted(done); err != nil {
			return err
		}
		off := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return fmt.Errorf("%s: value %d: not JSON at byte %d: %w", in.name, index, se.Offset, err)
			}
			return fmt.Errorf("%s: value %d after byte %d: not JSON: %w", in.name, index, off, err)
		}
		next, err := avrojson.AppendBinary(block, schema, raw)
		if err != nil {
			return fmt.Errorf("%s: value %d at byte %d: %w", in.name, index, dec.InputOffset()-int64(len(raw)), err)
		}
		block, count = next, count+1
		if len(block) >= fromjsonBlockSize || count >= limits.BlockEmptyItems {
			if err := w.WriteBlock(count, block); err != nil {
				return fmt.Errorf("write output: %w", err)
			}
			block, count = block[:0], 0
		}
	}
	if count > 0 {
		if err := w.WriteBlock(count, block); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if err := out.commit(); err != nil {
		return err
	}
	fmt.Fprintf(std.err, "protoavro: wrote %s in %s (%s)\n", plural(w.Records(), "record"), plural(w.Blocks(), "block"), w.Codec())
	return nil
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/internal/usage"

	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// inspectCommand is "protoavro inspect": describe a container file.
var inspectCommand = &command{
	name:    "inspect",
	summary: "describe an Avro container file",
	usage:   inspectUsage,
	run:     runInspect,
}

// inspectUsage is the help text of "protoavro inspect".
const inspectUsage = `Usage: protoavro inspect [--json] [--schema] FILE.avro...

Describe Avro Object Container Files on standard output: the protobuf
message type and mapping options each was written with, its block codec,
the fingerprints of its schema (CRC-64-AVRO and SHA-256 of the Parsing
Canonical Form), the number of blocks and records, and its metadata keys
with their sizes. "-" reads standard input; glob patterns are expanded;
input compressed with gzip or zstd is decompressed.

The size is the file's size as stored; for compressed input it is the
compressed size on disk (unknown when the input is not a regular file),
followed by the compression and the decompressed size. In the JSON
output these are "size" (absent when unknown), "compression" and
"decompressed_size".

Every file's header is checked: its schema must parse and its codec must
be one protoavro reads (null, deflate, snappy, zstandard). Files written by
protoavro are read completely: every block is decompressed and every record
decoded, so a damaged file is reported. Files without an embedded protobuf
type (written by other programs) are checked block by block (the block
sizes, counts and sync markers), and their records counted from the block
headers; their blocks are neither decompressed nor decoded, so damage
inside a block's data is not seen (tojson reads every record).

Flags:
  --json                 One JSON object per file, on one line each, with
                         the same facts (and "error" for a damaged file).
  --schema               Also print the schema (indented JSON in the text
                         output, a "schema" member in the JSON output).
  -h, --help             Print this help.

File names, metadata and schema text are printed with control and format
characters escaped (\u escapes in JSON strings), other text as it is.

Exit status is 0 when every file passes these checks, 1 when one is
damaged or unreadable, an invalid schema or an unsupported codec included
(what could be read is still described), and 2 for a bad command line or
a file that cannot be opened.
`

// runInspect implements "protoavro inspect".
func runInspect(args []string, std stdio) error {
	fs := newFlagSet("inspect")
	asJSON := fs.Bool("json", false, "JSON output")
	withSchema := fs.Bool("schema", false, "print the schema")
	positional, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(positional) == 0 {
		return usage.Errorf("inspect takes one or more files, got 0 (run \"protoavro inspect -h\" for usage)")
	}
	paths, err := expandInputs(positional, "inspect")
	if err != nil {
		return err
	}
	out := stdout(std)
	var first error
	for i, path := range paths {
		info, err := inspectFile(path, std)
		if usage.Is(err) {
			return err
		}
		if info != nil {
			var werr error
			if *asJSON {
				werr = info.printJSON(out, err, *withSchema)
			} else {
				if i > 0 {
					_, _ = io.WriteString(out, "\n")
				}
				werr = info.print(out, *withSchema)
			}
			if werr != nil {
				return werr
			}
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

// inspectFile reads the file at path. It returns what it found and the
// error that stopped it, or a [usage.Error] for a file that cannot be opened.
func inspectFile(path string, std stdio) (*inspection, error) {
	in, err := openInput(path, "", std)
	if err != nil {
		return nil, err
	}
	defer in.close()
	or, err := ocf.NewReader(in.r, ocf.ReaderOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	meta := or.Header().Metadata
	info := &inspection{name: in.name, header: or.Header()}
	if meta[protoavro.MetaMessage] != nil && meta[protoavro.MetaDescriptors] != nil {
		info.decoded = true
		err = info.readRecords(or)
	} else {
		err = info.walkBlocks(or)
	}
	info.size, info.compression = in.fileSize, in.compression
	switch {
	case in.compression != "":
		info.decompressed = or.Offset()
	case info.size < 0:
		info.size = or.Offset() // a pipe: the bytes read
	}
	if err != nil {
		info.incomplete = true
		return info, fmt.Errorf("%s: %w", in.name, stripPrefix(err))
	}
	// The header, read whole, may still be unusable: its blocks, read
	// as stored, may be sound.
	if _, err := protoavro.ParseSchema(or.Header().Schema); err != nil {
		return info, fmt.Errorf("%s: avro.schema: %w", in.name, stripPrefix(err))
	}
	if c := or.Header().Codec; !c.Supported() {
		return info, fmt.Errorf("%s: avro.codec: %w %s (protoavro reads null, deflate, snappy and zstandard)",
			in.name, ocf.ErrUnsupportedCodec, safetext.Quote(string(c), 100))
	}
	return info, nil
}

// inspection is what inspect found out about a file.
type inspection struct {
	name string
	// size is the size of the file as stored, -1 when unknown (compressed
	// input that is not a regular file).
	size int64
	// compression is "gzip" or "zstd" for a compressed file, else "";
	// decompressed is then the number of decompressed bytes read.
	compression  string
	decompressed int64
	header       *ocf.Header
	decoded      bool // records were decoded, not only counted
	blocks       int64
	records      int64
	// incomplete says that reading stopped at an error, so the counts
	// are those before it.
	incomplete bool
}

// readRecords decodes every record of a file written by protoavro.
func (info *inspection) readRecords(or *ocf.Reader) error {
	cr, err := protoavro.NewContainerReaderFrom(or, protoavro.ReaderOptions{Options: protoavro.Options{Cache: protoavro.NewCache()}})
	if err != nil {
		return err
	}
	var buf []byte
	for {
		buf, err = cr.ReadWire(buf[:0])
		info.blocks, info.records = cr.Blocks(), cr.Records()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// walkBlocks checks the block structure of a file (the block sizes and
// sync markers) and counts blocks and records, without decompressing or
// decoding.
func (info *inspection) walkBlocks(or *ocf.Reader) error {
	for {
		_, err := or.NextRaw()
		info.blocks, info.records = or.Blocks(), or.Records()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// print writes the description, with the schema when withSchema is set.
func (info *inspection) print(w io.Writer, withSchema bool) error {
	incomplete := info.incomplete
	meta := info.header.Metadata
	// Metadata is untrusted: escaped and bounded before it reaches a terminal.
	text := func(key, missing string) string {
		if v, ok := meta[key]; ok {
			return safetext.Escape(string(v), 200)
		}
		return missing
	}
	var b strings.Builder
	row := func(label, format string, args ...any) {
		fmt.Fprintf(&b, "%-13s%s\n", label+":", fmt.Sprintf(format, args...))
	}
	row("file", "%s", safetext.Escape(info.name, 500))
	switch {
	case info.compression == "":
		row("size", "%d bytes (%s)", info.size, formatBytes(info.size))
	case info.size >= 0:
		row("size", "%d bytes (%s) on disk, %s; %d bytes (%s) decompressed%s", info.size, formatBytes(info.size),
			info.compression, info.decompressed, formatBytes(info.decompressed), counted(incomplete, ""))
	default:
		row("size", "%d bytes (%s) decompressed%s; %s, not a regular file: size on disk unknown",
			info.decompressed, formatBytes(info.decompressed), counted(incomplete, ""), info.compression)
	}
	row("message", "%s", text(protoavro.MetaMessage, "(none: not written by protoavro)"))
	if _, ok := meta[protoavro.MetaOptions]; ok {
		row("options", "%s", text(protoavro.MetaOptions, ""))
	}
	row("codec", "%s", text("avro.codec", "null (not set)"))
	schemaJSON := info.header.Schema
	if s, err := protoavro.ParseSchema(schemaJSON); err != nil {
		row("schema", "invalid: %s", errorLine(err))
	} else {
		row("schema", "%s", safetext.Escape(s.FullName(), 200))
		row("fingerprint", "CRC-64-AVRO %016x", s.Fingerprint())
		row("sha-256", "%x", s.SHA256())
	}
	how := ""
	if !info.decoded {
		how = " (from the block headers; not decoded: no embedded protobuf type)"
	}
	row("blocks", "%d%s", info.blocks, counted(incomplete, how))
	row("records", "%d%s", info.records, counted(incomplete, how))
	row("metadata", "%s", plural(int64(len(meta)), "key"))
	keys := slices.Sorted(maps.Keys(meta))
	width := 0
	for _, k := range keys {
		width = max(width, len(safetext.Escape(k, 100)))
	}
	for _, k := range keys {
		v := meta[k]
		fmt.Fprintf(&b, "  %-*s %8d B", width, safetext.Escape(k, 100), len(v))
		if k != "avro.schema" && showable(v) {
			fmt.Fprintf(&b, "  %s", v)
		}
		b.WriteByte('\n')
	}
	if withSchema {
		b.WriteString("avro.schema:\n")
		// The schema as ParseSchema reads it (bounded in size and nesting),
		// else the raw text, escaped and cut.
		if s, err := protoavro.ParseSchema(schemaJSON); err == nil {
			pretty, _ := s.JSON()
			b.Write(safeJSON(bytes.TrimSpace(pretty)))
		} else {
			b.WriteString(safetext.Escape(string(schemaJSON), 4096))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// counted returns what follows a count of inspect: " before the error"
// when reading stopped at one, else how it was counted.
func counted(incomplete bool, how string) string {
	if incomplete {
		return " before the error"
	}
	return how
}

// inspectJSON is the JSON form of an inspection.
type inspectJSON struct {
	File string `json:"file"`
	// Size is the size as stored, absent when unknown.
	Size *int64 `json:"size,omitempty"`
	// Compression and DecompressedSize describe compressed input.
	Compression      string                  `json:"compression,omitempty"`
	DecompressedSize *int64                  `json:"decompressed_size,omitempty"`
	Message          string                  `json:"message,omitempty"`
	Options          string                  `json:"options,omitempty"`
	Codec            string                  `json:"codec"`
	SchemaName       string                  `json:"schema_name,omitempty"`
	Fingerprint      string                  `json:"fingerprint_crc64_avro,omitempty"`
	SHA256           string                  `json:"sha256,omitempty"`
	Blocks           int64                   `json:"blocks"`
	Records          int64                   `json:"records"`
	Decoded          bool                    `json:"decoded"`
	Metadata         map[string]metadataJSON `json:"metadata"`
	Schema           json.RawMessage         `json:"schema,omitempty"`
	Error            string                  `json:"error,omitempty"`
}

// metadataJSON describes one metadata entry: its size, and its value when
// it is short printable text.
type metadataJSON struct {
	Size  int    `json:"size"`
	Value string `json:"value,omitempty"`
}

// printJSON writes the description as one line of JSON; failure is the
// error that stopped reading, or nil.
func (info *inspection) printJSON(w io.Writer, failure error, withSchema bool) error {
	meta := info.header.Metadata
	j := inspectJSON{
		File: info.name, Compression: info.compression, Message: string(meta[protoavro.MetaMessage]),
		Options: string(meta[protoavro.MetaOptions]), Codec: "null",
		Blocks: info.blocks, Records: info.records, Decoded: info.decoded,
		Metadata: map[string]metadataJSON{},
	}
	if info.size >= 0 {
		j.Size = &info.size
	}
	if info.compression != "" {
		j.DecompressedSize = &info.decompressed
	}
	if c, ok := meta["avro.codec"]; ok {
		j.Codec = string(c)
	}
	if s, err := protoavro.ParseSchema(info.header.Schema); err == nil { // else failure says why
		j.SchemaName = s.FullName()
		j.Fingerprint = fmt.Sprintf("%016x", s.Fingerprint())
		j.SHA256 = fmt.Sprintf("%x", s.SHA256())
		if withSchema {
			j.Schema = info.header.Schema
		}
	}
	for k, v := range meta {
		m := metadataJSON{Size: len(v)}
		if k != "avro.schema" && showable(v) {
			m.Value = string(v)
		}
		j.Metadata[k] = m
	}
	if failure != nil {
		j.Error = errorLine(failure)
	}
	line, err := json.Marshal(j)
	if err != nil {
		return err
	}
	// The names, metadata and schema read from the file, as JSON escapes
	// where they would act on a terminal.
	_, err = w.Write(append(safeJSON(line), '\n'))
	return err
}

// showable reports whether a metadata value is short printable text.
func showable(v []byte) bool {
	return len(v) > 0 && len(v) <= 100 && safetext.Safe(string(v))
}

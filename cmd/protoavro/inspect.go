package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/protoavro/protoavro/protoavro"
)

// inspectCommand is "protoavro inspect": describe a container file.
var inspectCommand = &command{
	name:    "inspect",
	summary: "describe an Avro container file",
	usage:   inspectUsage,
	run:     runInspect,
}

// inspectUsage is the help text of "protoavro inspect".
const inspectUsage = `Usage: protoavro inspect FILE.avro

Describe an Avro Object Container File on standard output: the protobuf
message type and mapping options it was written with, its block codec, the
fingerprints of its schema (CRC-64-AVRO and SHA-256 of the Parsing
Canonical Form), the number of blocks and records, its metadata keys with
their sizes, and its schema as indented JSON. "-" reads standard input.

Files written by protoavro are read completely: every record is decoded,
so a damaged file is reported. Files without an embedded protobuf type
(written by other programs) are checked block by block, and their records
counted from the block headers, without being decoded.

Flags:
  -h, --help             Print this help.

Exit status is 0 for a sound file, 1 for a damaged or unreadable one (what
could be read is still described), and 2 for a bad command line or a file
that cannot be opened.
`

// runInspect implements "protoavro inspect".
func runInspect(args []string, std stdio) error {
	fs := newFlagSet("inspect")
	positional, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return usageErrorf("inspect takes one file, got %d (run \"protoavro inspect -h\" for usage)", len(positional))
	}
	in, err := openInput(positional[0], "", std)
	if err != nil {
		return err
	}
	defer in.close()
	src := &countingReader{r: in.r}
	seen := &recorder{}
	br := bufio.NewReaderSize(io.TeeReader(src, seen), 64<<10)
	h, err := readHeader(br)
	if err != nil {
		return fmt.Errorf("%s: %w", in.name, err)
	}
	info := &inspection{name: in.name, header: h}
	var readErr error
	if h.meta[protoavro.MetaMessage] != nil && h.meta[protoavro.MetaDescriptors] != nil {
		info.decoded = true
		readErr = info.readRecords(io.MultiReader(&seen.buf, src))
	} else {
		seen.stop = true // not replayed
		readErr = info.walkBlocks(br)
	}
	info.size = in.size
	if info.size < 0 {
		info.size = src.n
	}
	info.print(std.out, readErr != nil)
	if readErr != nil {
		return fmt.Errorf("%s: %w", in.name, stripPrefix(readErr))
	}
	return nil
}

// recorder keeps what is written to it until stop is set.
type recorder struct {
	buf  bytes.Buffer
	stop bool
}

// Write appends p unless the recorder was stopped.
func (r *recorder) Write(p []byte) (int, error) {
	if !r.stop {
		r.buf.Write(p)
	}
	return len(p), nil
}

// inspection is what inspect found out about a file.
type inspection struct {
	name    string
	size    int64
	header  *containerHeader
	decoded bool // records were decoded, not only counted
	blocks  int64
	records int64
}

// readRecords decodes every record of a file written by protoavro.
func (info *inspection) readRecords(r io.Reader) error {
	cr, err := protoavro.NewContainerReader(r, protoavro.ReaderOptions{Options: protoavro.Options{Cache: protoavro.NewCache()}})
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

// walkBlocks checks the block structure of a file after its header (the
// block sizes and sync markers) and counts blocks and records, without
// decompressing or decoding.
func (info *inspection) walkBlocks(br *bufio.Reader) error {
	off := info.header.size
	for {
		start := off
		fail := func(err error) error {
			return fmt.Errorf("container block %d at byte %d: %w", info.blocks, start, err)
		}
		count, err := readVarlong(br, &off)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fail(err)
		}
		size, err := readVarlong(br, &off)
		if err == io.EOF {
			err = fmt.Errorf("truncated: the file ends in the block header")
		}
		if err != nil {
			return fail(err)
		}
		if count < 0 || size < 0 {
			return fail(fmt.Errorf("malformed: block of %d records in %d bytes", count, size))
		}
		n, err := br.Discard(int(min(size, int64(maxInt))))
		off += int64(n)
		if err != nil || int64(n) != size {
			return fail(fmt.Errorf("truncated: the block claims %d bytes, %d remain", size, n))
		}
		var sync [16]byte
		m, err := io.ReadFull(br, sync[:])
		off += int64(m)
		if err != nil {
			return fail(fmt.Errorf("truncated: the file ends in the sync marker"))
		}
		if sync != info.header.sync {
			return fail(fmt.Errorf("malformed: sync marker %x does not match the header's %x", sync, info.header.sync))
		}
		info.blocks++
		info.records += count
	}
}

// maxInt is the largest int.
const maxInt = int(^uint(0) >> 1)

// print writes the description. incomplete says that reading stopped at
// an error, so the counts are those before it.
func (info *inspection) print(w io.Writer, incomplete bool) {
	h := info.header
	meta := h.meta
	text := func(key, missing string) string {
		if v, ok := meta[key]; ok {
			return string(v)
		}
		return missing
	}
	var b strings.Builder
	row := func(label, format string, args ...any) {
		fmt.Fprintf(&b, "%-13s%s\n", label+":", fmt.Sprintf(format, args...))
	}
	row("file", "%s", info.name)
	row("size", "%d bytes (%s)", info.size, formatBytes(info.size))
	row("message", "%s", text(protoavro.MetaMessage, "(none: not written by protoavro)"))
	if _, ok := meta[protoavro.MetaOptions]; ok {
		row("options", "%s", meta[protoavro.MetaOptions])
	}
	row("codec", "%s", text("avro.codec", "null (not set)"))
	schemaJSON := meta["avro.schema"]
	if s, err := protoavro.ParseSchema(schemaJSON); err != nil {
		row("schema", "invalid: %s", errorLine(err))
	} else {
		row("schema", "%s", s.FullName())
		row("fingerprint", "CRC-64-AVRO %016x", s.Fingerprint())
		row("sha-256", "%x", s.SHA256())
	}
	counted := ""
	switch {
	case incomplete:
		counted = " before the error"
	case !info.decoded:
		counted = " (from the block headers; not decoded: no embedded protobuf type)"
	}
	row("blocks", "%d%s", info.blocks, counted)
	row("records", "%d%s", info.records, counted)
	row("metadata", "%s", plural(int64(len(h.keys)), "key"))
	keys := slices.Clone(h.keys)
	slices.Sort(keys)
	width := 0
	for _, k := range keys {
		width = max(width, len(k))
	}
	for _, k := range keys {
		v := meta[k]
		fmt.Fprintf(&b, "  %-*s %8d B", width, k, len(v))
		if k != "avro.schema" && showable(v) {
			fmt.Fprintf(&b, "  %s", v)
		}
		b.WriteByte('\n')
	}
	b.WriteString("avro.schema:\n")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, schemaJSON, "", "  "); err != nil {
		pretty.Reset()
		pretty.Write(schemaJSON)
	}
	b.Write(bytes.TrimSpace(pretty.Bytes()))
	b.WriteByte('\n')
	_, _ = io.WriteString(w, b.String())
}

// showable reports whether a metadata value is short printable text.
func showable(v []byte) bool {
	if len(v) == 0 || len(v) > 100 || !utf8.Valid(v) {
		return false
	}
	for _, r := range string(v) {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

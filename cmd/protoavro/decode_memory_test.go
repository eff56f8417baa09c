package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/protoavro/protoavro/protoavro/ocf"
)

// TestDecodeTinyRecords decodes blocks of a million one-byte records
// (each an empty message) to JSON Lines and length-delimited with two
// workers: JSON Lines allocates a few bytes per record more than
// length-delimited (its lines, and the batch's copy of the records),
// nothing per record beyond, so that a file of a few KB cannot make decode
// allocate gigabytes. Length-delimited is the baseline, which also holds
// what the race detector adds.
func TestDecodeTinyRecords(t *testing.T) {
	dir := tempFiles(t, map[string]string{"b.proto": "syntax = \"proto3\";\npackage tiny;\nmessage B { bytes b = 1; }\n"})
	const blocks, records = 2, 1 << 20
	tiny := testBlock{count: records, data: make([]byte, records)} // records of one byte: an empty bytes
	in := writeContainer(t, filepath.Join(dir, "tiny.avro"), `{"type":"record","name":"B","namespace":"tiny","fields":[{"name":"b","type":"bytes"}]}`,
		ocf.Deflate, nil, slices.Repeat([]testBlock{tiny}, blocks)...)
	perRecord := map[string]float64{}
	for _, format := range []string{"delimited", "jsonl"} {
		out := filepath.Join(dir, "out."+format)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r := runIO(t, nil, "decode", "-I", dir, "-m", "tiny.B", "b.proto", "--workers", "2", "--format", format, "--out", out, in)
		runtime.ReadMemStats(&after)
		if r.code != 0 {
			t.Fatalf("decode --format %s: exit code %d: %s", format, r.code, r.stderr)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		line := map[string]string{"delimited": "\x00", "jsonl": "{}\n"}[format]
		if !bytes.Equal(got, bytes.Repeat([]byte(line), blocks*records)) {
			t.Fatalf("decode --format %s: %d bytes of output, want %d records of %q", format, len(got), blocks*records, line)
		}
		perRecord[format] = float64(after.TotalAlloc-before.TotalAlloc) / (blocks * records)
		t.Logf("%s: %.2f bytes allocated per record", format, perRecord[format])
	}
	if extra := perRecord["jsonl"] - perRecord["delimited"]; extra > 24 {
		t.Errorf("JSON Lines allocates %.2f bytes per one-byte record more than length-delimited, want at most 24", extra)
	}
}

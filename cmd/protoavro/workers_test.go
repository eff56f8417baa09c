package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWorkersSameOutput runs encode (from length-delimited input and from
// JSON Lines) and decode (to both formats) with 1 and 2 workers: the same
// files, the encoded ones apart from their random sync markers, and decode
// gives back the input.
func TestWorkersSameOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input, err := os.ReadFile(sampleFile)
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) []byte {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// noSync replaces a container file's sync marker (its last 16 bytes)
	// wherever it occurs.
	noSync := func(f []byte) []byte {
		t.Helper()
		if len(syncEnds(f)) < 10 {
			t.Fatalf("a file of %d blocks, want at least 9 for the workers to share", len(syncEnds(f))-1)
		}
		return bytes.ReplaceAll(f, bytes.Clone(f[len(f)-16:]), make([]byte, 16))
	}
	same := func(what string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes with --workers 2 differ from the %d of --workers 1", what, len(got), len(want))
		}
	}
	var avro, jsonl [3][]byte
	for _, w := range []string{"1", "2"} {
		i := int(w[0] - '0')
		f := encodeSample(t, dir, "enc"+w+".avro", "--codec", "zstd", "--block-size", "4K", "--workers", w)
		avro[i] = read(f)
		for _, format := range []string{"delimited", "jsonl"} {
			out := filepath.Join(dir, "dec"+w+"."+format)
			if r := runIO(t, nil, "decode", f, "--format", format, "--workers", w, "--out", out); r.code != 0 {
				t.Fatalf("decode --format %s --workers %s: exit code %d: %s", format, w, r.code, r.stderr)
			}
			got := read(out)
			if format == "jsonl" {
				jsonl[i] = got
				continue
			}
			if !bytes.Equal(got, input) {
				t.Errorf("decode --workers %s: %d bytes, not the %d of the input", w, len(got), len(input))
			}
		}
	}
	same("encode", noSync(avro[2]), noSync(avro[1]))
	same("decode --format jsonl", jsonl[2], jsonl[1])
	// Encode from JSON Lines, through the command's own batches.
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, jsonl[1], 0o644); err != nil {
		t.Fatal(err)
	}
	var fromJSON [3][]byte
	for _, w := range []string{"1", "2"} {
		out := filepath.Join(dir, "json"+w+".avro")
		r := runIO(t, nil, encodeArgs("--in", in, "--format", "jsonl", "--codec", "zstd", "--block-size", "4K", "--workers", w, "--out", out)...)
		if r.code != 0 {
			t.Fatalf("encode --format jsonl --workers %s: exit code %d: %s", w, r.code, r.stderr)
		}
		fromJSON[w[0]-'0'] = read(out)
	}
	same("encode --format jsonl", noSync(fromJSON[2]), noSync(fromJSON[1]))
}

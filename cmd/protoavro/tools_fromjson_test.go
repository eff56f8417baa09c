package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// streamedValue is a stream of JSON: head, then a record of schema
// valueSizeSchema whose string field holds n bytes, generated as it is
// read; read counts the bytes of the record taken from it.
type streamedValue struct {
	head    *strings.Reader
	n, read int64
}

const valueSizeSchema = `{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}`

func (v *streamedValue) Read(p []byte) (int, error) {
	if v.head.Len() > 0 {
		return v.head.Read(p)
	}
	const open, end = `{"s":"`, `"}` + "\n"
	total := int64(len(open)) + v.n + int64(len(end))
	if v.read >= total {
		return 0, io.EOF
	}
	k := min(int64(len(p)), total-v.read)
	for i := range p[:k] {
		switch pos := v.read + int64(i); {
		case pos < int64(len(open)):
			p[i] = open[pos]
		case pos >= total-int64(len(end)):
			p[i] = end[pos-(total-int64(len(end)))]
		default:
			p[i] = 'a'
		}
	}
	v.read += k
	return int(k), nil
}

// TestFromJSONValueSize: a JSON value over --max-value-size (here 64 KiB,
// a value of 300 MB, streamed) is refused with its index having read
// about the bound of it, and leaves no output; a value within the bound
// is written; the bound is checked on the command line.
func TestFromJSONValueSize(t *testing.T) {
	// Not parallel: it counts the bytes allocated.
	dir := t.TempDir()
	schema := filepath.Join(dir, "r.avsc")
	if err := os.WriteFile(schema, []byte(valueSizeSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.avro")
	first := `{"s":"x"}` + "\n"

	in := &streamedValue{head: strings.NewReader(first), n: 300 << 20}
	var stdout, stderr bytes.Buffer
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code := run([]string{"fromjson", "--schema", schema, "--max-value-size", "64K", "--out", out}, in, &stdout, &stderr)
	want := "value 1: over the limit: a JSON value of more than 65536 bytes after byte 9 (--max-value-size)"
	if code != exitData || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), exitData, want)
	}
	runtime.ReadMemStats(&after)
	// Read: the bound, and what the input's buffer of 1 MiB takes ahead.
	if in.read > 64<<10+inputBuffer {
		t.Errorf("read %d bytes of a value of 300 MB under a bound of 64 KiB", in.read)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("allocated %d MiB for a value refused at 64 KiB", alloc>>20)
	}
	wantOnly(t, dir, "r.avsc")

	// Within the bound (the value and the newline before it): written.
	in = &streamedValue{head: strings.NewReader(first), n: 64<<10 - 9}
	stderr.Reset()
	if code := run([]string{"fromjson", "--schema", schema, "--max-value-size", "64K", "--out", out}, in, &stdout, &stderr); code != 0 {
		t.Fatalf("a value of the bound: exit %d: %s", code, stderr.String())
	}
	if got := jsonLines(t, out); len(got) != 2 || len(got[1]) != 64<<10-9+8 {
		t.Errorf("%d records", len(got))
	}

	for _, bad := range []string{"100", "2G", "x"} {
		if r := runCmd(t, "fromjson", "--schema", schema, "--max-value-size", bad, "--out", out); r.code != exitUsage || !strings.Contains(r.stderr, "--max-value-size") {
			t.Errorf("--max-value-size %s: exit %d, %s", bad, r.code, r.stderr)
		}
	}
}

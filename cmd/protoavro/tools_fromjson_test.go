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

// TestFromJSONInvalidDefault: a schema with a default that is not a value
// of its field's type is refused, naming the field, rather than read
// without its defaults (which would drop the valid ones too: b's 3 would
// not fill a record without b). A union's default may be a value of any
// branch, as the Avro 1.12 specification has it, and is written in the
// first branch it matches.
func TestFromJSONInvalidDefault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out.avro")
	for _, c := range []struct{ schema, want string }{
		{`{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"},{"name":"b","type":"int","default":3}]}`,
			"default of field R.a: a string is not a value of type int"},
		{`{"type":"record","name":"R","fields":[{"name":"b","type":"int","default":3},{"name":"e","type":{"type":"enum","name":"E","symbols":["A"]},"default":"B"}]}`,
			`default of field R.e: "B" is not a symbol of enum E`},
		{`{"type":"record","name":"R","fields":[{"name":"u","type":["null","int"],"default":"x"}]}`,
			"default of field R.u: a string is a value of no branch of the union"},
	} {
		avsc := filepath.Join(dir, "bad.avsc")
		if err := os.WriteFile(avsc, []byte(c.schema), 0o644); err != nil {
			t.Fatal(err)
		}
		wantRun(t, runIO(t, []byte("{}\n"), "fromjson", "--schema", avsc, "--out", out), exitUsage, "--schema "+avsc+": invalid Avro schema: "+c.want)
		wantOnly(t, dir, "bad.avsc")
	}

	avsc := filepath.Join(dir, "good.avsc")
	schema := `{"type":"record","name":"R","fields":[{"name":"b","type":"int","default":3},{"name":"u","type":["null","int"],"default":5}]}`
	if err := os.WriteFile(avsc, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runIO(t, []byte("{}\n"), "fromjson", "--schema", avsc, "--out", out); r.code != 0 {
		t.Fatalf("fromjson: %d %s", r.code, r.stderr)
	}
	if got := jsonLines(t, out); len(got) != 1 || got[0] != `{"b":3,"u":{"int":5}}` {
		t.Errorf("a record without b and u read back as %q", got)
	}
	if r := runCmd(t, "getschema", out); !strings.Contains(r.stdout, `"default": 3`) || !strings.Contains(r.stdout, `"default": 5`) {
		t.Errorf("the written schema lost its defaults: %s", r.stdout)
	}
}

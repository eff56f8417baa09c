package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// testBlock is a block written by writeContainer: count records in data,
// given uncompressed.
type testBlock struct {
	count int64
	data  []byte
}

// writeContainer writes a container file of schema in codec, with the
// extra metadata and the blocks given as they are, whether or not their
// records match their counts, and returns its path.
func writeContainer(t *testing.T, path, schema string, codec ocf.Codec, meta map[string][]byte, blocks ...testBlock) string {
	t.Helper()
	var b bytes.Buffer
	w, err := ocf.NewWriter(&b, ocf.WriterOptions{Schema: []byte(schema), Codec: codec, Metadata: meta})
	if err != nil {
		t.Fatal(err)
	}
	for _, bl := range blocks {
		data, err := codec.Compress(nil, bl.data)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRawBlock(bl.count, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeHeaderOnly writes a container file of no blocks with the metadata
// given as it is, valid or not (ocf.Writer refuses an invalid schema), and
// returns its path.
func writeHeaderOnly(t *testing.T, path string, meta map[string]string) string {
	t.Helper()
	b := []byte("Obj\x01")
	b = binary.AppendVarint(b, int64(len(meta)))
	for k, v := range meta {
		b = binary.AppendVarint(b, int64(len(k)))
		b = append(b, k...)
		b = binary.AppendVarint(b, int64(len(v)))
		b = append(b, v...)
	}
	b = append(b, 0)
	b = append(b, make([]byte, 16)...) // the sync marker
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// hostileText holds what must not reach a terminal as it is (ESC, BEL, a
// C1 CSI, a right-to-left override) beside text that must (é, 中文).
const hostileText = "a\x1b[2Jb\x07c\u009b2Jd\u202eé 中文"

// wantEscaped checks that out holds nothing that acts on a terminal (line
// breaks and tabs aside), that the hostile characters are shown escaped
// and that the legitimate non-ASCII text is printed as it is.
func wantEscaped(t *testing.T, what, out string, escapes ...string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if !safetext.Safe(strings.ReplaceAll(line, "\t", " ")) {
			t.Errorf("%s: a line reaches the terminal unescaped: %q", what, line)
		}
	}
	for _, want := range append(escapes, "é 中文") {
		if !strings.Contains(out, want) {
			t.Errorf("%s: %q is not in %q", what, want, out)
		}
	}
}

// TestCountTotalOverflow: count of files whose records number more than
// an int64 holds together is an error naming the file and the block that
// passes it, after the counts of the files before; not a negative total.
func TestCountTotalOverflow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	maxFile := writeContainer(t, filepath.Join(dir, "max.avro"), `"null"`, ocf.Null, nil, testBlock{count: math.MaxInt64})
	one := writeContainer(t, filepath.Join(dir, "one.avro"), `"null"`, ocf.Null, nil, testBlock{count: 1})
	r := runCmd(t, "count", maxFile, maxFile)
	wantRun(t, r, exitData, "max.avro: block 0 at byte ")
	if !strings.Contains(r.stderr, "the files hold more than 9223372036854775807 records") || strings.Contains(r.stdout, "total") || strings.Contains(r.stdout, "-") {
		t.Errorf("count max max: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	r = runCmd(t, "count", maxFile, one)
	wantRun(t, r, exitData, "one.avro: block 0 at byte ")
	r = runCmd(t, "count", one, maxFile)
	wantRun(t, r, exitData, "max.avro: block 0 at byte ")
	// Up to the largest total, it is counted.
	r = runCmd(t, "count", maxFile)
	if r.code != 0 || r.stdout != "9223372036854775807\n" {
		t.Errorf("count max: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestGetMetaEscapes: getmeta prints metadata keys and the avro.schema
// value with what would act on a terminal escaped (the schema still JSON,
// with \u escapes), legitimate non-ASCII text as it is; --key writes the
// raw value to a pipe and an escaped one to a terminal.
func TestGetMetaEscapes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	schema := `{"type":"record","name":"R","doc":"` + strings.ReplaceAll(hostileText, "\x1b", `\u001b`) + `","fields":[]}`
	schema = strings.ReplaceAll(schema, "\x07", `\u0007`) // raw controls are not JSON; C1 and U+202E may be raw
	path := writeContainer(t, filepath.Join(dir, "m.avro"), schema, ocf.Null, map[string][]byte{
		"k" + hostileText: []byte("v"),
		"raw":             []byte("x\x1b[31my"),
	}, testBlock{count: 1})
	r := runCmd(t, "getmeta", path)
	if r.code != 0 {
		t.Fatalf("getmeta: %d %s", r.code, r.stderr)
	}
	wantEscaped(t, "getmeta", r.stdout, `\x1b[2J`, `\a`, `\u009b`, `\u202e`)
	// The schema line is the same JSON.
	for _, line := range strings.Split(r.stdout, "\n") {
		if v, ok := strings.CutPrefix(line, "avro.schema\t"); ok {
			var got, want any
			if err := json.Unmarshal([]byte(v), &got); err != nil {
				t.Fatalf("avro.schema printed as %q: %v", v, err)
			}
			_ = json.Unmarshal([]byte(schema), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("avro.schema printed as %q, want the JSON of %q", v, schema)
			}
		}
	}

	r = runCmd(t, "getmeta", "--key", "raw", path)
	if r.code != 0 || r.stdout != "x\x1b[31my" {
		t.Errorf("getmeta --key raw to a pipe: %d %q %q", r.code, r.stdout, r.stderr)
	}
	var out, errOut bytes.Buffer
	code := run([]string{"getmeta", "--key", "raw", path}, strings.NewReader(""), terminalWriter{&out}, &errOut)
	if code != 0 || out.String() != `x\x1b[31my`+"\n" {
		t.Errorf("getmeta --key raw to a terminal: %d %q %q", code, out.String(), errOut.String())
	}
}

// terminalWriter is standard output that says it is a terminal.
type terminalWriter struct{ *bytes.Buffer }

func (terminalWriter) IsTerminal() bool { return true }

// TestGetSchemaEscapes: getschema prints a schema whose docs hold C1
// controls and bidirectional overrides (raw in the file, as JSON allows)
// with them as \u escapes: the same JSON, safe to print.
func TestGetSchemaEscapes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := strings.NewReplacer("\x1b", `\u001b`, "\x07", `\u0007`).Replace(hostileText)
	schema := `{"type":"record","name":"R","doc":"` + doc + `","fields":[{"name":"a","type":"long","doc":"` + "\u2067x\U000e0041" + `"}]}`
	path := writeContainer(t, filepath.Join(dir, "s.avro"), schema, ocf.Null, nil)
	r := runCmd(t, "getschema", path)
	if r.code != 0 {
		t.Fatalf("getschema: %d %s", r.code, r.stderr)
	}
	wantEscaped(t, "getschema", r.stdout, `\u001b[2J`, `\u0007`, `\u009b`, `\u202e`, `\u2067`, `\udb40\udc41`)
	var got, want any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(schema), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("getschema printed %s, want the JSON of %s", r.stdout, schema)
	}
}

// TestGetMetaMissingKeyBounded: the error of a missing --key names a
// bounded number of keys, each cut, and says how many more there are,
// however many and however long the keys of the file.
func TestGetMetaMissingKeyBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	meta := map[string][]byte{strings.Repeat("a", 1<<20): []byte("v")}
	for i := range 40 {
		meta["key"+string(rune('A'+i))] = []byte("v")
	}
	path := writeContainer(t, filepath.Join(dir, "k.avro"), `"null"`, ocf.Null, meta)
	r := runCmd(t, "getmeta", "--key", "nope", path)
	wantRun(t, r, exitData, `no metadata key "nope" (it has "aaaa`)
	if len(r.stderr) > 2048 || !strings.Contains(r.stderr, " and 23 more)") || !strings.Contains(r.stderr, `… (1048576 bytes)", "avro.codec", "avro.schema", "keyA", "keyB"`) {
		t.Errorf("getmeta --key nope: %d bytes of error: %.3000q", len(r.stderr), r.stderr)
	}
}

// TestStdinTwice: standard input given twice to a command that reads
// several inputs is a bad command line, not input read twice.
func TestStdinTwice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeContainer(t, filepath.Join(dir, "l.avro"), `"long"`, ocf.Null, nil, testBlock{2, []byte{2, 4}})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"count", "-", "-"},
		{"tojson", "-", path, "-"},
		{"concat", "--out", filepath.Join(dir, "o.avro"), "-", "-"},
		{"cat", "--out", filepath.Join(dir, "o.avro"), "-", "-"},
		{"inspect", "-", "-"},
	} {
		wantRun(t, runIO(t, data, args...), exitUsage, args[0]+": standard input (-) is given twice; it can be read only once")
	}
	if r := runIO(t, data, "count", "-", path); r.code != 0 || r.stdout != "2\tstandard input\n2\t"+path+"\n4\ttotal\n" {
		t.Errorf("count - FILE: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestReadToolsFileCount checks the errors of tojson, count, getschema and
// getmeta given no file, or getschema and getmeta more than one (a glob
// pattern counts the files it matches): usage errors that say what to
// give, with nothing read.
func TestReadToolsFileCount(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeToolFile(t, dir, "a.avro", "null")
	writeToolFile(t, dir, "b.avro", "null")
	glob := filepath.Join(dir, "*.avro")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tojson"}, `tojson: give the container files to read ("-" for standard input)`},
		{[]string{"tojson", "--pretty"}, `tojson: give the container files to read ("-" for standard input)`},
		{[]string{"count"}, `count: give the container files to count ("-" for standard input)`},
		{[]string{"getschema"}, `getschema takes one file, got 0 (run "protoavro getschema -h" for usage)`},
		{[]string{"getschema", a, a}, `getschema takes one file, got 2 (run "protoavro getschema -h" for usage)`},
		{[]string{"getmeta", "--key", "avro.codec"}, `getmeta takes one file, got 0 (run "protoavro getmeta -h" for usage)`},
		{[]string{"getmeta", glob}, `getmeta takes one file, got 2 (run "protoavro getmeta -h" for usage)`},
	} {
		in := &unreadStdin{}
		var stdout bytes.Buffer
		r := runStd(c.args, in, &stdout, false)
		if r.code != exitUsage || r.stderr != "protoavro: "+c.want+"\n" || r.stdout != "" || in.read {
			t.Errorf("%q: exit code %d, stderr %q, stdout %q, stdin read %v; want %d and %q", c.args, r.code, r.stderr, r.stdout, in.read, exitUsage, c.want)
		}
	}
}

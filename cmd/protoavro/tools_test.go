package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// toolSchema has every Avro type, named types in unions, a recursive
// record, and logical types.
const toolSchema = `{"type":"record","name":"t.All","fields":[
 {"name":"b","type":"boolean"},
 {"name":"i","type":"int"},
 {"name":"l","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"f","type":"float"},
 {"name":"d","type":"double"},
 {"name":"s","type":"string"},
 {"name":"by","type":"bytes"},
 {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
 {"name":"fx","type":{"type":"fixed","name":"F3","size":3}},
 {"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},
 {"name":"a","type":{"type":"array","items":"long"}},
 {"name":"m","type":{"type":"map","values":["null","string"]}},
 {"name":"u","type":["null","int","string","F3","Color",{"type":"array","items":"int"},"All"],"default":null}
]}`

// toolRecords are records of toolSchema in tojson's form, one per line.
var toolRecords = []string{
	`{"b":true,"i":-1,"l":1700000000000,"f":1.1,"d":-0.1,"s":"h\u00e9 \"q\" \\ \n\u0001 日本","by":"\u0000\u00ff\u0080A","dec":"\u0001\u0000","fx":"abc","e":"GREEN","a":[1,-2,9223372036854775807],"m":{"k":{"string":"v"},"z":null},"u":null}`,
	`{"b":false,"i":2147483647,"l":-9223372036854775808,"f":"NaN","d":"-Infinity","s":"","by":"","dec":"","fx":"\u00ff\u00fe\u0000","e":"RED","a":[],"m":{},"u":{"t.All":{"b":false,"i":0,"l":0,"f":0,"d":1e+300,"s":"x","by":"","dec":"","fx":"000","e":"RED","a":[],"m":{},"u":{"t.F3":"xyz"}}}}`,
	`{"b":false,"i":0,"l":0,"f":3.4028235e+38,"d":5e-324,"s":"s","by":"b","dec":"\u00ff","fx":"abc","e":"RED","a":[0],"m":{"":{"string":""}},"u":{"array":[1,2]}}`,
	`{"b":false,"i":-2147483648,"l":0,"f":"Infinity","d":0.000001,"s":"s","by":"b","dec":"","fx":"abc","e":"RED","a":[],"m":{},"u":{"t.Color":"GREEN"}}`,
	`{"b":true,"i":7,"l":1,"f":-0.5,"d":123456789.125,"s":"\u2028","by":"\u007f","dec":"","fx":"abc","e":"GREEN","a":[],"m":{},"u":{"string":"s"}}`,
	`{"b":true,"i":8,"l":2,"f":1e-45,"d":-1.7976931348623157e+308,"s":"t","by":"","dec":"","fx":"abc","e":"GREEN","a":[],"m":{},"u":{"int":-3}}`,
}

// writeToolFile writes toolRecords with fromjson to dir/name in codec.
func writeToolFile(t *testing.T, dir, name, codec string) string {
	t.Helper()
	schema := filepath.Join(dir, "all.avsc")
	if err := os.WriteFile(schema, []byte(toolSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	r := runIO(t, []byte(strings.Join(toolRecords, "\n")+"\n"), "fromjson", "--schema", schema, "--codec", codec, "--out", path)
	if r.code != 0 {
		t.Fatalf("fromjson: %d %s", r.code, r.stderr)
	}
	return path
}

// writeMessages writes msgs to a container file of md with protoavro's
// writer, in blocks of about blockSize bytes.
func writeMessages(t *testing.T, path string, md protoavroMessage, opts protoavro.ContainerOptions) bool {
	t.Helper()
	var buf bytes.Buffer
	cw, err := protoavro.NewContainerWriter(&buf, md.desc, opts)
	if err != nil {
		return false // a message the profile cannot map
	}
	for _, m := range md.msgs {
		if err := cw.Write(m); err != nil {
			t.Fatalf("%s: %v", md.desc.FullName(), err)
		}
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return true
}

// corpusFiles writes the test files of the tojson comparison: every test
// message in both profiles and with logical-type options, in every codec,
// and toolRecords.
func corpusFiles(t *testing.T, dir string) []string {
	t.Helper()
	codecs := []protoavro.Compression{"null", "deflate", "snappy", "zstandard"}
	// Each variant's Timestamps are those its mapping holds.
	variants := []struct {
		name string
		opts protoavro.Options
		ts   testutil.Precision
	}{
		{"default", protoavro.Options{}, testutil.Nanos},
		{"java", protoavro.Options{Profile: protoavro.JavaProfile}, testutil.Nanos},
		{"millis-decimal-entries", protoavro.Options{Timestamps: protoavro.TimestampMillis, Uint64: protoavro.Uint64AsDecimal, MapKeys: protoavro.MapAsEntryArray}, testutil.Millis},
	}
	var files []string
	for i, md := range testutil.Messages() {
		for j, v := range variants {
			msgs := testutil.Corpus(md, testutil.CorpusConfig{Edges: 1, Random: 4}, v.ts, "tojson")
			path := filepath.Join(dir, fmt.Sprintf("%s.%s.avro", md.FullName(), v.name))
			opts := protoavro.ContainerOptions{Options: v.opts, Compression: codecs[(i+j)%len(codecs)], BlockSize: 1024}
			if writeMessages(t, path, protoavroMessage{md, msgs}, opts) {
				files = append(files, path)
			}
		}
	}
	for _, c := range []string{"null", "deflate", "snappy", "zstd"} {
		files = append(files, writeToolFile(t, dir, "all-"+c+".avro", c))
	}
	return files
}

// pythonAvro returns the Python interpreter with the avro module (Debian's
// python3-avro), skipping the test without it unless
// PROTOAVRO_INTEROP=require.
func pythonAvro(t *testing.T) string {
	t.Helper()
	for _, exe := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(exe, "-c", "import avro.datafile, avro.codecs as c; assert c.has_snappy and c.has_zstandard").Run() == nil {
			return exe
		}
	}
	testutil.Need(t, false, "python3-avro with snappy and zstandard not installed: apt-get install python3-avro python3-snappy python3-zstandard")
	return ""
}

// normalize returns a JSON value parsed with UseNumber with each number
// replaced by its exact value as text, so that 1, 1.0 and 1e0 compare equal.
func normalize(t *testing.T, v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _, err := big.ParseFloat(string(x), 10, 256, big.ToNearestEven)
		if err != nil {
			t.Fatalf("number %s: %v", x, err)
		}
		return "number " + f.Text('e', 80)
	case []any:
		for i := range x {
			x[i] = normalize(t, x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalize(t, x[k])
		}
	}
	return v
}

func parseJSON(t *testing.T, text string) any {
	t.Helper()
	return normalize(t, testutil.JSONValue(t, []byte(text)))
}

// TestToJSONMatchesPython checks that tojson of every test file equals
// Python avro's reading of it, record for record and value for value.
func TestToJSONMatchesPython(t *testing.T) {
	py := pythonAvro(t)
	files := corpusFiles(t, t.TempDir())
	out, err := exec.Command(py, append([]string{filepath.Join("testdata", "tojson.py")}, files...)...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("tojson.py: %v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(files) {
		t.Fatalf("tojson.py printed %d lines for %d files", len(lines), len(files))
	}
	records := 0
	for i, path := range files {
		var theirs struct {
			File    string
			Records []json.RawMessage
		}
		if err := json.Unmarshal([]byte(lines[i]), &theirs); err != nil || theirs.File != path {
			t.Fatalf("tojson.py line %d: %v %s", i, err, theirs.File)
		}
		r := runCmd(t, "tojson", path)
		if r.code != 0 {
			t.Fatalf("tojson %s: %d %s", path, r.code, r.stderr)
		}
		ours := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if len(ours) != len(theirs.Records) {
			t.Fatalf("%s: tojson printed %d records, Python read %d", path, len(ours), len(theirs.Records))
		}
		for j := range ours {
			if a, b := parseJSON(t, ours[j]), parseJSON(t, string(theirs.Records[j])); !reflect.DeepEqual(a, b) {
				t.Errorf("%s record %d:\ntojson: %s\npython: %s", filepath.Base(path), j, ours[j], theirs.Records[j])
			}
		}
		records += len(ours)
	}
	t.Logf("%d files, %d records equal", len(files), records)
}

// TestToJSON checks the exact text of tojson's output, standard input, and
// several files.
func TestToJSON(t *testing.T) {
	dir := t.TempDir()
	path := writeToolFile(t, dir, "all.avro", "deflate")
	r := runCmd(t, "tojson", path)
	want := rawText.Replace(strings.Join(toolRecords, "\n") + "\n")
	if r.code != 0 || r.stdout != want {
		t.Fatalf("tojson: %d %s\n got %s\nwant %s", r.code, r.stderr, r.stdout, want)
	}
	data, _ := os.ReadFile(path)
	if r := runIO(t, data, "tojson", "-"); r.code != 0 || r.stdout != want {
		t.Errorf("tojson -: %d %s", r.code, r.stderr)
	}
	if r := runCmd(t, "tojson", path, path); r.code != 0 || r.stdout != want+want {
		t.Errorf("tojson of two files: %d %s", r.code, r.stderr)
	}
	r = runCmd(t, "tojson", "--pretty", path)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "{\n  \"b\": true,\n  \"i\": -1,\n") {
		t.Fatalf("tojson --pretty: %d %s\n%s", r.code, r.stderr, r.stdout)
	}
	var compact bytes.Buffer
	d := json.NewDecoder(strings.NewReader(r.stdout))
	for d.More() {
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		_ = json.Compact(&compact, raw)
		compact.WriteByte('\n')
	}
	if compact.String() != want {
		t.Errorf("tojson --pretty, compacted, differs from tojson:\n%s", compact.String())
	}
}

// rawText writes the escapes of toolRecords as tojson does: printable
// characters from U+0080 on as they are, controls (U+007F, U+0080) and
// separators (U+2028) escaped.
var rawText = strings.NewReplacer(`\u00e9`, "\u00e9", `\u00ff`, "\u00ff", `\u00fe`, "\u00fe")

// corrupt returns a copy of a null-codec container file whose first record
// has a bad union branch, keeping its block structure sound.
func corrupt(t *testing.T, path string) []byte {
	t.Helper()
	data, or := readContainer(t, path)
	b, err := or.NextRaw()
	if err != nil {
		t.Fatal(err)
	}
	// The first record's first field, a boolean, gets the byte 7.
	start := int(b.Offset) + len(binary.AppendVarint(nil, b.Count)) + len(binary.AppendVarint(nil, b.Size))
	out := bytes.Clone(data)
	out[start] = 7
	return out
}

// TestToolsBadData checks exit status 1 and the error of each command for
// a damaged file, and that count does not decode records.
func TestToolsBadData(t *testing.T) {
	dir := t.TempDir()
	good := writeToolFile(t, dir, "all.avro", "null")
	bad := filepath.Join(dir, "bad.avro")
	if err := os.WriteFile(bad, corrupt(t, good), 0o644); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(good)
	truncated := filepath.Join(dir, "truncated.avro")
	if err := os.WriteFile(truncated, data[:len(data)-20], 0o644); err != nil {
		t.Fatal(err)
	}
	notAvro := filepath.Join(dir, "not.avro")
	if err := os.WriteFile(notAvro, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.avro")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tojson", bad}, "record 0 (block 0 at byte"},
		{[]string{"tojson", bad}, "b at byte 0: malformed input: boolean byte 0x7"},
		{[]string{"tojson", truncated}, "container block 0 at byte"},
		{[]string{"tojson", notAvro}, "not an Avro container file"},
		{[]string{"getschema", notAvro}, "not an Avro container file"},
		{[]string{"getmeta", notAvro}, "not an Avro container file"},
		{[]string{"getmeta", "--key", "nope", good}, `no metadata key "nope"`},
		{[]string{"count", truncated}, "truncated input"},
		{[]string{"count", notAvro}, "not an Avro container file"},
		{[]string{"cat", "--offset", "1", "--out", out, bad}, "record 0"},
		{[]string{"cat", "--out", out, truncated}, "truncated input"},
		{[]string{"concat", "--out", out, good, truncated}, "truncated input"},
		{[]string{"concat", "--out", out, good, notAvro}, "not an Avro container file"},
	} {
		r := runCmd(t, c.args...)
		if r.code != exitData || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit 1 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	wantOnly(t, dir, "all.avsc", "all.avro", "bad.avro", "truncated.avro", "not.avro")
	// count reads the block headers only: the damaged record is not seen.
	if r := runCmd(t, "count", bad); r.code != 0 || r.stdout != "6\n" {
		t.Errorf("count of a file with a bad record: %d %q %s", r.code, r.stdout, r.stderr)
	}
	// concat checks the records of the blocks it copies as stored.
	wantRun(t, runCmd(t, "concat", "--out", out, good, bad), exitData, bad+": record 0 (block 0 at byte ")
	wantOnly(t, dir, "all.avsc", "all.avro", "bad.avro", "truncated.avro", "not.avro")
	// A truncated file's count up to the damage is printed.
	if r := runCmd(t, "count", truncated); r.stdout != "0\n" {
		t.Errorf("count of a truncated file printed %q", r.stdout)
	}
}

// TestToolsEmptyRecords: a block that claims 2^50 records of an empty
// record type in no bytes is refused, not decoded record by record for ever.
func TestToolsEmptyRecords(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "empty.avro")
	var b bytes.Buffer
	w, err := ocf.NewWriter(&b, ocf.WriterOptions{Schema: []byte(`{"type":"record","name":"E","fields":[]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBlock(3, nil); err != nil { // within the limit
		t.Fatal(err)
	}
	if err := w.WriteBlock(1<<50, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.avro")
	for _, args := range [][]string{{"tojson", path}, {"cat", "--offset", "4", "--out", out, path}} {
		r := runCmd(t, args...)
		if r.code != exitData || !strings.Contains(r.stderr, "block 1 at byte") || !strings.Contains(r.stderr, "zero-size records per block") {
			t.Errorf("%q: exit %d, stderr %q; want exit 1 and the limit on zero-size records", args, r.code, r.stderr)
		}
		if args[0] == "tojson" && r.stdout != "{}\n{}\n{}\n" {
			t.Errorf("tojson printed %q before the bad block, want the 3 records", r.stdout)
		}
	}
	wantOnly(t, dir, "empty.avro")
	// fromjson writes no such block: 70,000 empty records go in two
	// blocks, which tojson reads back.
	schema, in := filepath.Join(dir, "e.avsc"), filepath.Join(dir, "e.json")
	if err := os.WriteFile(schema, []byte(`{"type":"record","name":"E","fields":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, bytes.Repeat([]byte("{}\n"), 70000), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCmd(t, "fromjson", "--schema", schema, "--out", out, in); r.code != 0 || r.stderr != "protoavro: wrote 70000 records in 2 blocks (null)\n" {
		t.Fatalf("fromjson: %d %q", r.code, r.stderr)
	}
	if r := runCmd(t, "tojson", out); r.code != 0 || strings.Count(r.stdout, "{}\n") != 70000 {
		t.Errorf("tojson of fromjson's output: exit %d, %d lines, %q", r.code, strings.Count(r.stdout, "\n"), r.stderr)
	}
}

// TestFromjsonEmptyItems: fromjson counts the zero-size values inside its
// records (empty messages in a list) as protoavro's readers bound them per
// block, so a file of records that each hold 40,000 empty messages in a few
// bytes goes in blocks of one record, which decode reads; it once wrote one
// block, which decode refused. A value that no block can hold is refused
// with where it is, and no file is left.
func TestFromjsonEmptyItems(t *testing.T) {
	dir := t.TempDir()
	types := []string{"-I", "../../testdata/proto", "-m", "protoavro.test.kitchen.WellKnown", "kitchen/kitchen.proto"}
	r := runCmd(t, append([]string{"schema"}, types...)...)
	if r.code != 0 {
		t.Fatalf("schema: %d %s", r.code, r.stderr)
	}
	schema, in, out := filepath.Join(dir, "wk.avsc"), filepath.Join(dir, "wk.json"), filepath.Join(dir, "wk.avro")
	if err := os.WriteFile(schema, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	value := func(n int) string {
		return `{"repeated_empty":[` + strings.TrimSuffix(strings.Repeat("{},", n), ",") + "]}\n"
	}
	if err := os.WriteFile(in, []byte(strings.Repeat(value(40000), 5)), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCmd(t, "fromjson", "--schema", schema, "--out", out, in); r.code != 0 || r.stderr != "protoavro: wrote 5 records in 5 blocks (null)\n" {
		t.Fatalf("fromjson: %d %q", r.code, r.stderr)
	}
	r = runCmd(t, append([]string{"decode", "--format", "jsonl", out}, types...)...)
	if r.code != 0 || strings.Count(r.stdout, "\n") != 5 || strings.Count(r.stdout, "{}") != 5*40000 {
		t.Fatalf("decode of fromjson's output: exit %d, %d lines, %q", r.code, strings.Count(r.stdout, "\n"), r.stderr)
	}
	// 100,000 empty messages in one record of a few bytes: no block holds it.
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, []byte(value(1)+value(100000)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCmd(t, "fromjson", "--schema", schema, "--out", out, in)
	if r.code != exitData || !strings.Contains(r.stderr, "value 1 at byte ") || !strings.Contains(r.stderr, "100000 zero-size values") {
		t.Errorf("fromjson of a record no block holds: exit %d, %q", r.code, r.stderr)
	}
	wantOnly(t, dir, "wk.avsc", "wk.json")
}

// TestToolsSharedEmptyRecords: a file whose schema nests records 30 deep
// with 3 fields each, all empty at the bottom (2 KB in the header), is read
// at once: tojson, count and cat size its arrays by what each record type
// can take, worked out once per type, not by the 3^30 paths through it.
func TestToolsSharedEmptyRecords(t *testing.T) {
	schema := `{"type":"record","name":"R30","fields":[]}`
	for i := 29; i >= 0; i-- {
		schema = fmt.Sprintf(`{"type":"record","name":"R%d","fields":[{"name":"a","type":%s},{"name":"b","type":"R%d"},{"name":"c","type":"R%d"}]}`, i, schema, i+1, i+1)
	}
	dir := t.TempDir()
	path, out := filepath.Join(dir, "deep.avro"), filepath.Join(dir, "out.avro")
	var b bytes.Buffer
	w, err := ocf.NewWriter(&b, ocf.WriterOptions{Schema: []byte(`{"type":"array","items":` + schema + `}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBlock(2, []byte{0, 0}); err != nil { // two empty arrays
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCmd(t, "tojson", path); r.code != 0 || r.stdout != "[]\n[]\n" {
		t.Errorf("tojson: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
	if r := runCmd(t, "cat", "--offset", "1", "--out", out, path); r.code != 0 {
		t.Errorf("cat: exit %d, %q", r.code, r.stderr)
	}
	if r := runCmd(t, "tojson", out); r.code != 0 || r.stdout != "[]\n" {
		t.Errorf("tojson of cat's output: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
}

// TestToolsInterrupted: the avro-tools commands stop on an interrupt (a
// cancelled context), exit 1 and leave no output file.
func TestToolsInterrupted(t *testing.T) {
	dir := t.TempDir()
	path := writeToolFile(t, dir, "all.avro", "null")
	jsonPath := filepath.Join(dir, "all.json")
	if r := runCmd(t, "tojson", path); r.code != 0 || os.WriteFile(jsonPath, []byte(r.stdout), 0o644) != nil {
		t.Fatalf("tojson: %d %s", r.code, r.stderr)
	}
	out := filepath.Join(dir, "out.avro")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"tojson", path},
		{"count", path},
		{"cat", "--out", out, path},
		{"concat", "--out", out, path, path},
		{"fromjson", "--schema", filepath.Join(dir, "all.avsc"), "--out", out, jsonPath},
	} {
		var stdout, stderr bytes.Buffer
		code := runContext(ctx, args, strings.NewReader(""), &stdout, &stderr)
		if code != exitData || !strings.Contains(stderr.String(), "interrupted") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit 1, interrupted", args, code, stderr.String())
		}
	}
	wantOnly(t, dir, "all.avsc", "all.avro", "all.json")
}

// TestToolsUsage checks exit status 2 for bad command lines and files that
// cannot be opened, and the help of each command.
func TestToolsUsage(t *testing.T) {
	dir := t.TempDir()
	good := writeToolFile(t, dir, "all.avro", "null")
	missing := filepath.Join(dir, "missing.avro")
	badSchema := filepath.Join(dir, "bad.avsc")
	if err := os.WriteFile(badSchema, []byte(`{"type":"record"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tojson"}, "give the container files"},
		{[]string{"tojson", "--bogus", good}, "flag provided but not defined"},
		{[]string{"tojson", missing}, "no such file"},
		{[]string{"getschema"}, "getschema takes one file, got 0"},
		{[]string{"getschema", good, good}, "getschema takes one file, got 2"},
		{[]string{"getmeta", missing}, "no such file"},
		{[]string{"getmeta", "--key"}, "flag needs an argument"},
		{[]string{"count"}, "give the container files"},
		{[]string{"count", missing}, "no such file"},
		{[]string{"cat"}, "give the container files"},
		{[]string{"cat", "--offset", "-1", good}, "want an integer of at least 0"},
		{[]string{"cat", "--limit", "x", good}, "want an integer of at least 0"},
		{[]string{"cat", "--sample", "1.5", good}, "want a fraction from 0 to 1"},
		{[]string{"cat", "--codec", "bzip2", good}, "want null, deflate, snappy or zstd"},
		{[]string{"cat", "--out", good, good}, "--out " + good + " is also an input; refusing to overwrite it"},
		{[]string{"concat", "--out", filepath.Join(dir, "o.avro"), good, missing}, "no such file"},
		{[]string{"fromjson"}, "missing --schema"},
		{[]string{"fromjson", "--schema", missing}, "no such file"},
		{[]string{"fromjson", "--schema", badSchema}, "invalid Avro schema"},
		{[]string{"fromjson", "--schema", badSchema, "a", "b"}, "takes one input file, got 2"},
		{[]string{"fromjson", "--schema", filepath.Join(dir, "all.avsc"), missing}, "no such file"},
	} {
		r := runCmd(t, c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	for _, name := range []string{"tojson", "fromjson", "getschema", "getmeta", "count", "cat", "concat"} {
		r := runCmd(t, name, "--help")
		if r.code != 0 || !strings.HasPrefix(r.stdout, "Usage: protoavro "+name) {
			t.Errorf("%s --help: %d %q", name, r.code, r.stdout)
		}
		if top := runCmd(t, "--help"); !regexp.MustCompile(`(?m)^  ` + name + ` +\S`).MatchString(top.stdout) {
			t.Errorf("protoavro --help does not list %s", name)
		}
	}
}

// TestGetSchemaGetMeta checks getschema and getmeta on a protoavro file.
func TestGetSchemaGetMeta(t *testing.T) {
	dir := t.TempDir()
	path := encodeSample(t, dir, "foo.avro", "--codec", "snappy")
	md := testutil.FindMessage(testutil.Files[0], "protoavro.avro2147.Foo")
	s, err := protoavro.Options{}.Schema(md)
	if err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, "getschema", path)
	parsed, err := protoavro.ParseSchema([]byte(r.stdout))
	if r.code != 0 || err != nil || parsed.Canonical() != s.Canonical() || !strings.HasPrefix(r.stdout, "{\n  \"name\": \"protoavro.avro2147.Foo\",\n") {
		t.Errorf("getschema: %d %v %s", r.code, err, r.stderr)
	}
	r = runCmd(t, "getmeta", path)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 5 || lines[0] != "avro.codec\tsnappy" || !strings.HasPrefix(lines[1], "avro.schema\t{") ||
		!regexp.MustCompile(`^protoavro.descriptors\t\(\d+ bytes, binary\)$`).MatchString(lines[2]) ||
		lines[3] != "protoavro.message\tprotoavro.avro2147.Foo" || lines[4] != "protoavro.options\tprofile=default timestamps=nanos uint64=long mapkeys=text" {
		t.Errorf("getmeta: %d %s\n%s", r.code, r.stderr, r.stdout)
	}
	data, or := readContainer(t, path)
	for _, key := range []string{"protoavro.descriptors", "avro.schema"} {
		if r := runCmd(t, "getmeta", "--key", key, path); r.code != 0 || r.stdout != string(or.Header().Metadata[key]) {
			t.Errorf("getmeta --key %s: %d, %d bytes", key, r.code, len(r.stdout))
		}
	}
	if r := runIO(t, data, "getschema", "-"); r.code != 0 || !strings.Contains(r.stdout, "protoavro.avro2147.Foo") {
		t.Errorf("getschema -: %d %s", r.code, r.stderr)
	}
}

// multiBlock writes the sample as a container file of several blocks.
func multiBlock(t *testing.T, dir, name, codec string) string {
	t.Helper()
	path := encodeSample(t, dir, name, "--codec", codec, "--block-size", "16K")
	return path
}

// readContainer reads the container file at path, and returns it and a
// reader of it.
func readContainer(t *testing.T, path string) ([]byte, *ocf.Reader) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	or, err := ocf.NewReader(bytes.NewReader(data), ocf.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return data, or
}

// rawBlocks returns the blocks of a container file as stored.
func rawBlocks(t *testing.T, path string) (ocf.Codec, [][]byte, []int64) {
	t.Helper()
	_, or := readContainer(t, path)
	var blocks [][]byte
	var counts []int64
	for {
		b, err := or.NextRaw()
		if err == io.EOF {
			return or.Header().Codec, blocks, counts
		}
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, bytes.Clone(b.Data))
		counts = append(counts, b.Count)
	}
}

func jsonLines(t *testing.T, path string) []string {
	t.Helper()
	r := runCmd(t, "tojson", path)
	if r.code != 0 {
		t.Fatalf("tojson %s: %s", path, r.stderr)
	}
	return strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
}

var copySummary = regexp.MustCompile(`^protoavro: wrote (\d+) records? in (\d+) blocks? \((\w+)\): (\d+) copied as stored, (\d+) compressed again\n$`)

// copyRun runs cat or concat and returns the numbers of its summary:
// records, blocks, copied and recompressed blocks.
func copyRun(t *testing.T, args ...string) [4]int {
	t.Helper()
	r := runCmd(t, args...)
	m := copySummary.FindStringSubmatch(r.stderr)
	if r.code != 0 || m == nil {
		t.Fatalf("%q: exit %d, stderr %q", args, r.code, r.stderr)
	}
	var n [4]int
	for i, j := range []int{1, 2, 4, 5} {
		n[i], _ = strconv.Atoi(m[j])
	}
	return n
}

func TestCat(t *testing.T) {
	dir := t.TempDir()
	in := multiBlock(t, dir, "in.avro", "deflate")
	all := jsonLines(t, in)
	_, inBlocks, counts := rawBlocks(t, in)
	if len(all) != 1000 || len(inBlocks) < 4 {
		t.Fatalf("%d records in %d blocks", len(all), len(inBlocks))
	}
	out := filepath.Join(dir, "out.avro")
	check := func(want []string) {
		t.Helper()
		if got := jsonLines(t, out); !reflect.DeepEqual(got, want) {
			t.Errorf("cat output: %d records, want %d", len(got), len(want))
		}
	}

	// No selection: every block copied as stored.
	n := copyRun(t, "cat", "--out", out, in)
	if n != [4]int{1000, len(inBlocks), len(inBlocks), 0} {
		t.Errorf("cat: %v", n)
	}
	check(all)
	if _, blocks, _ := rawBlocks(t, out); !reflect.DeepEqual(blocks, inBlocks) {
		t.Error("cat changed the stored blocks")
	}

	// --offset at a block boundary: the rest is copied as stored.
	first := int(counts[0])
	n = copyRun(t, "cat", "--offset", strconv.Itoa(first), "--out", out, in)
	if n != [4]int{1000 - first, len(inBlocks) - 1, len(inBlocks) - 1, 0} {
		t.Errorf("cat --offset %d: %v", first, n)
	}
	check(all[first:])

	// --offset and --limit inside blocks.
	n = copyRun(t, "cat", "--offset", "10", "--limit", "300", "--out", out, in)
	if n[0] != 300 {
		t.Errorf("cat --offset 10 --limit 300: %v", n)
	}
	check(all[10:310])
	copyRun(t, "cat", "--limit", "0", "--out", out, in)
	check([]string{""})

	// --sample: record k after the offset is kept when k%4 == 3.
	n = copyRun(t, "cat", "--sample", "0.25", "--offset", "100", "--limit", "50", "--out", out, in)
	var want []string
	for k := 0; len(want) < 50; k++ {
		if k%4 == 3 {
			want = append(want, all[100+k])
		}
	}
	if n[0] != 50 || n[2] != 0 {
		t.Errorf("cat --sample: %v", n)
	}
	check(want)
	copyRun(t, "cat", "--sample", "0", "--out", out, in)
	check([]string{""})

	// --codec: blocks are compressed again; several inputs follow each other.
	n = copyRun(t, "cat", "--codec", "zstd", "--out", out, in, in)
	if n != [4]int{2000, 2 * len(inBlocks), 0, 2 * len(inBlocks)} {
		t.Errorf("cat --codec zstd: %v", n)
	}
	if codec, _, _ := rawBlocks(t, out); codec != "zstandard" {
		t.Errorf("codec %s", codec)
	}
	check(append(append([]string{}, all...), all...))

	// Standard output, and a file of another program (fromjson's).
	var stdout bytes.Buffer
	if code := run([]string{"cat", "--limit", "2", writeToolFile(t, dir, "all.avro", "snappy")}, strings.NewReader(""), &stdout, io.Discard); code != 0 {
		t.Fatal(code)
	}
	if err := os.WriteFile(out, stdout.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	check([]string{rawText.Replace(toolRecords[0]), rawText.Replace(toolRecords[1])})
}

func TestConcat(t *testing.T) {
	dir := t.TempDir()
	a := multiBlock(t, dir, "a.avro", "snappy")
	b := writeFilesFromCat(t, dir, a)
	out := filepath.Join(dir, "out.avro")
	_, blocksA, _ := rawBlocks(t, a)
	_, blocksB, _ := rawBlocks(t, b)

	// The same codec: blocks copied as stored, byte for byte.
	n := copyRun(t, "concat", "--out", out, a, b)
	total := len(blocksA) + len(blocksB)
	if n != [4]int{1100, total, total, 0} {
		t.Errorf("concat: %v", n)
	}
	if _, blocks, _ := rawBlocks(t, out); !reflect.DeepEqual(blocks, append(append([][]byte{}, blocksA...), blocksB...)) {
		t.Error("concat changed the stored blocks")
	}
	want := append(jsonLines(t, a), jsonLines(t, b)...)
	if got := jsonLines(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("concat: %d records, want %d", len(got), len(want))
	}
	// The output keeps protoavro's metadata: decode reads it.
	if r := runCmd(t, "decode", "--in", out, "--format", "jsonl", "--out", filepath.Join(dir, "out.jsonl")); r.code != 0 {
		t.Errorf("decode of concat's output: %s", r.stderr)
	}

	// Other codecs: blocks of the output's codec are copied, others
	// compressed again.
	c := multiBlock(t, dir, "c.avro", "null")
	_, blocksC, _ := rawBlocks(t, c)
	n = copyRun(t, "concat", "--out", out, a, c)
	if n != [4]int{2000, len(blocksA) + len(blocksC), len(blocksA), len(blocksC)} {
		t.Errorf("concat of snappy and null files: %v", n)
	}
	n = copyRun(t, "concat", "--codec", "null", "--out", out, a, c)
	if n != [4]int{2000, len(blocksA) + len(blocksC), len(blocksC), len(blocksA)} {
		t.Errorf("concat --codec null: %v", n)
	}
	if got := jsonLines(t, out); !reflect.DeepEqual(got, append(jsonLines(t, a), jsonLines(t, c)...)) {
		t.Error("concat of different codecs changed the records")
	}

	// Different schemas, or different metadata, are refused.
	other := writeToolFile(t, dir, "all.avro", "null")
	r := runCmd(t, "concat", "--out", out, a, other)
	if r.code != exitData || !strings.Contains(r.stderr, other+": its schema differs from the schema of "+a+" at ") {
		t.Errorf("concat of different schemas: %d %s", r.code, r.stderr)
	}
	java := encodeSample(t, dir, "java.avro", "--profile", "java")
	if r := runCmd(t, "concat", "--out", out, a, java); r.code != exitData || !strings.Contains(r.stderr, "differs") {
		t.Errorf("concat of different profiles: %d %s", r.code, r.stderr)
	}
	// An existing output stays as it was after a failure.
	if got := jsonLines(t, out); len(got) != 2000 {
		t.Errorf("failed concat changed its output: %d records", len(got))
	}
}

// writeFilesFromCat writes records 900 to 999 of a to another file with
// cat, so that it has blocks of its own.
func writeFilesFromCat(t *testing.T, dir, a string) string {
	t.Helper()
	b := filepath.Join(dir, "b.avro")
	copyRun(t, "cat", "--offset", "900", "--out", b, a)
	return b
}

func TestFromJSON(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "all.avsc")
	path := writeToolFile(t, dir, "all.avro", "zstd")
	if codec, _, _ := rawBlocks(t, path); codec != "zstandard" {
		t.Errorf("codec %s", codec)
	}
	// Indented input, from a file; missing fields take their defaults.
	in := filepath.Join(dir, "in.json")
	pretty := "{\n  \"b\": true, \"i\": 1, \"l\": 2, \"f\": 1, \"d\": 2, \"s\": \"\", \"by\": \"\", \"dec\": \"\",\n  \"fx\": \"abc\", \"e\": \"RED\", \"a\": [], \"m\": {}\n}\n"
	if err := os.WriteFile(in, []byte(pretty+pretty), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.avro")
	r := runCmd(t, "fromjson", "--schema", schema, "--out", out, in)
	if r.code != 0 || r.stderr != "protoavro: wrote 2 records in 1 block (null)\n" {
		t.Fatalf("fromjson: %d %q", r.code, r.stderr)
	}
	want := `{"b":true,"i":1,"l":2,"f":1,"d":2,"s":"","by":"","dec":"","fx":"abc","e":"RED","a":[],"m":{},"u":null}`
	if got := jsonLines(t, out); !reflect.DeepEqual(got, []string{want, want}) {
		t.Errorf("fromjson with defaults: %q", got)
	}
	// tojson of a protoavro file, back through fromjson, is the same.
	foo := encodeSample(t, dir, "foo.avro")
	fooSchema := filepath.Join(dir, "foo.avsc")
	if err := os.WriteFile(fooSchema, []byte(runCmd(t, "getschema", foo).stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := jsonLines(t, foo)
	r = runIO(t, []byte(strings.Join(lines, "\n")), "fromjson", "--schema", fooSchema, "--out", out, "--codec", "deflate")
	if r.code != 0 || !strings.HasPrefix(r.stderr, "protoavro: wrote 1000 records in ") {
		t.Fatalf("fromjson of the sample: %d %s", r.code, r.stderr)
	}
	if got := jsonLines(t, out); !reflect.DeepEqual(got, lines) {
		t.Error("tojson | fromjson | tojson changed the sample's records")
	}

	// Bad values: exit 1, naming the value, its offset and the field.
	line1 := toolRecords[0] + "\n"
	for _, c := range []struct{ in, want string }{
		{line1 + strings.Replace(toolRecords[1], `"i":2147483647`, `"i":2147483648`, 1), "value 1 at byte " + strconv.Itoa(len(line1)) + ": i: JSON value does not match the schema: 2147483648 is outside the range of int"},
		// Numbers beyond their type's range are refused, not written as
		// infinities.
		{line1 + strings.Replace(toolRecords[1], `"d":1e+300`, `"d":1e309`, 1), "value 1 at byte " + strconv.Itoa(len(line1)) + ": u<t.All>.d: JSON value does not match the schema: 1e309 is outside the range of double"},
		{line1 + strings.Replace(toolRecords[0], `"f":1.1`, `"f":3.5e38`, 1), "value 1 at byte " + strconv.Itoa(len(line1)) + ": f: JSON value does not match the schema: 3.5e38 is outside the range of float"},
		{line1 + strings.Replace(toolRecords[0], `"d":-0.1`, `"d":1`+strings.Repeat("0", 1_000_000), 1), "value 1 at byte " + strconv.Itoa(len(line1)) + ": d: JSON value does not match the schema: 1000000000000000000000000000000000000000… (a number of 1000001 characters) is outside the range of double"},
		{line1 + strings.Replace(toolRecords[0], `"l":1700000000000`, `"l":-1`+strings.Repeat("0", 1_000_000), 1), "value 1 at byte " + strconv.Itoa(len(line1)) + ": l: JSON value does not match the schema: -100000000000000000000000000000000000000… (a number of 1000002 characters) is outside the range of long"},
		{line1 + `{"b":true}`, "value 1 at byte " + strconv.Itoa(len(line1)) + ": i: JSON value does not match the schema: missing"},
		{line1 + strings.Replace(toolRecords[1], `"t.F3":"xyz"`, `"t.F3":"xy"`, 1), "u<t.All>.u<t.F3>: JSON value does not match the schema: fixed t.F3 has 3 bytes, got 2"},
		{line1 + "{nope", "value 1: not JSON at byte " + strconv.Itoa(len(line1)+2) + ": invalid character"},
	} {
		r := runIO(t, []byte(c.in), "fromjson", "--schema", schema, "--out", out)
		if r.code != exitData || !strings.Contains(r.stderr, c.want) {
			t.Errorf("fromjson: exit %d, stderr %q; want exit 1 and %q", r.code, r.stderr, c.want)
		}
	}
	wantOnly(t, dir, "all.avsc", "all.avro", "in.json", "out.avro", "foo.avro", "foo.avsc")
}

// TestCount checks count of one file, several files and standard input.
func TestCount(t *testing.T) {
	dir := t.TempDir()
	a := multiBlock(t, dir, "a.avro", "zstd")
	b := writeToolFile(t, dir, "all.avro", "deflate")
	if r := runCmd(t, "count", a); r.code != 0 || r.stdout != "1000\n" {
		t.Errorf("count: %d %q %s", r.code, r.stdout, r.stderr)
	}
	if r := runCmd(t, "count", a, b); r.code != 0 || r.stdout != "1000\t"+a+"\n6\t"+b+"\n1006\ttotal\n" {
		t.Errorf("count of two files: %d %q %s", r.code, r.stdout, r.stderr)
	}
	data, _ := os.ReadFile(b)
	if r := runIO(t, data, "count", "-"); r.code != 0 || r.stdout != "6\n" {
		t.Errorf("count -: %d %q %s", r.code, r.stdout, r.stderr)
	}
}

// protoavroMessage is a message type with messages to write.
type protoavroMessage struct {
	desc protoreflect.MessageDescriptor
	msgs []proto.Message
}

// TestToolsGlobs checks that the avro-tools commands expand glob patterns
// among their files, in the sorted order of filepath.Glob, as the same
// files named one by one; the one-file commands take a pattern that matches
// one file; a pattern that matches nothing, or is malformed, is a usage
// error.
func TestToolsGlobs(t *testing.T) {
	dir := t.TempDir()
	b := writeToolFile(t, dir, "part-b.avro", "deflate")
	a := writeToolFile(t, dir, "part-a.avro", "null")
	c := writeToolFile(t, dir, "part-c.avro", "zstd")
	glob := filepath.Join(dir, "part-*.avro")
	for _, cmd := range []string{"tojson", "count"} {
		want := runCmd(t, cmd, a, b, c)
		got := runCmd(t, cmd, glob)
		if want.code != 0 || got.code != 0 || got.stdout != want.stdout {
			t.Errorf("%s %s: exit %d, %q (%s); the files one by one: exit %d, %q", cmd, glob, got.code, got.stdout, got.stderr, want.code, want.stdout)
		}
	}
	if r := runCmd(t, "count", glob); !strings.HasSuffix(r.stdout, "18\ttotal\n") {
		t.Errorf("count %s: %q, want 3 files of 6 records", glob, r.stdout)
	}
	for _, cmd := range []string{"cat", "concat"} {
		out := filepath.Join(dir, cmd+".out")
		if r := runCmd(t, cmd, "--out", out, glob); r.code != 0 {
			t.Fatalf("%s %s: %d %s", cmd, glob, r.code, r.stderr)
		}
		want := runCmd(t, "tojson", a).stdout + runCmd(t, "tojson", b).stdout + runCmd(t, "tojson", c).stdout
		if got := runCmd(t, "tojson", out); got.code != 0 || got.stdout != want {
			t.Errorf("%s %s: the output's records are not those of the three files in order:\n%s", cmd, glob, got.stdout)
		}
	}
	one := filepath.Join(dir, "part-[a].avro")
	for _, cmd := range []string{"getschema", "getmeta"} {
		want := runCmd(t, cmd, a)
		if got := runCmd(t, cmd, one); got.code != 0 || got.stdout != want.stdout {
			t.Errorf("%s %s: exit %d, %q (%s); want %q", cmd, one, got.code, got.stdout, got.stderr, want.stdout)
		}
	}
	if r := runCmd(t, "getschema", glob); r.code != exitUsage || !strings.Contains(r.stderr, "getschema takes one file, got 3") {
		t.Errorf("getschema %s: exit %d, %q", glob, r.code, r.stderr)
	}
	jsonIn := filepath.Join(dir, "in.json")
	if err := os.WriteFile(jsonIn, []byte(strings.Join(toolRecords, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "from.avro")
	if r := runCmd(t, "fromjson", "--schema", filepath.Join(dir, "all.avsc"), "--out", out, filepath.Join(dir, "in.js?n")); r.code != 0 {
		t.Errorf("fromjson with a pattern that matches one file: %d %s", r.code, r.stderr)
	} else if got, want := runCmd(t, "tojson", out), runCmd(t, "tojson", a); got.code != 0 || got.stdout != want.stdout {
		t.Errorf("fromjson with a pattern: records %q", got.stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tojson", filepath.Join(dir, "none-*.avro")}, "tojson " + filepath.Join(dir, "none-*.avro") + ": no file matches"},
		{[]string{"count", a, filepath.Join(dir, "none-*.avro")}, "no file matches"},
		{[]string{"cat", "--out", filepath.Join(dir, "x.avro"), filepath.Join(dir, "[")}, "syntax error in pattern"},
		{[]string{"getmeta", filepath.Join(dir, "none-?.avro")}, "getmeta " + filepath.Join(dir, "none-?.avro") + ": no file matches"},
		{[]string{"cat", "--out", a, glob}, "--out " + a + " is also an input; refusing to overwrite it"},
	} {
		if r := runCmd(t, c.args...); r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

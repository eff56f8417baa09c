package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/limits"
)

// copyHint is the note of cat and concat about where their output goes,
// for a command line written for avro-tools.
func copyHint(name string) string {
	return "(" + name + " reads every argument as an input; its output is --out FILE, or standard output without it, where avro-tools " + name + " takes the last argument)"
}

// runStd runs args in-process with the given standard streams; stdout and
// stderr are returned as strings with the exit code.
func runStd(args []string, stdin io.Reader, stdout *bytes.Buffer, terminalOut bool) result {
	var stderr bytes.Buffer
	var out io.Writer = stdout
	if terminalOut {
		out = terminalWriter{stdout}
	}
	code := run(args, stdin, out, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// unreadStdin is standard input that records whether it was read.
type unreadStdin struct{ read bool }

func (r *unreadStdin) Read([]byte) (int, error) { r.read = true; return 0, io.EOF }

// TestCopyLastArgument: cat and concat read every argument as an input.
// Given an avro-tools command line (the output last, no --out), an
// existing last file is one more input: the records of all go to standard
// output, whose summary says so, and the file is unchanged. A last file
// that does not exist is refused before anything is read, and one that is
// not a container file fails, both with the note that the output is --out;
// with --out, or with one file, the errors are the plain ones.
func TestCopyLastArgument(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeToolFile(t, dir, "a.avro", "null")
	b := writeToolFile(t, dir, "b.avro", "null")
	existing := filepath.Join(dir, "out.avro")
	before, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(existing, before, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.avro")
	notAvro := filepath.Join(dir, "all.avsc") // written by writeToolFile
	n := len(toolRecords)

	for _, name := range []string{"cat", "concat"} {
		r := runCmd(t, name, a, b, existing)
		if r.code != 0 || r.stderr != "protoavro: wrote 18 records to standard output in 3 blocks (null): 3 copied as stored, 0 compressed again\n" {
			t.Errorf("%s a b out.avro: %d %q", name, r.code, r.stderr)
		}
		got := filepath.Join(dir, name+"-stdout.avro")
		if err := os.WriteFile(got, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		if lines := jsonLines(t, got); len(lines) != 3*n || lines[2*n] != lines[0] {
			t.Errorf("%s a b out.avro: standard output holds %d records, want the %d of the three files", name, len(lines), 3*n)
		}
		if after, err := os.ReadFile(existing); err != nil || !bytes.Equal(after, before) {
			t.Errorf("%s a b out.avro changed out.avro (%v)", name, err)
		}
		// With --out the summary names no standard output.
		out := filepath.Join(dir, name+"-out.avro")
		if r := runCmd(t, name, "--out", out, a, b); r.code != 0 || r.stderr != "protoavro: wrote 12 records in 2 blocks (null): 2 copied as stored, 0 compressed again\n" {
			t.Errorf("%s --out: %d %q", name, r.code, r.stderr)
		}

		// A missing last file: refused up front, with the note.
		r = runCmd(t, name, a, b, missing)
		wantRun(t, r, exitUsage, "protoavro: "+missing+": no such file or directory "+copyHint(name))
		if r.stdout != "" {
			t.Errorf("%s a b missing: wrote %d bytes", name, len(r.stdout))
		}
		// A last file that is not a container file: the note follows
		// the error.
		r = runCmd(t, name, a, notAvro)
		wantRun(t, r, exitData, notAvro+": container header at byte 0: not an Avro container file")
		if !strings.HasSuffix(r.stderr, copyHint(name)+"\n") {
			t.Errorf("%s a all.avsc: %q lacks the note on --out", name, r.stderr)
		}
		// With --out, or one file, nothing suggests the last is the output.
		for _, args := range [][]string{
			{name, "--out", out, a, missing},
			{name, "--out", "-", a, missing},
			{name, missing},
			{name, "--out", out, a, notAvro},
		} {
			r := runCmd(t, args...)
			if r.code == 0 || strings.Contains(r.stderr, "avro-tools") {
				t.Errorf("%q: %d %q; want an error without the note", args, r.code, r.stderr)
			}
		}
	}
}

// TestBinaryOutputRefusesTerminal: cat, concat and fromjson refuse to write
// a container file to standard output when it is a terminal, with --out or
// without it ("-" named or not), writing nothing; cat and concat given
// several files add the note that the last is an input. With --out FILE,
// or standard output redirected, they write.
func TestBinaryOutputRefusesTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeToolFile(t, dir, "a.avro", "null")
	schema := filepath.Join(dir, "all.avsc")
	json := strings.Join(toolRecords, "\n") + "\n"
	const refusal = "refusing to write binary Avro data to a terminal: give --out FILE or redirect standard output"
	for _, c := range []struct {
		args []string
		note string // "": no note on --out
	}{
		{[]string{"cat", a}, ""},
		{[]string{"cat", "--out", "-", a, a}, ""},
		{[]string{"cat", "--limit", "1", a, a}, copyHint("cat")},
		{[]string{"concat", a}, ""},
		{[]string{"concat", a, a}, copyHint("concat")},
		{[]string{"concat", "--out", "-", a, a}, ""},
		{[]string{"fromjson", "--schema", schema}, ""},
		{[]string{"fromjson", "--schema", schema, "--out", "-"}, ""},
	} {
		var stdout bytes.Buffer
		r := runStd(c.args, strings.NewReader(json), &stdout, true)
		wantRun(t, r, exitUsage, refusal)
		if c.note != "" && !strings.HasSuffix(r.stderr, refusal+" "+c.note+"\n") || c.note == "" && strings.Contains(r.stderr, "avro-tools") {
			t.Errorf("%q: %q; want the note %q", c.args, r.stderr, c.note)
		}
		if r.stdout != "" {
			t.Errorf("%q wrote %d bytes to the terminal", c.args, len(r.stdout))
		}
		// Redirected, the same command line writes the container file.
		stdout.Reset()
		if r := runStd(c.args, strings.NewReader(json), &stdout, false); r.code != 0 || !strings.HasPrefix(r.stdout, "Obj\x01") {
			t.Errorf("%q to a pipe: %d %q", c.args, r.code, r.stderr)
		}
	}
	// --out FILE on a terminal writes the file.
	out := filepath.Join(dir, "out.avro")
	var stdout bytes.Buffer
	if r := runStd([]string{"concat", "--out", out, a, a}, strings.NewReader(""), &stdout, true); r.code != 0 || len(jsonLines(t, out)) != 2*len(toolRecords) {
		t.Errorf("concat --out FILE with a terminal: %d %q", r.code, r.stderr)
	}
}

// TestContainerStdinRefusesTerminal: the commands that read container
// files refuse "-" when standard input is a terminal, before reading
// anything (tojson prints nothing of the files before it); cat and concat
// add the note on --out when "-" is the last of several files, as
// avro-tools takes it for standard output. Redirected, "-" is read.
func TestContainerStdinRefusesTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeToolFile(t, dir, "a.avro", "null")
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	const refusal = "protoavro: -: refusing to read binary Avro data from a terminal: give the file, or redirect standard input"
	for _, c := range []struct {
		args []string
		note string
	}{
		{[]string{"tojson", a, "-"}, ""},
		{[]string{"count", "-"}, ""},
		{[]string{"getschema", "-"}, ""},
		{[]string{"getmeta", "-"}, ""},
		{[]string{"cat", "-"}, ""},
		{[]string{"cat", a, "-"}, copyHint("cat")},
		{[]string{"cat", "--out", filepath.Join(dir, "o.avro"), a, "-"}, ""},
		{[]string{"concat", "-", a}, ""},
		{[]string{"concat", a, "-"}, copyHint("concat")},
	} {
		in := &unreadStdin{}
		var stdout bytes.Buffer
		r := runStd(c.args, terminalReader{in}, &stdout, false)
		want := refusal + "\n"
		if c.note != "" {
			want = refusal + " " + c.note + "\n"
		}
		if r.code != exitUsage || r.stderr != want || r.stdout != "" || in.read {
			t.Errorf("%q with a terminal: %d %q, %d bytes out, stdin read %v; want 2, %q", c.args, r.code, r.stderr, len(r.stdout), in.read, want)
		}
	}
	if r := runIO(t, data, "count", "-"); r.code != 0 || r.stdout != "6\n" {
		t.Errorf("count - from a pipe: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestFromJSONSchemaFlags: fromjson takes the schema as avro-tools does,
// --schema-file FILE or --schema with the schema's JSON text (an object,
// a union or a primitive's name, after white space), and --schema FILE as
// before; both, or neither, are refused, and errors name the flag and the
// file, or the text as text. A second argument is not the output.
func TestFromJSONSchemaFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ref := writeToolFile(t, dir, "ref.avro", "null") // also writes all.avsc
	schemaFile := filepath.Join(dir, "all.avsc")
	want := jsonLines(t, ref)
	refSchema := runCmd(t, "getschema", ref).stdout
	in := filepath.Join(dir, "in.json")
	if err := os.WriteFile(in, []byte(strings.Join(toolRecords, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.avro")
	for _, args := range [][]string{
		{"--schema-file", schemaFile},
		{"--schema", schemaFile},
		{"--schema", toolSchema},
		{"--schema", "\n  " + toolSchema},
	} {
		r := runCmd(t, append(append([]string{"fromjson"}, args...), "--out", out, in)...)
		if r.code != 0 {
			t.Errorf("fromjson %.30q: %d %s", args, r.code, r.stderr)
			continue
		}
		if got := jsonLines(t, out); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("fromjson %.30q: other records", args)
		}
		if got := runCmd(t, "getschema", out).stdout; got != refSchema {
			t.Errorf("fromjson %.30q: schema %s, want %s", args, got, refSchema)
		}
	}
	// A primitive's name and a union, as text.
	for schema, records := range map[string]string{
		` "long"`:                        "1\n-2\n",
		`["null","string"]`:              "null\n{\"string\":\"x\"}\n",
		`{"type":"array","items":"int"}`: "[1,2]\n[]\n",
	} {
		r := runIO(t, []byte(records), "fromjson", "--schema", schema, "--out", out)
		if r.code != 0 {
			t.Errorf("fromjson --schema %s: %d %s", schema, r.code, r.stderr)
			continue
		}
		if got := strings.Join(jsonLines(t, out), "\n") + "\n"; got != records {
			t.Errorf("fromjson --schema %s: %q, want %q", schema, got, records)
		}
	}

	// Refusals.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--schema", schemaFile, "--schema-file", schemaFile}, "--schema and --schema-file both give the schema; give one of them"},
		{[]string{"--schema-file", filepath.Join(dir, "no.avsc")}, "--schema-file: open " + filepath.Join(dir, "no.avsc") + ": no such file or directory"},
		{[]string{"--schema", filepath.Join(dir, "no.avsc")}, "--schema: open " + filepath.Join(dir, "no.avsc") + ": no such file or directory"},
		{[]string{"--schema", `{"type":"recrd"}`}, `--schema (JSON text): invalid Avro schema: schema: unknown type "recrd"`},
		{[]string{"--schema-file", in}, "--schema-file " + in + ": invalid Avro schema"},
		{[]string{"--schema-file", schemaFile, "--out", schemaFile}, "--out " + schemaFile + " is also an input; refusing to overwrite it"},
		{[]string{"--schema-file", schemaFile, in, out}, "fromjson takes one input file, got 2 (its output is --out FILE, or standard output without it)"},
		{[]string{"--codec", "null"}, "missing --schema: give the Avro schema of the records (--schema-file FILE.avsc, or --schema with the file or the schema's JSON text)"},
	} {
		wantRun(t, runCmd(t, append([]string{"fromjson"}, c.args...)...), exitUsage, c.want)
	}
	// Text is bounded as a file is.
	huge := `"` + strings.Repeat(" ", limits.SchemaFile) + `"`
	wantRun(t, runCmd(t, "fromjson", "--schema", huge, "--out", out), exitUsage, "--schema (JSON text): 16777218 bytes, more than the 16777216 of the largest schema")
}

// TestFromJSONSchemaTextNamesFile: --schema whose value starts like JSON
// is the schema's text even when a file has that name; the error that it
// does not parse says how to give the file.
func TestFromJSONSchemaTextNamesFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	const name = `{odd}.avsc`
	if err := os.WriteFile(name, []byte(`"long"`), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRun(t, runIO(t, []byte("1\n"), "fromjson", "--schema", name, "--out", "out.avro"), exitUsage,
		"--schema (JSON text): invalid Avro schema: ")
	wantRun(t, runIO(t, []byte("1\n"), "fromjson", "--schema", name, "--out", "out.avro"), exitUsage,
		"(a file of this name exists: give it as ./{odd}.avsc, or with --schema-file)")
	for _, args := range [][]string{{"--schema", "./" + name}, {"--schema-file", name}} {
		if r := runIO(t, []byte("1\n"), append([]string{"fromjson", "--out", "out.avro"}, args...)...); r.code != 0 {
			t.Errorf("fromjson %q: %d %s", args, r.code, r.stderr)
		}
	}
}

// TestEncodeRejectsRefusesTerminal: encode --rejects - writes binary
// records, so it is refused when standard output is a terminal, before
// anything is read, unless the input is declared JSON Lines; redirected,
// the rejected record is written.
func TestEncodeRejectsRefusesTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out.avro")
	args := []string{"encode", "-I", "../../testdata/proto", "-m", "protoavro.avro2147.Foo", "avro2147.proto", "--out", out, "--skip-bad", "--rejects", "-"}
	bad := "\x05\x0a\x03abc" // a record of 5 bytes holding 5: the record ends early
	var stdout bytes.Buffer
	stdin := &unreadStdin{}
	r := runStd(args, stdin, &stdout, true)
	wantRun(t, r, exitUsage, "--rejects -: refusing to write binary protobuf records to a terminal")
	if stdin.read || r.stdout != "" {
		t.Errorf("refused, yet read standard input (%v) or wrote %q", stdin.read, r.stdout)
	}
	stdout.Reset()
	if r := runStd(args, strings.NewReader(bad), &stdout, false); r.code != 0 || r.stdout != bad {
		t.Errorf("redirected: %d %q, rejects %q; want exit 0 and the bad record", r.code, r.stderr, r.stdout)
	}
	stdout.Reset()
	jsonArgs := append(slices.Clone(args), "--format", "jsonl")
	if r := runStd(jsonArgs, strings.NewReader("{\"id\": \"x\"}\n"), &stdout, true); r.code != 0 || r.stdout != "{\"id\": \"x\"}\n" {
		t.Errorf("JSON Lines rejects on a terminal: %d %q, rejects %q; want exit 0 and the bad line", r.code, r.stderr, r.stdout)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// encodeJSONL writes the JSON lines to dir, encodes them as message of
// the .proto file protoFile (under dir) into dir/name with extra flags,
// and returns the container file's path.
func encodeJSONL(t *testing.T, dir, protoFile, message, name, lines string, args ...string) string {
	t.Helper()
	in := filepath.Join(dir, name+".jsonl")
	if err := os.WriteFile(in, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	r := runIO(t, nil, append([]string{"encode", "-I", dir, "-m", message, protoFile, "--in", in, "--out", out}, args...)...)
	if r.code != 0 {
		t.Fatalf("encode %s: exit code %d: %s", name, r.code, r.stderr)
	}
	return out
}

// TestDecodeNoEmbeddedType checks that a file without an embedded message
// type, decoded without -m, is a bad command line (exit status 2) that
// names the file and says what to give, first input or not, and that no
// output file is created.
func TestDecodeNoEmbeddedType(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	none := encodeSample(t, dir, "none.avro", "--descriptors", "none")
	full := encodeSample(t, dir, "full.avro")
	out := filepath.Join(dir, "out.jsonl")
	for _, inputs := range [][]string{{none}, {full, none}} {
		r := runIO(t, nil, append([]string{"decode", "--out", out, "--format", "jsonl"}, inputs...)...)
		wantRun(t, r, 2, none+" has no embedded protobuf type (it was written with encode --descriptors none, or by another program): give its message type with -m and the .proto files or --descriptor-set that define it")
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("decode %v: the output exists (%v)", inputs, err)
		}
	}
	// With -m it reads.
	sample, _ := readSample(t)
	r := runIO(t, nil, append([]string{"decode", none}, typeArgs...)...)
	if r.code != 0 || r.stdout != string(sample) {
		t.Errorf("decode -m: exit code %d, %s", r.code, r.stderr)
	}
}

// TestDecodeMappingFlagsNeedType checks that the mapping flags that shape
// the reader's schema are refused without -m, as a bad command line, while
// --unknown-enums applies without -m, and with -m alone keeps the file's
// mapping: a file written with the engine preset reads back whole.
func TestDecodeMappingFlagsNeedType(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sample, _ := readSample(t)
	engine := encodeSample(t, dir, "engine.avro", "--preset", "engine")
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--timestamps", "micros"}, "--timestamps needs -m: without it the records are read with the mapping recorded in the file"},
		{[]string{"--unknown-enums", "default", "--preset", "engine", "--map-keys", "entries"}, "--preset, --map-keys need -m: "},
		{[]string{"--profile", "java"}, "--profile needs -m: "},
	} {
		r := runIO(t, nil, append([]string{"decode", engine}, c.flags...)...)
		wantRun(t, r, 2, c.want)
		if r.stdout != "" {
			t.Errorf("decode %v wrote %d bytes", c.flags, len(r.stdout))
		}
	}
	for _, args := range [][]string{
		{"decode", engine},
		{"decode", engine, "--unknown-enums", "default"},
		append([]string{"decode", engine, "--unknown-enums", "default"}, typeArgs...),
		// With -m the mapping flags choose the reader's mapping.
		append([]string{"decode", engine, "--preset", "engine", "--uint64", "decimal"}, typeArgs...),
	} {
		r := runIO(t, nil, args...)
		if r.code != 0 || r.stdout != string(sample) {
			t.Errorf("%v: exit code %d, %s; output equal: %v", args[2:], r.code, r.stderr, r.stdout == string(sample))
		}
	}
}

// TestDecodeMixedTypes checks that, without -m, inputs that embed
// different message types are refused, naming both files and types, and
// that inputs of two versions of one type (one full name) are not.
func TestDecodeMixedTypes(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{
		"m.proto":    "syntax = \"proto3\";\npackage mix;\nmessage P { string s = 1; }\nmessage Q { int64 n = 1; }\n",
		"v2/m.proto": "syntax = \"proto3\";\npackage mix;\nmessage P { string s = 1; int32 added = 2; }\n",
	})
	p1 := encodeJSONL(t, dir, "m.proto", "mix.P", "p1.avro", "{\"s\":\"a\"}\n")
	q := encodeJSONL(t, dir, "m.proto", "mix.Q", "q.avro", "{\"n\":\"5\"}\n")
	p2 := encodeJSONL(t, filepath.Join(dir, "v2"), "m.proto", "mix.P", "p2.avro", "{\"s\":\"b\",\"added\":7}\n")
	out := filepath.Join(dir, "mixed.jsonl")
	for _, format := range []string{"jsonl", "delimited"} {
		r := runIO(t, nil, "decode", p1, q, "--out", out, "--format", format)
		wantRun(t, r, 2, q+" embeds message type mix.Q, but "+p1+" embeds mix.P: one output holds one type; decode them separately, or give -m")
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--format %s: the output exists (%v)", format, err)
		}
	}
	// The --in files come first, whatever their place on the command line.
	r := runIO(t, nil, "decode", q, "--in", p1, "--format", "jsonl")
	wantRun(t, r, 2, q+" embeds message type mix.Q, but "+p1+" embeds mix.P")
	// Two versions of mix.P go to one output, the --in file first.
	r = runIO(t, nil, "decode", p1, "--in", p2, "--format", "jsonl")
	if want := "{\"s\":\"b\",\"added\":7}\n{\"s\":\"a\"}\n"; r.code != 0 || r.stdout != want {
		t.Errorf("two versions of one type: exit code %d, stdout %q, want %q; %s", r.code, r.stdout, want, r.stderr)
	}
	if !strings.Contains(r.stderr, "decoded 2 records") {
		t.Errorf("summary %q", r.stderr)
	}
}

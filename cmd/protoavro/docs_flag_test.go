package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsFlag: schema and encode keep the comments of the .proto files as
// "doc" attributes, and leave them out with --docs=false or --no-docs,
// whether the types come from .proto files or from a descriptor set with
// source info; the schemas are otherwise the same.
func TestDocsFlag(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{
		"d.proto": "syntax = \"proto3\";\npackage docs;\n// The order of a customer.\nmessage Order {\n  // Its number.\n  int64 id = 1;\n}\n",
	})
	set := filepath.Join(dir, "d.binpb")
	protocRun(t, "-I", dir, "--include_source_info", "-o", set, "d.proto")
	for name, typeFlags := range map[string][]string{
		"proto":          {"-I", dir, "-m", "docs.Order", "d.proto"},
		"descriptor set": {"--descriptor-set", set, "-m", "docs.Order"},
	} {
		with := runCmd(t, append([]string{"schema"}, typeFlags...)...)
		if with.code != 0 || !strings.Contains(with.stdout, `"doc": "The order of a customer."`) || !strings.Contains(with.stdout, `"doc": "Its number."`) {
			t.Fatalf("%s: schema with docs: %d %s %s", name, with.code, with.stdout, with.stderr)
		}
		for _, flag := range []string{"--docs=false", "--no-docs"} {
			without := runCmd(t, append([]string{"schema", flag}, typeFlags...)...)
			if without.code != 0 || strings.Contains(without.stdout, `"doc"`) {
				t.Errorf("%s, %s: schema: %d %s %s", name, flag, without.code, without.stdout, without.stderr)
			}
			if c1, c2 := parseAvro(t, with.stdout), parseAvro(t, without.stdout); string(c1.Canonical()) != string(c2.Canonical()) {
				t.Errorf("%s, %s: the schemas differ beyond docs", name, flag)
			}
			in := filepath.Join(dir, "in.jsonl")
			if err := os.WriteFile(in, []byte("{\"id\":\"5\"}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out.avro")
			if r := runCmd(t, append(append([]string{"encode", flag}, typeFlags...), "--in", in, "--out", out)...); r.code != 0 {
				t.Fatalf("%s, %s: encode: %s", name, flag, r.stderr)
			}
			_, or := readContainer(t, out)
			if schema := string(or.Header().Schema); strings.Contains(schema, `"doc"`) {
				t.Errorf("%s, %s: encode wrote docs: %s", name, flag, schema)
			}
		}
	}
	wantRun(t, runCmd(t, "schema", "--docs=maybe", "-I", dir, "-m", "docs.Order", "d.proto"), 2, "--docs")
}

// TestFingerprintOneMessagePackage: schema --package P --fingerprint (and
// --canonical) names the message on its line even when P has one message,
// as it does for several; with -m the line is the bare fingerprint.
func TestFingerprintOneMessagePackage(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{"one.proto": "syntax = \"proto3\";\npackage one;\nmessage M { int32 n = 1; }\n"})
	bare := runCmd(t, "schema", "-I", dir, "-m", "one.M", "--fingerprint", "one.proto")
	if bare.code != 0 || len(bare.stdout) != 17 || strings.Contains(bare.stdout, "\t") {
		t.Fatalf("-m --fingerprint: %d %q %s", bare.code, bare.stdout, bare.stderr)
	}
	canonical := runCmd(t, "schema", "-I", dir, "-m", "one.M", "--canonical", "one.proto")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--package", "one", "--fingerprint"}, "one.M\t" + bare.stdout},
		{[]string{"--fingerprint"}, "one.M\t" + bare.stdout},
		{[]string{"--package", "one", "--canonical"}, "one.M\t" + canonical.stdout},
	} {
		r := runCmd(t, append(append([]string{"schema", "-I", dir}, c.args...), "one.proto")...)
		if r.code != 0 || r.stdout != c.want {
			t.Errorf("%q: %d %s: %q, want %q", c.args, r.code, r.stderr, r.stdout, c.want)
		}
	}
}

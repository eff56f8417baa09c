package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro"
)

const (
	protoDir  = "../../testdata/proto"
	goldenDir = "../../protoavro/testdata/golden"
)

// goldenOf returns the golden files of variant for the packages of the
// three non-editions test protos.
func goldenOf(t *testing.T, variant string, prefixes ...string) []string {
	t.Helper()
	return testutil.DirNamesWithPrefix(t, filepath.Join(goldenDir, variant), prefixes...)
}

func parsedGolden(t *testing.T, variant, name string) *protoavro.Schema {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(goldenDir, variant, name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := protoavro.ParseSchema(text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSchemaOutDir(t *testing.T) {
	protos := []string{"avro2147.proto", "kitchen/kitchen.proto", "legacy/legacy.proto"}
	prefixes := []string{"protoavro.avro2147.", "protoavro.test.kitchen.", "protoavro.test.legacy."}

	// Java profile: the golden files, byte for byte.
	dir := filepath.Join(t.TempDir(), "java")
	r := runCmd(t, append([]string{"schema", "-I", protoDir, "--profile", "java", "--out-dir", dir}, protos...)...)
	golden := goldenOf(t, "java", prefixes...)
	if r.code != 0 || r.stderr != fmt.Sprintf("protoavro: wrote %d schemas to %s\n", len(golden), dir) {
		t.Fatalf("schema --out-dir: %d %q", r.code, r.stderr)
	}
	if got := testutil.DirNames(t, dir); !slices.Equal(got, golden) {
		t.Errorf("files %q, want %q", got, golden)
	}
	for _, name := range golden {
		got, _ := os.ReadFile(filepath.Join(dir, name))
		want, _ := os.ReadFile(filepath.Join(goldenDir, "java", name))
		if string(got) != string(want) {
			t.Errorf("%s differs from the golden file", name)
		}
	}

	// Default profile, as --options: the golden schemas with docs from the
	// comments; the canonical forms are equal.
	dir = filepath.Join(t.TempDir(), "default")
	if r := runCmd(t, append([]string{"schema", "-I", protoDir, "--options", "profile=default", "--out-dir", dir}, protos...)...); r.code != 0 {
		t.Fatal(r.stderr)
	}
	for _, name := range goldenOf(t, "default", prefixes...) {
		text, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := protoavro.ParseSchema(text)
		if err != nil || got.Canonical() != parsedGolden(t, "default", name).Canonical() {
			t.Errorf("%s: canonical form differs from the golden file (%v)", name, err)
		}
	}

	// --package, --canonical into the directory, and other options.
	dir = filepath.Join(t.TempDir(), "legacy")
	r = runCmd(t, "schema", "-I", protoDir, "--package", "protoavro.test.legacy", "--canonical", "--out-dir", dir, "kitchen/kitchen.proto", "legacy/legacy.proto")
	legacy := goldenOf(t, "default", "protoavro.test.legacy.")
	if got := testutil.DirNames(t, dir); r.code != 0 || !slices.Equal(got, legacy) {
		t.Fatalf("--package: %d %s %q", r.code, r.stderr, got)
	}
	for _, name := range legacy {
		got, _ := os.ReadFile(filepath.Join(dir, name))
		if string(got) != parsedGolden(t, "default", name).Canonical()+"\n" {
			t.Errorf("--canonical %s differs", name)
		}
	}
	dir = filepath.Join(t.TempDir(), "decimal")
	if r := runCmd(t, "schema", "-I", protoDir, "--options", "uint64=decimal", "--out-dir", dir, "kitchen/kitchen.proto"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	text, _ := os.ReadFile(filepath.Join(dir, "protoavro.test.kitchen.Scalars.avsc"))
	if s, err := protoavro.ParseSchema(text); err != nil || s.Canonical() != parsedGolden(t, "uint64-decimal", "protoavro.test.kitchen.Scalars.avsc").Canonical() {
		t.Errorf("--options uint64=decimal: %v", err)
	}
}

func TestSchemaCanonicalFingerprint(t *testing.T) {
	foo := parsedGolden(t, "default", "protoavro.avro2147.Foo.avsc")
	large := parsedGolden(t, "default", "protoavro.avro2147.MessageWithLargeEnum.avsc")
	base := []string{"schema", "-I", protoDir}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-m", "protoavro.avro2147.Foo", "--canonical"}, foo.Canonical() + "\n"},
		{[]string{"-m", "protoavro.avro2147.Foo", "--fingerprint"}, fmt.Sprintf("%016x\n", foo.Fingerprint())},
		{[]string{"--fingerprint"}, fmt.Sprintf("protoavro.avro2147.Foo\t%016x\nprotoavro.avro2147.MessageWithLargeEnum\t%016x\n", foo.Fingerprint(), large.Fingerprint())},
		{[]string{"--canonical"}, "protoavro.avro2147.Foo\t" + foo.Canonical() + "\nprotoavro.avro2147.MessageWithLargeEnum\t" + large.Canonical() + "\n"},
		{[]string{"--package", "protoavro.avro2147", "--fingerprint"}, fmt.Sprintf("protoavro.avro2147.Foo\t%016x\nprotoavro.avro2147.MessageWithLargeEnum\t%016x\n", foo.Fingerprint(), large.Fingerprint())},
	} {
		r := runCmd(t, append(append(base, c.args...), "avro2147.proto")...)
		if r.code != 0 || r.stdout != c.want {
			t.Errorf("%q: %d %s\n got %q\nwant %q", c.args, r.code, r.stderr, r.stdout, c.want)
		}
	}
	// The fingerprint of a descriptor set's messages.
	set := filepath.Join(t.TempDir(), "set.binpb")
	if err := os.WriteFile(set, compileSet(t, protoDir, "avro2147.proto"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCmd(t, "schema", "--descriptor-set", set, "--fingerprint"); r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("protoavro.avro2147.Foo\t%016x\n", foo.Fingerprint())) {
		t.Errorf("--descriptor-set --fingerprint: %d %s %q", r.code, r.stderr, r.stdout)
	}
}

func TestSchemaTreeErrors(t *testing.T) {
	base := []string{"schema", "-I", protoDir}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--canonical", "--fingerprint"}, "exclude each other"},
		{[]string{"--fingerprint", "--out-dir", t.TempDir()}, "does not go with --out-dir"},
		{[]string{"-m", "protoavro.avro2147.Foo", "--package", "x"}, "-m and --package exclude each other"},
		{[]string{"--options", "colour=blue", "--canonical"}, `--options: protoavro: invalid options: unknown option "colour=blue"`},
		{[]string{"--package", "no.such", "--canonical"}, `no messages in package "no.such"`},
		{[]string{"--options", "profile=java"}, "give --out-dir DIR for the schemas of all 2 messages"},
		{[]string{"--out-dir", "/dev/null/x"}, "--out-dir: mkdir /dev/null"},
	} {
		r := runCmd(t, append(append(base, c.args...), "avro2147.proto")...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestSchemaOutDirRefusesNamesDifferingInCase: --out-dir refuses messages
// whose files' names differ only in case, which would overwrite each other
// on a case-insensitive file system, naming the files, and writes none;
// printed to standard output, they are fine.
func TestSchemaOutDirRefusesNamesDifferingInCase(t *testing.T) {
	dir := tempFiles(t, map[string]string{"c.proto": "syntax = \"proto3\";\npackage p;\nmessage Foo {}\nmessage foo {}\nmessage Bar { message FOO {} }\n"})
	out := filepath.Join(dir, "out")
	r := runCmd(t, "schema", "-I", dir, "--out-dir", out, "c.proto")
	if want := `files "p.Foo.avsc", "p.foo.avsc" differ only in case`; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", r.code, r.stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want no directory", out, err)
	}
	if r := runCmd(t, "schema", "-I", dir, "--canonical", "c.proto"); r.code != 0 || strings.Count(r.stdout, "\n") != 4 {
		t.Errorf("--canonical: exit %d, %s%s", r.code, r.stdout, r.stderr)
	}
}

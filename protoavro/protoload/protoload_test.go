package protoload

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile/reporter"
)

// TestCompile compiles a file named by its path on disk and by its path
// under the import path; source info is kept only when asked for.
func TestCompile(t *testing.T) {
	const dir = "../../testdata/proto"
	for _, arg := range []string{filepath.Join(dir, "kitchen", "kitchen.proto"), "kitchen/kitchen.proto"} {
		for _, sourceInfo := range []bool{false, true} {
			files, err := Compile(context.Background(), []string{arg}, []string{dir}, nil, sourceInfo)
			if err != nil {
				t.Fatalf("%s: %v", arg, err)
			}
			if len(files) != 1 || files[0].Path() != "kitchen/kitchen.proto" {
				t.Fatalf("%s: got %d files, first %s", arg, len(files), files[0].Path())
			}
			if got := files[0].SourceLocations().Len() > 0; got != sourceInfo {
				t.Errorf("%s: source info %v, want %v", arg, got, sourceInfo)
			}
		}
	}
}

// TestCompileErrors: each bad command line gets an error naming the file
// and what would fix it.
func TestCompileErrors(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a := write("src/a.proto", "syntax = \"proto3\";\nimport \"common/c.proto\";\nmessage A { C c = 1; }\n")
	write("src/protos/common/c.proto", "syntax = \"proto3\";\nmessage C {}\n")
	outside := write("x.proto", "syntax = \"proto3\";\n")
	src := filepath.Join(tmp, "src")
	for _, c := range []struct {
		args, importPaths []string
		want              string
	}{
		{[]string{a}, []string{src}, "(add -I " + filepath.Join(src, "protos") + ": it holds common/c.proto)"},
		{[]string{"missing.proto"}, []string{src}, "missing.proto: no such file or directory (import paths: " + src + ")"},
		{[]string{outside}, []string{src}, "x.proto: not under any import path"},
		{[]string{src}, []string{src}, "is a directory, not a .proto file"},
	} {
		_, err := Compile(context.Background(), c.args, c.importPaths, nil, false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Compile(%q, -I %q) = %v, want an error with %q", c.args, c.importPaths, err, c.want)
		}
	}
}

// TestImportPaths: an import that names a file outside the import paths,
// as protoc refuses it, or a name with control characters, is refused
// before any file is opened, the name quoted escaped; the file outside
// exists, so a resolver that opened it would compile.
func TestImportPaths(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "protos")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		filepath.Join(root, "outside.proto"): `syntax = "proto3"; message S {}`,
		filepath.Join(dir, "inside.proto"):   `syntax = "proto3"; message I {}`,
	} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ imp, want string }{
		{"../outside.proto", `".." element`},
		{"sub/../../outside.proto", `".." element`},
		{"./inside.proto", `"." or ".." element`},
		{"sub//inside.proto", `empty`},
		{filepath.Join(root, "outside.proto"), "absolute"},
		{`sub\\..\\..\\outside.proto`, "backslash"},
		{"\x1b[2Jinside.proto", "control characters"},
	} {
		text := "syntax = \"proto3\";\nimport \"" + tc.imp + "\";\nmessage A {}\n"
		if err := os.WriteFile(filepath.Join(dir, "a.proto"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Compile(context.Background(), []string{"a.proto"}, []string{dir}, nil, false)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("import %q: %v, want an error saying %q", tc.imp, err, tc.want)
			continue
		}
		if strings.ContainsRune(err.Error(), 0x1b) {
			t.Errorf("import %q: the error holds the raw bytes: %q", tc.imp, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a.proto"), []byte("syntax = \"proto3\";\nimport \"inside.proto\";\nmessage A { I i = 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(context.Background(), []string{"a.proto"}, []string{dir}, nil, false); err != nil {
		t.Errorf("an import within the import path: %v", err)
	}
}

// TestCompileUnknownEdition: a file of an edition the bundled compiler
// does not know is refused with its position, the edition quoted and
// escaped, and the way to load it: protoc or buf to a descriptor set,
// given with --descriptor-set.
func TestCompileUnknownEdition(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ src, edition string }{
		"e24.proto": {"edition = \"2024\";\npackage e;\nmessage E { int32 x = 1; }\n", `edition "2024" is not supported`},
		"esc.proto": {"edition = \"20\\x1b[31m24\";\npackage e;\nmessage E { int32 x = 1; }\n", `edition "20\x1b[31m24" is not supported`},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Compile(context.Background(), []string{filepath.Join(dir, name)}, []string{dir}, nil, false)
		var pos reporter.ErrorWithPos
		if err == nil || !errors.As(err, &pos) || pos.GetPosition().Line != 1 {
			t.Fatalf("%s: %v; want an error with its position", name, err)
		}
		msg := err.Error()
		for _, want := range []string{name + ":1:11: ", c.edition, "for .proto input", `its editions: "2023"`, "protoc --include_imports -o set.binpb " + name, "buf build", "--descriptor-set"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q lacks %q", name, msg, want)
			}
		}
		if strings.ContainsRune(msg, 0x1b) {
			t.Errorf("%s: %q holds an escape character", name, msg)
		}
	}
}

package protoload

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

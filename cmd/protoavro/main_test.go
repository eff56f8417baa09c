package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil/testcompile"
	"github.com/protoavro/protoavro/protoavro/ocf"
	"github.com/twmb/avro"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
)

// result is what one in-process run of the command produced.
type result struct {
	code   int
	stdout string
	stderr string
}

// runCmd runs the command line args in-process.
func runCmd(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// tempFiles writes files (path relative to the directory → content) under
// a new temporary directory, removed when the test ends, and returns it.
func tempFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	return dir
}

// writeFiles writes files (path relative to dir → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// compileSet compiles the named files under importPath with protocompile
// and returns them, without their imports, as a serialized
// FileDescriptorSet, as protoc -o (without --include_imports) would.
func compileSet(t *testing.T, importPath string, names ...string) []byte {
	t.Helper()
	var set descriptorpb.FileDescriptorSet
	for _, f := range testcompile.Protos(t, importPath, names...) {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
	}
	data, err := proto.Marshal(&set)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// parseAvro parses schema JSON with twmb/avro, an Avro implementation
// independent of protoavro.
func parseAvro(t *testing.T, schema string) *avro.Schema {
	t.Helper()
	s, err := avro.Parse(schema)
	if err != nil {
		t.Fatalf("output is not a valid Avro schema: %v\n%s", err, schema)
	}
	return s
}

func TestTopLevel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		code       int
		wantStdout string
		wantStderr string
	}{
		{"no args", nil, 2, "", "Usage: protoavro <command>"},
		{"unknown command", []string{"frobnicate"}, 2, "", `protoavro: unknown command "frobnicate"`},
		{"help flag", []string{"--help"}, 0, "Usage: protoavro <command>", ""},
		{"short help flag", []string{"-h"}, 0, "Usage: protoavro <command>", ""},
		{"help command", []string{"help"}, 0, "Usage: protoavro <command>", ""},
		{"help schema", []string{"help", "schema"}, 0, "Usage: protoavro schema", ""},
		{"help unknown", []string{"help", "frobnicate"}, 2, "", `unknown command "frobnicate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runCmd(t, tt.args...)
			if r.code != tt.code {
				t.Errorf("exit code = %d, want %d; stderr:\n%s", r.code, tt.code, r.stderr)
			}
			if tt.wantStdout == "" && r.stdout != "" || !strings.Contains(r.stdout, tt.wantStdout) {
				t.Errorf("stdout = %q, want it to contain %q", r.stdout, tt.wantStdout)
			}
			if tt.wantStderr == "" && r.stderr != "" || !strings.Contains(r.stderr, tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", r.stderr, tt.wantStderr)
			}
		})
	}
	if r := runCmd(t); !strings.Contains(r.stderr, "schema") {
		t.Errorf("top-level usage does not list the schema command:\n%s", r.stderr)
	}
}

func TestParseArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		imports    []string
		message    string
		positional []string
	}{
		{"flags first", []string{"-I", "a", "-m", "x.Y", "f.proto"}, []string{"a"}, "x.Y", []string{"f.proto"}},
		{"interleaved", []string{"f.proto", "-I", "a", "g.proto", "--message=x.Y", "-I=b"}, []string{"a", "b"}, "x.Y", []string{"f.proto", "g.proto"}},
		{"glued -I", []string{"-Ia", "-I", "b", "f.proto"}, []string{"a", "b"}, "", []string{"f.proto"}},
		{"terminator", []string{"-m", "x.Y", "--", "-I", "f.proto"}, nil, "x.Y", []string{"-I", "f.proto"}},
		{"terminator after positional", []string{"f.proto", "--", "-g.proto"}, nil, "", []string{"f.proto", "-g.proto"}},
		{"dashes as a flag value", []string{"-m", "--", "f.proto"}, nil, "--", []string{"f.proto"}},
		{"glued -I after terminator", []string{"--", "-Ia"}, nil, "", []string{"-Ia"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := newFlagSet("test")
			var types typeFlags
			types.register(fs)
			positional, err := parseArgs(fs, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if !equal(types.importPaths, tt.imports) || types.message != tt.message || !equal(positional, tt.positional) {
				t.Errorf("got -I %q, -m %q, positional %q; want -I %q, -m %q, positional %q",
					types.importPaths, types.message, positional, tt.imports, tt.message, tt.positional)
			}
		})
	}
}

// equal reports whether a and b hold the same strings, nil and empty alike.
func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestErrorLineEscapes: file names and text read from files reach the
// error line escaped (ESC, BEL, a C1 CSI, a right-to-left override), with
// legitimate non-ASCII text as it is, and so do the file names of count's
// output; an error line is bounded.
func TestErrorLineEscapes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	escapes := []string{`\x1b[2J`, `\a`, `\u009b`, `\u202e`}
	missing := filepath.Join(dir, "missing"+hostileText+".avro")
	r := runCmd(t, "tojson", missing)
	wantRun(t, r, exitUsage, "missing")
	wantEscaped(t, "tojson of a missing file", r.stderr, escapes...)

	notAvro := filepath.Join(dir, "text"+hostileText+".avro")
	if err := os.WriteFile(notAvro, []byte("not a container file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCmd(t, "count", notAvro)
	wantRun(t, r, exitData, "not an Avro container file")
	wantEscaped(t, "count of a damaged file", r.stderr, escapes...)

	good := writeContainer(t, filepath.Join(dir, "good"+hostileText+".avro"), `"long"`, ocf.Null, nil, testBlock{1, []byte{2}})
	r = runCmd(t, "count", good, good)
	if r.code != 0 || strings.Count(r.stdout, "\n") != 3 {
		t.Errorf("count: %d %q %q", r.code, r.stdout, r.stderr)
	}
	wantEscaped(t, "count of two files", r.stdout, escapes...)

	if line := errorLine(errors.New(strings.Repeat("é", 1<<20))); len(line) > maxErrorLine+32 {
		t.Errorf("an error of 2 MiB prints as %d bytes", len(line))
	}
}

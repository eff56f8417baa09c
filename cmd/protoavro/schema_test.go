package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testProtos are the .proto files the schema tests compile.
var testProtos = map[string]string{
	"shop/order.proto": `syntax = "proto3";

package shop;

import "google/protobuf/timestamp.proto";

// An order placed by a customer.
message Order {
  // Unique order id.
  string id = 1;
  google.protobuf.Timestamp placed = 2;
  repeated Item items = 3;
  map<string, int32> counts = 4;
}

message Item {
  string sku = 1;
}
`,
	"x.proto": `syntax = "proto3";

package x;

message Z { int32 a = 1; }
message W { int32 b = 1; }
message LongerName { int32 c = 1; }
`,
	"bad.proto": `syntax = "proto3";
package bad;
message A {
  int32 a = 1
}
`,
	"imports_missing.proto": `syntax = "proto3";
package bad;
import "nothere.proto";
`,
	"invalid_name.proto": `syntax = "proto3";
package inv;
message M { long l = 1; }
message long { int32 a = 1; }
`,
}

// schemaDir writes testProtos and two descriptor sets into a fresh directory:
// sets/order.binpb holds shop/order.proto alone (no standard imports), and
// sets/x.binpb holds x.proto.
func schemaDir(t *testing.T) string {
	t.Helper()
	dir := tempFiles(t, testProtos)
	writeFiles(t, dir, map[string]string{
		"sets/order.binpb": string(compileSet(t, dir, "shop/order.proto")),
		"sets/x.binpb":     string(compileSet(t, dir, "x.proto")),
		"sets/corrupt":     "this is not a descriptor set",
		"other/y.proto":    "syntax = \"proto3\";\npackage y;\nimport \"shop/order.proto\";\nmessage Y { shop.Order o = 1; }\n",
	})
	return dir
}

func TestSchema(t *testing.T) {
	t.Parallel()
	dir := schemaDir(t)
	orderPath := filepath.Join(dir, "shop", "order.proto")
	defaultOrder := runCmd(t, "schema", "-I", dir, "-m", "shop.Order", "shop/order.proto")
	if defaultOrder.code != 0 {
		t.Fatalf("exit code %d: %s", defaultOrder.code, defaultOrder.stderr)
	}

	tests := []struct {
		name    string
		args    []string
		want    []string // substrings of stdout
		notWant []string
		same    bool // stdout must equal defaultOrder's
	}{
		{
			name: "default profile with docs",
			args: []string{"schema", "-I", dir, "-m", "shop.Order", "shop/order.proto"},
			want: []string{`"name": "shop.Order"`, `"doc": "An order placed by a customer."`, `"doc": "Unique order id."`, `"timestamp-nanos"`},
		},
		{
			name: "interleaved flags and files",
			args: []string{"schema", "shop/order.proto", "-I", dir, "--profile", "default", "-m", "shop.Order"},
			same: true,
		},
		{
			name: "file path on disk made relative to the import path",
			args: []string{"schema", "-I", dir, "-m", "shop.Order", orderPath},
			same: true,
		},
		{
			name: "glued -I and terminator",
			args: []string{"schema", "-I" + filepath.Join(dir, "other"), "-I", dir, "--message=shop.Order", "--", "shop/order.proto"},
			same: true,
		},
		{
			name:    "java profile",
			args:    []string{"schema", "-I", dir, "-m", "shop.Order", "shop/order.proto", "--profile", "java"},
			want:    []string{`"avro.java.string": "String"`},
			notWant: []string{`"doc"`},
		},
		{
			name: "descriptor set without standard imports",
			args: []string{"schema", "--descriptor-set", filepath.Join(dir, "sets", "order.binpb"), "-m", "shop.Order"},
			same: true,
		},
		{
			name: "descriptor set and proto files together",
			args: []string{"schema", "--descriptor-set", filepath.Join(dir, "sets", "x.binpb"), "-I", dir, "-m", "x.W", "shop/order.proto"},
			want: []string{`"name": "x.W"`},
		},
		{
			name: "proto file importing from a descriptor set",
			args: []string{"schema", "--descriptor-set", filepath.Join(dir, "sets", "order.binpb"), "-I", filepath.Join(dir, "other"), "-m", "shop.Order", "y.proto"},
			same: true,
		},
		{
			name: "message from an import",
			args: []string{"schema", "-I", dir, "-m", ".google.protobuf.Timestamp", "shop/order.proto"},
			want: []string{`"name": "google.protobuf.Timestamp"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runCmd(t, tt.args...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit code %d, stderr:\n%s", r.code, r.stderr)
			}
			if !strings.HasSuffix(r.stdout, "}\n") {
				t.Errorf("output does not end with a newline:\n%s", r.stdout)
			}
			parseAvro(t, r.stdout)
			if tt.same && r.stdout != defaultOrder.stdout {
				t.Errorf("output differs from the default one:\n%s\nwant:\n%s", r.stdout, defaultOrder.stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("output lacks %s:\n%s", w, r.stdout)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(r.stdout, w) {
					t.Errorf("output contains %s:\n%s", w, r.stdout)
				}
			}
		})
	}
}

// TestSchemaDefaultImportPath runs without -I, from the directory holding
// the files, so the import path defaults to ".".
func TestSchemaDefaultImportPath(t *testing.T) {
	dir := schemaDir(t)
	t.Chdir(dir)
	r := runCmd(t, "schema", "-m", "shop.Order", "shop/order.proto")
	if r.code != 0 {
		t.Fatalf("exit code %d: %s", r.code, r.stderr)
	}
	parseAvro(t, r.stdout)
	r = runCmd(t, "schema", "-m", "shop.Order", "./shop/../shop/order.proto")
	if r.code != 0 {
		t.Fatalf("exit code %d: %s", r.code, r.stderr)
	}
}

func TestSchemaErrors(t *testing.T) {
	t.Parallel()
	dir := schemaDir(t)
	tests := []struct {
		name string
		args []string
		code int
		want string // substring of the one stderr line
	}{
		{"missing file", []string{"schema", "-I", dir, "-m", "shop.Order", "missing.proto"}, 2,
			"protoavro: missing.proto: no such file or directory"},
		{"syntax error", []string{"schema", "-I", dir, "-m", "bad.A", "bad.proto"}, 2,
			"protoavro: bad.proto:5:1: syntax error"},
		{"missing import", []string{"schema", "-I", dir, "-m", "bad.A", "imports_missing.proto"}, 2,
			"imports_missing.proto:3:8:"},
		{"unknown message", []string{"schema", "-I", dir, "-m", "x.Y", "x.proto"}, 2,
			`protoavro: unknown message "x.Y"; did you mean "x.W", "x.Z"?`},
		{"unknown message without suggestion", []string{"schema", "-I", dir, "-m", "nothing.like.it", "x.proto"}, 2,
			`protoavro: unknown message "nothing.like.it"`},
		{"short name", []string{"schema", "-I", dir, "-m", "order", "shop/order.proto"}, 2,
			`did you mean "shop.Order"?`},
		{"no -m", []string{"schema", "-I", dir, "x.proto"}, 2,
			"protoavro: missing -m"},
		{"no input", []string{"schema", "-m", "x.Y"}, 2,
			"protoavro: no input"},
		{"bad profile", []string{"schema", "-I", dir, "-m", "x.Z", "--profile", "python", "x.proto"}, 2,
			`protoavro: invalid value "python" for flag --profile: want default or java`},
		{"empty profile", []string{"schema", "-I", dir, "-m", "x.Z", "--profile=", "x.proto"}, 2,
			`invalid value "" for flag --profile`},
		{"unknown flag", []string{"schema", "-I", dir, "-m", "x.Z", "x.proto", "--bogus"}, 2,
			"protoavro: flag provided but not defined: --bogus"},
		{"flag without value", []string{"schema", "x.proto", "-m"}, 2,
			"protoavro: flag needs an argument: -m"},
		{"file outside the import paths", []string{"schema", "-I", filepath.Join(dir, "shop"), "-m", "x.Z", filepath.Join(dir, "x.proto")}, 2,
			"x.proto: not under any import path"},
		{"shadowed file", []string{"schema", "-I", filepath.Join(dir, "shop"), "-I", dir, "-m", "x.Z", filepath.Join(dir, "x.proto")}, 2,
			"shadowed by"},
		{"directory", []string{"schema", "-I", dir, "-m", "x.Z", dir}, 2,
			"is a directory"},
		{"missing descriptor set", []string{"schema", "--descriptor-set", filepath.Join(dir, "nope.binpb"), "-m", "x.Z"}, 2,
			"protoavro: --descriptor-set: open "},
		{"corrupt descriptor set", []string{"schema", "--descriptor-set", filepath.Join(dir, "sets", "corrupt"), "-m", "x.Z"}, 2,
			"not a serialized FileDescriptorSet"},
		{"schema derivation error", []string{"schema", "-I", dir, "-m", "inv.M", "invalid_name.proto"}, 1,
			`protoavro: invalid Avro name: `},
	}
	writeFiles(t, dir, map[string]string{"shop/x.proto": testProtos["x.proto"]})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runCmd(t, tt.args...)
			if r.code != tt.code {
				t.Errorf("exit code = %d, want %d", r.code, tt.code)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing", r.stdout)
			}
			if n := strings.Count(r.stderr, "\n"); n != 1 || !strings.HasSuffix(r.stderr, "\n") {
				t.Errorf("stderr has %d lines, want exactly one:\n%s", n, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr = %q, want it to contain %q", r.stderr, tt.want)
			}
		})
	}
}

func TestSchemaHelp(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"-h", "--help", "-help"} {
		r := runCmd(t, "schema", "-I", "somewhere", flag)
		if r.code != 0 || r.stderr != "" || r.stdout != schemaUsage {
			t.Errorf("schema %s: exit code %d, stderr %q, stdout:\n%s", flag, r.code, r.stderr, r.stdout)
		}
	}
}

// TestSchemaAVRO2147 checks the Java profile against the canonical form of
// the schema Apache Avro Java derives for the AVRO-2147 test message.
func TestSchemaAVRO2147(t *testing.T) {
	t.Parallel()
	const protoDir = "../../testdata/proto"
	if _, err := os.Stat(filepath.Join(protoDir, "avro2147.proto")); err != nil {
		t.Skipf("avro2147.proto not available: %v", err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "avro2147_java.canonical.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, "schema", "-I", protoDir, "-m", "protoavro.avro2147.Foo", "--profile", "java", "avro2147.proto")
	if r.code != 0 {
		t.Fatalf("exit code %d: %s", r.code, r.stderr)
	}
	got := string(parseAvro(t, r.stdout).Canonical())
	if got != strings.TrimSpace(string(want)) {
		t.Errorf("canonical form differs from Apache Avro Java's:\n got: %s\nwant: %s", got, want)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMessageSetFileReadsWithoutProtos: a type that reaches a MessageSet
// (message_set_wire_format, which protobuf-go's descriptor builder
// refuses) is encoded from its .proto file and from a descriptor set, and
// the file encode writes is read by decode and inspect without the .proto
// files, in each --descriptors mode, as decode reads it with them.
func TestMessageSetFileReadsWithoutProtos(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{
		"ms.proto": `syntax = "proto2";
package rw;
message MS { option message_set_wire_format = true; extensions 4 to max; }
message Ext { optional int32 v = 1; extend MS { optional Ext big = 1000000000; } }
message M { optional MS ms = 1; optional int32 x = 2; }
`,
		"ms.jsonl": `{"x":1}` + "\n" + `{"ms":{},"x":2}` + "\n",
	})
	setPath := filepath.Join(dir, "ms.pb")
	if err := os.WriteFile(setPath, compileSet(t, dir, "ms.proto"), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = `{"x":1}` + "\n" + `{"ms":{},"x":2}` + "\n"
	for _, types := range [][]string{{"-I", dir, "-m", "rw.M", "ms.proto"}, {"--descriptor-set", setPath, "-m", "rw.M"}} {
		for _, mode := range []string{"stripped", "full", "minimal"} {
			avroPath := filepath.Join(dir, "ms."+mode+".avro")
			args := append(append([]string{"encode"}, types...), "--descriptors", mode, "--in", filepath.Join(dir, "ms.jsonl"), "--out", avroPath)
			if r := runCmd(t, args...); r.code != 0 {
				t.Fatalf("%v %s: encode: %s", types, mode, r.stderr)
			}
			for _, with := range [][]string{nil, types} {
				out := filepath.Join(dir, "ms.out.jsonl")
				r := runCmd(t, append(append([]string{"decode"}, with...), "--format", "jsonl", "--in", avroPath, "--out", out)...)
				got, _ := os.ReadFile(out)
				// protojson varies its white space.
				if r.code != 0 || strings.ReplaceAll(string(got), " ", "") != want {
					t.Errorf("%v %s: decode %v: exit code %d, %s, wrote %q; want %q", types, mode, with, r.code, r.stderr, got, want)
				}
			}
			if r := runCmd(t, "inspect", avroPath); r.code != 0 || !strings.Contains(r.stdout, "rw.M") {
				t.Errorf("%v %s: inspect: exit code %d, %s", types, mode, r.code, r.stderr)
			}
		}
	}
}

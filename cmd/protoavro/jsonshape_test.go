package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONShapeHints: a JSON array of objects, or a pretty-printed JSON
// document, given to encode fails with a hint that says what JSON Lines is,
// whether the format is sniffed or given; a JSON Lines input whose first
// line is a whole object gets no such hint.
func TestJSONShapeHints(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{
		"r.proto":        "syntax = \"proto3\";\npackage shape;\nmessage R { int32 n = 1; string s = 2; }\n",
		"array.json":     "[\n  {\"n\": 1},\n  {\"n\": 2}\n]\n",
		"compact.json":   "[{\"n\":1},{\"n\":2}]",
		"pretty.json":    "{\n  \"n\": 1,\n  \"s\": \"x\"\n}\n",
		"bad.jsonl":      "{\"n\":1}\n{\"n\":\"x\"}\n",
		"badfirst.jsonl": "{\"s\":\"\\x\"}\n{\"n\":1}\n",
	})
	typeFlags := []string{"-I", dir, "-m", "shape.R", "r.proto"}
	const arrayHint = "the input looks like a JSON array: encode reads JSON Lines, one object per line (jq -c '.[]' writes them)"
	const docHint = "the input looks like a JSON document over several lines: JSON Lines has one object per line (jq -c . writes them)"
	for _, c := range []struct {
		in     string
		format []string
		hint   string
	}{
		{"array.json", nil, arrayHint},
		{"compact.json", nil, arrayHint},
		{"array.json", []string{"--format", "jsonl"}, arrayHint},
		{"pretty.json", nil, docHint},
		{"pretty.json", []string{"--format", "jsonl"}, docHint},
	} {
		args := append(append(append([]string{"encode"}, typeFlags...), c.format...), "--in", filepath.Join(dir, c.in), "--out", filepath.Join(dir, "out.avro"))
		wantRun(t, runCmd(t, args...), 1, c.hint)
	}
	for _, c := range []struct{ in, want string }{{"bad.jsonl", "record 1"}, {"badfirst.jsonl", "record 0"}} {
		r := runCmd(t, append(append([]string{"encode"}, typeFlags...), "--in", filepath.Join(dir, c.in), "--out", filepath.Join(dir, "out.avro"))...)
		wantRun(t, r, 1, c.want)
		for _, h := range []string{arrayHint, docHint} {
			if strings.Contains(r.stderr, h) {
				t.Errorf("JSON Lines with a bad record (%s): %q has the hint %q", c.in, r.stderr, h)
			}
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// refusedProto holds a field for each kind of value that protobuf's binary
// encoding carries but protojson refuses to write.
const refusedProto = `syntax = "proto2";
package refused;
import "google/protobuf/any.proto";
import "google/protobuf/struct.proto";
message R {
  optional int32 n = 1;
  optional google.protobuf.Value value = 2;
  optional google.protobuf.Any any = 3;
}
`

// TestDecodeRefusedByJSON: decode --format jsonl of records that protojson
// refuses to write (a Struct Value with no kind, an Any of a type no loaded
// file defines) fails with an error naming the record and the cause, and
// with --skip-bad skips exactly those records and writes the others; it
// never panics, whichever worker count.
func TestDecodeRefusedByJSON(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{"refused.proto": refusedProto})
	record := func(fields ...[]byte) []byte {
		var b []byte
		for _, f := range fields {
			b = append(b, f...)
		}
		return b
	}
	n := func(v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), v)
	}
	msgField := func(num protowire.Number, body []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), body)
	}
	unknownAny := record(
		protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "type.googleapis.com/refused.Gone"),
		protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), []byte{8, 1}))
	causes := []struct {
		name   string
		record []byte
		want   string
	}{
		{"a Value with no kind", record(n(1), msgField(2, nil)), "google.protobuf.Value: none of the oneof fields is set"},
		{"an Any of an unknown type", record(n(2), msgField(3, unknownAny)), `unknown google.protobuf.Any type: "type.googleapis.com/refused.Gone" at any`},
	}
	for _, c := range causes {
		good := record(n(7))
		var in []byte
		for _, r := range [][]byte{good, c.record, good} {
			in = protowire.AppendBytes(in, r)
		}
		inPath := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".bin")
		if err := os.WriteFile(inPath, in, 0o644); err != nil {
			t.Fatal(err)
		}
		typeFlags := []string{"-I", dir, "-m", "refused.R", "refused.proto"}
		avroPath := inPath + ".avro"
		if r := runCmd(t, append(append([]string{"encode"}, typeFlags...), "--in", inPath, "--out", avroPath)...); r.code != 0 {
			t.Fatalf("%s: encode: %s", c.name, r.stderr)
		}
		for _, workers := range []string{"1", "3"} {
			out := filepath.Join(dir, "out.jsonl")
			r := runCmd(t, append(append([]string{"decode"}, typeFlags...), "--format", "jsonl", "--workers", workers, "--in", avroPath, "--out", out)...)
			wantRun(t, r, 1, "record 1: "+c.want)
			if strings.Contains(c.name, "Any") && !strings.Contains(r.stderr, anyHint) {
				t.Errorf("%s: %q lacks the hint %q", c.name, r.stderr, anyHint)
			}
			r = runCmd(t, append(append([]string{"decode"}, typeFlags...), "--format", "jsonl", "--skip-bad", "--workers", workers, "--in", avroPath, "--out", out)...)
			if r.code != 0 || !strings.Contains(r.stderr, "1 record, 0 damaged blocks and 0 B skipped") || !strings.Contains(r.stderr, c.want) {
				t.Errorf("%s, --skip-bad: exit code %d, %s", c.name, r.code, r.stderr)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "{\"n\":7}\n{\"n\":7}\n" {
				t.Errorf("%s, --skip-bad: wrote %q, want the two good records", c.name, got)
			}
		}
	}
}

// TestEncodeUnknownAny: encode of an Any whose type no loaded file defines
// fails with the type URL, the field path and the hint that says how to
// make it known, not as malformed input: from JSON Lines (protojson reads
// the line) and, with --preset engine, from delimited input (the mapping
// writes the Any as JSON).
func TestEncodeUnknownAny(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{
		"refused.proto": refusedProto,
		"in.jsonl":      "{\"n\":1}\n{\"any\":{\"@type\":\"type.googleapis.com/refused.Gone\",\"n\":1}}\n",
	})
	unknownAny := append(protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "type.googleapis.com/refused.Gone"),
		protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), []byte{8, 1})...)
	rec := protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), unknownAny)
	delimited := protowire.AppendBytes(nil, rec)
	if err := os.WriteFile(filepath.Join(dir, "in.bin"), delimited, 0o644); err != nil {
		t.Fatal(err)
	}
	typeFlags := []string{"-I", dir, "-m", "refused.R", "refused.proto"}
	for _, c := range []struct {
		in    string
		flags []string
		want  string
	}{
		{"in.jsonl", nil, `record 1 (line 2, input byte 8): unknown google.protobuf.Any type: "type.googleapis.com/refused.Gone" at any`},
		{"in.bin", []string{"--preset", "engine"}, `unknown google.protobuf.Any type: "type.googleapis.com/refused.Gone", in google.protobuf.Any as JSON`},
	} {
		args := append(append(append([]string{"encode"}, typeFlags...), c.flags...), "--in", filepath.Join(dir, c.in), "--out", filepath.Join(dir, "out.avro"))
		r := runCmd(t, args...)
		wantRun(t, r, 1, c.want)
		if !strings.Contains(r.stderr, anyHint) || strings.Contains(r.stderr, "malformed") {
			t.Errorf("%s: %q: want the hint, and not \"malformed\"", c.in, r.stderr)
		}
	}
}

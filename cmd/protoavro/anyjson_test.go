package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// anyJSONProto holds a type whose field has the JSON name "@type", and
// messages with Any fields.
const anyJSONProto = `syntax = "proto3";
package rw;
import "google/protobuf/any.proto";
import "google/protobuf/struct.proto";
message Holder { google.protobuf.Any a = 1; }
message P { int32 x = 1 [json_name = "@type"]; }
message Node { Node child = 1; google.protobuf.Any a = 2; google.protobuf.Value v = 3; }
message M { google.protobuf.Any a = 1; google.protobuf.Any b = 2; }
`

// anyField returns field num holding an Any of url and value.
func anyField(num protowire.Number, url string, value []byte) []byte {
	var a []byte
	if url != "" {
		a = protowire.AppendString(protowire.AppendTag(a, 1, protowire.BytesType), url)
	}
	if value != nil {
		a = protowire.AppendBytes(protowire.AppendTag(a, 2, protowire.BytesType), value)
	}
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), a)
}

// writeDelimited writes records length-delimited to path.
func writeDelimited(t *testing.T, path string, records ...[]byte) {
	t.Helper()
	var b []byte
	for _, r := range records {
		b = protowire.AppendBytes(b, r)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAnyTypeMemberClashRefused: an Any that packs a message whose set
// field has the JSON name "@type" is refused where it would be written as
// JSON with two "@type" members, naming the field and the Any: by encode
// with --dynamic json and --preset engine, and by decode --format jsonl
// (--skip-bad skips the record); with the field unset it is written.
func TestAnyTypeMemberClashRefused(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{"at.proto": anyJSONProto})
	p := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 5)
	clashing := anyField(1, "type.googleapis.com/rw.P", p)
	fine := anyField(1, "type.googleapis.com/rw.P", nil)
	in := filepath.Join(dir, "in.bin")
	writeDelimited(t, in, fine, clashing, fine)
	typeFlags := []string{"-I", dir, "-m", "rw.Holder", "at.proto"}
	const want = `Holder.a at byte 2: malformed input: google.protobuf.Any as JSON: field rw.P.x has the JSON name "@type"`
	for _, flags := range [][]string{{"--dynamic", "json"}, {"--preset", "engine"}} {
		args := append(append(append([]string{"encode"}, typeFlags...), flags...), "--format", "delimited", "--in", in, "--out", filepath.Join(dir, "json.avro"))
		wantRun(t, runCmd(t, args...), 1, "record 1 (input byte 29): "+want)
	}

	// Record mode keeps the Any's bytes; decode --format jsonl writes JSON.
	avroPath := filepath.Join(dir, "record.avro")
	if r := runCmd(t, append(append([]string{"encode"}, typeFlags...), "--format", "delimited", "--in", in, "--out", avroPath)...); r.code != 0 {
		t.Fatalf("encode: %s", r.stderr)
	}
	for _, workers := range []string{"1", "3"} {
		out := filepath.Join(dir, "out.jsonl")
		args := append(append([]string{"decode"}, typeFlags...), "--format", "jsonl", "--workers", workers, "--in", avroPath, "--out", out)
		wantRun(t, runCmd(t, args...), 1, `record 1: malformed input: the record cannot be written as JSON: field rw.P.x has the JSON name "@type"`)
		r := runCmd(t, append(args, "--skip-bad")...)
		if r.code != 0 || !strings.Contains(r.stderr, "1 record, 0 damaged blocks and 0 B skipped") {
			t.Errorf("--skip-bad, %s workers: exit code %d, %s", workers, r.code, r.stderr)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if line := `{"a":{"@type":"type.googleapis.com/rw.P"}}` + "\n"; string(got) != line+line {
			t.Errorf("--skip-bad, %s workers: wrote %q, want the two good records", workers, got)
		}
	}
}

// TestEmptyAnyNotUnknown: an Any with no type URL is valid, not of an
// unknown type, so another fault beside it is reported as what it is
// (encode, a Value with no kind in a subtree carried as JSON), and an
// unknown type after it is named (decode --format jsonl).
func TestEmptyAnyNotUnknown(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{"ea.proto": anyJSONProto})

	// Node{child: Node{a: {}, v: Value{}}}.
	child := append(anyField(2, "", nil), protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), nil)...)
	node := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), child)
	in := filepath.Join(dir, "n.bin")
	writeDelimited(t, in, node)
	r := runCmd(t, "encode", "-I", dir, "-m", "rw.Node", "ea.proto", "--recursion-depth", "1", "--recursion-carrier", "json",
		"--format", "delimited", "--in", in, "--out", filepath.Join(dir, "n.avro"))
	wantRun(t, r, 1, "Node.child at byte 2: malformed input: rw.Node as JSON: proto: google.protobuf.Value: none of the oneof fields is set")

	// M{a: {}, b: {type_url: other.T}}.
	m := append(anyField(1, "", nil), anyField(2, "type.googleapis.com/other.T", nil)...)
	in = filepath.Join(dir, "m.bin")
	writeDelimited(t, in, m)
	avroPath := filepath.Join(dir, "m.avro")
	typeFlags := []string{"-I", dir, "-m", "rw.M", "ea.proto"}
	if r := runCmd(t, append(append([]string{"encode"}, typeFlags...), "--format", "delimited", "--in", in, "--out", avroPath)...); r.code != 0 {
		t.Fatalf("encode: %s", r.stderr)
	}
	r = runCmd(t, append(append([]string{"decode"}, typeFlags...), "--format", "jsonl", "--in", avroPath, "--out", filepath.Join(dir, "m.jsonl"))...)
	wantRun(t, r, 1, `record 0: unknown google.protobuf.Any type: "type.googleapis.com/other.T" at b`)
}

// TestStructTypeKeyNotAnAny: an "@type" key in a google.protobuf.Struct is
// data, not an Any: another fault in the line is reported as what it is,
// and the line without it is written and read back.
func TestStructTypeKeyNotAnAny(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{
		"st.proto": `syntax = "proto3";
package rw;
import "google/protobuf/struct.proto";
message S { google.protobuf.Struct s = 1; int32 n = 2; }
`,
		"bad.jsonl":  `{"s":{"@type":"x"},"n":"bad"}` + "\n",
		"good.jsonl": `{"s":{"@type":"x"},"n":1}` + "\n",
	})
	typeFlags := []string{"-I", dir, "-m", "rw.S", "st.proto"}
	r := runCmd(t, append(append([]string{"encode"}, typeFlags...), "--in", filepath.Join(dir, "bad.jsonl"), "--out", filepath.Join(dir, "bad.avro"))...)
	wantRun(t, r, 1, `record 0 (line 1, input byte 0): `)
	if strings.Contains(r.stderr, "google.protobuf.Any") || !strings.Contains(r.stderr, "invalid value for int32 field n") {
		t.Errorf("stderr %q: want the fault of n, no Any", r.stderr)
	}
	for _, flags := range [][]string{nil, {"--dynamic", "json"}} {
		avroPath := filepath.Join(dir, "good.avro")
		if r := runCmd(t, append(append(append([]string{"encode"}, typeFlags...), flags...), "--in", filepath.Join(dir, "good.jsonl"), "--out", avroPath)...); r.code != 0 {
			t.Fatalf("encode %v: %s", flags, r.stderr)
		}
		out := filepath.Join(dir, "good.out.jsonl")
		if r := runCmd(t, "decode", "--format", "jsonl", "--in", avroPath, "--out", out); r.code != 0 {
			t.Fatalf("decode %v: %s", flags, r.stderr)
		}
		if got, err := os.ReadFile(out); err != nil || string(got) != `{"s":{"@type":"x"},"n":1}`+"\n" {
			t.Errorf("%v: read back %q (%v)", flags, got, err)
		}
	}
}

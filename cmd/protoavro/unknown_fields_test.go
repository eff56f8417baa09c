package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// driftProtos are a log message as an older .proto declares it, which the
// records below outgrew: their producers added fields at every depth.
var driftProtos = map[string]string{
	"drift/log.proto": `syntax = "proto3";
package drift;
import "google/protobuf/any.proto";
import "google/protobuf/empty.proto";
import "google/protobuf/timestamp.proto";
enum Severity { DEFAULT = 0; INFO = 1; }
message HttpRequest { string method = 1; int32 status = 2; }
message Entry { string text = 1; map<string, string> labels = 2; }
message Detail { string reason = 1; }
message Log {
  string name = 1;
  HttpRequest http_request = 2;
  repeated Entry entries = 3;
  map<string, HttpRequest> by_host = 4;
  google.protobuf.Any payload = 5;
  Severity severity = 6;
  google.protobuf.Timestamp at = 7;
  google.protobuf.Empty nothing = 8;
}
`,
}

// driftArgs are encode's type flags for drift.Log under dir.
func driftArgs(dir string) []string {
	return []string{"encode", "-I", dir, "-m", "drift.Log", "drift/log.proto"}
}

// driftLines are JSON records of drift.Log with members that name no
// field, at the root (an extension the message does not have too), in a
// nested message, in a list, in a map value, in a message packed in an
// Any, beside the value of an Any that packs a well-known type and in an
// Empty; each with what remains without them, and the path of the member.
var driftLines = []struct{ line, kept, path string }{
	{`{"name":"a","extra":1}`, `{"name":"a"}`, "extra"},
	{`{"httpRequest":{"method":"GET","foo":{"x":[1]}}}`, `{"httpRequest":{"method":"GET"}}`, "httpRequest.foo"},
	{`{"entries":[{},{},{},{"text":"t","labelz":{}}]}`, `{"entries":[{},{},{},{"text":"t"}]}`, "entries[3].labelz"},
	{`{"byHost":{"h1":{"status":2,"bar":true}}}`, `{"byHost":{"h1":{"status":2}}}`, `byHost."h1".bar`},
	{`{"payload":{"@type":"type.googleapis.com/drift.Detail","reason":"r","code":7}}`, `{"payload":{"@type":"type.googleapis.com/drift.Detail","reason":"r"}}`, "payload.code"},
	{`{"name":"x","[drift.nope]":1}`, `{"name":"x"}`, "[drift.nope]"},
	{`{"payload":{"@type":"type.googleapis.com/google.protobuf.Timestamp","value":"2024-01-02T03:04:05Z","zone":"UTC"}}`, `{"payload":{"@type":"type.googleapis.com/google.protobuf.Timestamp","value":"2024-01-02T03:04:05Z"}}`, "payload.zone"},
	{`{"nothing":{"x":1}}`, `{"nothing":{}}`, "nothing.x"},
}

// TestJSONUnknownFieldRefused: without --discard-unknown, a JSON record
// with a member that names no field is refused with the member's path from
// the record's root, the record's index and line, and the flag that drops
// such members.
func TestJSONUnknownFieldRefused(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, driftProtos)
	for _, c := range driftLines {
		in := filepath.Join(dir, "in.jsonl")
		if err := os.WriteFile(in, []byte("{\"name\":\"ok\"}\n"+c.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runCmd(t, append(driftArgs(dir), "--in", in, "--out", filepath.Join(dir, "out.avro"))...)
		wantRun(t, r, 1, "record 1 (line 2, input byte 14): unknown field "+c.path+": its message has no field of that name (--discard-unknown drops such fields")
	}
}

// TestJSONDiscardUnknown: with --discard-unknown the members that name no
// field are dropped wherever they are, the records are written with the
// rest, which decode gives back (the Any's packed type resolved too), and
// the summary counts the records that had some.
func TestJSONDiscardUnknown(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, driftProtos)
	var in, want strings.Builder
	for _, c := range driftLines {
		in.WriteString(c.line + "\n{\"name\":\"clean\"}\n")
		want.WriteString(c.kept + "\n{\"name\":\"clean\"}\n")
	}
	inPath, out := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.avro")
	if err := os.WriteFile(inPath, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, append(driftArgs(dir), "--discard-unknown", "--in", inPath, "--out", out)...)
	wantRun(t, r, 0, fmt.Sprintf("encoded %d records", 2*len(driftLines)))
	if !strings.HasSuffix(r.stderr, fmt.Sprintf("; 0 skipped; %d records had unknown fields dropped\n", len(driftLines))) {
		t.Errorf("summary %q: want %d records counted", r.stderr, len(driftLines))
	}
	got := runCmd(t, "decode", "--format", "jsonl", "--in", out, "--out", "-")
	if got.code != 0 || !sameJSONLines(got.stdout, want.String()) {
		t.Errorf("decode: %s\n got %s\nwant %s", got.stderr, got.stdout, want.String())
	}
	// Records with no unknown member: nothing counted.
	if err := os.WriteFile(inPath, []byte("{\"name\":\"clean\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCmd(t, append(driftArgs(dir), "--discard-unknown", "--in", inPath, "--out", out)...)
	if r.code != 0 || strings.Contains(r.stderr, "unknown") {
		t.Errorf("clean records: exit code %d, %q; want no count", r.code, r.stderr)
	}
}

// TestJSONDiscardUnknownKeepsValues: --discard-unknown drops members that
// name no field, not values: a record that also holds an enum value name
// the enum lacks, or an Any without "@type", both of which protojson's
// DiscardUnknown would drop as well, is refused with the value's path.
func TestJSONDiscardUnknownKeepsValues(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, driftProtos)
	for _, c := range []struct{ line, want string }{
		{`{"severity":"CRITICAL","extra":1}`, `field severity has the value "CRITICAL", a name that its enum does not declare: --discard-unknown drops unknown fields, not unknown values`},
		{`{"payload":{"reason":"r"},"extra":1}`, `google.protobuf.Any at payload has members but no "@type": --discard-unknown drops unknown fields, not whole values`},
	} {
		in := filepath.Join(dir, "in.jsonl")
		if err := os.WriteFile(in, []byte(c.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runCmd(t, append(driftArgs(dir), "--discard-unknown", "--in", in, "--out", filepath.Join(dir, "out.avro"))...)
		wantRun(t, r, 1, "record 0 (line 1, input byte 0): "+c.want)
	}
}

// TestDiscardUnknownSkipBadNotCounted: with --skip-bad, a record that had
// unknown members dropped and is then skipped, whether its JSON or its
// conversion to Avro fails, is not counted among those written with
// unknown fields dropped.
func TestDiscardUnknownSkipBadNotCounted(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, driftProtos)
	lines := `{"name":"a","extra":1}
{"name":5,"extra":1}
{"at":"1000-01-01T00:00:00Z","extra":1}
{"name":"b"}
`
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, append(driftArgs(dir), "--discard-unknown", "--skip-bad", "--in", in, "--out", filepath.Join(dir, "out.avro"))...)
	wantRun(t, r, 0, "encoded 2 records")
	if !strings.Contains(r.stderr, "; 2 skipped") || !strings.HasSuffix(r.stderr, "; 1 record had unknown fields dropped\n") {
		t.Errorf("summary %q: want 2 skipped and 1 record counted", r.stderr)
	}
}

// TestBinaryUnknownFieldsCounted: binary records' fields that the message
// does not declare are dropped, as protobuf drops them, and the summary
// counts the records that had some, without those skipped as bad; in
// every binary format.
func TestBinaryUnknownFieldsCounted(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, driftProtos)
	name := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte("a"))
	unknown := protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 1)
	nested := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), unknown) // in http_request
	badUTF8 := protowire.AppendBytes(protowire.AppendTag(append([]byte(nil), unknown...), 1, protowire.BytesType), []byte{0xff})
	records := [][]byte{name, append(append([]byte(nil), name...), unknown...), nested, badUTF8, name}
	in := filepath.Join(dir, "in.bin")
	writeDelimited(t, in, records...)
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{nil, "record 3 (input byte"},
		{[]string{"--skip-bad"}, "encoded 4 records"},
	} {
		r := runCmd(t, append(append(driftArgs(dir), c.flags...), "--format", "delimited", "--in", in, "--out", filepath.Join(dir, "out.avro"))...)
		if len(c.flags) == 0 {
			wantRun(t, r, 1, c.want)
			continue
		}
		wantRun(t, r, 0, c.want)
		if !strings.Contains(r.stderr, "; 1 skipped") || !strings.HasSuffix(r.stderr, "; 2 records had unknown fields dropped\n") {
			t.Errorf("summary %q: want 1 skipped and 2 records counted", r.stderr)
		}
	}
	good := filepath.Join(dir, "good.bin")
	writeDelimited(t, good, records[:3]...)
	r := runCmd(t, append(driftArgs(dir), "--discard-unknown", "--in", good, "--out", filepath.Join(dir, "out.avro"))...)
	wantRun(t, r, 0, "encoded 3 records")
	if !strings.HasSuffix(r.stderr, "; 0 skipped; 2 records had unknown fields dropped\n") {
		t.Errorf("summary %q: want 2 records counted", r.stderr)
	}
}

// writeEmbeddedAnySet writes to dir, whose .proto files are those of
// embeddedAnyProtos, the descriptor set of ev/event.proto and
// ev/payload.proto and the JSON lines of embeddedAnyJSONL, and returns
// their paths and that of an output file.
func writeEmbeddedAnySet(t *testing.T, dir string) (string, string, string) {
	t.Helper()
	set := filepath.Join(dir, "set.pb")
	if err := os.WriteFile(set, compileSet(t, dir, "ev/event.proto", "ev/payload.proto"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, out := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.avro")
	if err := os.WriteFile(in, []byte(embeddedAnyJSONL), 0o644); err != nil {
		t.Fatal(err)
	}
	return set, in, out
}

// TestDescriptorSetAnyTypesEmbedded: the types of a --descriptor-set
// travel with the data as those of the .proto files named do: a file
// encoded with a descriptor set alone, whose Any values pack a type of
// another file of the set, decodes without .proto files or descriptor set,
// its Any values resolved.
func TestDescriptorSetAnyTypesEmbedded(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, embeddedAnyProtos)
	set, in, out := writeEmbeddedAnySet(t, dir)
	for _, mode := range []string{"stripped", "minimal"} {
		r := runCmd(t, "encode", "--descriptor-set", set, "-m", "ev.Event", "--descriptors", mode, "--in", in, "--out", out)
		wantRun(t, r, 0, "encoded 3 records")
		got := runCmd(t, "decode", "--format", "jsonl", "--in", out, "--out", "-")
		if got.code != 0 || !sameJSONLines(got.stdout, embeddedAnyJSONL) {
			t.Errorf("--descriptors %s: decode: %s\n got %s\nwant %s", mode, got.stderr, got.stdout, embeddedAnyJSONL)
		}
	}
}

// TestDescriptorSetClashNotEmbedded: when the files of a descriptor set
// cannot be embedded beside the .proto files named (a file of the set
// declares a name that a named file declares too), encode says so on
// standard error, embeds the named files alone, and writes the records.
func TestDescriptorSetClashNotEmbedded(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, embeddedAnyProtos)
	writeFiles(t, dir, map[string]string{"copy/payload.proto": embeddedAnyProtos["ev/payload.proto"]})
	set, in, out := writeEmbeddedAnySet(t, dir)
	r := runCmd(t, "encode", "-I", dir, "--descriptor-set", set, "-m", "ev.Event", "copy/payload.proto", "--in", in, "--out", out)
	warning, summary, _ := strings.Cut(r.stderr, "\n")
	if r.code != 0 || !strings.HasPrefix(warning, "protoavro: warning: the files of --descriptor-set are not embedded (") || !strings.Contains(warning, "name conflict over ev.audit.AuditLog") || !strings.Contains(summary, "encoded 3 records") {
		t.Fatalf("exit code %d, stderr %q; want the warning, then the summary", r.code, r.stderr)
	}
	// The named file is embedded: the packed type it declares resolves.
	got := runCmd(t, "decode", "--format", "jsonl", "--in", out, "--out", "-")
	if got.code != 0 || !sameJSONLines(got.stdout, embeddedAnyJSONL) {
		t.Errorf("decode: %s\n got %s\nwant %s", got.stderr, got.stdout, embeddedAnyJSONL)
	}
}

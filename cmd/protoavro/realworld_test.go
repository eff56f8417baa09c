package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testutil"
)

// googleapis is the import root of the vendored googleapis files.
const googleapis = "../../third_party/googleapis"

// logEntryArgs name the Cloud Logging and Cloud Audit files and the
// LogEntry message.
var logEntryArgs = []string{"-I", googleapis, "-m", "google.logging.v2.LogEntry",
	"google/logging/v2/log_entry.proto", "google/cloud/audit/audit_log.proto"}

// logEntries writes n random LogEntry messages, each holding an AuditLog in
// its proto_payload Any, as JSON Lines (protojson, compact) to dir and
// returns the file and the messages.
func logEntries(t *testing.T, dir string, n int) (string, []proto.Message, *dynamicpb.Types) {
	t.Helper()
	rt := testutil.RealWorld[0]
	md, types := rt.Load(t, "../..")
	var lines bytes.Buffer
	var msgs []proto.Message
	for i := range n {
		m := testutil.RealWorldMessage(t, md, types.Resolver(), rt.AnyType, testutil.SeedKey("cli/logentry"), i, testutil.DefaultConfig)
		text, err := protojson.MarshalOptions{Resolver: types.Resolver()}.Marshal(m)
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, text); err != nil {
			t.Fatal(err)
		}
		lines.Write(compact.Bytes())
		lines.WriteByte('\n')
		msgs = append(msgs, m)
	}
	if !bytes.Contains(lines.Bytes(), []byte(`"@type":"type.googleapis.com/google.cloud.audit.AuditLog"`)) {
		t.Fatal("no entry holds an AuditLog: the test checks nothing")
	}
	path := filepath.Join(dir, "LogEntry.jsonl")
	if err := os.WriteFile(path, lines.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, msgs, types.Resolver()
}

// checkJSONLines checks that the JSON Lines file at path holds msgs, read
// with protojson and the resolver.
func checkJSONLines(t *testing.T, path string, md protoreflect.MessageDescriptor, msgs []proto.Message, r *dynamicpb.Types) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	i := 0
	for ; sc.Scan(); i++ {
		if i >= len(msgs) {
			t.Fatalf("more than %d lines", len(msgs))
		}
		got := dynamicpb.NewMessage(md)
		if err := (protojson.UnmarshalOptions{Resolver: r}).Unmarshal(sc.Bytes(), got); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if !proto.Equal(got, msgs[i]) {
			t.Errorf("line %d: %s\nwant %s", i+1, sc.Bytes(), protojson.MarshalOptions{Resolver: r}.Format(msgs[i]))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(msgs) {
		t.Errorf("%d lines, want %d", i, len(msgs))
	}
}

// cloudLoggingPipeline runs encode of LogEntry JSON Lines holding AuditLog
// in Any with typeArgs and extra encode flags, then decode --format jsonl
// with the same type flags, and checks that the lines give back the
// messages.
func cloudLoggingPipeline(t *testing.T, typeArgs []string, encodeFlags ...string) {
	t.Helper()
	dir := t.TempDir()
	in, msgs, resolver := logEntries(t, dir, 60)
	avroFile := filepath.Join(dir, "LogEntry.avro")
	args := append(append(append([]string{"encode"}, typeArgs...), encodeFlags...), "--in", in, "--out", avroFile)
	if r := runCmd(t, args...); r.code != 0 {
		t.Fatalf("encode: exit code %d: %s", r.code, r.stderr)
	}
	out := filepath.Join(dir, "back.jsonl")
	args = append(append([]string{"decode"}, typeArgs...), "--format", "jsonl", "--in", avroFile, "--out", out)
	if r := runCmd(t, args...); r.code != 0 {
		t.Fatalf("decode: exit code %d: %s", r.code, r.stderr)
	}
	checkJSONLines(t, out, msgs[0].ProtoReflect().Descriptor(), msgs, resolver)
}

// TestCloudLoggingPipeline: LogEntry JSON Lines holding AuditLog in Any,
// the .proto files named: encode, then decode --format jsonl gives back
// the messages.
func TestCloudLoggingPipeline(t *testing.T) {
	t.Parallel()
	cloudLoggingPipeline(t, logEntryArgs)
}

// TestCloudLoggingPipelineEngine is TestCloudLoggingPipeline with
// --preset engine, where Any is carried as its JSON text.
func TestCloudLoggingPipelineEngine(t *testing.T) {
	t.Parallel()
	cloudLoggingPipeline(t, logEntryArgs, "--preset", "engine")
}

// TestCloudLoggingPipelineDescriptorSet is TestCloudLoggingPipeline with
// the types from a descriptor set made by protoc --include_imports.
func TestCloudLoggingPipelineDescriptorSet(t *testing.T) {
	t.Parallel()
	set := filepath.Join(t.TempDir(), "logging.binpb")
	protocRun(t, "-I", googleapis, "--include_imports", "-o", set,
		"google/logging/v2/log_entry.proto", "google/cloud/audit/audit_log.proto")
	args := []string{"--descriptor-set", set, "-m", "google.logging.v2.LogEntry"}
	cloudLoggingPipeline(t, args)
	cloudLoggingPipeline(t, args, "--preset", "engine")
}

// protocRun runs protoc with args.
func protocRun(t *testing.T, args ...string) {
	t.Helper()
	protoc, err := exec.LookPath("protoc")
	testutil.Need(t, err == nil, "protoc not installed: apt-get install protobuf-compiler")
	if out, err := exec.Command(protoc, args...).CombinedOutput(); err != nil {
		t.Fatalf("protoc %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

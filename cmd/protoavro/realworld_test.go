package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/realworld"
	"github.com/protoavro/protoavro/protoavro/protoload"
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
func logEntries(t *testing.T, dir string, n int, cfg testutil.Config) (string, []proto.Message, *dynamicpb.Types) {
	t.Helper()
	rt := realworld.Types[0]
	md, types := rt.Load(t, "../..")
	var lines bytes.Buffer
	var msgs []proto.Message
	for i := range n {
		m := realworld.Message(t, md, types.Resolver(), rt.AnyType, testutil.SeedKey("cli/logentry"), i, cfg)
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
	in, msgs, resolver := logEntries(t, dir, 60, realworld.Config(slices.Contains(encodeFlags, "--preset")))
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

// pyCount is a Python avro program that prints the number of records of
// the container file it is given.
const pyCount = `import sys, avro.datafile, avro.io
with open(sys.argv[1], "rb") as f:
    print(sum(1 for _ in avro.datafile.DataFileReader(f, avro.io.DatumReader())))
`

// TestRealWorldCLI: random messages of the real-world corpus (LogEntry
// holding AuditLog in Any, AuditLog, google.api.Service, the Kubernetes
// Pod, Deployment and Service) go through encode and decode, as
// length-delimited protobuf and as JSON Lines, with the default profile and
// with --preset engine, and come back equal; the --preset engine files are
// read, every record, by Python avro and by avrocat (Avro C). Timestamps
// have any nanoseconds (microseconds with --preset engine, which keeps
// those).
func TestRealWorldCLI(t *testing.T) {
	t.Parallel()
	realworld.Each(t, "../..", func(t *testing.T, rt realworld.Type, md protoreflect.MessageDescriptor, types *protoload.Types) {
		for _, preset := range [][]string{nil, {"--preset", "engine"}} {
			realWorldCLI(t, rt, md, types.Resolver(), realworld.Config(preset != nil), preset)
		}
	})
}

// realWorldCLI is one preset of TestRealWorldCLI.
func realWorldCLI(t *testing.T, rt realworld.Type, md protoreflect.MessageDescriptor, r *dynamicpb.Types, cfg testutil.Config, preset []string) {
	const n = 25
	var delimited, lines []byte
	var msgs []proto.Message
	for i := range n {
		m := realworld.Message(t, md, r, rt.AnyType, testutil.SeedKey("cli/"+string(rt.Name)), i, cfg)
		wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		delimited = protowire.AppendBytes(delimited, wire)
		text, err := protojson.MarshalOptions{Resolver: r}.Marshal(m)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, text); err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, compact.Bytes()...), '\n')
		msgs = append(msgs, m)
	}
	dir := tempFiles(t, map[string]string{"in.bin": string(delimited), "in.jsonl": string(lines)})
	typeFlags := append([]string{"-I", filepath.Join("../..", rt.ImportPath), "-m", string(rt.Name)}, rt.Protos...)
	{
		for _, format := range []string{"delimited", "jsonl"} {
			in := filepath.Join(dir, map[string]string{"delimited": "in.bin", "jsonl": "in.jsonl"}[format])
			avroFile := filepath.Join(dir, format+".avro")
			args := append(append(append([]string{"encode"}, typeFlags...), preset...), "--in", in, "--out", avroFile)
			if res := runCmd(t, args...); res.code != 0 {
				t.Fatalf("%v %s: encode: %s", preset, format, res.stderr)
			}
			out := filepath.Join(dir, "back."+format)
			args = append(append([]string{"decode"}, typeFlags...), "--format", format, "--in", avroFile, "--out", out)
			if res := runCmd(t, args...); res.code != 0 {
				t.Fatalf("%v %s: decode: %s", preset, format, res.stderr)
			}
			if format == "jsonl" {
				checkJSONLines(t, out, md, msgs, r)
			} else {
				checkDelimited(t, out, md, msgs)
			}
			if preset != nil {
				readByOthers(t, avroFile, msgs)
			}
		}
	}
}

// checkDelimited checks that the length-delimited file at path holds msgs.
func checkDelimited(t *testing.T, path string, md protoreflect.MessageDescriptor, msgs []proto.Message) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for ; len(data) > 0; i++ {
		rec, k := protowire.ConsumeBytes(data)
		if k < 0 {
			t.Fatalf("record %d: bad length prefix", i)
		}
		data = data[k:]
		got := dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(rec, got); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if i >= len(msgs) || !proto.Equal(got, msgs[i]) {
			t.Fatalf("record %d differs", i)
		}
	}
	if i != len(msgs) {
		t.Errorf("%d records, want %d", i, len(msgs))
	}
}

// readByOthers checks that Python avro and avrocat read the records of
// the container file at path, which holds msgs. avrocat prints through
// jansson, which has no NaN or infinity: it leaves out a record holding
// one, with an error line, so that the records it prints and those lines
// add up to all of them, and it may leave out only records that hold one.
func readByOthers(t *testing.T, path string, msgs []proto.Message) {
	t.Helper()
	n := len(msgs)
	out, err := exec.Command("/usr/bin/python3", "-c", pyCount, path).CombinedOutput()
	testutil.Need(t, err == nil || !strings.Contains(string(out), "No module named 'avro'"), "python3-avro not installed: apt-get install python3-avro")
	if err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(n) {
		t.Errorf("Python avro reading %s: %v: %s, want %d records", path, err, out, n)
	}
	avrocat, err := exec.LookPath("avrocat")
	testutil.Need(t, err == nil, "avro-bin not installed: apt-get install avro-bin")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(avrocat, path)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	printed := bytes.Count(stdout.Bytes(), []byte("\n"))
	left := 0
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if line == "Error converting value to JSON: Cannot allocate JSON double" {
			left++
		} else if line != "" {
			t.Errorf("avrocat reading %s: %s", path, line)
		}
	}
	nonFinite := 0
	for _, m := range msgs {
		if hasNonFinite(m.ProtoReflect()) {
			nonFinite++
		}
	}
	if err != nil || printed+left != n || left > nonFinite {
		t.Errorf("avrocat reading %s: %v: %d records printed and %d left out (%d hold a NaN or infinity), want %d in all", path, err, printed, left, nonFinite, n)
	}
}

// hasNonFinite reports whether m holds a float or double NaN or infinity.
func hasNonFinite(m protoreflect.Message) bool {
	found := false
	nonFinite := func(v protoreflect.Value, k protoreflect.Kind) bool {
		if k != protoreflect.FloatKind && k != protoreflect.DoubleKind {
			return false
		}
		f := v.Float()
		return math.IsNaN(f) || math.IsInf(f, 0)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			for i := range v.List().Len() {
				e := v.List().Get(i)
				found = found || nonFinite(e, fd.Kind()) || fd.Message() != nil && hasNonFinite(e.Message())
			}
		case fd.IsMap():
			v.Map().Range(func(_ protoreflect.MapKey, e protoreflect.Value) bool {
				found = found || nonFinite(e, fd.MapValue().Kind()) || fd.MapValue().Message() != nil && hasNonFinite(e.Message())
				return !found
			})
		case fd.Message() != nil:
			found = hasNonFinite(v.Message())
		default:
			found = nonFinite(v, fd.Kind())
		}
		return !found
	})
	return found
}

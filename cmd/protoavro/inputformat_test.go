package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	commonpb "github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/commonpb"
	logspb "github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/logspb"
	"github.com/protoavro/protoavro/protoavro/records"
)

// otlpLogsArgs name OpenTelemetry's logs.proto and its LogsData message.
var otlpLogsArgs = []string{"-I", "../../third_party/opentelemetry-proto", "-m", "opentelemetry.proto.logs.v1.LogsData",
	"opentelemetry/proto/logs/v1/logs.proto"}

// logsData returns a LogsData message of one log record whose body is
// body.
func logsData(body string) *logspb.LogsData {
	return &logspb.LogsData{ResourceLogs: []*logspb.ResourceLogs{{ScopeLogs: []*logspb.ScopeLogs{{LogRecords: []*logspb.LogRecord{{
		TimeUnixNano:   1714564800123456789,
		SeverityNumber: logspb.SeverityNumber_SEVERITY_NUMBER_INFO,
		Body:           &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: body}},
	}}}}}}}
}

// frameSize32 marshals msgs, each after its size as 4 bytes, big-endian,
// as the OpenTelemetry Collector's file exporter writes them.
func frameSize32(t *testing.T, msgs ...proto.Message) []byte {
	t.Helper()
	var out []byte
	for _, m := range msgs {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(b)))
		out = append(out, b...)
	}
	return out
}

// TestEncodeSize32 reads OTLP LogsData as the Collector's file exporter
// frames it (4-byte big-endian sizes): with --format size32 every message
// is read back as it was, from the file or from the file compressed as a
// whole; records compressed one by one fail with a hint that says so;
// without --format the input is refused before any record is read, as two
// zero bytes start it; with --format delimited, short messages read as
// empty records plus one, and long ones fail with a hint for --format
// size32.
func TestEncodeSize32(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	small := []proto.Message{logsData("heartbeat ok"), logsData("disk 81% full"), logsData("")}
	// The first message's size, 00 00 00 NN with NN >= 128, read as
	// varints is three empty records, then a size that runs into the
	// message's bytes.
	big := []proto.Message{logsData(strings.Repeat("x", 150)), logsData("y")}
	if n := proto.Size(big[0]); n < 128 || n > 255 {
		t.Fatalf("the first message is %d bytes", n)
	}
	smallPath, bigPath := filepath.Join(dir, "small.be4"), filepath.Join(dir, "big.be4")
	if err := os.WriteFile(smallPath, frameSize32(t, small...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bigPath, frameSize32(t, big...), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.avro")
	encode := func(args ...string) result {
		return runCmd(t, append(append(append([]string{"encode"}, otlpLogsArgs...), "--out", out), args...)...)
	}

	for _, in := range []string{smallPath, bigPath} {
		wantRun(t, encode(in), 1, "record 0 (input byte 0): the input starts with two zero bytes, as a 4-byte big-endian length prefix below 65,536 does")
		wantRun(t, encode(in), 1, "give --format size32, or --format delimited if these are empty messages")
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("refused input %s: output %v", in, err)
		}
	}

	for _, c := range []struct {
		in   string
		msgs []proto.Message
	}{{smallPath, small}, {bigPath, big}} {
		wantRun(t, encode("--format", "size32", c.in), 0, "encoded "+plural(int64(len(c.msgs)), "record"))
		r := runCmd(t, "decode", out)
		if r.code != 0 {
			t.Fatalf("decode: %s", r.stderr)
		}
		rest := []byte(r.stdout)
		for i, want := range c.msgs {
			size, n := protowire.ConsumeVarint(rest)
			if n < 0 || uint64(len(rest)-n) < size {
				t.Fatalf("%s: record %d cut short", c.in, i)
			}
			var got logspb.LogsData
			if err := proto.Unmarshal(rest[n:n+int(size)], &got); err != nil || !proto.Equal(&got, want) {
				t.Errorf("%s: record %d is %v (%v), want %v", c.in, i, &got, err, want)
			}
			rest = rest[n+int(size):]
		}
		if len(rest) != 0 {
			t.Errorf("%s: %d bytes after the records", c.in, len(rest))
		}
	}

	// As told, length-delimited: each small message is three empty records
	// and itself; the first large one's size does not fit what remains.
	wantRun(t, encode("--format", "delimited", smallPath), 0, "encoded 12 records")
	wantRun(t, encode("--format", "delimited", bigPath), 1,
		"record 3 (input byte 3): truncated: the length prefix says")
	wantRun(t, encode("--format", "delimited", bigPath), 1,
		"(the input starts with two zero bytes, as a 4-byte big-endian length prefix below 65,536 does: give --format size32 if each message follows its size as 4 bytes, big-endian")

	// Records compressed one by one, as the file exporter writes them with
	// compression: zstd (without its native compression).
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	var zrecs []byte
	for _, m := range small {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		z := zw.EncodeAll(b, nil)
		zrecs = append(binary.BigEndian.AppendUint32(zrecs, uint32(len(z))), z...)
	}
	zpath := filepath.Join(dir, "small.zrecs")
	if err := os.WriteFile(zpath, zrecs, 0o644); err != nil {
		t.Fatal(err)
	}
	wantRun(t, encode("--format", "size32", zpath), 1, "("+compressedRecordsHint+")")
	// The whole file compressed (the exporter's native compression) is
	// decompressed first.
	wholePath := filepath.Join(dir, "small.be4.zst")
	if err := os.WriteFile(wholePath, zw.EncodeAll(frameSize32(t, small...), nil), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRun(t, encode("--format", "size32", wholePath), 0, "encoded 3 records")

	// decode writes no size32.
	wantRun(t, runCmd(t, "decode", "--format", "size32", out), 2, "want delimited or jsonl (size32 is an input format of encode)")
	wantRun(t, encode("--format", "size", smallPath), 2, "want delimited or jsonl, or size32 for 4-byte big-endian length prefixes")
}

// TestEncodeSize32Rejects: with --skip-bad, a size32 record that does not
// convert goes to --rejects with its 4-byte big-endian size, as it was in
// the input; a size beyond the limit stops the command.
func TestEncodeSize32Rejects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := []byte{0x0a, 0x05, 0xff} // a resource_logs field cut short
	good := frameSize32(t, logsData("a"))
	in := append(append(bytes.Clone(good), binary.BigEndian.AppendUint32(nil, uint32(len(bad)))...), bad...)
	in = append(in, good...)
	path, rejects := filepath.Join(dir, "in.be4"), filepath.Join(dir, "rejects.be4")
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{"encode"}, otlpLogsArgs...), "--format", "size32", "--out", filepath.Join(dir, "out.avro"), path)
	wantRun(t, runCmd(t, append(args, "--skip-bad", "--rejects", rejects)...), 0, "encoded 2 records")
	got, err := os.ReadFile(rejects)
	if want := in[len(good) : len(good)+4+len(bad)]; err != nil || !bytes.Equal(got, want) {
		t.Errorf("rejects %x (%v), want %x", got, err, want)
	}
	if err := os.WriteFile(path, append(bytes.Clone(good), 0x3b, 0, 0, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRun(t, runCmd(t, append(args, "--skip-bad")...), 1,
		fmt.Sprintf("record 1 (input byte %d): 4-byte length prefix 989855744 exceeds the limit of 67108864 bytes (64 MiB); read little-endian it would be 59", len(good)))
}

// shapeArgs name the message type of the tests of input shapes.
func shapeArgs(t *testing.T, dir string) []string {
	t.Helper()
	writeFiles(t, dir, map[string]string{
		"r.proto": "syntax = \"proto3\";\npackage shape;\nmessage R { int32 n = 1; string s = 2; }\n",
	})
	return []string{"-I", dir, "-m", "shape.R", "r.proto"}
}

// utf16LE encodes ASCII text s as UTF-16, little-endian, with its
// byte-order mark, as PowerShell writes text files.
func utf16LE(s string) []byte {
	out := []byte{0xff, 0xfe}
	for _, c := range []byte(s) {
		out = append(out, c, 0)
	}
	return out
}

// TestEncodeByteOrderMark: JSON Lines that start with a UTF-8 byte-order
// mark encode as they do without it, sniffed or with --format jsonl,
// compressed or not; a mark elsewhere is no blank; UTF-16 input is
// refused with an error that says so.
func TestEncodeByteOrderMark(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	typeFlags := shapeArgs(t, dir)
	const lines = "{\"n\":1,\"s\":\"é\"}\n{\"n\":2}\n"
	const bom = "\xef\xbb\xbf"
	encode := func(in []byte, args ...string) (result, string) {
		t.Helper()
		path := filepath.Join(dir, "in.jsonl")
		out := filepath.Join(dir, "out.avro")
		_ = os.Remove(out)
		if err := os.WriteFile(path, in, 0o644); err != nil {
			t.Fatal(err)
		}
		r := runCmd(t, append(append(append([]string{"encode"}, typeFlags...), "--in", path, "--out", out), args...)...)
		if r.code != 0 {
			return r, ""
		}
		d := runCmd(t, "decode", "--format", "jsonl", out)
		if d.code != 0 {
			t.Fatalf("decode: %s", d.stderr)
		}
		return r, d.stdout
	}
	_, want := encode([]byte(lines))
	for _, c := range []struct {
		name string
		in   []byte
		args []string
	}{
		{"sniffed", []byte(bom + lines), nil},
		{"--format jsonl", []byte(bom + lines), []string{"--format", "jsonl"}},
		{"gzip, sniffed", gzipEach(t, []byte(bom+lines)), nil},
		{"gzip, --format jsonl", gzipEach(t, []byte(bom+lines)), []string{"--format", "jsonl"}},
		{"mark and blank lines", []byte(bom + "\n\n" + lines), nil},
	} {
		r, got := encode(c.in, c.args...)
		if r.code != 0 || got != want {
			t.Errorf("%s: exit code %d (%s), records %q, want %q", c.name, r.code, r.stderr, got, want)
		}
	}
	// The first line starts after the mark; a mark on a later line is
	// part of that line, which protobuf JSON does not read.
	r, _ := encode([]byte(bom+"{\"n\":\"x\"}\n"), "--format", "jsonl")
	wantRun(t, r, 1, "record 0 (line 1, input byte 3): ")
	r, _ = encode([]byte(lines + bom + "{\"n\":3}\n"))
	wantRun(t, r, 1, `record 2 (line 3, input byte 25): syntax error (column 1): invalid value \ufeff`)

	const utf16Err = "record 0 (line 1, input byte 0): the input is UTF-16 (little-endian) text (it starts with its byte-order mark): JSON Lines must be UTF-8; convert it first, e.g. with iconv -f UTF-16 -t UTF-8"
	for _, args := range [][]string{nil, {"--format", "jsonl"}} {
		for _, in := range [][]byte{utf16LE(lines), gzipEach(t, utf16LE(lines)), utf16LE("\r\n  " + lines)} {
			r, _ := encode(in, args...)
			wantRun(t, r, 1, utf16Err)
			if strings.HasSuffix(strings.TrimSpace(r.stderr), ")") {
				t.Errorf("UTF-16 %v: a hint: %s", args, r.stderr)
			}
		}
	}
	big := []byte{0xfe, 0xff, 0, '{', 0, '}', 0, '\n'}
	r, _ = encode(big)
	wantRun(t, r, 1, "the input is UTF-16 (big-endian) text")
}

// TestEncodeJSONArraySniffed: a JSON array (as gcloud logging read
// --format=json prints it) is refused before any record is read, with the
// hint as the error; with --format delimited it is read as told, and its
// error ends with the hint.
func TestEncodeJSONArraySniffed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	typeFlags := shapeArgs(t, dir)
	var objects strings.Builder
	objects.WriteString("[\n")
	for i := range 60 {
		if i > 0 {
			objects.WriteString(",\n")
		}
		fmt.Fprintf(&objects, "  {\n    \"n\": %d,\n    \"s\": \"entry %d\"\n  }", i, i)
	}
	objects.WriteString("\n]\n")
	for name, content := range map[string]string{
		"array.json":   objects.String(),
		"bom.json":     "\xef\xbb\xbf" + objects.String(),
		"numbers.json": "  [1, 2, 3]",
		"empty.json":   "[]",
		"strings.json": "[\"a\",\n\"b\"]",
	} {
		writeFiles(t, dir, map[string]string{name: content})
		out := filepath.Join(dir, name+".avro")
		r := runCmd(t, append(append([]string{"encode"}, typeFlags...), "--in", filepath.Join(dir, name), "--out", out)...)
		wantRun(t, r, 1, "protoavro: record 0 (input byte 0): "+arrayHint+"\n")
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: output %v", name, err)
		}
	}
	r := runCmd(t, append(append([]string{"encode"}, typeFlags...), "--format", "delimited", "--in", filepath.Join(dir, "array.json"),
		"--out", filepath.Join(dir, "out.avro"))...)
	if r.code != 1 || !strings.HasSuffix(r.stderr, "("+arrayHint+")\n") || strings.HasPrefix(r.stderr, "protoavro: record 0 ") {
		t.Errorf("--format delimited: exit code %d, %s", r.code, r.stderr)
	}
}

// TestEncodeBracketMessage: length-delimited input whose first message is
// 91 bytes starts with "[", but is no JSON array: it is read.
func TestEncodeBracketMessage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	typeFlags := shapeArgs(t, dir)
	// Field 2 (s), 89 bytes of text: 91 bytes in all.
	msg := append([]byte{0x12, 89}, bytes.Repeat([]byte("a"), 89)...)
	in := append(protowire.AppendVarint(nil, uint64(len(msg))), msg...)
	if in[0] != '[' {
		t.Fatalf("the input starts with %q", in[0])
	}
	path := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(path, append(in, in...), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRun(t, runCmd(t, append(append([]string{"encode"}, typeFlags...), "--in", path, "--out", filepath.Join(dir, "out.avro"))...), 0, "encoded 2 records")
}

// kubernetesEnvelope wraps a Kubernetes object's protobuf bytes as the API
// server sends them: the magic "k8s\x00", then a runtime.Unknown with the
// object's apiVersion and kind, and its bytes as the raw field.
func kubernetesEnvelope(apiVersion, kind string, raw []byte) []byte {
	var typeMeta []byte
	typeMeta = protowire.AppendTag(typeMeta, 1, protowire.BytesType)
	typeMeta = protowire.AppendString(typeMeta, apiVersion)
	typeMeta = protowire.AppendTag(typeMeta, 2, protowire.BytesType)
	typeMeta = protowire.AppendString(typeMeta, kind)
	out := []byte("k8s\x00")
	out = protowire.AppendTag(out, 1, protowire.BytesType)
	out = protowire.AppendBytes(out, typeMeta)
	out = protowire.AppendTag(out, 2, protowire.BytesType)
	out = protowire.AppendBytes(out, raw)
	return out
}

// kubernetesArgs name the Kubernetes core/v1 types and the Pod message.
var kubernetesArgs = []string{"-I", "../../third_party/kubernetes", "-m", "k8s.io.api.core.v1.Pod", "k8s.io/api/core/v1/generated.proto"}

// TestEncodeKubernetes: Kubernetes objects in the API server's protobuf
// envelope are refused before any record is read, in every binary format,
// whether the input or its first record starts with the envelope; the
// unwrapped object encodes. kubectl's JSON fails with a hint that it is
// not protobuf JSON.
func TestEncodeKubernetes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A Pod whose metadata (1) has the name (1) "web".
	pod := []byte{0x0a, 0x05, 0x0a, 0x03, 'w', 'e', 'b'}
	envelope := kubernetesEnvelope("v1", "Pod", pod)
	files := map[string][]byte{
		"pod.k8s":       envelope,
		"pod.k8s.delim": append(protowire.AppendVarint(nil, uint64(len(envelope))), envelope...),
		"pod.k8s.be4":   append(binary.BigEndian.AppendUint32(nil, uint32(len(envelope))), envelope...),
		"pod.delim":     append(protowire.AppendVarint(nil, uint64(len(pod))), pod...),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const envelopeErr = `the Kubernetes protobuf envelope (the magic "k8s\x00", then a runtime.Unknown message): the object's own bytes are the raw field (2) of the Unknown; unwrap them first`
	out := filepath.Join(dir, "out.avro")
	for _, c := range []struct {
		in     string
		format []string
		want   string
	}{
		{"pod.k8s", nil, "record 0 (input byte 0): the input starts with " + envelopeErr},
		{"pod.k8s", []string{"--format", "delimited"}, "record 0 (input byte 0): the input starts with " + envelopeErr},
		{"pod.k8s", []string{"--format", "size32"}, "record 0 (input byte 0): the input starts with " + envelopeErr},
		{"pod.k8s.delim", nil, "record 0 (input byte 0): the first record starts with " + envelopeErr},
		{"pod.k8s.be4", []string{"--format", "size32"}, "record 0 (input byte 0): the first record starts with " + envelopeErr},
	} {
		args := append(append(append([]string{"encode"}, kubernetesArgs...), c.format...), "--skip-bad", "--in", filepath.Join(dir, c.in), "--out", out)
		wantRun(t, runCmd(t, args...), 1, c.want)
	}
	wantRun(t, runCmd(t, append(append([]string{"encode"}, kubernetesArgs...), "--in", filepath.Join(dir, "pod.delim"), "--out", out)...), 0, "encoded 1 record")

	const kubectlHint = "(the input looks like Kubernetes objects as kubectl and the API server write them in JSON (apiVersion, kind), which is not the protobuf JSON of their .proto messages"
	writeFiles(t, dir, map[string]string{
		"kubectl.jsonl": `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","creationTimestamp":"2024-05-01T12:00:00Z"}}` + "\n",
		"late.jsonl":    `{"metadata":{"name":"web","labels":{"a":"` + strings.Repeat("b", headSize) + `"}},"apiVersion":"v1","kind":"Pod"}` + "\n",
		"nokind.jsonl":  `{"metadata":{"name":"web","creationTimestamp":"2024-05-01T12:00:00Z"}}` + "\n",
		"nested.jsonl":  `{"metadata":{"name":"web","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet"}],"creationTimestamp":"x"}}` + "\n",
		"good.jsonl":    `{"metadata":{"name":"web","creationTimestamp":{"seconds":"1714564800"}}}` + "\n",
	})
	for _, c := range []struct {
		in   string
		code int
		hint bool
	}{{"kubectl.jsonl", 1, true}, {"late.jsonl", 1, false}, {"nokind.jsonl", 1, false}, {"nested.jsonl", 1, false}, {"good.jsonl", 0, false}} {
		r := runCmd(t, append(append([]string{"encode"}, kubernetesArgs...), "--in", filepath.Join(dir, c.in), "--out", out)...)
		if r.code != c.code || strings.Contains(r.stderr, kubectlHint) != c.hint {
			t.Errorf("%s: exit code %d, %s; want %d, hint %v", c.in, r.code, r.stderr, c.code, c.hint)
		}
	}
}

// TestInputFormat checks how encode tells an input's format from its
// first bytes, and the hints of --format: each case's format, hint and
// error.
func TestInputFormat(t *testing.T) {
	t.Parallel()
	delimited, jsonl, size32 := formatDelimited, formatJSONL, formatSize32
	long := strings.Repeat("x", headSize)
	for _, c := range []struct {
		name  string
		given *recordFormat
		head  string
		want  recordFormat
		hint  string // a part of the hint; "" for none
		err   string // a part of the error; "" for none
	}{
		{"JSON Lines", nil, "{\"a\":1}\n", formatJSONL, "", ""},
		{"JSON Lines after a mark", nil, "\xef\xbb\xbf{\"a\":1}\n", formatJSONL, "", ""},
		{"delimited", nil, "\x02\x08\x01", formatDelimited, "", ""},
		{"one empty message", nil, "\x00\x02\x08\x01", formatDelimited, "", ""},
		{"empty", nil, "", formatDelimited, "", ""},
		{"two zero bytes", nil, "\x00\x00\x00\x3b\x0a", 0, "", "give --format size32, or --format delimited if these are empty messages"},
		{"two empty messages", nil, "\x00\x00", 0, "", "give --format size32"},
		{"array", nil, " \n[{\"a\":1}]", 0, "", arrayHint},
		{"array after a mark", nil, "\xef\xbb\xbf[\n  {", 0, "", arrayHint},
		{"array cut at the window", nil, "[\"" + long[:headSize-3] + "\xc3", 0, "", arrayHint},
		{"bracket then binary", nil, "[\x0a\x05", formatDelimited, "", ""},
		{"bracket then text", nil, "[Yes", formatDelimited, "", ""},
		{"UTF-16", nil, "\xff\xfe{\x00", formatJSONL, "", ""},
		{"UTF-16 array", nil, "\xfe\xff\x00 \x00[", formatJSONL, "", ""},
		{"UTF-32", nil, "\x00\x00\xfe\xff\x00\x00\x00{", formatJSONL, "", ""},
		{"UTF-16 mark, binary", nil, "\xff\xfe\x01\x02", formatDelimited, "", ""},
		{"Kubernetes envelope", nil, "k8s\x00\x0a", formatDelimited, "", ""}, // refused by the reader
		{"kubectl JSON", nil, `{"apiVersion":"v1","kind":"Pod"}`, formatJSONL, "Kubernetes objects as kubectl and the API server write them in JSON", ""},
		{"pretty kubectl JSON", nil, "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\",\n", formatJSONL, "several lines: JSON Lines has one object per line (jq -c . writes them); the input looks like Kubernetes objects", ""},

		{"delimited given, zeros", &delimited, "\x00\x00\x00\x3b\x0a", formatDelimited, size32Hint, ""},
		{"delimited given, JSON Lines", &delimited, "{\"a\":1}\n", formatDelimited, "give --format jsonl", ""},
		{"delimited given, array", &delimited, "[{\"a\":1}]", formatDelimited, arrayHint, ""},
		{"size32 given", &size32, "\x00\x00\x00\x3b\x0a", formatSize32, "", ""},
		{"size32 given, zstd records", &size32, "\x00\x00\x00\x20\x28\xb5\x2f\xfd\x00", formatSize32, compressedRecordsHint, ""},
		{"size32 given, JSON Lines", &size32, "{\"a\":1}\n", formatSize32, "give --format jsonl", ""},
		{"jsonl given, binary", &jsonl, "\x02\x08\x01", formatJSONL, "give --format delimited", ""},
		{"jsonl given, zeros", &jsonl, "\x00\x00\x00\x3b\x0a", formatJSONL, "give --format size32 or --format delimited", ""},
		{"jsonl given, UTF-16", &jsonl, "\xff\xfe{\x00\"\x00", formatJSONL, "", ""},
		{"jsonl given, mark", &jsonl, "\xef\xbb\xbf{\"a\":1}\n", formatJSONL, "", ""},
	} {
		f, hint, err := inputFormat(c.given, []byte(c.head))
		switch {
		case c.err != "":
			var re *recordError
			if !errors.As(err, &re) || re.Index != 0 || re.Offset != 0 || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one for record 0 containing %q", c.name, err, c.err)
			}
		case err != nil || f != c.want || (c.hint == "") != (hint == "") || !strings.Contains(hint, c.hint):
			t.Errorf("%s: %v, hint %q, error %v; want %v, hint %q", c.name, f, hint, err, c.want, c.hint)
		}
	}
}

// TestFormatFlag: encode's --format takes size32, decode's does not.
func TestFormatFlag(t *testing.T) {
	t.Parallel()
	in := formatFlag{input: true}
	if err := in.Set("size32"); err != nil || in.f != formatSize32 || in.String() != "size32" || !in.set {
		t.Errorf("input size32: %v, %v", err, in.f)
	}
	var out formatFlag
	if err := out.Set("size32"); err == nil || out.set {
		t.Errorf("output size32 accepted")
	}
	if got := appendPrefix(nil, formatSize32, 300); !bytes.Equal(got, []byte{0, 0, 1, 44}) {
		t.Errorf("size32 prefix %x", got)
	}
	if got := appendPrefix(nil, formatDelimited, 300); !bytes.Equal(got, []byte{0xac, 0x02}) {
		t.Errorf("varint prefix %x", got)
	}
	if d, ok := any(newBinaryReader(formatSize32, bytes.NewReader([]byte{0, 0, 0, 1, 7}))).(*records.Delimited); !ok {
		t.Errorf("reader %T", d)
	} else if rec, _, err := d.Next(); err != nil || !bytes.Equal(rec, []byte{7}) {
		t.Errorf("size32 reader: %x, %v", rec, err)
	}
}

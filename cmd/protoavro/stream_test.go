package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/avro/ocf"
	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	pb "github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro"
)

// sampleFile is the bundled sample: 1,000 length-delimited Foo messages.
const sampleFile = "../../testdata/avro2147.delimited"

// typeArgs select protoavro.avro2147.Foo from the test protos.
var typeArgs = []string{"-I", "../../testdata/proto", "-m", "protoavro.avro2147.Foo", "avro2147.proto"}

// runIO runs the command line args in-process with stdin as standard input.
func runIO(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, bytes.NewReader(stdin), &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// encodeArgs returns the encode command line with the type flags and args.
func encodeArgs(args ...string) []string {
	return append(append([]string{"encode"}, typeArgs...), args...)
}

// readSample returns the sample's bytes and its records, each with its
// length prefix.
func readSample(t *testing.T) ([]byte, [][]byte) {
	t.Helper()
	data, err := os.ReadFile(sampleFile)
	if err != nil {
		t.Fatal(err)
	}
	return data, splitDelimited(t, data)
}

// splitDelimited splits length-delimited data into records, each with its
// length prefix.
func splitDelimited(t *testing.T, data []byte) [][]byte {
	t.Helper()
	var recs [][]byte
	for len(data) > 0 {
		size, n := protowire.ConsumeVarint(data)
		if n < 0 || uint64(len(data)-n) < size {
			t.Fatalf("bad length-delimited data at record %d", len(recs))
		}
		end := n + int(size)
		recs = append(recs, data[:end])
		data = data[end:]
	}
	return recs
}

// sampleMessages parses the sample into generated messages.
func sampleMessages(t *testing.T) []*pb.Foo {
	t.Helper()
	_, recs := readSample(t)
	msgs := make([]*pb.Foo, len(recs))
	for i, rec := range recs {
		msgs[i] = new(pb.Foo)
		if err := protodelim.UnmarshalFrom(bytes.NewReader(rec), msgs[i]); err != nil {
			t.Fatalf("sample record %d: %v", i, err)
		}
	}
	return msgs
}

// sampleJSONL returns the sample as JSON Lines, one compact protojson
// object per line.
func sampleJSONL(t *testing.T) []string {
	t.Helper()
	var lines []string
	for i, m := range sampleMessages(t) {
		b, err := protojson.MarshalOptions{}.Marshal(m)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		lines = append(lines, string(b))
	}
	return lines
}

// wantOnly fails unless dir holds exactly the files names: no temporary
// file and no unfinished output are left behind.
func wantOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	slices.Sort(names)
	if got := testutil.DirNames(t, dir); !slices.Equal(got, names) {
		t.Errorf("files in the output directory = %q, want %q", got, names)
	}
}

var (
	encodeSummary = regexp.MustCompile(`^protoavro: encoded (\d+) records? \(\d+(\.\d)? (B|KiB|MiB) in, \d+(\.\d)? (B|KiB|MiB) out, (\d+) blocks?, (\w+)\) in [0-9.]+(µs|ms|s); (\d+) skipped.*\n$`)
	decodeSummary = regexp.MustCompile(`^protoavro: decoded (\d+) records? \(\d+(\.\d)? (B|KiB|MiB) in, \d+(\.\d)? (B|KiB|MiB) out, (\d+) blocks?, (\w+)\) in [0-9.]+(µs|ms|s)\n$`)
)

// TestSampleIsDeterministic checks that the sample is written with
// deterministic marshalling, so that decode, which marshals
// deterministically, can reproduce it byte for byte.
func TestSampleIsDeterministic(t *testing.T) {
	t.Parallel()
	_, recs := readSample(t)
	msgs := sampleMessages(t)
	if len(msgs) != 1000 {
		t.Fatalf("sample has %d records, want 1000", len(msgs))
	}
	opts := protodelim.MarshalOptions{MarshalOptions: proto.MarshalOptions{Deterministic: true}}
	for i, m := range msgs {
		var buf bytes.Buffer
		if _, err := opts.MarshalTo(&buf, m); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), recs[i]) {
			t.Fatalf("record %d is not in deterministic form", i)
		}
	}
}

// TestEncodeDecodeRoundTrip encodes the sample with every codec and decodes
// it back to the same bytes.
func TestEncodeDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	sample, _ := readSample(t)
	for _, codec := range []string{"null", "deflate", "snappy", "zstd"} {
		t.Run(codec, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			avroFile := filepath.Join(dir, "foo.avro")
			back := filepath.Join(dir, "back.delimited")
			r := runIO(t, nil, encodeArgs("--in", sampleFile, "--out", avroFile, "--codec", codec,
				"--block-size", "16K", "--workers", "3")...)
			if r.code != 0 {
				t.Fatalf("encode: exit code %d: %s", r.code, r.stderr)
			}
			m := encodeSummary.FindStringSubmatch(r.stderr)
			wantCodec := codec
			if codec == "zstd" {
				wantCodec = "zstandard"
			}
			if m == nil || m[1] != "1000" || m[7] != wantCodec || m[9] != "0" || m[6] == "1" || r.stdout != "" {
				t.Errorf("encode: stdout %q, stderr %q: want only a summary of 1000 records in several %s blocks", r.stdout, r.stderr, wantCodec)
			}
			r = runIO(t, nil, "decode", "--in", avroFile, "--out", back)
			if r.code != 0 {
				t.Fatalf("decode: exit code %d: %s", r.code, r.stderr)
			}
			if m := decodeSummary.FindStringSubmatch(r.stderr); m == nil || m[1] != "1000" || m[7] != wantCodec || r.stdout != "" {
				t.Errorf("decode: stdout %q, stderr %q: want only a summary of 1000 %s records", r.stdout, r.stderr, wantCodec)
			}
			got, err := os.ReadFile(back)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, sample) {
				t.Errorf("decoded output (%d bytes) differs from the sample (%d bytes)", len(got), len(sample))
			}
			wantOnly(t, dir, "foo.avro", "back.delimited")
		})
	}
}

// TestEncodeDecodeStdio pipes a doubled sample through standard input and
// output: concatenated samples are a valid input.
func TestEncodeDecodeStdio(t *testing.T) {
	t.Parallel()
	sample, _ := readSample(t)
	double := append(slices.Clone(sample), sample...)
	r := runIO(t, double, encodeArgs("--codec", "deflate")...)
	if r.code != 0 {
		t.Fatalf("encode: exit code %d: %s", r.code, r.stderr)
	}
	if m := encodeSummary.FindStringSubmatch(r.stderr); m == nil || m[1] != "2000" {
		t.Errorf("encode summary = %q, want 2000 records", r.stderr)
	}
	r = runIO(t, []byte(r.stdout), "decode")
	if r.code != 0 {
		t.Fatalf("decode: exit code %d: %s", r.code, r.stderr)
	}
	if r.stdout != string(double) {
		t.Errorf("decoded output (%d bytes) differs from the input (%d bytes)", len(r.stdout), len(double))
	}
}

// TestDecodeJSONL decodes to JSON Lines and compares with protojson's
// rendering of the sample, line by line, by meaning (protojson varies its
// whitespace from build to build).
func TestDecodeJSONL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	avroFile := encodeSample(t, dir, "foo.avro", "--codec", "snappy")
	r := runIO(t, nil, "decode", "--format", "jsonl", "--in", avroFile)
	if r.code != 0 {
		t.Fatalf("decode: exit code %d: %s", r.code, r.stderr)
	}
	want := sampleJSONL(t)
	if !strings.HasSuffix(r.stdout, "\n") {
		t.Fatalf("output does not end with a newline")
	}
	got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if !json.Valid([]byte(got[i])) {
			t.Fatalf("line %d is not JSON: %s", i+1, got[i])
		}
		if !sameJSON(t, got[i], want[i]) {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}

// sameJSON reports whether a and b hold the same JSON value (numbers
// compared as written).
func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	return reflect.DeepEqual(testutil.JSONValue(t, []byte(a)), testutil.JSONValue(t, []byte(b)))
}

// TestDecodeWithType reads a file into a message type given on the command
// line, including a file written with the Java profile, whose options the
// command takes from the file.
func TestDecodeWithType(t *testing.T) {
	t.Parallel()
	sample, _ := readSample(t)
	dir := t.TempDir()
	for _, profile := range []string{"default", "java"} {
		avroFile := encodeSample(t, dir, profile+".avro", "--profile", profile)
		embedded := runIO(t, nil, "decode", "--in", avroFile)
		explicit := runIO(t, nil, append([]string{"decode", "--in", avroFile}, typeArgs...)...)
		if embedded.code != 0 || explicit.code != 0 {
			t.Fatalf("%s: decode failed: %s%s", profile, embedded.stderr, explicit.stderr)
		}
		if embedded.stdout != explicit.stdout {
			t.Errorf("%s: decoding with -m differs from decoding with the embedded type", profile)
		}
		if profile == "default" && explicit.stdout != string(sample) {
			t.Errorf("%s: decoded output differs from the sample", profile)
		}
	}
	// Another message type cannot read the records: a data error.
	r := runIO(t, nil, "decode", "--in", filepath.Join(dir, "default.avro"), "-I", "../../testdata/proto",
		"-m", "protoavro.avro2147.MessageWithLargeEnum", "avro2147.proto")
	if r.code != 1 || !strings.Contains(r.stderr, "incompatible schemas") {
		t.Errorf("decode as another type: exit code %d, stderr %q", r.code, r.stderr)
	}
}

// TestEncodeJSONL encodes JSON Lines, with a blank line and a CRLF line
// ending, and decodes the result to the sample's bytes.
func TestEncodeJSONL(t *testing.T) {
	t.Parallel()
	sample, _ := readSample(t)
	lines := sampleJSONL(t)
	input := strings.Join(lines[:10], "\n") + "\n\n  \n" + strings.Join(lines[10:20], "\r\n") + "\r\n" + strings.Join(lines[20:], "\n")
	dir := t.TempDir()
	avroFile := filepath.Join(dir, "foo.avro")
	r := runIO(t, []byte(input), encodeArgs("--format", "jsonl", "--out", avroFile, "--codec", "zstd", "--block-size", "8K")...)
	if r.code != 0 {
		t.Fatalf("encode: exit code %d: %s", r.code, r.stderr)
	}
	if m := encodeSummary.FindStringSubmatch(r.stderr); m == nil || m[1] != "1000" || m[9] != "0" {
		t.Errorf("encode summary = %q, want 1000 records, 0 skipped", r.stderr)
	}
	r = runIO(t, nil, "decode", "--in", avroFile)
	if r.code != 0 {
		t.Fatalf("decode: exit code %d: %s", r.code, r.stderr)
	}
	if r.stdout != string(sample) {
		t.Errorf("decoded output differs from the sample")
	}
}

// TestInspect checks the description of a file written by encode.
func TestInspect(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	avroFile := filepath.Join(dir, "foo.avro")
	r := runIO(t, nil, encodeArgs("--in", sampleFile, "--out", avroFile, "--codec", "zstd", "--block-size", "32K")...)
	if r.code != 0 {
		t.Fatalf("encode: %s", r.stderr)
	}
	blocks := encodeSummary.FindStringSubmatch(r.stderr)[6]
	r = runIO(t, nil, "inspect", "--schema", avroFile)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("inspect: exit code %d: %s", r.code, r.stderr)
	}
	s, err := protoavro.Options{}.Schema((&pb.Foo{}).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(avroFile)
	if err != nil {
		t.Fatal(err)
	}
	wantInOutput(t, "inspect", r.stdout,
		"file:        "+avroFile+"\n",
		fmt.Sprintf("size:        %d bytes (", st.Size()),
		"message:     protoavro.avro2147.Foo\n",
		"options:     profile=default timestamps=nanos uint64=long mapkeys=text\n",
		"codec:       zstandard\n",
		"schema:      protoavro.avro2147.Foo\n",
		fmt.Sprintf("fingerprint: CRC-64-AVRO %016x\n", s.Fingerprint()),
		fmt.Sprintf("sha-256:     %x\n", s.SHA256()),
		"blocks:      "+blocks+"\n",
		"records:     1000\n",
		"metadata:    5 keys\n",
		"  avro.codec                   9 B  zstandard\n",
		"  protoavro.message           22 B  protoavro.avro2147.Foo\n",
	)
	for _, key := range []string{"avro.schema", "protoavro.descriptors", "protoavro.options"} {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(key) + ` +\d+ B`).MatchString(r.stdout) {
			t.Errorf("inspect output lacks the size of %s:\n%s", key, r.stdout)
		}
	}
	_, schemaJSON, ok := strings.Cut(r.stdout, "avro.schema:\n")
	if !ok {
		t.Fatalf("no schema in the output:\n%s", r.stdout)
	}
	if got := string(parseAvro(t, schemaJSON).Canonical()); got != s.Canonical() {
		t.Errorf("printed schema:\n%s\nwant canonical form %s", schemaJSON, s.Canonical())
	}
	if !strings.Contains(schemaJSON, "\n  \"fields\"") && !strings.Contains(schemaJSON, "\n  \"name\"") {
		t.Errorf("schema is not indented:\n%s", schemaJSON)
	}
}

// TestInspectForeign describes a container file written by another
// library, which has no embedded protobuf type: blocks are counted, not
// decoded.
func TestInspectForeign(t *testing.T) {
	t.Parallel()
	schema := parseAvro(t, `{"type":"record","name":"x.R","fields":[{"name":"a","type":"long"}]}`)
	var buf bytes.Buffer
	enc, err := ocf.NewWriter(&buf, schema, ocf.WithBlockCount(10), ocf.WithCodec(ocf.DeflateCodec(6)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 25 {
		if err := enc.Encode(map[string]any{"a": int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	r := runIO(t, buf.Bytes(), "inspect", "-")
	if r.code != 0 {
		t.Fatalf("inspect: exit code %d: %s", r.code, r.stderr)
	}
	wantInOutput(t, "inspect", r.stdout,
		"file:        standard input\n",
		"message:     (none: not written by protoavro)\n",
		"codec:       deflate\n",
		"schema:      x.R\n",
		"blocks:      3 (from the block headers",
		"records:     25 (from the block headers",
	)
	// decode needs the message type for such a file.
	r = runIO(t, buf.Bytes(), "decode")
	if r.code != 2 || !strings.Contains(r.stderr, "standard input has no embedded protobuf type") {
		t.Errorf("decode: exit code %d, stderr %q", r.code, r.stderr)
	}
}

// badRecord is a length-delimited record that frames correctly but is not
// a valid Foo: field 1 with the reserved wire type 7.
var badRecord = []byte{2, 0x0f, 0x01}

// TestEncodeErrors checks that each kind of bad input stops the command
// with exit status 1 and one line naming the record and its input offset,
// and leaves no output file (or temporary file) behind.
func TestEncodeErrors(t *testing.T) {
	t.Parallel()
	sample, recs := readSample(t)
	offset := func(i int) int { // input offset of record i
		n := 0
		for _, r := range recs[:i] {
			n += len(r)
		}
		return n
	}
	with := func(i int, rec []byte) []byte { // the sample with record i replaced
		var b []byte
		for j, r := range recs {
			if j == i {
				r = rec
			}
			b = append(b, r...)
		}
		return b
	}
	lines := sampleJSONL(t)
	badLines := slices.Clone(lines)
	badLines[7] = `{"int32": }`
	jsonlBad := strings.Join(badLines, "\n") + "\n"
	jsonlOffset := 0
	for _, l := range lines[:7] {
		jsonlOffset += len(l) + 1
	}
	oversized := protowire.AppendVarint(nil, 100<<20)
	tests := []struct {
		name   string
		input  []byte
		args   []string
		want   string
		detail string
	}{
		{"malformed record in the middle", with(500, badRecord), nil,
			fmt.Sprintf("protoavro: record 500 (input byte %d): ", offset(500)), "malformed input"},
		{"truncated final record", sample[:len(sample)-10], nil,
			fmt.Sprintf("protoavro: record 999 (input byte %d): truncated: the length prefix says", offset(999)), ""},
		{"truncated length prefix", append(slices.Clone(sample), 0x80), nil,
			fmt.Sprintf("protoavro: record 1000 (input byte %d): truncated: the input ends inside the length prefix", len(sample)), ""},
		{"oversized length prefix", append(append(slices.Clone(sample[:offset(20)]), oversized...), 1, 2, 3), nil,
			fmt.Sprintf("protoavro: record 20 (input byte %d): length prefix 104857600 exceeds the limit", offset(20)), ""},
		{"bad JSON line", []byte(jsonlBad), []string{"--format", "jsonl"},
			fmt.Sprintf("protoavro: record 7 (line 8, input byte %d): ", jsonlOffset), "syntax error"},
		{"unknown enum number in JSON", []byte(lines[0] + "\n" + `{"int32":1,"enum":7}` + "\n"), []string{"--format", "jsonl"},
			fmt.Sprintf("protoavro: record 1 (line 2, input byte %d): ", len(lines[0])+1), "unknown enum number"},
		{"missing required field in JSON", []byte(`{"int64":"5"}`), []string{"--format", "jsonl"},
			"protoavro: record 0 (line 1, input byte 0): ", "required field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "out.avro")
			in := filepath.Join(dir, "in")
			if err := os.WriteFile(in, tt.input, 0o644); err != nil {
				t.Fatal(err)
			}
			r := runIO(t, nil, encodeArgs(append([]string{"--in", in, "--out", out, "--codec", "snappy", "--block-size", "4K"}, tt.args...)...)...)
			if r.code != 1 {
				t.Errorf("exit code = %d, want 1", r.code)
			}
			if !strings.HasPrefix(r.stderr, tt.want) || !strings.Contains(r.stderr, tt.detail) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr = %q, want one line starting with %q and containing %q", r.stderr, tt.want, tt.detail)
			}
			wantOnly(t, dir, "in")
		})
	}
}

// TestEncodeErrorKeepsExistingFile checks that a failed run leaves an
// existing output file as it was.
func TestEncodeErrorKeepsExistingFile(t *testing.T) {
	t.Parallel()
	_, recs := readSample(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.avro")
	if err := os.WriteFile(out, []byte("old contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	input := append(slices.Concat(recs[:100]...), badRecord...)
	r := runIO(t, input, encodeArgs("--out", out)...)
	if r.code != 1 || !strings.Contains(r.stderr, "record 100 (input byte") {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(out); string(got) != "old contents" {
		t.Errorf("the existing output file was changed to %d bytes", len(got))
	}
	wantOnly(t, dir, "out.avro")
}

// TestEncodeSkipBad skips bad delimited records, copies them to the
// rejects file, and writes the good ones.
func TestEncodeSkipBad(t *testing.T) {
	t.Parallel()
	_, recs := readSample(t)
	bad := map[int][]byte{
		3:   badRecord,
		500: {3, 0x08, 0x01, 0x00}, // field number 0
		999: {3, 0x80, 0x01, 0x00}, // field 16 (enum) with the unknown number 0
	}
	var input, wantRejects, wantGood []byte
	for i, r := range recs {
		if b, ok := bad[i]; ok {
			input = append(input, b...)
			wantRejects = append(wantRejects, b...)
			continue
		}
		input = append(input, r...)
		wantGood = append(wantGood, r...)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.avro")
	rejects := filepath.Join(dir, "rejects.delimited")
	r := runIO(t, input, encodeArgs("--out", out, "--skip-bad", "--rejects", rejects, "--block-size", "2K", "--workers", "4", "--codec", "zstd")...)
	if r.code != 0 {
		t.Fatalf("exit code %d: %s", r.code, r.stderr)
	}
	m := encodeSummary.FindStringSubmatch(r.stderr)
	if m == nil || m[1] != "997" || m[9] != "3" || !strings.Contains(r.stderr, "(written to "+rejects+"); first: record 3 (input byte ") {
		t.Errorf("summary = %q, want 997 records encoded, 3 skipped, the rejects file and the first error", r.stderr)
	}
	got, err := os.ReadFile(rejects)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, wantRejects) {
		t.Errorf("rejects = %x, want %x", got, wantRejects)
	}
	dec := runIO(t, nil, "decode", "--in", out)
	if dec.code != 0 || dec.stdout != string(wantGood) {
		t.Errorf("decode: exit code %d, %s; output equal to the good records: %v", dec.code, dec.stderr, dec.stdout == string(wantGood))
	}
	wantOnly(t, dir, "out.avro", "rejects.delimited")

	// Without --rejects the bad records are only counted.
	r = runIO(t, input, encodeArgs("--skip-bad")...)
	if m := encodeSummary.FindStringSubmatch(r.stderr); r.code != 0 || m == nil || m[1] != "997" || m[9] != "3" {
		t.Errorf("--skip-bad without --rejects: exit code %d, stderr %q", r.code, r.stderr)
	}
}

// TestEncodeSkipBadJSONL skips bad JSON lines and copies them, as they
// were, to the rejects file.
func TestEncodeSkipBadJSONL(t *testing.T) {
	t.Parallel()
	lines := sampleJSONL(t) // in two batches of the parsing workers
	badLines := map[int]string{
		0:   `{"int32": "one"}`,
		17:  `{"int32":1,"enum":7}`,
		600: `{"int32":1,"foo":{}}`,
		999: `not json`,
	}
	var input, wantRejects []string
	var wantGood []byte
	_, recs := readSample(t)
	for i, l := range lines {
		if b, ok := badLines[i]; ok {
			input = append(input, b)
			wantRejects = append(wantRejects, b+"\n")
			continue
		}
		input = append(input, l)
		wantGood = append(wantGood, recs[i]...)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.avro")
	rejects := filepath.Join(dir, "rejects.jsonl")
	// The last line has no newline; its copy in the rejects file gets one.
	r := runIO(t, []byte(strings.Join(input, "\n")), encodeArgs("--format", "jsonl", "--out", out, "--skip-bad", "--rejects", rejects)...)
	if m := encodeSummary.FindStringSubmatch(r.stderr); r.code != 0 || m == nil || m[1] != "996" || m[9] != "4" ||
		!strings.Contains(r.stderr, "first: record 0 (line 1, input byte 0): ") {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	got, err := os.ReadFile(rejects)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != strings.Join(wantRejects, "") {
		t.Errorf("rejects = %q, want %q", got, strings.Join(wantRejects, ""))
	}
	dec := runIO(t, nil, "decode", "--in", out)
	if dec.code != 0 || dec.stdout != string(wantGood) {
		t.Errorf("decode: exit code %d, %s; output equal to the good records: %v", dec.code, dec.stderr, dec.stdout == string(wantGood))
	}
}

// TestDecodeErrors checks that a damaged container file stops decode with
// exit status 1 and one line, and leaves no output file behind.
func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := encodeSample(t, dir, "good.avro", "--block-size", "16K")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	ends := syncEnds(data)
	headerEnd, firstSync, secondSync := ends[0], ends[1]-16, ends[2]-16
	badSync := slices.Clone(data)
	badSync[secondSync+5] ^= 0xff
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"bad sync marker", badSync, fmt.Sprintf("container block 1 at byte %d: malformed input: sync marker", firstSync+16)},
		{"truncated block", data[:secondSync-100], fmt.Sprintf("container block 1 at byte %d: truncated input: block claims", firstSync+16)},
		{"truncated sync marker", data[:len(data)-3], "truncated input: sync marker"},
		{"truncated header", data[:headerEnd-20], "container header"},
		{"not a container", []byte("hello, world"), "not an Avro container file"},
		{"empty", nil, "not an Avro container file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			in := filepath.Join(dir, "in.avro")
			if err := os.WriteFile(in, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"delimited", "jsonl"} {
				r := runIO(t, nil, "decode", "--in", in, "--out", filepath.Join(dir, "out"), "--format", format)
				if r.code != 1 {
					t.Errorf("%s: exit code = %d, want 1", format, r.code)
				}
				if !strings.HasPrefix(r.stderr, "protoavro: "+in+": ") || !strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
					t.Errorf("%s: stderr = %q, want one line containing %q", format, r.stderr, tt.want)
				}
				wantOnly(t, dir, "in.avro")
			}
			r := runIO(t, nil, "inspect", in)
			if r.code != 1 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("inspect: exit code %d, stderr %q", r.code, r.stderr)
			}
		})
	}
}

// TestStreamUsageErrors checks the command-line errors of encode, decode
// and inspect: exit status 2, one line, no output.
func TestStreamUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out.avro")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"rejects without skip-bad", encodeArgs("--rejects", filepath.Join(dir, "r")), "--rejects needs --skip-bad"},
		{"bad codec", encodeArgs("--codec", "lz4"), `invalid value "lz4" for flag --codec: want null, deflate, snappy or zstd`},
		{"bad format", encodeArgs("--format", "csv"), `invalid value "csv" for flag --format: want delimited or jsonl`},
		{"zero workers", encodeArgs("--workers", "0"), `invalid value "0" for flag --workers`},
		{"bad block size", encodeArgs("--block-size", "1G"), `invalid value "1G" for flag --block-size`},
		{"missing input", encodeArgs("--in", filepath.Join(dir, "nope")), "--in: open "},
		{"input is a directory", encodeArgs("--in", dir), "is a directory"},
		{"output is a directory", encodeArgs("--out", dir), "is a directory"},
		{"output directory missing", encodeArgs("--out", filepath.Join(dir, "no", "such", "dir", "x.avro")),
			"--out " + filepath.Join(dir, "no", "such", "dir", "x.avro") + ": cannot create a file in " + filepath.Join(dir, "no", "such", "dir") + ": no such file or directory"},
		{"rejects directory missing", encodeArgs("--skip-bad", "--rejects", filepath.Join(dir, "none", "r.bin")),
			"--rejects " + filepath.Join(dir, "none", "r.bin") + ": cannot create a file in " + filepath.Join(dir, "none") + ": no such file or directory"},
		{"huge workers", encodeArgs("--workers", "99999999999"), `invalid value "99999999999" for flag --workers: want an integer from 1 to 1024`},
		{"decode huge workers", []string{"decode", "--workers", "1025"}, `invalid value "1025" for flag --workers: want an integer from 1 to 1024`},
		{"rejects is the output", encodeArgs("--out", out, "--skip-bad", "--rejects", out), "name the same file"},
		{"no -m", []string{"encode", "-I", "../../testdata/proto", "avro2147.proto"}, "missing -m"},
		{"decode unknown message", []string{"decode", "-I", "../../testdata/proto", "-m", "protoavro.avro2147.Fo", "avro2147.proto"}, `unknown message "protoavro.avro2147.Fo"`},
		{"decode bad format", []string{"decode", "--format", "xml"}, `invalid value "xml" for flag --format`},
		{"inspect without file", []string{"inspect"}, "inspect takes one or more files, got 0"},
		{"inspect two missing files", []string{"inspect", "a", "b"}, "open a: no such file"},
		{"inspect missing file", []string{"inspect", filepath.Join(dir, "nope.avro")}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runIO(t, nil, tt.args...)
			if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("exit code %d, stdout %q, stderr %q; want 2 and one line containing %q", r.code, r.stdout, r.stderr, tt.want)
			}
		})
	}
	wantOnly(t, dir)
}

func TestStreamHelp(t *testing.T) {
	t.Parallel()
	if !strings.Contains(decodeUsage, "Optional: without it the type embedded") || strings.Contains(decodeUsage, "Required.") {
		t.Errorf("decode usage does not say that -m is optional:\n%s", decodeUsage)
	}
	for _, c := range []*command{encodeCommand, decodeCommand, inspectCommand} {
		r := runCmd(t, c.name, "-h")
		if r.code != 0 || r.stderr != "" || r.stdout != c.usage {
			t.Errorf("%s -h: exit code %d, stderr %q, stdout:\n%s", c.name, r.code, r.stderr, r.stdout)
		}
		if top := runCmd(t, "-h"); !strings.Contains(top.stdout, "  "+c.name+" ") {
			t.Errorf("top-level usage does not list %s:\n%s", c.name, top.stdout)
		}
	}
}

// TestEncodeInterrupted cancels a run: it fails and leaves no file.
func TestEncodeInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := runContext(ctx, encodeArgs("--in", sampleFile, "--out", filepath.Join(dir, "out.avro")), nil, &stdout, &stderr)
	if code != 1 || stderr.String() != "protoavro: interrupted\n" {
		t.Errorf("exit code %d, stderr %q", code, stderr.String())
	}
	wantOnly(t, dir)
}

// slowReader delays its first read, so that a progress display has time
// to draw.
type slowReader struct {
	r     io.Reader
	delay time.Duration
	slept bool
}

func (s *slowReader) Read(p []byte) (int, error) {
	if !s.slept {
		time.Sleep(s.delay)
		s.slept = true
	}
	return s.r.Read(p)
}

// TestProgress forces the progress display on a non-terminal, where it
// prints full lines, and checks the summary still ends the output.
func TestProgress(t *testing.T) {
	// Not parallel: it shortens the refresh interval for this test only.
	old := logRefresh
	logRefresh = 5 * time.Millisecond
	defer func() { logRefresh = old }()
	sample, _ := readSample(t)
	var stdout, stderr bytes.Buffer
	code := run(encodeArgs("--progress"), &slowReader{r: bytes.NewReader(sample), delay: 50 * time.Millisecond}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("want progress lines before the summary, got:\n%s", stderr.String())
	}
	for _, l := range lines[:len(lines)-1] {
		if !regexp.MustCompile(`^protoavro: encoding: \d+ records, \d+(\.\d)? (B|KiB|MiB), \d+(\.\d)? (B|KiB|MiB)/s$`).MatchString(l) {
			t.Errorf("progress line %q", l)
		}
	}
	if !encodeSummary.MatchString(lines[len(lines)-1] + "\n") {
		t.Errorf("last line %q is not the summary", lines[len(lines)-1])
	}
}

// TestProgressLine checks the rendering of the progress display.
func TestProgressLine(t *testing.T) {
	t.Parallel()
	p := &progress{verb: "encoding", size: 100 << 20}
	p.update(120000, 25<<20)
	want := "protoavro: encoding: 120000 records, 25.0 MiB of 100.0 MiB (25%), 12.5 MiB/s, ETA 6s"
	if got := p.line(2 * time.Second); got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
	p = &progress{verb: "decoding", size: -1}
	p.update(7, 1500)
	want = "protoavro: decoding: 7 records, 1.5 KiB, 750 B/s"
	if got := p.line(2 * time.Second); got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 12_600: "12.3 KiB", 5 << 30: "5.0 GiB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// wantInOutput reports each of wants that the output of cmd lacks.
func wantInOutput(t *testing.T, cmd, output string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(output, want) {
			t.Errorf("%s output lacks %q:\n%s", cmd, want, output)
		}
	}
}

package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro"
)

// TestMain runs the program itself when PROTOAVRO_TEST_MAIN is set, so
// that tests can run it as a process (signals, closed pipes).
func TestMain(m *testing.M) {
	if os.Getenv("PROTOAVRO_TEST_MAIN") == "1" {
		os.Args = append([]string{"protoavro"}, os.Args[1:]...)
		main()
	}
	os.Exit(m.Run())
}

// wantRun checks a run's exit code and that stderr is one line containing want.
func wantRun(t *testing.T, r result, code int, want string) {
	t.Helper()
	if r.code != code || !strings.Contains(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("exit code %d, stderr %q; want %d and one line containing %q", r.code, r.stderr, code, want)
	}
}

// encodeSample encodes the sample into dir/name with extra flags.
func encodeSample(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	r := runIO(t, nil, encodeArgs(append([]string{"--in", sampleFile, "--out", out}, args...)...)...)
	if r.code != 0 {
		t.Fatalf("encode: exit code %d: %s", r.code, r.stderr)
	}
	return out
}

func TestRepeatedFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{encodeArgs("--codec", "zstd", "--codec", "null"), "--codec given twice; it takes one value"},
		{encodeArgs("--codec=zstd", "--codec=zstd"), "--codec given twice"},
		{[]string{"schema", "-m", "a.B", "--message", "a.C", "x.proto"}, "-m given twice"},
		{encodeArgs("--skip-bad", "--skip-bad"), "--skip-bad given twice"},
		{encodeArgs("--out", "a", "--out", "b"), "--out given twice"},
		{[]string{"inspect", "--json", "--json", "x"}, "--json given twice"},
	}
	for _, tt := range tests {
		wantRun(t, runIO(t, nil, tt.args...), 2, tt.want)
	}
	// Repeatable flags repeat.
	dir := t.TempDir()
	r := runIO(t, nil, "encode", "-I", "nowhere", "-I", "../../testdata/proto", "-m", "protoavro.avro2147.Foo", "avro2147.proto",
		"--in", sampleFile, "--in", sampleFile, "--out", filepath.Join(dir, "x.avro"))
	wantRun(t, r, 0, "encoded 2000 records")
}

func TestFlagStyle(t *testing.T) {
	t.Parallel()
	wantRun(t, runIO(t, nil, encodeArgs("--frob")...), 2, "flag provided but not defined: --frob")
	wantRun(t, runIO(t, nil, encodeArgs("-frob")...), 2, "flag provided but not defined: --frob")
	wantRun(t, runIO(t, nil, encodeArgs("--codec")...), 2, "flag needs an argument: --codec")
	wantRun(t, runIO(t, nil, "schema", "-m"), 2, "flag needs an argument: -m ")
	for _, c := range commands {
		if regexp.MustCompile(`(?m)^  -[a-z][a-z]`).MatchString(c.usage) {
			t.Errorf("%s help spells a long flag with one dash", c.name)
		}
	}
}

func TestHints(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{
		"a.proto":               "syntax = \"proto3\";\npackage h;\nimport \"common/c.proto\";\nmessage A { common.C c = 1; }\nenum E { E_0 = 0; }\nservice S {}\n",
		"protos/common/c.proto": "syntax = \"proto3\";\npackage common;\nmessage C { string x = 1; }\n",
	})
	a := filepath.Join(dir, "a.proto")
	protos := filepath.Join(dir, "protos")
	wantRun(t, runIO(t, nil, "schema", "-I", dir, "-m", "h.A", a), 2, "common/c.proto: no such file or directory (add -I "+protos+": it holds common/c.proto)")
	wantRun(t, runIO(t, nil, "schema", "-I", dir, "-I", protos, "-m", "h.E", a), 2, "-m h.E is an enum, not a message")
	wantRun(t, runIO(t, nil, "schema", "-I", dir, "-I", protos, "-m", "h.S", a), 2, "-m h.S is a service, not a message")
	// A descriptor set without its imports, as protoc -o writes it.
	set := filepath.Join(dir, "a.pb")
	writeFiles(t, protos, map[string]string{"a.proto": "syntax = \"proto3\";\npackage h;\nimport \"common/c.proto\";\nmessage A { common.C c = 1; }\n"})
	if err := os.WriteFile(set, compileSet(t, protos, "a.proto"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRun(t, runIO(t, nil, "schema", "--descriptor-set", set, "-m", "h.A"), 2,
		`could not resolve import "common/c.proto": not found (the set lacks common/c.proto: make it with protoc --include_imports`)
}

func TestFormatSniffing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lines := strings.Join(sampleJSONL(t), "\n") + "\n"
	jsonl := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(jsonl, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	// Without --format, JSON Lines are told apart from delimited input.
	out := filepath.Join(dir, "out.avro")
	wantRun(t, runIO(t, nil, encodeArgs("--in", jsonl, "--out", out)...), 0, "encoded 1000 records")
	r := runIO(t, nil, "decode", out)
	sample, _ := readSample(t)
	if r.code != 0 || r.stdout != string(sample) {
		t.Errorf("decode of the sniffed JSON Lines: exit code %d, %s", r.code, r.stderr)
	}
	// With the wrong --format, the error says which format the input looks like.
	wantRun(t, runIO(t, nil, encodeArgs("--in", jsonl, "--out", out, "--format", "delimited")...), 1,
		"(the input looks like JSON Lines: give --format jsonl)")
	wantRun(t, runIO(t, nil, encodeArgs("--in", sampleFile, "--out", out, "--format", "jsonl")...), 1,
		"(the input looks like binary protobuf, not JSON: give --format delimited)")
}

// terminalReader is standard input that says it is a terminal.
type terminalReader struct{ io.Reader }

func (terminalReader) IsTerminal() bool { return true }

func TestStdinTerminalNotice(t *testing.T) {
	t.Parallel()
	sample, _ := readSample(t)
	var stdout, stderr bytes.Buffer
	code := run(encodeArgs("--out", filepath.Join(t.TempDir(), "x.avro")), terminalReader{bytes.NewReader(sample)}, &stdout, &stderr)
	if code != 0 || !strings.HasPrefix(stderr.String(), "protoavro: reading standard input (end it with Ctrl-D, or give a file)\n") {
		t.Errorf("exit code %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	if code := run(encodeArgs("--out", filepath.Join(t.TempDir(), "x.avro")), bytes.NewReader(sample), &stdout, &stderr); code != 0 || strings.Contains(stderr.String(), "reading standard input") {
		t.Errorf("not a terminal: exit code %d, stderr %q", code, stderr.String())
	}
}

func TestManyInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sample, recs := readSample(t)
	parts := []string{filepath.Join(dir, "p1.bin"), filepath.Join(dir, "p2.bin"), filepath.Join(dir, "p3.bin")}
	for i, p := range parts {
		if err := os.WriteFile(p, slices.Concat(recs[i*300:min(1000, (i+1)*300)]...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The last records, positional, gzip-compressed.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(slices.Concat(recs[900:]...))
	zw.Close()
	last := filepath.Join(dir, "z-last.gz")
	if err := os.WriteFile(last, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.avro")
	r := runIO(t, nil, encodeArgs("--in", parts[0], "--in", filepath.Join(dir, "p[23].bin"), last, "--out", out)...)
	wantRun(t, r, 0, "encoded 1000 records")
	// decode takes the container file as a positional argument, without -m.
	r = runIO(t, nil, "decode", out)
	if r.code != 0 || r.stdout != string(sample) {
		t.Errorf("decode: exit code %d, %s; output equal: %v", r.code, r.stderr, r.stdout == string(sample))
	}
	// Two container files, one zstd-compressed, into one stream.
	var zs bytes.Buffer
	data, _ := os.ReadFile(out)
	zenc, _ := zstd.NewWriter(&zs)
	zenc.Write(data)
	zenc.Close()
	outZ := filepath.Join(dir, "out.avro.zst")
	if err := os.WriteFile(outZ, zs.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runIO(t, nil, "decode", out, "--in", outZ, "--format", "jsonl")
	if r.code != 0 || strings.Count(r.stdout, "\n") != 2000 || !strings.Contains(r.stderr, "decoded 2000 records") {
		t.Errorf("decode of two files: exit code %d, %d lines, %s", r.code, strings.Count(r.stdout, "\n"), r.stderr)
	}
	// An error in the second input names it, with the index in that input.
	bad := filepath.Join(dir, "bad.bin")
	if err := os.WriteFile(bad, slices.Concat(recs[0], recs[1], badRecord), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRun(t, runIO(t, nil, encodeArgs("--in", parts[0], "--in", bad, "--out", out)...), 1, bad+": record 2 (input byte ")
	wantRun(t, runIO(t, nil, encodeArgs("--in", filepath.Join(dir, "nomatch*"), "--out", out)...), 2, "nomatch*: no file matches")
	wantRun(t, runIO(t, nil, encodeArgs("--in", "-", "--in", parts[0], "--out", out)...), 2, "standard input (-) cannot be combined with files")
}

func TestSharding(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runIO(t, nil, encodeArgs("--in", sampleFile, "--out", filepath.Join(dir, "part-%03d.avro"), "--shard-records", "300", "--block-size", "8K")...)
	wantRun(t, r, 0, "encoded 1000 records")
	if !strings.Contains(r.stderr, ", 4 shards)") {
		t.Errorf("summary %q", r.stderr)
	}
	wantOnly(t, dir, "part-000.avro", "part-001.avro", "part-002.avro", "part-003.avro")
	sample, _ := readSample(t)
	var all []byte
	for i, n := range []int{300, 300, 300, 100} {
		shard := filepath.Join(dir, fmt.Sprintf("part-%03d.avro", i))
		ri := runIO(t, nil, "inspect", shard)
		if ri.code != 0 || !strings.Contains(ri.stdout, fmt.Sprintf("records:     %d\n", n)) {
			t.Errorf("shard %d: exit code %d, %s%s", i, ri.code, ri.stdout, ri.stderr)
		}
		rd := runIO(t, nil, "decode", shard)
		all = append(all, rd.stdout...)
	}
	if string(all) != string(sample) {
		t.Errorf("the shards do not decode to the sample")
	}
	// By size, with the default naming.
	dir2 := t.TempDir()
	r = runIO(t, nil, encodeArgs("--in", sampleFile, "--out", filepath.Join(dir2, "s.avro"), "--shard-size", "64K", "--block-size", "16K", "--workers", "1")...)
	wantRun(t, r, 0, "encoded 1000 records")
	files := testutil.DirNames(t, dir2)
	if len(files) < 3 || files[0] != "s-00000.avro" {
		t.Errorf("shards by size: %v", files)
	}
	var total int
	for _, f := range files {
		ri := runIO(t, nil, "inspect", "--json", filepath.Join(dir2, f))
		var n int
		fmt.Sscanf(ri.stdout[strings.Index(ri.stdout, `"records":`)+10:], "%d", &n)
		total += n
	}
	if total != 1000 {
		t.Errorf("shards by size hold %d records", total)
	}
	wantRun(t, runIO(t, nil, encodeArgs("--in", sampleFile, "--shard-records", "10")...), 2, "--shard-records and --shard-size need --out FILE")
	wantRun(t, runIO(t, nil, encodeArgs("--in", sampleFile, "--shard-records", "10", "--out", filepath.Join(dir2, "p-%s.avro"))...), 2, "want one integer verb for the shard number")
	// A failed run leaves no shard behind.
	bad := filepath.Join(dir2, "bad.bin")
	_, recs := readSample(t)
	os.WriteFile(bad, slices.Concat(slices.Concat(recs[:500]...), badRecord), 0o644)
	dir3 := t.TempDir()
	wantRun(t, runIO(t, nil, encodeArgs("--in", bad, "--out", filepath.Join(dir3, "p.avro"), "--shard-records", "100")...), 1, "record 500")
	wantOnly(t, dir3)
}

func TestDescriptorsFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sizes := map[string]int{}
	for _, mode := range []string{"full", "stripped", "minimal", "none"} {
		out := encodeSample(t, dir, mode+".avro", "--descriptors", mode)
		ri := runIO(t, nil, "inspect", "--json", out)
		m := regexp.MustCompile(`"protoavro.descriptors":\{"size":(\d+)`).FindStringSubmatch(ri.stdout)
		if m != nil {
			fmt.Sscan(m[1], new(int))
			var n int
			fmt.Sscan(m[1], &n)
			sizes[mode] = n
		}
		r := runIO(t, nil, "decode", out)
		if mode == "none" {
			wantRun(t, r, 2, "has no embedded protobuf type (it was written with encode --descriptors none, or by another program): give its message type with -m")
			r = runIO(t, nil, append([]string{"decode", out}, typeArgs...)...)
		}
		if r.code != 0 {
			t.Errorf("%s: decode: %s", mode, r.stderr)
		}
	}
	// The test protos have no comments on Foo's file worth keeping apart,
	// but minimal drops nothing Foo needs and none drops all.
	if sizes["none"] != 0 || sizes["minimal"] == 0 || sizes["minimal"] > sizes["stripped"] || sizes["stripped"] > sizes["full"] {
		t.Errorf("descriptor sizes %v", sizes)
	}
	wantRun(t, runIO(t, nil, encodeArgs("--descriptors", "some")...), 2, `invalid value "some" for flag --descriptors: want stripped, full, minimal or none`)
}

func TestInspectJSONAndSeveralFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := encodeSample(t, dir, "a.avro", "--codec", "deflate")
	b := encodeSample(t, dir, "b.avro")
	r := runIO(t, nil, "inspect", "--json", filepath.Join(dir, "*.avro"))
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.Contains(lines[0], `"file":"`+a+`"`) || !strings.Contains(lines[1], `"file":"`+b+`"`) ||
		!strings.Contains(lines[0], `"codec":"deflate"`) || !strings.Contains(lines[0], `"records":1000`) || strings.Contains(r.stdout, `"schema":`) {
		t.Errorf("inspect --json: exit code %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runIO(t, nil, "inspect", "--json", "--schema", a)
	if !strings.Contains(r.stdout, `"schema":{"name":"protoavro.avro2147.Foo","type":"record"`) {
		t.Errorf("inspect --json --schema lacks the schema:\n%s", r.stdout)
	}
	r = runIO(t, nil, "inspect", a, b)
	if r.code != 0 || strings.Count(r.stdout, "file:  ") != 2 || strings.Contains(r.stdout, "avro.schema:\n") {
		t.Errorf("inspect of two files:\n%s", r.stdout)
	}
	// A damaged file among sound ones: all are described, exit 1.
	damaged := filepath.Join(dir, "damaged.avro")
	data, _ := os.ReadFile(b)
	os.WriteFile(damaged, data[:len(data)-100], 0o644)
	r = runIO(t, nil, "inspect", "--json", a, damaged)
	if r.code != 1 || strings.Count(r.stdout, "\n") != 2 || !strings.Contains(r.stdout, `"error":"`+damaged) {
		t.Errorf("inspect with a damaged file: exit code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// openDevice opens the device file name with flag, closed when the test
// ends, or skips the test when it cannot.
func openDevice(t *testing.T, name string, flag int) *os.File {
	t.Helper()
	f, err := os.OpenFile(name, flag, 0)
	if err != nil {
		t.Skipf("cannot open %s: %v", name, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestFullDisk(t *testing.T) {
	t.Parallel()
	full := openDevice(t, "/dev/full", os.O_WRONLY)
	wantRun(t, runIO(t, nil, encodeArgs("--in", sampleFile, "--out", "/dev/full")...), 1, "write /dev/full: no space left on device")
	// Standard output on /dev/full: a character device, not a terminal.
	var stderr bytes.Buffer
	code := run(encodeArgs("--in", sampleFile), strings.NewReader(""), full, &stderr)
	wantRun(t, result{code: code, stderr: stderr.String()}, 1, "write standard output: no space left on device")
	avro := encodeSample(t, t.TempDir(), "x.avro")
	stderr.Reset()
	code = run([]string{"decode", avro}, strings.NewReader(""), full, &stderr)
	wantRun(t, result{code: code, stderr: stderr.String()}, 1, "write standard output: no space left on device")
	// Every command that prints, help included, fails when what it
	// prints cannot be written, and names standard output the same way
	// (not by the file it is on, such as /dev/stdout). count prints
	// little, but a count that was not written is a failure.
	for _, args := range [][]string{
		{"count", avro}, {"count", avro, avro},
		{"getschema", avro}, {"getmeta", avro}, {"getmeta", "--key", "avro.codec", avro},
		{"tojson", avro}, {"inspect", avro}, {"inspect", "--json", avro},
		append([]string{"schema"}, typeArgs...), append([]string{"schema", "--fingerprint"}, typeArgs...),
		{"version"}, {"--help"}, {"help", "encode"}, {"cat", "-h"},
	} {
		stderr.Reset()
		code = run(args, strings.NewReader(""), full, &stderr)
		if got, want := stderr.String(), "protoavro: write standard output: no space left on device\n"; code != 1 || got != want {
			t.Errorf("%q on a full disk: exit code %d, stderr %q; want 1 and %q", args, code, got, want)
		}
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("stderr is gone") }

func TestSummaryWriteFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code := run(encodeArgs("--in", sampleFile, "--out", filepath.Join(dir, "x.avro")), strings.NewReader(""), io.Discard, failingWriter{})
	if code != 1 {
		t.Errorf("encode with a failing summary: exit code %d, want 1", code)
	}
	code = run([]string{"decode", filepath.Join(dir, "x.avro")}, strings.NewReader(""), io.Discard, failingWriter{})
	if code != 1 {
		t.Errorf("decode with a failing summary: exit code %d, want 1", code)
	}
	// The commands of avro-tools that print a summary, and schema --out-dir.
	avro := filepath.Join(dir, "x.avro")
	schema := filepath.Join(dir, "x.avsc")
	if r := runIO(t, nil, "getschema", avro); r.code != 0 || os.WriteFile(schema, []byte(r.stdout), 0o644) != nil {
		t.Fatalf("getschema: exit code %d: %s", r.code, r.stderr)
	}
	for _, args := range [][]string{
		{"cat", "--out", filepath.Join(dir, "cat.avro"), avro},
		{"concat", "--out", filepath.Join(dir, "concat.avro"), avro},
		{"fromjson", "--schema", schema, "--out", filepath.Join(dir, "fromjson.avro")},
		append([]string{"schema", "--out-dir", filepath.Join(dir, "schemas")}, typeArgs...),
	} {
		if code := run(args, strings.NewReader(""), io.Discard, failingWriter{}); code != 1 {
			t.Errorf("%s with a failing summary: exit code %d, want 1", args[0], code)
		}
	}
}

// TestClosedPipe runs the program with standard output on a pipe whose
// reader is closed: it must not die of SIGPIPE, but exit 1 with one line.
func TestClosedPipe(t *testing.T) {
	t.Parallel()
	avro := encodeSample(t, t.TempDir(), "x.avro")
	for _, args := range [][]string{{"decode", avro}, encodeArgs("--in", sampleFile)} {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		pr.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, os.Args[0], args...)
		cmd.Env = append(os.Environ(), "PROTOAVRO_TEST_MAIN=1")
		cmd.Stdout = pw
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err = cmd.Run()
		pw.Close()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("%s: %v (want exit status 1, not a signal)", args[0], err)
		}
		if !strings.Contains(stderr.String(), "write standard output: broken pipe (the reading end was closed)") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%s: stderr %q", args[0], stderr.String())
		}
	}
}

// syncEnds returns where the sync markers of the container file data end:
// the end of its header, then of each block. The marker is the file's last
// 16 bytes, and found by search (it is unlikely to stand in a block's data).
func syncEnds(data []byte) []int {
	sync := data[len(data)-16:]
	var ends []int
	for i := 0; ; {
		j := bytes.Index(data[i:], sync)
		if j < 0 {
			return ends
		}
		i += j + 16
		ends = append(ends, i)
	}
}

func TestDecodeSkipBad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := encodeSample(t, dir, "good.avro", "--block-size", "16K")
	data, _ := os.ReadFile(good)
	ends := syncEnds(data)[1:] // the end of each block
	if len(ends) < 5 {
		t.Fatalf("%d blocks", len(ends))
	}
	// Damage the sync marker after block 1: blocks 1 and 2 are lost.
	damaged := slices.Clone(data)
	damaged[ends[1]-5] ^= 0xff
	in := filepath.Join(dir, "damaged.avro")
	os.WriteFile(in, damaged, 0o644)
	wantRun(t, runIO(t, nil, "decode", in), 1, "sync marker")
	rejects := filepath.Join(dir, "rejects.bin")
	r := runIO(t, nil, "decode", in, "--skip-bad", "--rejects", rejects)
	wantRun(t, r, 0, "0 records, 1 damaged block (records not counted) and ")
	_, recs := readSample(t)
	m := regexp.MustCompile(`decoded (\d+) records`).FindStringSubmatch(r.stderr)
	var n int
	fmt.Sscan(m[1], &n)
	got := splitDelimited(t, []byte(r.stdout))
	if n != len(got) || n >= 1000 || n < 1000-3*len(recs)/len(ends)-50 {
		t.Errorf("decoded %d records, output has %d", n, len(got))
	}
	// What was decoded is the sample without the lost blocks, in order.
	if !bytes.Equal(slices.Concat(got[:10]...), slices.Concat(recs[:10]...)) || !bytes.Equal(got[len(got)-1], recs[999]) {
		t.Errorf("salvaged records are not the sample's")
	}
	if st, err := os.Stat(rejects); err != nil || st.Size() == 0 {
		t.Errorf("rejects: %v", err)
	}
	// A record that does not decode: the rest of its block is skipped.
	bad := slices.Clone(data)
	for i := ends[2] + 100; i < ends[2]+140; i++ {
		bad[i] = 0xff
	}
	os.WriteFile(in, bad, 0o644)
	r = runIO(t, nil, "decode", in, "--skip-bad", "--format", "jsonl")
	if r.code != 0 || !regexp.MustCompile(`; [1-9]\d* records, 0 damaged blocks and .* skipped; first: `).MatchString(r.stderr) {
		t.Errorf("bad record: exit code %d, stderr %q", r.code, r.stderr)
	}
	wantRun(t, runIO(t, nil, "decode", in, "--rejects", rejects), 2, "--rejects needs --skip-bad")
}

// TestDecodeSkipBadWorkers salvages a file damaged in three places (a
// record, a sync marker, the data of a deflate block) with 1 and 3
// workers, in both output formats: the same records, the same rejects and
// the same summary; the workers decode in parallel with --skip-bad too.
func TestDecodeSkipBadWorkers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := encodeSample(t, dir, "good.avro", "--block-size", "8K", "--codec", "deflate")
	data, _ := os.ReadFile(good)
	ends := syncEnds(data)[1:] // the end of each block
	if len(ends) < 8 {
		t.Fatalf("%d blocks", len(ends))
	}
	damaged := slices.Clone(data)
	damaged[ends[1]-5] ^= 0xff            // block 1's sync marker: blocks 1 and 2 are lost
	damaged[ends[4]+8] ^= 0xff            // the deflate data of block 5
	damaged[ends[len(ends)-2]-40] ^= 0xff // the data of the last block
	in := filepath.Join(dir, "damaged.avro")
	if err := os.WriteFile(in, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	// The summary without its time.
	summary := regexp.MustCompile(`^protoavro: (decoded \d+ records \([^)]*\)) in [^;]*(; .* skipped .*; first: .*)\n$`)
	norm := func(stderr string) string {
		m := summary.FindStringSubmatch(stderr)
		if m == nil {
			return ""
		}
		return m[1] + m[2]
	}
	for _, format := range []string{"delimited", "jsonl"} {
		var want result
		var wantRejects []byte
		for _, workers := range []string{"1", "3"} {
			rejects := filepath.Join(dir, "rejects")
			r := runIO(t, nil, "decode", in, "--skip-bad", "--rejects", rejects, "--format", format, "--workers", workers)
			rej, err := os.ReadFile(rejects)
			if r.code != 0 || err != nil || len(rej) == 0 || norm(r.stderr) == "" {
				t.Fatalf("%s, --workers %s: exit code %d, stderr %q, rejects: %d bytes, %v", format, workers, r.code, r.stderr, len(rej), err)
			}
			if workers == "1" {
				want, wantRejects = r, rej
				continue
			}
			if r.stdout != want.stdout || !bytes.Equal(rej, wantRejects) || norm(r.stderr) != norm(want.stderr) {
				t.Errorf("%s: --workers 3 differs from --workers 1: %d bytes out, %d rejected, %q; want %d, %d, %q", format,
					len(r.stdout), len(rej), norm(r.stderr), len(want.stdout), len(wantRejects), norm(want.stderr))
			}
		}
	}
}

func TestOTLPHexIDs(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{"span.proto": `syntax = "proto3";
package otlp;
message Span { bytes trace_id = 1; bytes span_id = 2; bytes parent_span_id = 3; string name = 4; }
message Batch { repeated Span spans = 1; }
`})
	args := func(extra ...string) []string {
		return append([]string{"encode", "-I", dir, "-m", "otlp.Batch", "span.proto", "--out", filepath.Join(dir, "x.avro")}, extra...)
	}
	hexLine := `{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"a"}]}` + "\n"
	wantRun(t, runIO(t, []byte(hexLine), args()...), 1,
		`record 0 (line 1, input byte 0): field spans[0].trace_id holds 24 bytes, not 16: hex digits read as base64 (OTLP/JSON writes trace and span IDs as hex`)
	// A hex ID that is not valid base64 fails in protojson: the error says why.
	odd := `{"spans":[{"spanId":"eee19b7ec3c1b"}]}` + "\n" // 13 digits: not base64
	wantRun(t, runIO(t, []byte(odd), args()...), 1, "spanId")
	if r := runIO(t, []byte(odd), args()...); !strings.Contains(r.stderr, "(OTLP/JSON writes trace and span IDs as hex") {
		t.Errorf("no OTLP hint: %q", r.stderr)
	}
	// 15 hex digits are base64 of 11 bytes, no valid span ID either.
	wantRun(t, runIO(t, []byte(`{"spans":[{"parentSpanId":"eee19b7ec3c1b17"}]}`+"\n"), args()...), 1,
		`field spans[0].parent_span_id holds 11 bytes, not 8: hex digits read as base64`)
	// Base64 IDs, as protojson writes them, convert.
	b64 := `{"spans":[{"traceId":"W47/95gDgQPSabYzgT/GDA==","spanId":"7uGbfsPBsXQ=","name":"a"}]}` + "\n"
	wantRun(t, runIO(t, []byte(b64), args()...), 0, "encoded 1 record")
}

// TestContainerWriterOptionsReachTheFile checks that --descriptors
// reaches the writer: the file's descriptors read back.
func TestDescriptorsMinimalReadsBack(t *testing.T) {
	t.Parallel()
	out := encodeSample(t, t.TempDir(), "m.avro", "--descriptors", "minimal")
	f, _ := os.Open(out)
	defer f.Close()
	cr, err := protoavro.NewContainerReader(f, protoavro.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cr.MessageType().Descriptor().FullName() != "protoavro.avro2147.Foo" {
		t.Errorf("embedded type %s", cr.MessageType().Descriptor().FullName())
	}
}

// TestOTLPTracesJSON feeds OTLP/JSON as OpenTelemetry's exporters write it
// (IDs in hex) for the real TracesData message: the error names the span's
// field and says why; with the IDs in base64 the line converts.
func TestOTLPTracesJSON(t *testing.T) {
	t.Parallel()
	args := []string{"encode", "-I", "../../third_party/opentelemetry-proto", "-m", "opentelemetry.proto.trace.v1.TracesData",
		"opentelemetry/proto/trace/v1/trace.proto", "--out", filepath.Join(t.TempDir(), "x.avro")}
	line := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"checkout"}}]},` +
		`"scopeSpans":[{"scope":{"name":"otel"},"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174",` +
		`"name":"GET /cart","kind":2,"startTimeUnixNano":"1544712660000000000","endTimeUnixNano":"1544712661000000000"}]}]}]}` + "\n"
	wantRun(t, runIO(t, []byte(line), args...), 1,
		"field resource_spans[0].scope_spans[0].spans[0].trace_id holds 24 bytes, not 16: hex digits read as base64 (OTLP/JSON writes trace and span IDs as hex")
	b64 := strings.NewReplacer("5b8efff798038103d269b633813fc60c", "W47/95gDgQPSabYzgT/GDA==", "eee19b7ec3c1b174", "7uGbfsPBsXQ=").Replace(line)
	wantRun(t, runIO(t, []byte(b64), args...), 0, "encoded 1 record")
}

// TestShardingReplacesEarlierRun checks that the shards of a run replace
// those of an earlier run of the same --out: shards past the last one
// written are removed (so that a glob reads this run's records only),
// files named like shards that are not container files are kept with a
// warning, other names are left alone, and a failed run changes nothing.
func TestShardingReplacesEarlierRun(t *testing.T) {
	t.Parallel()
	sample, recs := readSample(t)
	for _, c := range []struct{ out, glob, name string }{
		{"s.avro", "s-*.avro", "s-%05d.avro"},
		// Glob metacharacters and a percent sign in the names.
		{"p[1]%%-%d.avro", "p[[]1]%-*.avro", "p[1]%%-%d.avro"},
	} {
		dir := t.TempDir()
		out := filepath.Join(dir, c.out)
		shard := func(i int) string { return filepath.Join(dir, fmt.Sprintf(c.name, i)) }
		wantRun(t, runIO(t, nil, encodeArgs("--in", sampleFile, "--out", out, "--shard-records", "100")...), 0, ", 10 shards)")
		// Beside the shards: a text file and a directory at shard names
		// past the next run's shards, and names that are no shard's.
		for _, f := range []string{shard(11), filepath.Join(dir, "s-0003.avro"), filepath.Join(dir, "s-x.avro")} {
			if err := os.WriteFile(f, []byte("not a shard"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Mkdir(shard(12), 0o755); err != nil {
			t.Fatal(err)
		}
		others := []string{filepath.Base(shard(11)), filepath.Base(shard(12)), "s-0003.avro", "s-x.avro"}
		r := runIO(t, nil, encodeArgs("--in", sampleFile, "--out", out, "--shard-records", "300")...)
		if r.code != 0 || !strings.Contains(r.stderr, ", 4 shards)") {
			t.Errorf("%s: exit code %d, stderr %q", c.out, r.code, r.stderr)
		}
		if want := fmt.Sprintf("; removed 6 shards of an earlier run (%s ... %s)\n", shard(4), shard(9)); !strings.HasSuffix(r.stderr, want) {
			t.Errorf("%s: summary %q, want it to end with %q", c.out, r.stderr, want)
		}
		for i, why := range map[int]string{11: "not an Avro container file", 12: "not a regular file"} {
			if want := fmt.Sprintf("protoavro: warning: kept %s (%s): it is named like a shard of --out %s, past this run's last one\n", shard(i), why, out); !strings.Contains(r.stderr, want) {
				t.Errorf("%s: stderr %q, want %q", c.out, r.stderr, want)
			}
		}
		names := []string{}
		for i := range 4 {
			names = append(names, filepath.Base(shard(i)))
		}
		wantOnly(t, dir, append(names, others...)...)
		// The container files a glob over the shards finds hold the
		// sample, once.
		matches, _ := filepath.Glob(filepath.Join(dir, c.glob))
		var found []string
		var all []byte
		for _, m := range matches {
			if !slices.Contains(others, filepath.Base(m)) {
				found = append(found, filepath.Base(m))
				all = append(all, runIO(t, nil, "decode", m).stdout...)
			}
		}
		if !slices.Equal(found, names) || !bytes.Equal(all, sample) {
			t.Errorf("%s: the glob %s finds %q; want %q, holding the sample", c.out, c.glob, found, names)
		}
		// A failed run changes nothing: no shard is removed or replaced.
		bad := filepath.Join(t.TempDir(), "bad.bin")
		os.WriteFile(bad, slices.Concat(slices.Concat(recs[:150]...), badRecord), 0o644)
		before, _ := os.ReadFile(shard(0))
		wantRun(t, runIO(t, nil, encodeArgs("--in", bad, "--out", out, "--shard-records", "50")...), 1, "record 150")
		wantOnly(t, dir, append(names, others...)...)
		if after, _ := os.ReadFile(shard(0)); !bytes.Equal(after, before) {
			t.Errorf("%s: a failed run changed %s", c.out, shard(0))
		}
		// One run of one shard removes all but the first.
		r = runIO(t, nil, encodeArgs("--in", sampleFile, "--out", out, "--shard-records", "1000")...)
		if want := fmt.Sprintf("; removed 3 shards of an earlier run (%s, %s, %s)\n", shard(1), shard(2), shard(3)); r.code != 0 || !strings.HasSuffix(r.stderr, want) {
			t.Errorf("%s: exit code %d, stderr %q, want it to end with %q", c.out, r.code, r.stderr, want)
		}
		wantOnly(t, dir, append([]string{filepath.Base(shard(0))}, others...)...)
	}
}

// TestShardingExactMultiple checks that a record count that fills the last
// shard exactly leaves no empty shard after it, by records and by size.
func TestShardingExactMultiple(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runIO(t, nil, encodeArgs("--in", sampleFile, "--out", filepath.Join(dir, "part-%d.avro"), "--shard-records", "500")...)
	wantRun(t, r, 0, "encoded 1000 records")
	if !strings.Contains(r.stderr, ", 2 shards)") {
		t.Errorf("summary %q, want 2 shards", r.stderr)
	}
	wantOnly(t, dir, "part-0.avro", "part-1.avro")
	// One record per shard by size: as many shards as records.
	dir2 := t.TempDir()
	_, recs := readSample(t)
	twenty := filepath.Join(t.TempDir(), "twenty.bin")
	os.WriteFile(twenty, slices.Concat(recs[:20]...), 0o644)
	r = runIO(t, nil, encodeArgs("--in", twenty, "--out", filepath.Join(dir2, "s-%02d.avro"), "--shard-size", "1", "--block-size", "1")...)
	wantRun(t, r, 0, ", 20 shards)")
	if files := testutil.DirNames(t, dir2); len(files) != 20 || files[19] != "s-19.avro" {
		t.Errorf("%d shards, the last %q", len(files), files[len(files)-1])
	}
	// An empty input still gives one (empty) shard.
	dir3 := t.TempDir()
	empty := filepath.Join(dir3, "empty.bin")
	os.WriteFile(empty, nil, 0o644)
	wantRun(t, runIO(t, nil, encodeArgs("--in", empty, "--out", filepath.Join(dir3, "e.avro"), "--shard-records", "10")...), 0, "encoded 0 records")
	wantOnly(t, dir3, "empty.bin", "e-00000.avro")
}

// TestTruncatedCompressedInput checks that a gzip or zstd input cut short
// is an error naming the file and saying that its compressed data ends
// early, for encode (delimited and JSON Lines) and decode, and that no
// output is left.
func TestTruncatedCompressedInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sample, _ := readSample(t)
	compress := map[string]func([]byte) []byte{
		"gzip": func(b []byte) []byte {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(b)
			zw.Close()
			return buf.Bytes()
		},
		"zstd": func(b []byte) []byte {
			zw, _ := zstd.NewWriter(nil)
			return zw.EncodeAll(b, nil)
		},
	}
	avro, _ := os.ReadFile(encodeSample(t, t.TempDir(), "s.avro"))
	jsonl := []byte(strings.Join(sampleJSONL(t), "\n") + "\n")
	out := filepath.Join(dir, "out")
	for name, z := range compress {
		for _, c := range []struct {
			what string
			data []byte
			args func(in string) []string
		}{
			{"delimited", sample, func(in string) []string { return encodeArgs("--in", in, "--out", out) }},
			{"jsonl", jsonl, func(in string) []string { return encodeArgs("--in", in, "--out", out) }},
			{"avro", avro, func(in string) []string { return []string{"decode", in, "--out", out} }},
		} {
			data := z(c.data)
			in := filepath.Join(dir, c.what+"."+name)
			if err := os.WriteFile(in, data[:len(data)/2], 0o644); err != nil {
				t.Fatal(err)
			}
			r := runIO(t, nil, c.args(in)...)
			wantRun(t, r, 1, "the "+name+" data ends early (truncated) after ")
			if !strings.HasPrefix(r.stderr, "protoavro: "+in+": ") || strings.Count(r.stderr, in) != 1 {
				t.Errorf("%s: the error does not name %s once, first: %q", c.what, in, r.stderr)
			}
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed run left %s", out)
	}
}

// TestSizeFlags checks the suffixes of --shard-size and --block-size, G
// among them, and that a size too large for the flag, or for an int, is a
// usage error that says so.
func TestSizeFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runIO(t, nil, encodeArgs("--in", sampleFile, "--out", filepath.Join(dir, "s.avro"), "--shard-size", "1G")...)
	wantRun(t, r, 0, "encoded 1000 records")
	wantOnly(t, dir, "s-00000.avro")
	for _, c := range []struct {
		v    string
		want int
	}{{"7", 7}, {"3k", 3 << 10}, {"3K", 3 << 10}, {"3KiB", 3 << 10}, {"2M", 2 << 20}, {"2MiB", 2 << 20}, {"1G", 1 << 30}, {"1GiB", 1 << 30}} {
		f := sizeFlag{min: 1, max: math.MaxInt}
		if err := f.Set(c.v); err != nil || f.n != c.want {
			t.Errorf("size %q = %d, %v; want %d", c.v, f.n, err, c.want)
		}
	}
	for _, c := range []struct{ flag, v, want string }{
		{"--shard-size", "8589934592G", `invalid value "8589934592G" for flag --shard-size: too large: at most 9223372036854775807 bytes (8388608.0 TiB)`},
		{"--shard-size", "99999999999999999999", `invalid value "99999999999999999999" for flag --shard-size: too large: at most 9223372036854775807 bytes`},
		{"--block-size", "1G", `invalid value "1G" for flag --block-size: too large: at most 67108864 bytes (64.0 MiB)`},
		{"--shard-size", "-1G", `invalid value "-1G" for flag --shard-size: want a size from 1 to 9223372036854775807 bytes, e.g. 262144, 256K, 1M or 1G`},
		{"--shard-size", "1T", `invalid value "1T" for flag --shard-size: want a size from 1`},
	} {
		wantRun(t, runIO(t, nil, encodeArgs("--in", sampleFile, "--out", filepath.Join(dir, "x.avro"), c.flag, c.v)...), 2, c.want)
	}
}

// TestTruncatedCompressedContainer checks the exact error of a gzip
// container file cut off mid-block, for every command that reads one: it
// names the file once (the container reader puts the read error inside its
// own message, which the command prefixes with the file's name).
func TestTruncatedCompressedContainer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	avro, _ := os.ReadFile(encodeSample(t, dir, "s.avro"))
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(avro)
	zw.Close()
	in := filepath.Join(dir, "cut.avro.gz")
	if err := os.WriteFile(in, buf.Bytes()[:buf.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^protoavro: ` + regexp.QuoteMeta(in) + `: container block 0 at byte \d+: the gzip data ends early \(truncated\) after \d+ decompressed bytes: unexpected EOF: block claims \d+ bytes, \d+ remain in the input( \(0 records before it\))?\n$`)
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"decode", in, "--out", out}, {"decode", "--skip-bad", in, "--out", out},
		{"tojson", in}, {"count", in}, {"inspect", in}, {"inspect", "--json", in},
		{"cat", in, "--out", out}, {"concat", in, "--out", out},
	} {
		r := runIO(t, nil, args...)
		if r.code != 1 || !want.MatchString(r.stderr) {
			t.Errorf("%q: exit code %d, stderr %q; want 1 and a match of %s", args, r.code, r.stderr, want)
		}
	}
	// The readers of protobuf records and JSON name the file as well, once.
	sample, _ := readSample(t)
	buf.Reset()
	zw = gzip.NewWriter(&buf)
	zw.Write(sample)
	zw.Close()
	records := filepath.Join(dir, "cut.bin.gz")
	if err := os.WriteFile(records, buf.Bytes()[:buf.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	r := runIO(t, nil, encodeArgs("--in", records, "--out", out)...)
	want = regexp.MustCompile(`^protoavro: ` + regexp.QuoteMeta(records) + `: read input: the gzip data ends early \(truncated\) after \d+ decompressed bytes: unexpected EOF\n$`)
	if r.code != 1 || !want.MatchString(r.stderr) {
		t.Errorf("encode: exit code %d, stderr %q; want 1 and a match of %s", r.code, r.stderr, want)
	}
}

// TestOutputIsAnInput checks that every command that reads files and
// writes one refuses an output that is one of its inputs, named as it is,
// through a symbolic link, a hard link or another spelling, with one
// message, and leaves the input as it was.
func TestOutputIsAnInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	avro := encodeSample(t, dir, "x.avro")
	records := filepath.Join(dir, "x.bin")
	schema := filepath.Join(dir, "x.avsc")
	jsonFile := filepath.Join(dir, "x.json")
	descSet := filepath.Join(dir, "x.pb")
	sample, _ := readSample(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(records, sample, 0o644))
	r := runIO(t, nil, "getschema", avro)
	must(os.WriteFile(schema, []byte(r.stdout), 0o644))
	r = runIO(t, nil, "tojson", avro)
	must(os.WriteFile(jsonFile, []byte(r.stdout), 0o644))
	must(os.WriteFile(descSet, []byte("not read: refused before"), 0o644))
	link := filepath.Join(dir, "link")
	must(os.Symlink(avro, link))
	hard := filepath.Join(dir, "hard.bin")
	must(os.Link(records, hard))
	other := filepath.Join(dir, "other.avro")
	proto := filepath.Join(dir, "avro2147.proto")
	protoText, err := os.ReadFile("../../testdata/proto/avro2147.proto")
	must(err)
	must(os.WriteFile(proto, protoText, 0o644))
	sharded := filepath.Join(dir, "s.avro")
	shardIn := filepath.Join(dir, "s-00002.avro")
	must(os.WriteFile(shardIn, sample, 0o644))
	shardLink := filepath.Join(dir, "in-2")
	must(os.Symlink(shardIn, shardLink))
	shardRejects := filepath.Join(dir, "s-00001.avro")
	plainIn := filepath.Join(dir, "t.avro")
	must(os.WriteFile(plainIn, sample, 0o644))
	before := map[string][]byte{}
	for _, f := range []string{avro, records, schema, jsonFile, descSet, proto, shardIn} {
		before[f], _ = os.ReadFile(f)
	}
	refused := func(out, as string) string {
		if as != "" {
			as = " (" + as + ")"
		}
		return "--out " + out + " is also an input" + as + "; refusing to overwrite it"
	}
	dotted := dir + "/./x.avro"
	for _, c := range []struct {
		args []string
		want string
	}{
		{encodeArgs("--in", records, "--out", records), refused(records, "")},
		{encodeArgs(records, "--out", hard), refused(hard, records)},
		{encodeArgs("--in", records, "--descriptor-set", descSet, "--out", descSet), refused(descSet, "")},
		{encodeArgs("--in", records, "--out", other, "--skip-bad", "--rejects", hard), "--rejects " + hard + " is also an input (" + records + "); refusing to overwrite it"},
		{[]string{"decode", avro, "--out", avro}, refused(avro, "")},
		{[]string{"decode", avro, "--out", link}, refused(link, avro)},
		{[]string{"decode", "--in", avro, "--out", dotted}, refused(dotted, "")},
		{[]string{"decode", "--in", link, "--out", dotted}, refused(dotted, link)},
		{[]string{"decode", avro, "--out", other, "--skip-bad", "--rejects", avro}, "--rejects " + avro + " is also an input; refusing to overwrite it"},
		{[]string{"cat", avro, "--out", link}, refused(link, avro)},
		{[]string{"concat", link, "--out", avro}, refused(avro, link)},
		{[]string{"fromjson", "--schema", schema, jsonFile, "--out", jsonFile}, refused(jsonFile, "")},
		{[]string{"fromjson", "--schema", schema, jsonFile, "--out", schema}, refused(schema, "")},
		{encodeArgs("--in", records, "--out", other, "--skip-bad", "--rejects", other), "--out and --rejects name the same file " + other},
		// The positional .proto file, in its import path.
		{[]string{"encode", "-I", dir, "-m", "protoavro.avro2147.Foo", "avro2147.proto", "--in", records, "--out", proto}, refused(proto, "")},
		// Sharded, --out names the shards, not a file: an input named as
		// a shard (or linked to one) is refused, with the shard's number.
		{encodeArgs("--in", shardIn, "--out", sharded, "--shard-records", "10"), "--out " + sharded + ": shard 2, " + shardIn + ", is also an input; refusing to overwrite it"},
		{encodeArgs("--in", records, "--in", shardLink, "--out", sharded, "--shard-records", "10"), "--out " + sharded + ": shard 2, " + shardIn + ", is also an input (" + shardLink + "); refusing to overwrite it"},
		{encodeArgs("--in", records, "--out", sharded, "--shard-records", "10", "--skip-bad", "--rejects", shardRejects), "--out " + sharded + " and --rejects " + shardRejects + ": shard 1 is the rejects file"},
	} {
		wantRun(t, runIO(t, nil, c.args...), 2, "protoavro: "+c.want)
	}
	for f, data := range before {
		if got, _ := os.ReadFile(f); !bytes.Equal(got, data) {
			t.Errorf("%s was changed", f)
		}
	}
	// Sharded, an input named as --out is no shard.
	wantRun(t, runIO(t, nil, encodeArgs("--in", plainIn, "--out", plainIn, "--shard-records", "600")...), 0, ", 2 shards)")
	if got, _ := os.ReadFile(plainIn); !bytes.Equal(got, sample) {
		t.Errorf("%s was changed", plainIn)
	}
	// A character device is no file of its own: /dev/null may be both.
	wantRun(t, runIO(t, nil, "fromjson", "--schema", schema, "/dev/null", "--out", "/dev/null"), 0, "wrote 0 records")
}

// TestInspectCompressedSize checks that inspect reports a compressed
// file's size on disk and its decompressed size, each labelled, in the
// text and JSON output; from a pipe the size on disk is unknown.
func TestInspectCompressedSize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := encodeSample(t, dir, "x.avro")
	avro, _ := os.ReadFile(plain)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(avro)
	zw.Close()
	gz := filepath.Join(dir, "x.avro.gz")
	if err := os.WriteFile(gz, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	disk, full := int64(buf.Len()), int64(len(avro))
	r := runIO(t, nil, "inspect", gz)
	want := fmt.Sprintf("size:        %d bytes (%s) on disk, gzip; %d bytes (%s) decompressed\n", disk, formatBytes(disk), full, formatBytes(full))
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("inspect of a gzip file: exit code %d, stdout:\n%s\nwant the line %q", r.code, r.stdout, want)
	}
	r = runIO(t, nil, "inspect", "--json", gz, plain)
	wantJSON := []string{
		fmt.Sprintf(`{"file":%q,"size":%d,"compression":"gzip","decompressed_size":%d,`, gz, disk, full),
		fmt.Sprintf(`{"file":%q,"size":%d,"message":`, plain, full),
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], wantJSON[0]) || !strings.HasPrefix(lines[1], wantJSON[1]) {
		t.Errorf("inspect --json: exit code %d, stdout:\n%s\nwant lines starting with %q", r.code, r.stdout, wantJSON)
	}
	// Standard input that is not a regular file (bytes.Reader): no size
	// on disk to report.
	r = runIO(t, buf.Bytes(), "inspect", "-")
	want = fmt.Sprintf("size:        %d bytes (%s) decompressed; gzip, not a regular file: size on disk unknown\n", full, formatBytes(full))
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("inspect of gzip standard input: exit code %d, stdout:\n%s\nwant the line %q", r.code, r.stdout, want)
	}
	r = runIO(t, buf.Bytes(), "inspect", "--json", "-")
	if want := fmt.Sprintf(`{"file":"standard input","compression":"gzip","decompressed_size":%d,`, full); r.code != 0 || !strings.HasPrefix(r.stdout, want) {
		t.Errorf("inspect --json of gzip standard input: exit code %d, stdout %s; want it to start with %s", r.code, r.stdout, want)
	}
}

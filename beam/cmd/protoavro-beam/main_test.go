package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protoavro/protoavro/beam/internal/beamtest"
	"github.com/protoavro/protoavro/beam/internal/safetext"
	"github.com/protoavro/protoavro/beam/internal/usage"
	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testutil"
)

// The command is built once, without -race (Beam's SDK harness has a data
// race of its own; see beam/race_test.go), and run as a user runs it.
var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

func command(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "protoavro-beam-cli")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "protoavro-beam")
		out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v", buildErr)
	}
	return binary
}

// fsizeEnv, set in the environment of the test binary, makes it a
// launcher: it sets its file size limit (RLIMIT_FSIZE) to that many bytes
// and executes its arguments, which inherit the limit.
const fsizeEnv = "PROTOAVRO_BEAM_TEST_FSIZE"

func TestMain(m *testing.M) {
	if limit := os.Getenv(fsizeEnv); limit != "" {
		fmt.Fprintln(os.Stderr, execLimited(limit))
		os.Exit(127)
	}
	code := m.Run()
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}

// execLimited sets the file size limit to limit bytes and executes
// os.Args[1:]; it returns only on an error.
func execLimited(limit string) error {
	n, err := strconv.ParseUint(limit, 10, 64)
	if err != nil {
		return fmt.Errorf("%s=%q: %w", fsizeEnv, limit, err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		return fmt.Errorf("setrlimit RLIMIT_FSIZE %d: %w", n, err)
	}
	if len(os.Args) < 2 {
		return errors.New("launcher: no command")
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, fsizeEnv+"=") })
	return syscall.Exec(os.Args[1], os.Args[1:], env)
}

// runCLI runs the command with args in the testdata directory of the
// repository, with a temporary directory of its own that it must leave
// empty, and returns its exit code and standard error.
func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	return runLimited(t, 0, args...)
}

// runLimited is runCLI with a file size limit of fsize bytes for the
// command, if fsize > 0.
func runLimited(t *testing.T, fsize int, args ...string) (int, string) {
	t.Helper()
	name := command(t)
	var env []string
	if fsize > 0 {
		name, args = os.Args[0], append([]string{name}, args...)
		env = []string{fsizeEnv + "=" + strconv.Itoa(fsize)}
	}
	cmd := cliCommand(name, args...)
	cmd.Env = append(cmd.Env, env...)
	tmpDir := t.TempDir()
	cmd.Env = append(cmd.Env, "TMPDIR="+tmpDir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	// Nothing is left in the temporary directory (Beam's loopback mode
	// leaves a file there on every run unless the command removes it).
	if left := dirNames(t, tmpDir); len(left) > 0 {
		t.Errorf("%q left in the temporary directory: %q", args, left)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stderr.String()
	}
	t.Fatal(err)
	return 0, ""
}

// cliCommand returns the command name args, to run in the testdata
// directory of the repository with this process's environment.
func cliCommand(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = "../../../testdata"
	cmd.Env = os.Environ()
	return cmd
}

// TestUsageErrors: a bad command line exits with status 2 and says what is
// wrong, before any pipeline runs.
func TestUsageErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	typ := []string{"-I", "proto", "-m", "protoavro.avro2147.Foo", "avro2147.proto"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{typ, "--input and --output are required"},
		{append([]string{"--input", "avro2147.delimited", "--output", out, "--shards", "-1"}, typ...), "--shards -1: want 0"},
		{append([]string{"--input", "avro2147.delimited", "--output", out, "--codec", "bzip2"}, typ...), "bzip2"},
		{[]string{"--input", "avro2147.delimited", "--output", out, "-I", "proto", "avro2147.proto"}, "missing -m"},
		{[]string{"--input", "avro2147.delimited", "--output", out, "-I", "proto", "-m", "protoavro.avro2147.Fo", "avro2147.proto"},
			`unknown message "protoavro.avro2147.Fo"; did you mean "protoavro.avro2147.Foo"?`},
		{[]string{"--input", "avro2147.delimited", "--output", out, "-I", "proto", "-m", "protoavro.avro2147.A", "avro2147.proto"},
			"-m protoavro.avro2147.A is an enum, not a message"},
		{[]string{"--input", "avro2147.delimited", "--output", out, "-I", "proto", "-m", "x.Y", "missing.proto"}, "missing.proto"},
		{[]string{"--input", "avro2147.delimited", "--output", out, "--descriptor-set", "avro2147.delimited", "-m", "x.Y"},
			"not a serialized FileDescriptorSet"},
		{[]string{"--input", "avro2147.delimited", "--output", out, "-m", "x.Y"}, "no input: give .proto files or --descriptor-set"},
		// At most 99,999 shards: their names have five digits.
		{append([]string{"--input", "avro2147.delimited", "--output", out, "--shards", "100000"}, typ...),
			"--shards 100000: at most 99999 (shard names number them with five digits)"},
		// Flags after the .proto files are flags.
		{append(slices.Clone(typ), "--input", "avro2147.delimited", "--output", out, "--shards", "100000"), "--shards 100000: at most 99999"},
		// --async would exit while the job runs in this process.
		{append([]string{"--input", "avro2147.delimited", "--output", out, "--async"}, typ...),
			"--async: the job would run in this process (the prism runner, in process: no --endpoint)"},
		{append([]string{"--input", "avro2147.delimited", "--output", out, "--async", "--endpoint", "localhost:1", "--environment_type", "LOOPBACK"}, typ...),
			"--async: the job would run in this process (--environment_type loopback: the workers are this process)"},
	} {
		code, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if matches, _ := filepath.Glob(out + "*"); len(matches) > 0 {
		t.Errorf("a usage error wrote %v", matches)
	}
}

// TestInputRefused: an --input pattern that the pipeline would fail on at
// once is a usage error (exit 2) that names it on one line, as protoavro
// encode words it ("--in PATTERN: no file matches"), said before the
// pipeline runs and leaving nothing behind: one that matches no file or
// matches a directory when the job runs in this process (prism in process,
// whose workers read this machine's files), a malformed one, a blank one,
// and one of a scheme that the command has no filesystem for (where the
// Beam SDK panics).
func TestInputRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	inDir := t.TempDir()
	sub := filepath.Join(inDir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	writeInput(t, filepath.Join(inDir, "in.delimited"), 1, nil, 0)
	typ := []string{"-I", "proto", "-m", "protoavro.avro2147.Foo", "avro2147.proto"}
	for _, c := range []struct{ input, want string }{
		{filepath.Join(dir, "*.delimited"), "protoavro-beam: --input " + filepath.Join(dir, "*.delimited") + ": no file matches"},
		{filepath.Join(dir, "in.delimited"), "protoavro-beam: --input " + filepath.Join(dir, "in.delimited") + ": no file matches"},
		{filepath.Join(dir, "in[.delimited"), "protoavro-beam: --input " + filepath.Join(dir, "in[.delimited") + ": syntax error in pattern"},
		{"  ", `protoavro-beam: --input "  ": no file matches`},
		{"s3://bucket/in.delimited", "protoavro-beam: --input s3://bucket/in.delimited: protoavro-beam reads no s3:// paths (it reads local paths and gs://)"},
		{sub, "protoavro-beam: --input " + sub + ": " + sub + ": is a directory"},
		{filepath.Join(inDir, "*"), "protoavro-beam: --input " + filepath.Join(inDir, "*") + ": " + sub + ": is a directory"},
	} {
		code, stderr := runCLI(t, append([]string{"--input", c.input, "--output", out}, typ...)...)
		if code != 2 || stderr != c.want+"\n" {
			t.Errorf("--input %q: exit %d, stderr %q; want exit 2 and the one line %q", c.input, code, stderr, c.want)
		}
	}
	if left := dirNames(t, dir); len(left) > 0 {
		t.Errorf("a usage error wrote %q", left)
	}
}

// TestOutputRefused: an --output that is blank, of a scheme that the
// command has no filesystem for, or not UTF-8 (Beam would give the writers
// another name), is a usage error (exit 2) naming it on one line, before
// the pipeline runs.
func TestOutputRefused(t *testing.T) {
	dir := t.TempDir()
	typ := []string{"-I", "proto", "-m", "protoavro.avro2147.Foo", "avro2147.proto"}
	for _, c := range []struct{ output, want string }{
		{"  ", `protoavro-beam: --output "  ": the prefix is blank`},
		{"s3://bucket/out", "protoavro-beam: --output s3://bucket/out: protoavro-beam writes no s3:// paths (it writes local paths and gs://)"},
		{filepath.Join(dir, "out\xff"), `protoavro-beam: protoavrobeam: bad path: prefix "` + filepath.Join(dir, "out") + `\xff": not UTF-8 (Beam gives the writers a prefix as JSON, which cannot hold its bytes)`},
	} {
		code, stderr := runCLI(t, append([]string{"--input", "avro2147.delimited", "--output", c.output}, typ...)...)
		if code != 2 || stderr != c.want+"\n" {
			t.Errorf("--output %q: exit %d, stderr %q; want exit 2 and the one line %q", c.output, code, stderr, c.want)
		}
	}
	if left := dirNames(t, dir); len(left) > 0 {
		t.Errorf("a usage error wrote %q", left)
	}
}

// TestRunnerRefused: a --runner that the program does not register, and a
// runner without the flags it fails on at once without (a portable
// runner's --endpoint, Dataflow's --project and --staging_location, the
// dot runner's --dot_file), are usage errors (exit 2) on one line, said
// before the pipeline is launched and leaving nothing behind. The error
// on an unknown runner names the runners the program has.
func TestRunnerRefused(t *testing.T) {
	// No application default credentials: Dataflow finds no project.
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(t.TempDir(), "none.json"))
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	typ := []string{"-I", "proto", "-m", "protoavro.avro2147.Foo", "avro2147.proto"}
	for _, c := range []struct {
		runner []string
		want   string
	}{
		{[]string{"--runner", "nosuch"}, "protoavro-beam: --runner nosuch: no such runner in protoavro-beam (its runners: prism (the default), dataflow, direct, dot, flink, portable, spark, universal, vet)"},
		{[]string{"--runner", "flink"}, "protoavro-beam: --runner flink: no job service endpoint: give --endpoint HOST:PORT of the runner's job server"},
		{[]string{"--runner", "SparkRunner"}, "protoavro-beam: --runner SparkRunner: no job service endpoint: give --endpoint HOST:PORT of the runner's job server"},
		{[]string{"--runner", "universal", "--environment_type", "DOCKER"}, "protoavro-beam: --runner universal: no job service endpoint: give --endpoint HOST:PORT of the runner's job server"},
		{[]string{"--runner", "dataflow"}, "protoavro-beam: --runner dataflow: no Google Cloud project: give --project (or application default credentials that name one)"},
		{[]string{"--runner", "dataflow", "--project", "p", "--region", "r"}, "protoavro-beam: --runner dataflow: no staging location: give --staging_location gs://BUCKET/PATH"},
		{[]string{"--runner", "dot"}, "protoavro-beam: --runner dot: no --dot_file: give the FILE to write the pipeline's graph to"},
	} {
		code, stderr := runCLI(t, slices.Concat([]string{"--input", "avro2147.delimited", "--output", out}, c.runner, typ)...)
		if code != 2 || stderr != c.want+"\n" {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and the one line %q", c.runner, code, stderr, c.want)
		}
	}
	if left := dirNames(t, dir); len(left) > 0 {
		t.Errorf("a usage error wrote %q", left)
	}
}

// TestRunnerNeedsRegistered: the runners whose flags checkRunner checks
// are runners of this program, and a name it does not register is
// reported as such every time it is asked about.
func TestRunnerNeedsRegistered(t *testing.T) {
	for name := range runnerNeeds {
		if !runnerRegistered(name) {
			t.Errorf("runner %s is not registered", name)
		}
	}
	for _, name := range []string{defaultRunner, "PrismRunner", "direct"} {
		if !runnerRegistered(name) {
			t.Errorf("runner %s is not registered", name)
		}
	}
	for range 2 {
		if runnerRegistered("nosuch") {
			t.Error("runner nosuch is registered")
		}
	}
}

// TestJSONUnknownAnyHint: JSON Lines with a google.protobuf.Any of a type
// that the loaded files do not hold fail the run (exit 1) and leave no
// shard; the error, last, names the file, the record and the type URL, and
// ends with the hint of protoavro encode's: the flags that load the type.
func TestJSONUnknownAnyHint(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"any":{"@type":"type.googleapis.com/acme.Missing","x":1}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	code, stderr := runCLI(t, "-I", "proto", "-m", "protoavro.test.kitchen.WellKnown", "--format", "jsonl",
		"--input", in, "--output", filepath.Join(outDir, "o"), "kitchen/kitchen.proto")
	last := lastLine(stderr)
	if code != 1 || !strings.HasPrefix(last, `protoavrobeam: bad input: "`+in+`": record 0 (line 1, input byte 0): `) ||
		!strings.Contains(last, `"type.googleapis.com/acme.Missing": "unknown google.protobuf.Any type" (load the .proto file that defines the type, with -I for its imports, or a --descriptor-set that holds it, made with protoc --include_imports`) {
		t.Errorf("exit %d, last line %q; want exit 1, the record, the type URL and the hint", code, last)
	}
	if left := dirNames(t, outDir); len(left) > 0 {
		t.Errorf("%q left in the output directory", left)
	}
}

// TestCheckInputWhereWorkersMatch: where the workers are not this process
// (a job service at --endpoint, workers in containers), they match --input
// on their own filesystems: a pattern that matches nothing here is left to
// them, while a blank one and one of a scheme without a filesystem are
// refused as where the job runs in this process. gs:// has a filesystem,
// as the refusal of the others says.
func TestCheckInputWhereWorkersMatch(t *testing.T) {
	endpoint, env := *jobopts.Endpoint, *jobopts.EnvironmentType
	t.Cleanup(func() { *jobopts.Endpoint, *jobopts.EnvironmentType = endpoint, env })
	*jobopts.Endpoint, *jobopts.EnvironmentType = "localhost:8099", "DOCKER"
	missing := filepath.Join(t.TempDir(), "*.delimited")
	if jobInProcess() {
		t.Fatalf("the job runs in this process (%s) with --endpoint and DOCKER workers", inProcessWhy())
	}
	if err := checkInput(t.Context(), missing); err != nil {
		t.Errorf("--input %s with workers elsewhere: %v", missing, err)
	}
	for _, input := range []string{" ", "s3://bucket/in.delimited"} {
		if err := checkInput(t.Context(), input); !usage.Is(err) {
			t.Errorf("--input %q with workers elsewhere: %v, want a usage error", input, err)
		}
	}
	if err := validScheme("gs://bucket/in.delimited", "reads"); err != nil {
		t.Errorf("gs://: %v", err)
	}
	*jobopts.Endpoint, *jobopts.EnvironmentType = "", ""
	if err := checkInput(t.Context(), missing); !usage.Is(err) || !strings.HasSuffix(err.Error(), ": no file matches") {
		t.Errorf("--input %s with prism in process: %v, want a usage error", missing, err)
	}
}

// TestWarnsOfAnyTypesOverHeaderLimit: loaded files that would make the
// shards' header larger than readers accept (a descriptor set of 64 MiB)
// are named in a warning at launch, before the pipeline is built (here an
// unknown --format then ends the run), as protoavro encode warns of a
// --descriptor-set that it does not embed.
func TestWarnsOfAnyTypesOverHeaderLimit(t *testing.T) {
	dir := t.TempDir()
	event := &descriptorpb.FileDescriptorProto{
		Name: proto.String("ev/event.proto"), Package: proto.String("ev"), Syntax: proto.String("proto3"),
		Dependency: []string{"google/protobuf/any.proto"},
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("Event"), Field: []*descriptorpb.FieldDescriptorProto{{
			Name: proto.String("payload"), JsonName: proto.String("payload"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
			Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(".google.protobuf.Any"),
		}}}},
	}
	big := &descriptorpb.FileDescriptorProto{
		Name: proto.String("big/big.proto"), Package: proto.String("big"), Syntax: proto.String("proto2"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("Big"), Field: []*descriptorpb.FieldDescriptorProto{{
			Name: proto.String("s"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
			Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(), DefaultValue: proto.String(strings.Repeat("x", 64<<20)),
		}}}},
	}
	set, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{event, big}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.pb"), set, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stderr := runCLI(t, "--descriptor-set", filepath.Join(dir, "big.pb"), "-m", "ev.Event", "--input", "avro2147.delimited", "--output", out, "--format", "bogus")
	want := `protoavro-beam: warning: the container files of "ev.Event" do not embed the 3 files of the Type's AnyTypes (protoavro: invalid options: the container header's metadata takes `
	if code != 2 || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "a reader of them needs these files again") || !strings.Contains(stderr, "\nprotoavro-beam: protoavrobeam: bad input: unknown format \"bogus\"") {
		t.Errorf("exit %d, stderr %.600q; want exit 2, the warning %q, then the usage error", code, stderr, want)
	}
}

// TestHelp: -h prints the synopsis, then the command's own flags (every
// one of them, and no Beam SDK flag), then the SDK's, and exits 0. The
// flags are written as the synopsis writes them: two dashes before a name,
// one before a single letter.
func TestHelp(t *testing.T) {
	code, stderr := runCLI(t, "-h")
	own, sdk, ok := strings.Cut(stderr, "\nFlags of the Beam SDK")
	if code != 0 || !strings.HasPrefix(stderr, "Usage: protoavro-beam --input GLOB") || !ok {
		t.Fatalf("exit %d, help %q", code, stderr)
	}
	flagLine := func(name string) string {
		if len(name) == 1 {
			return "\n  -" + name
		}
		return "\n  --" + name
	}
	for name := range ownFlags {
		if !strings.Contains(own, flagLine(name)+" ") && !strings.Contains(own, flagLine(name)+"\n") && !strings.Contains(own, flagLine(name)+"\t") {
			t.Errorf("flag %s is not among the command's flags:\n%s", strings.TrimSpace(flagLine(name)), own)
		}
	}
	for _, name := range []string{"runner", "endpoint", "project", "environment_type"} {
		if strings.Contains(own, flagLine(name)+" ") || !strings.Contains(sdk, flagLine(name)+" ") {
			t.Errorf("flag --%s is not among the Beam SDK's flags", name)
		}
	}
	if strings.Contains(stderr, "\n  -input") || strings.Contains(stderr, "\n  -runner") {
		t.Errorf("the help writes a flag name with one dash:\n%s", stderr)
	}
}

// TestConvert runs the command on the bundled sample, as docs/beam.md
// shows it: every input record is in one of the shards, once.
func TestConvert(t *testing.T) {
	out := filepath.Join(t.TempDir(), "foo")
	code, stderr := runCLI(t, "-I", "proto", "-m", "protoavro.avro2147.Foo", "--input", "avro2147.delimited",
		"--output", out, "--shards", "2", "--codec", "zstd", "avro2147.proto")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "warning") {
		t.Errorf("a warning without --prism_listen_all:\n%s", stderr)
	}
	want := sampleWires(t)
	if got := beamtest.Wires(t, out+"-00000-of-00002.avro", out+"-00001-of-00002.avro"); !slices.Equal(got, want) {
		t.Errorf("the shards hold %d records, not the %d of the input (or other ones)", len(got), len(want))
	}
}

// TestRerunOtherShardCount: a run into the prefix of an earlier run with
// another shard count removes the earlier run's shards once its own are in
// place, and says so, so that a glob of the output reads one run.
func TestRerunOtherShardCount(t *testing.T) {
	outDir := t.TempDir()
	out := filepath.Join(outDir, "foo")
	unrelated := filepath.Join(outDir, "foo-00000-of-00003.avro.orig")
	if err := os.WriteFile(unrelated, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"3", "2"} {
		code, stderr := runCLI(t, "-I", "proto", "-m", "protoavro.avro2147.Foo", "--input", "avro2147.delimited",
			"--output", out, "--shards", n, "avro2147.proto")
		if code != 0 {
			t.Fatalf("--shards %s: exit %d: %s", n, code, stderr)
		}
		if n == "2" && !strings.Contains(stderr, fmt.Sprintf("protoavro-beam: removed 3 shards of an earlier run with another shard count: %q, ", out+"-00000-of-00003.avro")) {
			t.Errorf("the second run does not report the removed shards:\n%s", stderr)
		}
	}
	want := []string{"foo-00000-of-00002.avro", "foo-00000-of-00003.avro.orig", "foo-00001-of-00002.avro"}
	if got := dirNames(t, outDir); !slices.Equal(got, want) {
		t.Errorf("output directory: %q, want %q", got, want)
	}
}

// sampleWires returns the deterministic encodings of the sample's records,
// sorted.
func sampleWires(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("../../../testdata/avro2147.delimited")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var out []string
	for {
		m := &avro2147pb.Foo{}
		if err := protodelim.UnmarshalFrom(r, m); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(testutil.Wire(t, m)))
	}
	if len(out) != 1000 {
		t.Fatalf("%d sample records", len(out))
	}
	slices.Sort(out)
	return out
}

// bigInput writes copies of the sample into one file in dir, enough for a
// run of several seconds, and returns its path.
func bigInput(t *testing.T, dir string, copies int) string {
	t.Helper()
	return writeInput(t, filepath.Join(dir, "big.delimited"), copies, nil, 0)
}

// writeInput writes copies of the sample to path, then the bytes of bad,
// then after more copies, and returns path.
func writeInput(t *testing.T, path string, copies int, bad []byte, after int) string {
	t.Helper()
	sample, err := os.ReadFile("../../../testdata/avro2147.delimited")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for range copies {
		w.Write(sample)
	}
	w.Write(bad)
	for range after {
		w.Write(sample)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// oldShards writes the final shards of an earlier run of out (2 shards,
// shard i holding the one byte i) and returns their names.
func oldShards(t *testing.T, out string) []string {
	t.Helper()
	var old []string
	for i, name := range []string{out + "-00000-of-00002.avro", out + "-00001-of-00002.avro"} {
		if err := os.WriteFile(name, []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
		old = append(old, filepath.Base(name))
	}
	return old
}

// checkOutput checks that outDir holds exactly the earlier shards old
// (those of oldShards, or none), unchanged.
func checkOutput(t *testing.T, outDir string, old []string) {
	t.Helper()
	if got := dirNames(t, outDir); !slices.Equal(got, old) {
		t.Errorf("output directory: %q, want %q", got, old)
	}
	for i, name := range old {
		if b, err := os.ReadFile(filepath.Join(outDir, name)); err != nil || !bytes.Equal(b, []byte{byte(i)}) {
			t.Errorf("the earlier shard %s was changed: %q, %v", name, b, err)
		}
	}
}

// TestFailedPipeline runs jobs that fail part way, as docs/beam.md
// describes a failed pipeline: the command exits 1 with "pipeline failed"
// and the cause (the file, record and byte offset of a bad record, or the
// shard file a write failed on), removes the temporary shards the job had
// written, keeps the final shards of an earlier run that it did not touch,
// and leaves its TMPDIR empty (runLimited checks that).
func TestFailedPipeline(t *testing.T) {
	sample, err := os.ReadFile("../../../testdata/avro2147.delimited")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("bad record", func(t *testing.T) {
		// A truncated varint as field 1, after 20 copies of the sample
		// (20,000 records), before 20 more.
		const copies = 20
		in := writeInput(t, filepath.Join(t.TempDir(), "bad.delimited"), copies, []byte{3, 0x08, 0xff, 0xff}, copies)
		outDir := t.TempDir()
		out := filepath.Join(outDir, "foo")
		old := oldShards(t, out)
		code, stderr := runCLI(t, "-I", "proto", "-m", "protoavro.avro2147.Foo", "--input", in,
			"--output", out, "--shards", "2", "avro2147.proto")
		if code != 1 {
			t.Fatalf("exit %d, want 1:\n%s", code, stderr)
		}
		cause := fmt.Sprintf("protoavrobeam: %s: record %d (input byte %d): protoavro: Foo.#1 at byte 1: truncated input",
			safetext.Quote(in, 512), copies*1000, copies*len(sample))
		if !strings.Contains(stderr, "protoavro-beam: pipeline failed: ") || !strings.HasPrefix(lastLine(stderr), cause) {
			t.Errorf("stderr does not say the pipeline failed and, last, %q:\n%s", cause, stderr)
		}
		checkOutput(t, outDir, old)
	})
	t.Run("bad record in a file of an untrusted name", func(t *testing.T) {
		// A file name is untrusted text: the error quotes it escaped, so
		// that the runner carries the error whole (invalid UTF-8 would not
		// cross gRPC) and its last line still names file, record and offset.
		in := writeInput(t, filepath.Join(t.TempDir(), "in\xff\n\x1bred.delimited"), 1, []byte{3, 0x08, 0xff, 0xff}, 1)
		out := filepath.Join(t.TempDir(), "foo")
		code, stderr := runCLI(t, "-I", "proto", "-m", "protoavro.avro2147.Foo", "--input", in, "--output", out, "avro2147.proto")
		if code != 1 {
			t.Fatalf("exit %d, want 1:\n%s", code, stderr)
		}
		cause := fmt.Sprintf(`protoavrobeam: "%s/in\xff\n\x1bred.delimited": record 1000 (input byte %d): protoavro: Foo.#1 at byte 1: truncated input`,
			filepath.Dir(in), len(sample))
		if !strings.HasPrefix(lastLine(stderr), cause) || !utf8.ValidString(stderr) {
			t.Errorf("stderr is not valid UTF-8 ending with %q:\n%s", cause, stderr)
		}
	})
	t.Run("write fails", func(t *testing.T) {
		// Shards of about 10 MB each, written under a file size limit of
		// 1 MiB: each shard write fails part way, leaving a partial
		// temporary file until the command removes it.
		in := bigInput(t, t.TempDir(), 100)
		outDir := t.TempDir()
		out := filepath.Join(outDir, "foo")
		old := oldShards(t, out)
		code, stderr := runLimited(t, 1<<20, "-I", "proto", "-m", "protoavro.avro2147.Foo", "--input", in,
			"--output", out, "--shards", "2", "avro2147.proto")
		if code != 1 {
			t.Fatalf("exit %d, want 1:\n%s", code, stderr)
		}
		last := lastLine(stderr)
		if !strings.Contains(stderr, "protoavro-beam: pipeline failed: ") ||
			!strings.HasPrefix(last, "protoavrobeam: temporary shard "+out+".avro.tmp-") ||
			!strings.HasSuffix(last, "file too large") {
			t.Errorf("stderr does not say the pipeline failed and, last, the temporary shard file that could not be written:\n%s", stderr)
		}
		checkOutput(t, outDir, old)
	})
}

// TestErrorText: the command prints an error escaped and bounded, since a
// failed pipeline's error quotes what its workers read: no control or
// format characters but the newlines and tabs of Beam's error chains, each
// line cut, at most maxErrorLines+1 lines with the last (the cause) kept;
// an ordinary error prints as it is.
func TestErrorText(t *testing.T) {
	plain := errors.New("pipeline failed: job failed\n\tcaused by:\nprotoavrobeam: in.delimited: record 3 (input byte 12): truncated")
	if got := errorText(plain); got != plain.Error() {
		t.Errorf("plain error printed as %q", got)
	}
	var chain strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&chain, "frame %d\x1b[2J\r\n\t", i)
	}
	for _, err := range []error{
		fmt.Errorf("pipeline failed: %w", errors.New("bad message \x1b[2J\x1b[31mFAKE: all good\x1b[0m\r\u202e\xff")),
		fmt.Errorf("pipeline failed: options %q", strings.Repeat("\x1bX", 8<<20)),
		errors.New("pipeline failed: " + strings.Repeat("\x1b\t", 4<<20)),
		errors.New(chain.String() + "the cause"),
	} {
		got := errorText(err)
		lines := strings.Split(got, "\n")
		if len(got) > (maxErrorLines+1)*(maxErrorLine+64) || len(lines) > maxErrorLines+1 {
			t.Errorf("an error of %d bytes, %d lines printed as %d bytes, %d lines", len(err.Error()), strings.Count(err.Error(), "\n")+1, len(got), len(lines))
		}
		for _, l := range lines {
			if len(l) > maxErrorLine+64 {
				t.Errorf("a line of %d bytes printed: %.100q", len(l), l)
				break
			}
		}
		if i := strings.IndexFunc(got, func(r rune) bool {
			return r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError)
		}); i >= 0 {
			t.Errorf("control or format characters printed: %.100q", got[max(i-20, 0):])
		}
		if strings.HasSuffix(err.Error(), "\nthe cause") && lastLine(got) != "the cause" {
			t.Errorf("last line %q, want the cause", lastLine(got))
		}
	}
}

// cliProcess is a run of the command started by startCLI.
type cliProcess struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr strings.Builder
	lines  chan struct{} // a line was read
	copied chan struct{} // closed at the end of standard error
}

// startCLI starts the command with args, with TMPDIR=tmpDir, and collects
// its standard error in the background.
func startCLI(t *testing.T, tmpDir string, args ...string) *cliProcess {
	t.Helper()
	p := &cliProcess{cmd: cliCommand(command(t), args...), lines: make(chan struct{}, 1), copied: make(chan struct{})}
	p.cmd.Env = append(p.cmd.Env, "TMPDIR="+tmpDir)
	stderrPipe, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill() })
	go func() {
		defer close(p.copied)
		sc := bufio.NewScanner(stderrPipe)
		for sc.Scan() {
			p.mu.Lock()
			p.stderr.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- struct{}{}:
			default:
			}
		}
	}()
	return p
}

// text returns the standard error read so far.
func (p *cliProcess) text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// waitFor waits until ready holds, looking again on each line of standard
// error and every few milliseconds (ready may look at files). It fails the
// test if the process ends first, or after 2 minutes.
func (p *cliProcess) waitFor(t *testing.T, what string, ready func() bool) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !ready() {
		select {
		case <-p.lines:
		case <-tick.C:
		case <-p.copied:
			if ready() {
				return
			}
			t.Fatalf("the run ended before %s (%v):\n%s", what, p.cmd.Wait(), p.text())
		case <-deadline:
			p.cmd.Process.Kill()
			t.Fatalf("the run did not reach %s:\n%s", what, p.text())
		}
	}
}

// signal sends sig to the process.
func (p *cliProcess) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("%v: %v", sig, err)
	}
}

// wait waits for the process to end, at most 2 minutes, and returns its
// status.
func (p *cliProcess) wait(t *testing.T) syscall.WaitStatus {
	t.Helper()
	exited := make(chan error, 1)
	go func() { <-p.copied; exited <- p.cmd.Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	case <-time.After(2 * time.Minute):
		p.cmd.Process.Kill()
		t.Fatalf("still running after 2 minutes:\n%s", p.text())
	}
	return 0
}

// TestInterrupted interrupts real runs of the command with a real signal,
// once while it reads (SIGINT, on the log line of the running job) and once
// while it writes its shards (SIGTERM, when a temporary shard file
// appears). Each time the job must be cancelled, and the command exit 1
// saying it was interrupted, leave no temporary or partial shard, keep the
// final shards of an earlier run that it had not replaced, and leave
// nothing in its temporary directory.
func TestInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a large input")
	}
	in := bigInput(t, t.TempDir(), 800)
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		// old final shards present before the run, kept after it
		old bool
		// ready reports that the run has reached the point to interrupt
		ready func(stderr, outDir string) bool
	}{
		{"reading", syscall.SIGINT, true, func(stderr, _ string) bool {
			return strings.Contains(stderr, "state: RUNNING")
		}},
		{"writing", syscall.SIGTERM, false, func(_, outDir string) bool {
			names, _ := filepath.Glob(filepath.Join(outDir, "*.tmp-*"))
			return len(names) > 0
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			outDir, tmpDir := t.TempDir(), t.TempDir()
			out := filepath.Join(outDir, "foo")
			var old []string
			if c.old {
				old = oldShards(t, out)
			}
			p := startCLI(t, tmpDir, "-I", "proto", "-m", "protoavro.avro2147.Foo", "--input", in,
				"--output", out, "--shards", "2", "avro2147.proto")
			p.waitFor(t, "the point to interrupt", func() bool { return c.ready(p.text(), outDir) })
			p.signal(t, c.sig)
			if ws := p.wait(t); !ws.Exited() || ws.ExitStatus() != 1 {
				t.Fatalf("after %v: %v, want exit status 1:\n%s", c.sig, ws, p.text())
			}
			log := p.text()
			// The job was cancelled on prism's job service, not ended by
			// the process exiting under it: the command reports the state
			// the service gives the job once the run has returned.
			if last := lastLine(log); !strings.HasPrefix(last, "protoavro-beam: interrupted: the job was cancelled (job service state CANCELLED) and its unfinished output removed") {
				t.Errorf("last line %q, want the interruption reported, with the job's state:\n%s", last, log)
			}
			if !strings.Contains(log, interruptNotice) {
				t.Errorf("the log does not say that a second interrupt kills the process:\n%s", log)
			}
			checkOutput(t, outDir, old)
			if got := dirNames(t, tmpDir); len(got) > 0 {
				t.Errorf("left in the temporary directory: %q", got)
			}
		})
	}
}

// TestInterruptedTwice: a second interrupt, during the cleanup that the
// first one started, kills the process (docs/beam.md). The process is
// stopped (SIGSTOP) once it has printed interruptNotice, which it does
// after removing its handler, so that the second SIGINT is delivered while
// it still runs; a run whose cleanup ended before it was stopped is tried
// again.
func TestInterruptedTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a large input")
	}
	in := bigInput(t, t.TempDir(), 800)
	const attempts = 5
	for attempt := 1; ; attempt++ {
		out := filepath.Join(t.TempDir(), "foo")
		p := startCLI(t, t.TempDir(), "-I", "proto", "-m", "protoavro.avro2147.Foo", "--input", in,
			"--output", out, "--shards", "2", "avro2147.proto")
		p.waitFor(t, "the running job", func() bool { return strings.Contains(p.text(), "state: RUNNING") })
		p.signal(t, syscall.SIGINT)
		p.waitFor(t, "the notice of the interrupt", func() bool { return strings.Contains(p.text(), interruptNotice) })
		p.signal(t, syscall.SIGSTOP)
		if !stopped(t, p.cmd.Process.Pid) {
			ws := p.wait(t)
			if attempt == attempts {
				t.Fatalf("%d runs ended (%v) before the second interrupt could be sent:\n%s", attempts, ws, p.text())
			}
			t.Logf("run %d ended (%v) before the second interrupt; trying again", attempt, ws)
			continue
		}
		p.signal(t, syscall.SIGINT)
		p.signal(t, syscall.SIGCONT)
		if ws := p.wait(t); !ws.Signaled() || ws.Signal() != syscall.SIGINT {
			t.Fatalf("after a second SIGINT: %v, want killed by SIGINT:\n%s", ws, p.text())
		}
		return
	}
}

// stopped reports whether the process pid is stopped (after a SIGSTOP),
// rather than exited. It reads the state in /proc/PID/stat until it is one
// of the two.
func stopped(t *testing.T, pid int) bool {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		// pid (comm) state ...: comm may hold spaces and parentheses.
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) == 0 {
			t.Fatalf("/proc/%d/stat: %q", pid, b)
		}
		switch fields[0] {
		case "T", "t":
			return true
		case "Z", "X":
			return false
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("process %d neither stopped nor exited within a minute of SIGSTOP", pid)
	return false
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

// TestListensOnLoopbackOnly: while a pipeline runs (its bundles writing
// their temporary files), every socket the command listens on (prism's job
// server and Fn API, the loopback worker pool) accepts connections from
// this machine only. With --prism_listen_all, prism's server stays open
// to every address and the command says so.
func TestListensOnLoopbackOnly(t *testing.T) {
	in := bigInput(t, t.TempDir(), 100)
	outDir := t.TempDir()
	p := startCLI(t, t.TempDir(), "-I", "proto", "-m", "protoavro.avro2147.Foo", "--input", in,
		"--output", filepath.Join(outDir, "foo"), "avro2147.proto")
	p.waitFor(t, "a temporary shard", func() bool {
		names, _ := filepath.Glob(filepath.Join(outDir, "*.tmp-*"))
		return len(names) > 0
	})
	ports := checkListeners(t, p.cmd.Process.Pid)
	if len(ports) < 2 {
		t.Errorf("listening ports %v: want prism's and the worker pool's", ports)
	}
	if st := p.wait(t); st.ExitStatus() != 0 {
		t.Fatalf("exit %v:\n%s", st, p.text())
	}

	code, stderr := runCLI(t, "-I", "proto", "-m", "protoavro.avro2147.Foo", "--input", "avro2147.delimited",
		"--output", filepath.Join(t.TempDir(), "foo"), "--prism_listen_all", "avro2147.proto")
	if code != 0 {
		t.Fatalf("--prism_listen_all: exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`(?m)^protoavro-beam: warning: --prism_listen_all: prism's job server listens on every interface, port [1-9][0-9]*, while the run lasts: `).MatchString(stderr) {
		t.Errorf("--prism_listen_all: no warning:\n%s", stderr)
	}
}

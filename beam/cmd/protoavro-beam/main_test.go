package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/protoavro"
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

func TestMain(m *testing.M) {
	code := m.Run()
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}

// runCLI runs the command with args in the testdata directory of the
// repository and returns its exit code and standard error.
func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(command(t), args...)
	cmd.Dir = "../../../testdata"
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
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
		{append([]string{"--input", "avro2147.delimited", "--output", out, "--shards", "0"}, typ...), "--shards 0: want at least 1"},
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

// TestConvert runs the command on the bundled sample, as docs/beam.md
// shows it: every input record is in one of the shards, once.
func TestConvert(t *testing.T) {
	out := filepath.Join(t.TempDir(), "foo")
	code, stderr := runCLI(t, "-I", "proto", "-m", "protoavro.avro2147.Foo", "--input", "avro2147.delimited",
		"--output", out, "--shards", "2", "--codec", "zstd", "avro2147.proto")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := sampleWires(t)
	var got []string
	for _, shard := range []string{out + "-00000-of-00002.avro", out + "-00001-of-00002.avro"} {
		f, err := os.Open(shard)
		if err != nil {
			t.Fatal(err)
		}
		r, err := protoavro.NewContainerReader(f, protoavro.ReaderOptions{})
		if err != nil {
			t.Fatalf("%s: %v", shard, err)
		}
		for {
			m := r.NewMessage()
			if err := r.Read(m); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", shard, err)
			}
			b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(b))
		}
		f.Close()
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the shards hold %d records, not the %d of the input (or other ones)", len(got), len(want))
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
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	if len(out) != 1000 {
		t.Fatalf("%d sample records", len(out))
	}
	slices.Sort(out)
	return out
}

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
	"syscall"
	"testing"
	"time"

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
// repository, with a temporary directory of its own that it must leave
// empty, and returns its exit code and standard error.
func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(command(t), args...)
	cmd.Dir = "../../../testdata"
	tmpDir := t.TempDir()
	cmd.Env = append(os.Environ(), "TMPDIR="+tmpDir)
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

// bigInput writes copies of the sample into one file in dir, enough for a
// run of several seconds, and returns its path.
func bigInput(t *testing.T, dir string, copies int) string {
	t.Helper()
	sample, err := os.ReadFile("../../../testdata/avro2147.delimited")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "big.delimited")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for range copies {
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
	bin := command(t)
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
				for i, name := range []string{out + "-00000-of-00002.avro", out + "-00001-of-00002.avro"} {
					if err := os.WriteFile(name, []byte{byte(i)}, 0o644); err != nil {
						t.Fatal(err)
					}
					old = append(old, filepath.Base(name))
				}
			}
			cmd := exec.Command(bin, "-I", "proto", "-m", "protoavro.avro2147.Foo", "--input", in,
				"--output", out, "--shards", "2", "avro2147.proto")
			cmd.Dir = "../../../testdata"
			cmd.Env = append(os.Environ(), "TMPDIR="+tmpDir)
			stderrPipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Collect standard error in the background; lines wake the
			// waiting loop below.
			var mu sync.Mutex
			var stderr strings.Builder
			lines := make(chan struct{}, 1)
			copied := make(chan struct{})
			go func() {
				defer close(copied)
				sc := bufio.NewScanner(stderrPipe)
				for sc.Scan() {
					mu.Lock()
					stderr.WriteString(sc.Text() + "\n")
					mu.Unlock()
					select {
					case lines <- struct{}{}:
					default:
					}
				}
			}()
			text := func() string { mu.Lock(); defer mu.Unlock(); return stderr.String() }
			exited := make(chan error, 1)
			// Wait for the point to interrupt: a line of the log, or a
			// file in the output directory (looked for every few ms).
			deadline := time.After(2 * time.Minute)
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
		wait:
			for !c.ready(text(), outDir) {
				select {
				case <-lines:
				case <-tick.C:
				case <-copied:
					exited <- cmd.Wait()
					t.Fatalf("the run ended before it was interrupted (%v):\n%s", <-exited, text())
				case <-deadline:
					cmd.Process.Kill()
					t.Fatalf("the run did not reach the point to interrupt:\n%s", text())
				}
				continue wait
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			go func() { <-copied; exited <- cmd.Wait() }()
			select {
			case err = <-exited:
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				t.Fatalf("still running 2 minutes after %v:\n%s", c.sig, text())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("after %v: %v, want exit status 1:\n%s", c.sig, err, text())
			}
			if last := lastLine(text()); !strings.HasPrefix(last, "protoavro-beam: interrupted: the job was cancelled") {
				t.Errorf("last line %q, want the interruption reported:\n%s", last, text())
			}
			// The job was cancelled on prism's job service, not ended by
			// the process exiting under it: prism's cancellation error
			// ("pipeline canceled", of the bundles in flight) or the
			// state is in the log (whose message stream may drop states).
			if log := text(); !strings.Contains(log, "pipeline canceled") && !strings.Contains(log, "state: CANCELLED") {
				t.Errorf("the log does not show the job cancelled:\n%s", text())
			}
			if got := dirNames(t, outDir); !slices.Equal(got, old) {
				t.Errorf("output directory after %v: %q, want %q", c.sig, got, old)
			}
			for i, name := range old {
				if b, err := os.ReadFile(filepath.Join(outDir, name)); err != nil || !bytes.Equal(b, []byte{byte(i)}) {
					t.Errorf("the earlier shard %s was changed: %q, %v", name, b, err)
				}
			}
			if got := dirNames(t, tmpDir); len(got) > 0 {
				t.Errorf("left in the temporary directory: %q", got)
			}
		})
	}
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

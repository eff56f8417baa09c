//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/protoavro/protoavro/internal/testutil"
)

// TestSchemaSIGTERM runs "protoavro schema" as a process on a cyclic chain
// of 20,000 messages, as .proto source and as a descriptor set, with the
// schema limits raised so that it compiles and derives at length, and
// sends it SIGTERM once it is at work: the compilation and the derivation look at
// the signal, and the process ends with an error, not a schema. The guard
// is 30 s; the time from the signal to the end is logged (docs/limits.md
// quotes it).
func TestSchemaSIGTERM(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{"ring.proto": testutil.HostileProto(testutil.Ring, 20_000)})
	proto := filepath.Join(dir, "ring.proto")
	set := writeHostileSet(t, dir, testutil.HostileFile(testutil.Ring, 20_000))
	raised := []string{"--schema-limits", "depth=1000000,types=1000000,fields=10000000"}
	for name, in := range map[string]struct {
		args  []string
		input string
	}{
		"proto":          {append([]string{"schema", "-m", "hostile.M0", "-I", dir, "ring.proto"}, raised...), proto},
		"descriptor set": {append([]string{"schema", "-m", "hostile.M0", "--descriptor-set", set}, raised...), set},
	} {
		args := in.args
		info, err := os.Stat(in.input)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, os.Args[0], args...)
		cmd.Env = append(os.Environ(), "PROTOAVRO_TEST_MAIN=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// The signal goes once the process is at work: when it has read its
		// input (the runtime's start reads a few small files), so that its
		// handler is in place whatever the machine's load.
		for start := time.Now(); readChars(cmd.Process.Pid) < info.Size(); {
			if time.Since(start) > 30*time.Second {
				t.Fatalf("%s: the input was not read within 30 s", name)
			}
			select {
			case err = <-done:
				t.Fatalf("%s: ended before the signal (%v): the input is too small for the test", name, err)
			case <-time.After(time.Millisecond):
			}
		}
		signalled := time.Now()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			cancel()
			<-done
			t.Fatalf("%s: still running 30 s after SIGTERM", name)
		}
		cancel()
		t.Logf("%s: ended %v after SIGTERM: %v: %s", name, time.Since(signalled).Round(time.Millisecond), err, strings.TrimSpace(stderr.String()))
		if err == nil || stdout.Len() != 0 || stderr.String() != "protoavro: interrupted\n" {
			t.Errorf("%s: %v, %d bytes of output, stderr %q; want an interruption and no schema", name, err, stdout.Len(), stderr.String())
		}
	}
}

// readChars returns the bytes the process pid has read with read system
// calls (rchar in /proc/PID/io; 0 where there is none).
func readChars(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "rchar:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

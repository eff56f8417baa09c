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
	dir := t.TempDir()
	proto := filepath.Join(dir, "ring.proto")
	if err := os.WriteFile(proto, []byte(testutil.HostileProto(testutil.Ring, 20_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	set := writeHostileSet(t, dir, testutil.HostileFile(testutil.Ring, 20_000))
	raised := []string{"--schema-limits", "depth=1000000,types=1000000,fields=10000000"}
	for name, args := range map[string][]string{
		"proto":          append([]string{"schema", "-m", "hostile.M0", "-I", dir, "ring.proto"}, raised...),
		"descriptor set": append([]string{"schema", "-m", "hostile.M0", "--descriptor-set", set}, raised...),
	} {
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
		var err error
		// The signal goes once the process is at work: when it has used
		// 300 ms of CPU (past its start, which under -race and a loaded
		// machine takes a while), or after a second where /proc is not.
		for start := time.Now(); cpuTime(cmd.Process.Pid) < 300*time.Millisecond && time.Since(start) < 30*time.Second; {
			if _, err := os.Stat("/proc/self/stat"); err != nil && time.Since(start) > time.Second {
				break
			}
			select {
			case err = <-done:
				t.Fatalf("%s: ended before the signal (%v): the input is too small for the test", name, err)
			case <-time.After(10 * time.Millisecond):
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
		if err == nil || stdout.Len() != 0 || !strings.Contains(stderr.String(), "context canceled") {
			t.Errorf("%s: %v, %d bytes of output, stderr %q; want an error naming the cancellation and no schema", name, err, stdout.Len(), stderr.String())
		}
	}
}

// cpuTime returns the CPU time the process pid has used, from
// /proc/PID/stat (0 where there is none), at the usual 100 ticks a second.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name (in parentheses): utime and
	// stime are the 12th and 13th of them.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

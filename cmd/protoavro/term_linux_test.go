package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal and returns its two sides, the
// controlling one and the terminal, closed when the test ends, or skips the
// test when it cannot.
func openPTY(t *testing.T) (ptmx, pts *os.File) {
	t.Helper()
	ptmx = openDevice(t, "/dev/ptmx", os.O_RDWR)
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("ptsname: %v", e)
	}
	return ptmx, openDevice(t, fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY)
}

// TestFileIsTerminal opens a pseudo-terminal: its side is a terminal, and
// the character devices that are not (/dev/null, /dev/full) are not.
func TestFileIsTerminal(t *testing.T) {
	t.Parallel()
	_, pts := openPTY(t)
	if !isTerminal(pts) {
		t.Errorf("a pseudo-terminal is not a terminal")
	}
	for _, name := range []string{"/dev/null", "/dev/full"} {
		f, err := os.OpenFile(name, os.O_WRONLY, 0)
		if err != nil {
			continue
		}
		if isTerminal(f) {
			t.Errorf("%s is taken for a terminal", name)
		}
		f.Close()
	}
	// Binary output to a terminal is refused.
	var stderr strings.Builder
	if code := run(encodeArgs("--in", sampleFile), pts, pts, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "refusing to write binary Avro data to a terminal") {
		t.Errorf("encode to a terminal: exit code %d, stderr %q", code, stderr.String())
	}
}

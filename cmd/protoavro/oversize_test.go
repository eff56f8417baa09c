package main

import (
	"os"
	"path/filepath"
	"testing"
)

// sparseFile creates a file of size bytes that takes no room on disk.
func sparseFile(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
}

// TestOversizeInputFiles gives the commands local files they read whole
// that are larger than any real one (a .proto source, a descriptor set, an
// .avsc) or never end (/dev/zero): each is refused with a usage error that
// names it, without reading it all into memory.
func TestOversizeInputFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := filepath.Join(dir, "big.proto")
	sparseFile(t, big, 1<<40)
	set := filepath.Join(dir, "big.binpb")
	sparseFile(t, set, 1<<40)
	avsc := filepath.Join(dir, "big.avsc")
	sparseFile(t, avsc, 1<<40)
	out := filepath.Join(dir, "out.avro")

	wantRun(t, runCmd(t, "schema", "-I", dir, "-m", "x.M", big), 2, big+": file too large: more than 67108864 bytes")
	wantRun(t, runCmd(t, "schema", "--descriptor-set", set, "-m", "x.M"), 2, "--descriptor-set: "+set+": file too large: more than 268435456 bytes")
	wantRun(t, runCmd(t, "fromjson", "--schema", avsc, "--out", out), 2, "--schema: "+avsc+": file too large: more than 16777216 bytes")
	wantRun(t, runCmd(t, "fromjson", "--schema", "/dev/zero", "--out", out), 2, "--schema: /dev/zero: file too large: more than 16777216 bytes")
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("fromjson left an output behind: %v", err)
	}
}

package limits

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(small, 5); err != nil || string(got) != "12345" {
		t.Errorf("ReadFile of a file at its limit = %q, %v; want its bytes", got, err)
	}
	if _, err := ReadFile(small, 4); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), small+": ") || !strings.Contains(err.Error(), "more than 4 bytes") {
		t.Errorf("ReadFile of a file over its limit: %v, want ErrTooLarge naming the file and the limit", err)
	}
	// A sparse file of 1 TiB is refused by its size, before reading it.
	huge := filepath.Join(dir, "huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	f.Close()
	if _, err := ReadFile(huge, 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile of a 1 TiB file: %v, want ErrTooLarge", err)
	}
	// A file with no size that does not end is read up to its limit.
	if _, err := ReadFile("/dev/zero", 1000); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "/dev/zero: ") {
		t.Errorf("ReadFile(/dev/zero): %v, want ErrTooLarge", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := ReadFile(dir, 10); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("ReadFile of a directory: %v, want an error naming it", err)
	}
}

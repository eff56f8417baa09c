//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestOutSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A character device is written in place and stays what it was.
	if _, err := os.Stat("/dev/null"); err == nil {
		r := runIO(t, nil, encodeArgs("--in", sampleFile, "--out", "/dev/null")...)
		wantRun(t, r, 0, "encoded 1000 records")
		if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("/dev/null is no longer a character device: %v %v", st.Mode(), err)
		}
		if left, _ := filepath.Glob("/dev/.null.tmp-*"); len(left) > 0 {
			t.Errorf("temporary files left in /dev: %v", left)
		}
	}
	// A FIFO is written in place.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan []byte)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	r := runIO(t, nil, encodeArgs("--in", sampleFile, "--out", fifo)...)
	wantRun(t, r, 0, "encoded 1000 records")
	data := <-got
	if !bytes.HasPrefix(data, []byte("Obj\x01")) {
		t.Errorf("the FIFO's reader got %d bytes", len(data))
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
	// A symbolic link stays a link; its target gets the file.
	target := filepath.Join(dir, "target.avro")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.avro")
	if err := os.Symlink("target.avro", link); err != nil {
		t.Fatal(err)
	}
	wantRun(t, runIO(t, nil, encodeArgs("--in", sampleFile, "--out", link)...), 0, "encoded 1000 records")
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced")
	}
	if b, _ := os.ReadFile(target); !bytes.HasPrefix(b, []byte("Obj\x01")) {
		t.Errorf("the link's target was not written")
	}
	dangling := filepath.Join(dir, "dangling.avro")
	os.Symlink("no/such/dir/x.avro", dangling)
	wantRun(t, runIO(t, nil, encodeArgs("--in", sampleFile, "--out", dangling)...), 2, "a symbolic link whose target cannot be resolved")
	sock := filepath.Join(dir, "s")
	if fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0); err == nil {
		defer syscall.Close(fd)
		if syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}) == nil {
			wantRun(t, runIO(t, nil, encodeArgs("--in", sampleFile, "--out", sock)...), 2, "is a socket; refusing to write to it")
		}
	}
}

// TestOutKeepsMode checks that an output file replacing an existing one
// keeps that file's permissions, as a write in place would: a private file
// (0600) must not become readable by others. A new file gets 0666 under
// the umask.
func TestOutKeepsMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	avro := encodeSample(t, dir, "in.avro")
	for _, c := range []struct {
		name string
		args func(out string) []string
	}{
		{"encode", func(out string) []string { return encodeArgs("--in", sampleFile, "--out", out) }},
		{"decode", func(out string) []string { return []string{"decode", avro, "--out", out} }},
		{"concat", func(out string) []string { return []string{"concat", "--out", out, avro} }},
	} {
		out := filepath.Join(dir, c.name+".out")
		if err := os.WriteFile(out, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(out, 0o600)
		if r := runIO(t, nil, c.args(out)...); r.code != 0 {
			t.Fatalf("%s: exit code %d: %s", c.name, r.code, r.stderr)
		}
		if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: the replaced file has mode %v (%v), want -rw-------", c.name, st.Mode().Perm(), err)
		}
	}
}

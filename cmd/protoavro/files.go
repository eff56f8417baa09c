package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// input is the data input of a command: a file or standard input.
type input struct {
	r io.Reader
	// name is the file name, or "standard input".
	name string
	// size is the size in bytes when the input is a regular file, else -1.
	size int64
	// close closes the file; a no-op for standard input.
	close func() error
}

// openInput opens path for reading; "-" or "" means standard input. A file
// that cannot be opened is a [usageError], whose message starts with flag
// (such as "--in") when it is not empty.
func openInput(path, flag string, std stdio) (*input, error) {
	prefix := ""
	if flag != "" {
		prefix = flag + ": "
	}
	if path == "" || path == "-" {
		in := &input{r: std.in, name: "standard input", size: -1, close: func() error { return nil }}
		if f, ok := std.in.(*os.File); ok {
			in.size = regularSize(f)
		}
		return in, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usageErrorf("%s%w", prefix, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, usageErrorf("%s%w", prefix, err)
	}
	if st.IsDir() {
		f.Close()
		return nil, usageErrorf("%s%s: is a directory", prefix, path)
	}
	return &input{r: f, name: path, size: regularSize(f), close: f.Close}, nil
}

// regularSize returns the size of f if it is a regular file, else -1.
func regularSize(f *os.File) int64 {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	return st.Size()
}

// output is the data output of a command: standard output, or a file that
// appears only when the command succeeds. Data for a file goes to a
// temporary file in the same directory (".NAME.tmp-XXXXXXXX"), which
// [output.commit] renames over the target and [output.abort] removes, so a
// failed or interrupted run never leaves a complete-looking file behind,
// and an existing file is replaced only by a complete one.
type output struct {
	// w buffers the writes and counts the bytes.
	w *bufio.Writer
	// n counts the bytes written to w's underlying writer.
	n *countingWriter
	// target is the file to create, "" for standard output.
	target string
	// tmp is the temporary file, nil for standard output.
	tmp *os.File
	// done is set by commit and abort.
	done bool
}

// createOutput prepares the output path; "-" or "" means standard output.
// A path that cannot be written (a directory, a missing directory, no
// permission) is a [usageError].
func createOutput(path string, std stdio) (*output, error) {
	if path == "" || path == "-" {
		cw := &countingWriter{w: std.out}
		return &output{w: bufio.NewWriterSize(cw, 256<<10), n: cw}, nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, usageErrorf("--out %s: is a directory", path)
	}
	tmp, err := createTemp(path)
	if err != nil {
		return nil, usageErrorf("--out: %w", err)
	}
	cw := &countingWriter{w: tmp}
	return &output{w: bufio.NewWriterSize(cw, 256<<10), n: cw, target: path, tmp: tmp}, nil
}

// createTemp creates a new file beside path, named ".BASE.tmp-" and eight
// random hex digits. Unlike [os.CreateTemp] it asks for mode 0666, so the
// final file gets the usual permissions under the process's umask.
func createTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	for range 100 {
		var r [4]byte
		_, _ = rand.Read(r[:])
		name := filepath.Join(dir, "."+base+".tmp-"+hex.EncodeToString(r[:]))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("%s: cannot create a temporary file beside it", path)
}

// Write writes to the buffer.
func (o *output) Write(p []byte) (int, error) { return o.w.Write(p) }

// written returns the number of bytes written so far, buffered ones included.
func (o *output) written() int64 { return o.n.n + int64(o.w.Buffered()) }

// commit flushes the output; for a file it syncs the temporary file, closes
// it and renames it to the target. On failure it removes the temporary file.
func (o *output) commit() error {
	if o.done {
		return nil
	}
	if err := o.w.Flush(); err != nil {
		o.abort()
		return fmt.Errorf("write output: %w", err)
	}
	if o.tmp == nil {
		o.done = true
		return nil
	}
	err := o.tmp.Sync()
	if cerr := o.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.tmp.Name(), o.target)
	}
	if err != nil {
		o.abort()
		return fmt.Errorf("write %s: %w", o.target, err)
	}
	o.done = true
	return nil
}

// abort discards a file output: the temporary file is closed and removed,
// and the target is left as it was. For standard output it does nothing;
// what was already written stays written. It is safe to call after commit.
func (o *output) abort() {
	if o.done {
		return
	}
	o.done = true
	if o.tmp != nil {
		_ = o.tmp.Close()
		_ = os.Remove(o.tmp.Name())
	}
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

// Write writes p to the underlying writer and counts what was written.
func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

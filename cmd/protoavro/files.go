package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/klauspost/compress/zstd"
	"github.com/protoavro/protoavro/internal/usage"
)

// inputsHelp is the paragraph of the help of encode and decode that says
// which inputs they read, in what order, and how compressed ones are read
// (openInput).
const inputsHelp = `Inputs are the --in files, in the order given, then the arguments that do
not end in .proto, in the order given; glob patterns (*, ?, [...]) are
expanded; none, or "-", is standard input. Their records go to one output,
in that order. Input compressed with gzip or zstd (told by its first bytes)
is decompressed as "gzip -d" and "zstd -d" read it: every gzip member or
zstd frame in turn (docs/limits.md, "Compressed inputs").
`

// input is the data input of a command: a file or standard input, its
// gzip or zstd compression undone.
type input struct {
	// r reads the input, decompressed; it buffers 1 MiB, so readers that
	// buffer less take it as it is.
	r *bufio.Reader
	// name is the file name, or "standard input".
	name string
	// size is the size in bytes when the input is an uncompressed regular
	// file, else -1.
	size int64
	// fileSize is the size in bytes of the file as stored, compressed or
	// not, when it is a regular file, else -1.
	fileSize int64
	// compression is "gzip" or "zstd" for compressed input, else "".
	compression string
	// closers close the decompressor and the file, in order.
	closers []func() error
}

// close closes the decompressor and the file.
func (in *input) close() error {
	var first error
	for _, c := range in.closers {
		if err := c(); err != nil && first == nil {
			first = err
		}
	}
	in.closers = nil
	return first
}

// inputBuffer is the buffer of an input.
const inputBuffer = 1 << 20

// openInput opens path for reading; "-" or "" means standard input, with a
// notice on standard error when it is a terminal. Input compressed with
// gzip or zstd (told by its first bytes) is decompressed as gzip -d and
// zstd -d read it: its gzip members (then zero bytes up to its end, if
// any) or zstd frames one after another; other bytes after the last member
// or frame are an error that says where they start (compressed.go). A file
// that cannot be opened is a [usage.Error], whose message starts with flag
// (such as "--in") when it is not empty.
func openInput(path, flag string, std stdio) (*input, error) {
	prefix := ""
	if flag != "" {
		prefix = flag + ": "
	}
	var in *input
	src := &countingReader{r: std.in}
	if path == "" || path == "-" {
		in = &input{name: stdinName, size: -1}
		if f, ok := std.in.(*os.File); ok {
			in.size = regularSize(f)
		}
		if isTerminal(std.in) {
			fmt.Fprintln(std.err, "protoavro: reading standard input (end it with Ctrl-D, or give a file)")
		}
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, usage.Errorf("%s%w", prefix, err)
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, usage.Errorf("%s%w", prefix, err)
		}
		if st.IsDir() {
			f.Close()
			return nil, usage.Errorf("%s%s: is a directory", prefix, path)
		}
		in = &input{name: path, size: regularSize(f), closers: []func() error{f.Close}}
		src.r = f
	}
	in.r = bufio.NewReaderSize(src, inputBuffer)
	compressed := compressedInput{r: in.r, src: src}
	head, _ := in.r.Peek(len(zstdMagic))
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		members, err := newGzipMembers(compressed)
		if err != nil {
			in.close()
			return nil, fmt.Errorf("%s: %w", in.name, &decompressError{format: "gzip", err: err})
		}
		in.compression, in.r = "gzip", bufio.NewReaderSize(&decompressed{r: members, format: "gzip"}, inputBuffer)
		in.closers = append([]func() error{members.zr.Close}, in.closers...)
	case startsZstd(in.r):
		// One goroutine: the decoder reads the frames' bytes only as it
		// decodes them, part by part as frames passes them on.
		frames := &zstdFrames{in: compressed}
		zr, err := zstd.NewReader(frames, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow))
		if err != nil {
			in.close()
			return nil, fmt.Errorf("%s: %w", in.name, &decompressError{format: "zstd", err: err})
		}
		in.compression, in.r = "zstd", bufio.NewReaderSize(&decompressed{r: zr.IOReadCloser(), format: "zstd", trailing: frames.trailing}, inputBuffer)
		in.closers = append([]func() error{func() error { zr.Close(); return nil }}, in.closers...)
	}
	in.fileSize = in.size
	if in.compression != "" {
		in.size = -1
		// Decompress the start now: a stream damaged from its first bytes
		// fails here, in its own words, rather than as input that is not
		// what the command reads (the container reader reports a failed
		// read of its magic as a missing magic).
		if _, err := in.r.Peek(1); err != nil && err != io.EOF {
			in.close()
			return nil, fmt.Errorf("%s: %w", in.name, err)
		}
	}
	return in, nil
}

// expandInputs returns the input paths that args name, as [expandGlobs]
// does; no args is standard input, and "-" cannot be combined with files.
func expandInputs(args []string, flag string) ([]string, error) {
	if len(args) == 0 {
		return []string{"-"}, nil
	}
	out, err := expandGlobs(args, flag)
	if err != nil {
		return nil, err
	}
	if slices.Contains(out, "-") && len(out) > 1 {
		return nil, usage.Errorf("%s: standard input (-) cannot be combined with files", flag)
	}
	return out, nil
}

// expandGlobs returns args with each glob pattern (with *, ? or [) that is
// not itself a file replaced by the files it matches, in order; other args,
// "-" included, are kept. A pattern that matches nothing, or is malformed,
// is a [usage.Error] naming flag (the flag or command that took it), and so
// is "-" given twice: standard input can be read only once.
func expandGlobs(args []string, flag string) ([]string, error) {
	var out []string
	stdin := false
	for _, a := range args {
		if a == "-" {
			if stdin {
				return nil, usage.Errorf("%s: standard input (-) is given twice; it can be read only once", flag)
			}
			stdin = true
		}
		if a == "-" || !strings.ContainsAny(a, "*?[") {
			out = append(out, a)
			continue
		}
		if _, err := os.Stat(a); err == nil {
			out = append(out, a)
			continue
		}
		matches, err := filepath.Glob(a)
		if err != nil {
			return nil, usage.Errorf("%s %s: %w", flag, a, err)
		}
		if len(matches) == 0 {
			return nil, usage.Errorf("%s %s: no file matches", flag, a)
		}
		out = append(out, matches...)
	}
	return out, nil
}

// regularSize returns the size of f if it is a regular file, else -1.
func regularSize(f *os.File) int64 {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	return st.Size()
}

// output is the data output of a command: standard output, a device or
// FIFO written in place, or a file that appears only when the command
// succeeds. Data for a file goes to a temporary file in the same directory
// (".NAME.tmp-XXXXXXXX"), which [output.commit] renames over the target
// and [output.abort] removes, so a failed or interrupted run never leaves a
// complete-looking file behind, and an existing file is replaced only by a
// complete one, which keeps its permissions. A symbolic link is followed:
// its target is replaced, the link stays.
type output struct {
	// w buffers the writes and counts the bytes; finish releases it, so
	// that the finished shards of a run, kept until commit, hold no buffer.
	w *bufio.Writer
	// n counts the bytes written to w's underlying writer.
	n *countingWriter
	// target is the file to create, "" for standard output and devices.
	target string
	// tmp is the temporary file, nil for standard output and devices.
	tmp *os.File
	// dev is the device or FIFO written in place, or nil.
	dev *os.File
	// finished is set by finish, done by commit and abort.
	finished, done bool
}

// createOutput prepares the output path; "-" or "" means standard output.
// flag names the option in errors ("--out"). A character device or a FIFO
// is written in place; a block device, a socket, a directory, a missing
// directory or a dangling symbolic link is a [usage.Error], as is a path
// that cannot be written.
func createOutput(path, flag string, std stdio) (*output, error) {
	if path == "" || path == "-" {
		cw := stdout(std)
		return &output{w: bufio.NewWriterSize(cw, 256<<10), n: cw}, nil
	}
	target := path
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return nil, usage.Errorf("%s %s: a symbolic link whose target cannot be resolved: %w", flag, path, err)
		}
	}
	var keep fs.FileMode // the permissions of a regular file replaced
	if st, err := os.Stat(target); err == nil {
		mode := st.Mode()
		if mode.IsRegular() {
			keep = mode.Perm()
		}
		switch {
		case st.IsDir():
			return nil, usage.Errorf("%s %s: is a directory", flag, path)
		case mode&fs.ModeDevice != 0 && mode&fs.ModeCharDevice == 0:
			return nil, usage.Errorf("%s %s: is a block device; refusing to write to it", flag, path)
		case mode&fs.ModeSocket != 0:
			return nil, usage.Errorf("%s %s: is a socket; refusing to write to it", flag, path)
		case mode&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
			f, err := os.OpenFile(target, os.O_WRONLY, 0)
			if err != nil {
				return nil, usage.Errorf("%s: %w", flag, err)
			}
			cw := &countingWriter{w: f, name: path}
			return &output{w: bufio.NewWriterSize(cw, 256<<10), n: cw, dev: f}, nil
		}
	}
	tmp, err := createTemp(target)
	if err != nil {
		// The error names the temporary file, which the user never asked
		// for: name the output and its directory instead.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, usage.Errorf("%s %s: cannot create a file in %s: %w", flag, path, filepath.Dir(target), err)
	}
	if keep != 0 {
		// The new file takes the place of the old one: it keeps its
		// permissions, as a write in place would (a private file stays
		// private).
		if err := tmp.Chmod(keep); err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return nil, usage.Errorf("%s %s: %w", flag, path, err)
		}
	}
	cw := &countingWriter{w: &writeBehind{f: tmp, every: writeBehindBytes}, name: path}
	return &output{w: bufio.NewWriterSize(cw, 256<<10), n: cw, target: target, tmp: tmp}, nil
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
	return nil, errors.New("no free temporary name")
}

// Write writes to the buffer.
func (o *output) Write(p []byte) (int, error) { return o.w.Write(p) }

// written returns the number of bytes written so far, buffered ones included.
func (o *output) written() int64 {
	if o.w == nil {
		return o.n.n
	}
	return o.n.n + int64(o.w.Buffered())
}

// finish flushes the output; for a file it syncs and closes the temporary
// file, for a device it closes it. On failure it aborts.
func (o *output) finish() error {
	if o.finished || o.done {
		return nil
	}
	o.finished = true
	if err := o.w.Flush(); err != nil {
		o.abort()
		return err
	}
	o.w = nil
	var err error
	switch {
	case o.tmp != nil:
		err = o.tmp.Sync()
		if cerr := o.tmp.Close(); err == nil {
			err = cerr
		}
	case o.dev != nil:
		err = o.dev.Close()
	}
	if err != nil {
		o.abort()
		return fmt.Errorf("write %s: %w", o.n.name, err)
	}
	return nil
}

// commit finishes the output and, for a file, renames the temporary file
// to the target. On failure it removes the temporary file. A nil output
// (an optional one not asked for) commits nothing.
func (o *output) commit() error {
	if o == nil || o.done {
		return nil
	}
	if err := o.finish(); err != nil {
		return err
	}
	if o.tmp != nil {
		if err := os.Rename(o.tmp.Name(), o.target); err != nil {
			o.abort()
			return fmt.Errorf("write %s: %w", o.target, err)
		}
	}
	o.done = true
	return nil
}

// abort discards a file output: the temporary file is closed and removed,
// and the target is left as it was. For standard output and devices it
// does nothing but close; what was already written stays written. It is
// safe to call after commit, and on a nil output.
func (o *output) abort() {
	if o == nil || o.done {
		return
	}
	o.done = true
	if o.tmp != nil {
		_ = o.tmp.Close()
		_ = os.Remove(o.tmp.Name())
	}
	if o.dev != nil {
		_ = o.dev.Close()
	}
}

// The names of the standard streams in messages: "-" and the
// process's own names for them (/dev/stdout) are never shown.
const (
	stdinName  = "standard input"
	stdoutName = "standard output"
)

// stdout returns the standard output of a command for its data: a failed
// write is a [writeError] naming "standard output", which the command
// returns (exit status 1).
func stdout(std stdio) *countingWriter {
	return &countingWriter{w: std.out, name: stdoutName}
}

// countingWriter counts the bytes written through it and names the output
// in its errors.
type countingWriter struct {
	w    io.Writer
	n    int64
	name string
}

// Write writes p to the underlying writer and counts what was written.
func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil {
		err = &writeError{name: c.name, err: err}
	}
	return n, err
}

// writeError is a failed write to an output.
type writeError struct {
	name string
	err  error
}

// Error names the output and says what happened, in words for the two
// usual cases: a reader that went away and a full disk.
func (e *writeError) Error() string {
	switch {
	case errors.Is(e.err, syscall.EPIPE):
		return "write " + e.name + ": broken pipe (the reading end was closed)"
	case errors.Is(e.err, syscall.ENOSPC):
		return "write " + e.name + ": no space left on device"
	}
	var pe *fs.PathError
	if errors.As(e.err, &pe) {
		return "write " + e.name + ": " + pe.Err.Error()
	}
	return "write " + e.name + ": " + e.err.Error()
}

// Unwrap returns the error of the write.
func (e *writeError) Unwrap() error { return e.err }

// isTerminal reports whether x, a standard stream, is a terminal. Test
// doubles say so with an IsTerminal method.
func isTerminal(x any) bool {
	if t, ok := x.(interface{ IsTerminal() bool }); ok {
		return t.IsTerminal()
	}
	f, ok := x.(*os.File)
	return ok && fileIsTerminal(f)
}

package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/protoavro/protoavro/internal/testutil"
)

// gzipEach compresses each part as one gzip member, the members one after
// another.
func gzipEach(t *testing.T, parts ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, p := range parts {
		zw := gzip.NewWriter(&buf)
		if _, err := zw.Write(p); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// zstdEach compresses each part as one zstd frame, the frames one after
// another.
func zstdEach(t *testing.T, parts ...[]byte) []byte {
	t.Helper()
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer zw.Close()
	var out []byte
	for _, p := range parts {
		out = zw.EncodeAll(p, out)
	}
	return out
}

// skippableFrame is a zstd skippable frame holding data.
func skippableFrame(data string) []byte {
	b := binary.LittleEndian.AppendUint32([]byte{0x5a, 0x2a, 0x4d, 0x18}, uint32(len(data)))
	return append(b, data...)
}

// thirds splits b into three parts, cut at arbitrary bytes.
func thirds(b []byte) [][]byte {
	n := len(b)
	return [][]byte{b[:n/3], b[n/3 : 2*n/3], b[2*n/3:]}
}

// TestDecodeReadsEveryMemberAndFrame decodes a container file compressed
// as several gzip members (as gzip -d reads them), followed by zero bytes
// or not, and as several zstd frames with skippable frames among them and
// after them: the output is that of the file uncompressed, from a file and
// from standard input. encode reads its input the same way.
func TestDecodeReadsEveryMemberAndFrame(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := encodeSample(t, dir, "s.avro")
	avro, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	want := runIO(t, nil, "decode", "--format", "jsonl", plain)
	if want.code != 0 || strings.Count(want.stdout, "\n") != 1000 {
		t.Fatalf("decode of the file uncompressed: exit code %d, %d lines, stderr %q", want.code, strings.Count(want.stdout, "\n"), want.stderr)
	}
	parts := thirds(avro)
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"gzip, three members", gzipEach(t, parts...)},
		{"gzip, three members, zero bytes after them", append(gzipEach(t, parts...), make([]byte, 3000)...)},
		{"gzip, one member, a zero byte after it", append(gzipEach(t, avro), 0)},
		{"zstd, three frames, skippable frames among and after them", slices.Concat(
			zstdEach(t, parts[0]), skippableFrame("between"), zstdEach(t, parts[1:]...), skippableFrame("after"))},
	} {
		in := filepath.Join(dir, "in")
		if err := os.WriteFile(in, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, r := range []result{
			runIO(t, nil, "decode", "--format", "jsonl", in),
			runIO(t, c.data, "decode", "--format", "jsonl", "-"),
		} {
			if r.code != 0 || r.stdout != want.stdout {
				t.Errorf("%s: exit code %d, %d lines, stderr %q; want the 1000 records of the file uncompressed", c.name, r.code, strings.Count(r.stdout, "\n"), r.stderr)
			}
		}
	}
	sample, _ := readSample(t)
	for name, data := range map[string][]byte{
		"gzip": append(gzipEach(t, thirds(sample)...), make([]byte, 512)...),
		"zstd": slices.Concat(zstdEach(t, thirds(sample)...), skippableFrame("x")),
	} {
		out := filepath.Join(dir, name+".avro")
		wantRun(t, runIO(t, data, encodeArgs("--out", out)...), 0, "encoded 1000 records")
		if r := runIO(t, nil, "decode", "--format", "jsonl", out); r.stdout != want.stdout {
			t.Errorf("encode of %s members or frames: the file decodes to %d lines (%q), not to the sample's", name, strings.Count(r.stdout, "\n"), r.stderr)
		}
	}
}

// TestCompressedInputTrailingGarbage reads, with encode and decode,
// compressed inputs whose last gzip member or zstd frame is followed by
// bytes that gzip -d or zstd -d would not read: each is an error (exit
// status 1, no output left) that names the file, says at which byte of
// the compressed input the garbage starts and shows its first 16 bytes,
// escaped.
func TestCompressedInputTrailingGarbage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	avro, err := os.ReadFile(encodeSample(t, dir, "s.avro"))
	if err != nil {
		t.Fatal(err)
	}
	sample, _ := readSample(t)
	zeros := make([]byte, 1000)
	for _, c := range []struct {
		name     string
		compress func(*testing.T, ...[]byte) []byte
		after    []byte
		// want is the error after "the FORMAT data (N bytes decompressed)
		// is followed by"; %[1]d is the length of the compressed data.
		want string
	}{
		{"gzip, garbage", gzipEach, []byte("garbage\x1b[31m\xff\x00 and more of it"),
			` garbage at byte %[1]d of the compressed input: "garbage\x1b[31m\xff\x00 a"...; only zero bytes may follow the last gzip member`},
		{"gzip, zero bytes, then garbage", gzipEach, append(slices.Clone(zeros), "x\n"...),
			` zero bytes from byte %[1]d of the compressed input, then garbage at byte %[2]d: "x\n"; only zero bytes may follow the last gzip member`},
		{"gzip, zero bytes, then a member", gzipEach, append(slices.Clone(zeros), gzipEach(t, []byte("more"))[:10]...),
			` zero bytes from byte %[1]d of the compressed input, then garbage at byte %[2]d: "\x1f\x8b\b\x00\x00\x00\x00\x00\x00\xff"; only zero bytes may follow the last gzip member, and a member after them is not read (remove the zero bytes before it)`},
		{"gzip, the start of a magic number, then garbage", gzipEach, []byte("\x1fX"),
			` garbage at byte %[1]d of the compressed input: "\x1fX"; only zero bytes may follow the last gzip member`},
		{"zstd, garbage", zstdEach, []byte("junk"),
			` garbage at byte %[1]d of the compressed input: "junk"; only zstd frames and skippable frames may follow a zstd frame`},
		{"zstd, zero bytes", zstdEach, zeros,
			` garbage at byte %[1]d of the compressed input: "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"...; only zstd frames and skippable frames may follow a zstd frame (zero padding is refused, as zstd -d refuses it)`},
		{"zstd, a skippable frame, then garbage", func(t *testing.T, b ...[]byte) []byte {
			return append(zstdEach(t, b...), skippableFrame("abc")...)
		}, []byte("\x28\xb5\x2f\xfeX"),
			` garbage at byte %[1]d of the compressed input: "(\xb5/\xfeX"; only zstd frames and skippable frames may follow a zstd frame`},
	} {
		format, _, _ := strings.Cut(c.name, ",") // the name starts with it
		out := filepath.Join(dir, "out")
		for _, in := range []struct {
			data []byte
			args func(path string) []string
			// prefix is what comes before the error of the compressed
			// data, after the file's name.
			prefix string
		}{
			{avro, func(path string) []string { return []string{"decode", path, "--out", out} },
				fmt.Sprintf(`container block \d+ at byte %d: `, len(avro))},
			{sample, func(path string) []string { return encodeArgs("--in", path, "--out", out) }, "read input: "},
		} {
			compressed := c.compress(t, thirds(in.data)...)
			path := filepath.Join(dir, "in."+format)
			if err := os.WriteFile(path, append(compressed, c.after...), 0o644); err != nil {
				t.Fatal(err)
			}
			at := len(compressed) + len(c.after) - len(bytes.TrimLeft(c.after, "\x00"))
			want := fmt.Sprintf("the %s data (%d bytes decompressed) is followed by", format, len(in.data)) + fmt.Sprintf(c.want, len(compressed), at)
			re := regexp.MustCompile(`^protoavro: ` + regexp.QuoteMeta(path) + `: ` + in.prefix + regexp.QuoteMeta(want) + "\n$")
			r := runIO(t, nil, in.args(path)...)
			if r.code != 1 || !re.MatchString(r.stderr) {
				t.Errorf("%s, %s: exit code %d, stderr\n%q\nwant 1 and a match of\n%s", c.name, in.args(path)[0], r.code, r.stderr, re)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatalf("%s: a failed run left %s", c.name, out)
			}
		}
	}
}

// TestCompressedInputCutShort reads compressed inputs whose last gzip
// member or zstd frame, after whole ones, is cut short, down to the start
// of its magic number: each is an error (exit status 1) that names the file
// and says that the compressed data ends early, after how many decompressed
// bytes when the cut falls between members or frames.
func TestCompressedInputCutShort(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sample, _ := readSample(t)
	gz, zs := gzipEach(t, sample[:1000]), zstdEach(t, sample[:1000])
	more := func(b []byte) []byte { return b[:len(b)/2] }
	for _, c := range []struct {
		name string
		data []byte
		// n is the number of decompressed bytes before the cut, or -1
		// when it falls inside a member or frame.
		n int
	}{
		{"gzip, a member cut in half", append(gzipEach(t, sample[:1000]), more(gzipEach(t, sample[1000:]))...), -1},
		{"gzip, the first byte of a magic number", append(slices.Clone(gz), 0x1f), 1000},
		{"gzip, a member header cut short", append(slices.Clone(gz), gzipEach(t, sample[1000:])[:6]...), 1000},
		{"zstd, a frame cut in half", append(slices.Clone(zs), more(zstdEach(t, sample[1000:]))...), -1},
		{"zstd, three bytes of a magic number", append(slices.Clone(zs), 0x28, 0xb5, 0x2f), 1000},
		{"zstd, a frame header cut short", append(slices.Clone(zs), zstdEach(t, sample[1000:])[:5]...), 1000},
		{"zstd, a skippable frame cut short", append(slices.Clone(zs), skippableFrame("0123456789")[:12]...), 1000},
	} {
		path := filepath.Join(dir, "in")
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		after := `\d+`
		if c.n >= 0 {
			after = fmt.Sprint(c.n)
		}
		format, _, _ := strings.Cut(c.name, ",") // the name starts with it
		re := regexp.MustCompile(`^protoavro: ` + regexp.QuoteMeta(path) + `: read input: the ` + format + ` data ends early \(truncated\) after ` + after + ` decompressed bytes: unexpected EOF\n$`)
		out := filepath.Join(dir, "out.avro")
		r := runIO(t, nil, encodeArgs("--in", path, "--out", out)...)
		if r.code != 1 || !re.MatchString(r.stderr) {
			t.Errorf("%s: exit code %d, stderr %q; want 1 and a match of %s", c.name, r.code, r.stderr, re)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%s: a failed run left %s", c.name, out)
		}
	}
}

// TestZstdFrameShapes reads zstd frames of every shape the encoders write
// (with and without a checksum, a content size or a window descriptor;
// raw, RLE and compressed blocks; several blocks; an empty frame), two of
// each, then garbage: the content is read whole, and the garbage is found
// where the frames end, which holds only if every header and block was
// followed to its end. Frames written by the zstd command are among them
// when it is installed.
func TestZstdFrameShapes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 130<<10) // incompressible: raw blocks, two of them
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	sample, _ := readSample(t)
	contents := map[string][]byte{
		"empty":  {},
		"random": random,
		"zeros":  make([]byte, 260<<10), // RLE blocks
		"sample": sample[:100<<10],
		"mixed":  slices.Concat(random[:1000], make([]byte, 1000), sample[:1000]),
	}
	encoders := map[string][]zstd.EOption{
		"default":         nil,
		"no checksum":     {zstd.WithEncoderCRC(false)},
		"single segment":  {zstd.WithSingleSegment(true), zstd.WithZeroFrames(true)},
		"better, no size": {zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithZeroFrames(true)},
		"fastest, small window": {zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(1 << 10),
			zstd.WithZeroFrames(true)},
	}
	zstdCmd, _ := exec.LookPath("zstd")
	for cname, content := range contents {
		type frame struct {
			name string
			data []byte
		}
		var frames []frame
		for ename, opts := range encoders {
			zw, err := zstd.NewWriter(nil, opts...)
			if err != nil {
				t.Fatal(err)
			}
			var data []byte
			if strings.HasSuffix(ename, "no size") {
				// The stream encoder, which knows no content size.
				var buf bytes.Buffer
				zw.Reset(&buf)
				zw.Write(content)
				zw.Close()
				data = buf.Bytes()
			} else {
				data = zw.EncodeAll(content, nil)
			}
			zw.Close()
			frames = append(frames, frame{ename, data})
		}
		if zstdCmd != "" {
			for _, args := range [][]string{{"-q", "-c"}, {"-q", "-c", "--no-check", "-9"}, {"-q", "-c", "--no-content-size", "--long=20"}} {
				cmd := exec.Command(zstdCmd, args...)
				cmd.Stdin = bytes.NewReader(content)
				data, err := cmd.Output()
				if err != nil {
					t.Fatalf("zstd %q: %v", args, err)
				}
				frames = append(frames, frame{"zstd " + strings.Join(args, " "), data})
			}
		}
		for _, f := range frames {
			if len(f.data) == 0 {
				continue // no frame for no content
			}
			data := slices.Concat(f.data, f.data, []byte("garbage"))
			// An input that decompresses to nothing fails at its opening,
			// which decompresses its start.
			var got []byte
			in, err := openInput("-", "", stdio{in: bytes.NewReader(data), err: io.Discard})
			if err == nil {
				got, err = io.ReadAll(in.r)
				in.close()
			} else if len(content) == 0 {
				err = errors.Unwrap(err)
			}
			wantErr := fmt.Sprintf(`the zstd data (%d bytes decompressed) is followed by garbage at byte %d of the compressed input: "garbage"; `, 2*len(content), 2*len(f.data))
			if !bytes.Equal(got, slices.Concat(content, content)) || err == nil || !strings.HasPrefix(err.Error(), wantErr) {
				t.Errorf("%s, %s: read %d bytes of %d, error %v; want %s...", cname, f.name, len(got), 2*len(content), err, wantErr)
			}
		}
	}
	// The frames of the zstd command were read too, when it is installed.
	testutil.Need(t, zstdCmd != "", "zstd not installed: apt-get install zstd")
}

// TestGzipMagicNeedsDeflate: an input is gzip when its first bytes are the
// gzip magic number and deflate, gzip's one compression method. A
// length-delimited file whose first record is 31 bytes long, its first
// field a group (0x1f 0x8b, then 0x02), is read as records; a gzip header
// that does not decompress is an error in the words of the others,
// "gzip" said once.
func TestGzipMagicNeedsDeflate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Group 33 holding field 1 (23 bytes), then the required field 1.
	rec := slices.Concat([]byte{0x8b, 0x02, 0x0a, 23}, bytes.Repeat([]byte("a"), 23), []byte{0x8c, 0x02, 0x08, 0x05})
	if len(rec) != 0x1f {
		t.Fatalf("the record is %d bytes", len(rec))
	}
	in := filepath.Join(dir, "in.delimited")
	if err := os.WriteFile(in, append([]byte{0x1f}, rec...), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.avro")
	r := runIO(t, nil, encodeArgs("--in", in, "--out", out)...)
	if r.code != 0 || !strings.Contains(r.stderr, "encoded 1 record") || !strings.Contains(r.stderr, "1 record had unknown fields dropped") {
		t.Fatalf("encode: exit %d, stderr %q; want 1 record, its unknown group dropped", r.code, r.stderr)
	}
	r = runIO(t, nil, "decode", out, "--format", "jsonl")
	if r.code != 0 || r.stdout != "{\"int32\":5}\n" {
		t.Errorf("decode: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	for _, c := range []struct{ data, want string }{
		{"\x1f\x8b\x08\x00\x00", "ends early (truncated) after 0 decompressed bytes: unexpected EOF\n"}, // the header cut
		{"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff", "is damaged after 0 decompressed bytes: flate: corrupt input before offset 1\n"},
	} {
		bad := filepath.Join(dir, "bad.gz")
		if err := os.WriteFile(bad, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		r = runIO(t, nil, encodeArgs("--in", bad, "--out", out+"2")...)
		want := "protoavro: " + bad + ": the gzip data " + c.want
		if r.code != 1 || r.stderr != want {
			t.Errorf("encode of %q: exit %d, stderr %q; want 1 and %q", c.data, r.code, r.stderr, want)
		}
	}
}

// TestZstdLeadingSkippableFrame: the output of pzstd, whose frames each
// follow a skippable frame holding their size, is zstd, read whole by
// encode and decode; a length-delimited file whose first record starts
// with the bytes of a skippable frame's magic number, with no zstd frame
// after them, is read as records.
func TestZstdLeadingSkippableFrame(t *testing.T) {
	t.Parallel()
	pzstd, err := exec.LookPath("pzstd")
	testutil.Need(t, err == nil, "pzstd not installed: apt-get install zstd")
	dir := t.TempDir()
	sample, _ := readSample(t)
	// Four copies of the sample in several frames (pzstd -p 2 splits its
	// input), each after its skippable frame.
	plain := bytes.Repeat(sample, 4)
	cmd := exec.Command(pzstd, "-q", "-c", "-p", "2")
	cmd.Stdin = bytes.NewReader(plain)
	compressed, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if compressed[0] != 0x50 || !bytes.Equal(compressed[1:4], zstdSkippableMagic) {
		t.Fatalf("pzstd's output starts % x, not a skippable frame", compressed[:8])
	}
	in := filepath.Join(dir, "in.delimited.zst")
	if err := os.WriteFile(in, compressed, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.avro")
	r := runIO(t, nil, encodeArgs("--in", in, "--out", out)...)
	if r.code != 0 || !strings.Contains(r.stderr, "encoded 4000 records") {
		t.Fatalf("encode of pzstd's output: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runIO(t, nil, "decode", out, "--out", "-")
	if r.code != 0 || r.stdout != string(plain) {
		t.Errorf("decode: exit %d, %d bytes, stderr %q; want the %d bytes of the input", r.code, len(r.stdout), r.stderr, len(plain))
	}

	// A record of 0x51 bytes: field 5 of 77 bytes (2a 4d, then 18 ...),
	// then the required field 1.
	rec := slices.Concat([]byte{0x51, 0x2a, 0x4d, 0x18}, bytes.Repeat([]byte("a"), 76), []byte{0x08, 0x01})
	records := filepath.Join(dir, "records.delimited")
	if err := os.WriteFile(records, rec, 0o644); err != nil {
		t.Fatal(err)
	}
	r = runIO(t, nil, encodeArgs("--in", records, "--out", out+"2")...)
	if r.code != 0 || !strings.Contains(r.stderr, "encoded 1 record") {
		t.Errorf("encode of a record starting like a skippable frame: exit %d, stderr %q", r.code, r.stderr)
	}
}

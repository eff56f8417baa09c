package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
)

// maxFuzzOutput caps the decompressed bytes that FuzzCompressedInput reads
// of an input.
const maxFuzzOutput = 4 << 20

// The largest ratios of decompressed to compressed bytes that the formats
// allow: deflate's 258 bytes of a match for two bits at best, and a zstd
// block's 128 KiB for 4 bytes (an RLE block: its 3-byte header, then the
// byte repeated).
const (
	maxGzipRatio = 1032
	maxZstdRatio = 32 << 10
)

// maxErrorText bounds the length of the error of an input.
const maxErrorText = 1024

// FuzzCompressedInput reads inputs as the commands open them (openInput):
// every input is read to its end or first error, with no panic, its
// output within what its compression can give for its size; an input that
// is not compressed is read as it is; an error is a [decompressError] of
// bounded, printable text that names how many decompressed bytes came
// before it, and trailing garbage is named at its offset in the input,
// after gzip's zero bytes, with its first bytes as they are there.
//
// Each input is also read as the plan of a compressed stream
// ([buildFuzzStream]): its payload cut into gzip members or zstd frames
// written by the compressors, with zero padding or skippable frames, then
// ended whole, with garbage or cut short. The stream decompresses to the
// payload; garbage is an error at its offset after the payload; a stream
// cut short decompresses to a prefix of the payload, whole where the cut
// falls where the stream may end and an error elsewhere.
func FuzzCompressedInput(f *testing.F) {
	for _, seed := range compressedFuzzSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		readFuzzInput(t, data)
		checkFuzzStream(t, buildFuzzStream(data))
	})
}

// compressedFuzzSeeds returns the seed corpus of FuzzCompressedInput:
// compressed inputs as they are (the first byte of each read as a plan
// too), and plans of streams.
func compressedFuzzSeeds() [][]byte {
	one := []byte("one member or frame\n")
	parts := [][]byte{[]byte("first "), []byte("second "), []byte("third\n")}
	gz := gzipPieces(gzip.DefaultCompression, false, parts...)
	zs := zstdPieces(0, parts...)
	skippable := func(n int, fill byte) []byte {
		b := binary.LittleEndian.AppendUint32([]byte{0x50, 0x2a, 0x4d, 0x18}, uint32(n))
		return append(b, bytes.Repeat([]byte{fill}, n)...)
	}
	// plan returns the plan of a stream (see buildFuzzStream).
	plan := func(ctrl, level, fill, n, hi, lo byte, payload string) []byte {
		return append([]byte{ctrl, level, fill, n, hi, lo}, payload...)
	}
	return [][]byte{
		// Inputs as they are.
		{},
		[]byte("plain bytes, not compressed\n"),
		{0x1f, 0x8b, 0x02, 'x'}, // a gzip magic number, not deflate
		skippable(4, 0),         // a skippable frame alone: plain
		gzipPieces(gzip.DefaultCompression, false, one), // gzip, one member
		gz, // gzip, three members
		append(slices.Clone(gz), make([]byte, 100)...),                  // zero padding
		append(append(slices.Clone(gz), make([]byte, 3)...), "junk"...), // padding, then garbage
		append(append(slices.Clone(gz), make([]byte, 3)...), gz...),     // padding, then a member
		gz[:len(gz)-5],                                          // the last member cut short
		slices.Concat(zs, skippable(3, 'x'), zs),                // zstd frames, a skippable frame among them
		slices.Concat(skippable(4, 0), zstdPieces(0, one)),      // a leading skippable frame, as pzstd writes
		zs[:len(zs)-3],                                          // the last frame cut short
		append(slices.Clone(zs), "garbage after the frames"...), // garbage
		append(slices.Clone(zs), 0, 0),                          // zero bytes after zstd frames
		// Plans: gzip in two members with zero padding; gzip in four
		// members with header fields, then garbage; gzip cut short.
		plan(0x22, 0, 0, 7, 1, 0, "payload of two members"),
		plan(0x4e, 3, 'x', 5, 0, 'G', "four members, garbage after"),
		plan(0x14, 2, 0, 0, 0x12, 0x34, "three members cut short somewhere"),
		// zstd in four frames, a leading skippable frame and skippable
		// frames after each, then garbage; zstd in two frames cut short;
		// zstd written by the stream encoder.
		plan(0x6f, 1, 'k', 4, 0, 0x28, "four frames between skippable frames"),
		plan(0x33, 0, 0, 4, 0x01, 0x00, "two frames cut short"),
		plan(0x05, 4, 0, 0, 0, 0, "three frames, no content size"),
	}
}

// readFuzzInput reads data as the commands open an input, at most
// maxFuzzOutput decompressed bytes of it, and checks what FuzzCompressedInput
// says of every input. It returns the decompressed bytes, the compression
// ("" if none), and the error that ended the reading (nil at the end, or
// when the cap was reached).
func readFuzzInput(t *testing.T, data []byte) (out []byte, compression string, err error) {
	t.Helper()
	in, err := openInput("-", "", stdio{in: bytes.NewReader(data), err: io.Discard})
	if err != nil {
		// The start of a compressed input does not decompress.
		return nil, checkDecompressError(t, data, nil, err), err
	}
	defer in.close()
	compression = in.compression
	out, err = io.ReadAll(io.LimitReader(in.r, maxFuzzOutput))
	switch compression {
	case "":
		if err != nil || !bytes.Equal(out, data) {
			t.Fatalf("input not compressed: read %d bytes of %d, error %v; want the input as it is", len(out), len(data), err)
		}
	case "gzip", "zstd":
		ratio := maxGzipRatio
		if compression == "zstd" {
			ratio = maxZstdRatio
		}
		if len(out) > ratio*len(data) {
			t.Fatalf("%s input of %d bytes: %d decompressed bytes, more than %d times as many", compression, len(data), len(out), ratio)
		}
	default:
		t.Fatalf("compression %q", compression)
	}
	if len(out) == maxFuzzOutput {
		return out, compression, nil // the error, if any, is not reached
	}
	if err != nil {
		checkDecompressError(t, data, out, err)
	}
	return out, compression, err
}

// checkDecompressError checks the error of data, read as far as out: a
// [decompressError] whose count is the length of out, said in its text,
// which is bounded and printable; trailing garbage found where data holds
// it, after zero bytes only if gzip, and shown as data holds it. It
// returns the compression the error names.
func checkDecompressError(t *testing.T, data, out []byte, err error) string {
	t.Helper()
	msg := err.Error()
	if len(msg) > maxErrorText || !utf8.ValidString(msg) || strings.IndexFunc(msg, func(r rune) bool { return !strconv.IsPrint(r) }) >= 0 {
		t.Fatalf("error text of %d bytes, not all printable: %q", len(msg), msg)
	}
	var de *decompressError
	if !errors.As(err, &de) {
		t.Fatalf("error %q (%T) is not a decompressError", msg, err)
	}
	if de.n != int64(len(out)) {
		t.Fatalf("error %q counts %d decompressed bytes; %d were read", msg, de.n, len(out))
	}
	if !strings.Contains(msg, fmt.Sprintf("after %d decompressed bytes", de.n)) && !strings.Contains(msg, fmt.Sprintf("(%d bytes decompressed)", de.n)) {
		t.Fatalf("error %q does not say the %d decompressed bytes before it", msg, de.n)
	}
	var g *trailingGarbage
	if !errors.As(err, &g) {
		return de.format
	}
	if !strings.Contains(msg, fmt.Sprintf("garbage at byte %d", g.at)) {
		t.Fatalf("error %q does not name byte %d", msg, g.at)
	}
	if g.end < 0 || g.at < g.end || g.at >= int64(len(data)) {
		t.Fatalf("error %q: compressed data ending at %d, garbage at %d, in %d bytes", msg, g.end, g.at, len(data))
	}
	zeros := data[g.end:g.at]
	if (g.format == "zstd" && len(zeros) > 0) || len(bytes.Trim(zeros, "\x00")) > 0 || (g.format == "gzip" && data[g.at] == 0) {
		t.Fatalf("error %q: %s data ending at %d, garbage at %d: % x between", msg, g.format, g.end, g.at, zeros)
	}
	rest := data[g.at:]
	if !bytes.Equal(g.head, rest[:min(len(rest), maxTrailingShown)]) || g.more != (len(rest) > maxTrailingShown) {
		t.Fatalf("error %q shows %q (more %v); the input holds %q there", msg, g.head, g.more, rest[:min(len(rest), maxTrailingShown+1)])
	}
	return de.format
}

// fuzzStream is a compressed stream built from the plan of an input, and
// what it decompresses to.
type fuzzStream struct {
	format string   // "gzip" or "zstd"
	data   []byte   // the stream, as it ends (whole, with garbage, or cut)
	pieces [][]byte // the payload, a piece per member or frame
	// start is the length from which data is told compressed: the gzip
	// magic number; a zstd frame's, after the leading skippable frame.
	start int
	// ends maps the lengths at which the stream may end (after each
	// member or frame, skippable ones included, and each zero byte of
	// the padding) to the number of pieces then decompressed.
	ends map[int]int
	// garbage, when set, is the offset of the garbage after the stream,
	// and garbageEnd where the compressed data ends (before the padding).
	garbage, garbageEnd int
	cut                 bool // data is the stream cut short at its length
}

// buildFuzzStream reads plan as the plan of a compressed stream, its
// first bytes (0 when missing) saying how to compress the rest, its
// payload:
//
//	plan[0] bit 0: zstd, else gzip
//	        bits 1-2: the number of pieces the payload is cut into, less 1
//	        bits 3-4: 1 garbage after the stream, 2 the stream cut short,
//	                  else the stream whole
//	        bit 5: gzip, zero padding after the members; zstd, a skippable
//	               frame before the first frame, as pzstd writes
//	        bit 6: gzip, a name, comment and extra field in each header;
//	               zstd, a skippable frame after each frame
//	plan[1] the compression level (gzip) or encoder (zstd)
//	plan[2] the byte a skippable frame holds, and the first of the garbage
//	plan[3] the length of the padding or of each skippable frame's payload
//	plan[4:6] where the stream is cut (its remainder by the stream's
//	          length), or the length of the garbage (the second byte)
func buildFuzzStream(plan []byte) *fuzzStream {
	var h [6]byte
	copy(h[:], plan)
	payload := plan[min(len(plan), len(h)):]
	ctrl, level, fill, size := h[0], h[1], h[2], int(h[3])
	s := &fuzzStream{format: "gzip", ends: map[int]int{}, garbage: -1}
	if ctrl&1 != 0 {
		s.format = "zstd"
	}
	n := 1 + int(ctrl>>1&3)
	for i := range n {
		s.pieces = append(s.pieces, payload[len(payload)*i/n:len(payload)*(i+1)/n])
	}
	extra := ctrl&0x40 != 0
	skippable := binary.LittleEndian.AppendUint32([]byte{0x50 | fill&0xf, 0x2a, 0x4d, 0x18}, uint32(size))
	skippable = append(skippable, bytes.Repeat([]byte{fill}, size)...)
	var data []byte
	switch s.format {
	case "gzip":
		for i, p := range s.pieces {
			data = append(data, gzipPieces(gzipLevels[int(level)%len(gzipLevels)], extra, p)...)
			s.ends[len(data)] = i + 1
		}
		s.start, s.garbageEnd = len(gzipMagic), len(data)
		if ctrl&0x20 != 0 {
			for range 1 + size*16 {
				data = append(data, 0)
				s.ends[len(data)] = n
			}
		}
	case "zstd":
		if ctrl&0x20 != 0 {
			data = append(data, skippable...)
		}
		s.start = len(data) + len(zstdMagic)
		for i, p := range s.pieces {
			data = append(data, zstdPieces(int(level), p)...)
			s.ends[len(data)] = i + 1
			if extra {
				data = append(data, skippable...)
				s.ends[len(data)] = i + 1
			}
		}
		s.garbageEnd = len(data)
	}
	switch ctrl >> 3 & 3 {
	case 1:
		g := append([]byte{fill}, payload[:min(len(payload), int(h[5])%32)]...)
		// A first byte that would be read as more of the stream: the
		// start of a gzip member or its padding, or of a zstd frame.
		if (s.format == "gzip" && (g[0] == 0 || g[0] == gzipMagic[0])) ||
			(s.format == "zstd" && (g[0] == zstdMagic[0] || skippablePrefix(g[:1]))) {
			g[0] = 'G'
		}
		s.garbage = len(data)
		data = append(data, g...)
	case 2:
		data = data[:int(binary.BigEndian.Uint16(h[4:6]))%len(data)]
		s.cut = true
	}
	s.data = data
	return s
}

// checkFuzzStream reads the stream s and checks that it decompresses to
// its pieces, or ends as its plan says.
func checkFuzzStream(t *testing.T, s *fuzzStream) {
	t.Helper()
	out, compression, err := readFuzzInput(t, s.data)
	if len(s.data) < s.start {
		if compression != "" {
			t.Fatalf("%d bytes of %s, too few to be told it: read as %s", len(s.data), s.format, compression)
		}
		return // read as it is
	}
	if compression != s.format {
		t.Fatalf("%s stream of %d bytes read as compression %q (error %v)", s.format, len(s.data), compression, err)
	}
	payload := bytes.Join(s.pieces, nil)
	switch k, ok := s.ends[len(s.data)]; {
	case s.garbage >= 0:
		var g *trailingGarbage
		if !bytes.Equal(out, payload) || !errors.As(err, &g) || g.end != int64(s.garbageEnd) || g.at != int64(s.garbage) {
			t.Fatalf("%s stream of %d bytes, then garbage at %d: read %d bytes of %d, error %v; want garbage at byte %d",
				s.format, s.garbageEnd, s.garbage, len(out), len(payload), err, s.garbage)
		}
	case ok:
		want := bytes.Join(s.pieces[:k], nil)
		if err != nil || !bytes.Equal(out, want) {
			t.Fatalf("%s stream ending after %d of %d pieces, at byte %d: read %d bytes of %d, error %v",
				s.format, k, len(s.pieces), len(s.data), len(out), len(want), err)
		}
	default:
		if err == nil || !bytes.HasPrefix(payload, out) {
			t.Fatalf("%s stream cut short at byte %d: read %d bytes of %d (a prefix: %v), error %v; want an error",
				s.format, len(s.data), len(out), len(payload), bytes.HasPrefix(payload, out), err)
		}
	}
}

// gzipLevels are the compression levels a plan chooses among.
var gzipLevels = []int{gzip.DefaultCompression, gzip.BestSpeed, gzip.NoCompression, gzip.HuffmanOnly, gzip.BestCompression}

// gzipWriters holds a gzip writer per level in gzipLevels, for reuse.
var gzipWriters sync.Map

// gzipPieces compresses each piece as one gzip member at level, with a
// name, comment and extra field in its header if extra is set.
func gzipPieces(level int, extra bool, pieces ...[]byte) []byte {
	var buf bytes.Buffer
	for i, p := range pieces {
		var zw *gzip.Writer
		if w, ok := gzipWriters.LoadAndDelete(level); ok {
			zw = w.(*gzip.Writer)
			zw.Reset(&buf)
		} else {
			var err error
			if zw, err = gzip.NewWriterLevel(&buf, level); err != nil {
				panic(err)
			}
		}
		if extra {
			zw.Name, zw.Comment = fmt.Sprintf("piece%d", i), "a comment"
			zw.Extra = p[:min(len(p), 16)]
		}
		if _, err := zw.Write(p); err != nil {
			panic(err)
		}
		if err := zw.Close(); err != nil {
			panic(err)
		}
		gzipWriters.Store(level, zw)
	}
	return buf.Bytes()
}

// zstdEncoders are the encoders a plan chooses among, each writing a frame
// for an empty piece too: with the defaults; the fastest with no checksum;
// better compression as a single segment; a small window.
var zstdEncoders = sync.OnceValue(func() []*zstd.Encoder {
	var encs []*zstd.Encoder
	for _, opts := range [][]zstd.EOption{
		nil,
		{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(false)},
		{zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithSingleSegment(true)},
		{zstd.WithWindowSize(1 << 10)},
	} {
		zw, err := zstd.NewWriter(nil, append(opts, zstd.WithZeroFrames(true), zstd.WithEncoderConcurrency(1))...)
		if err != nil {
			panic(err)
		}
		encs = append(encs, zw)
	}
	return encs
})

// zstdStream is the encoder of zstdPieces' last choice, the stream encoder,
// whose frames hold no content size.
var zstdStream struct {
	sync.Mutex
	zw *zstd.Encoder
}

// zstdPieces compresses each piece as one zstd frame with the encoder
// choice picks, modulo the choices: one of zstdEncoders, or the stream
// encoder.
func zstdPieces(choice int, pieces ...[]byte) []byte {
	encs := zstdEncoders()
	choice %= len(encs) + 1
	var out []byte
	for _, p := range pieces {
		if choice < len(encs) {
			out = encs[choice].EncodeAll(p, out)
			continue
		}
		zstdStream.Lock()
		if zstdStream.zw == nil {
			zw, err := zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderConcurrency(1))
			if err != nil {
				panic(err)
			}
			zstdStream.zw = zw
		}
		buf := bytes.NewBuffer(out)
		zstdStream.zw.Reset(buf)
		_, err := zstdStream.zw.Write(p)
		if err == nil {
			err = zstdStream.zw.Close()
		}
		zstdStream.Unlock()
		if err != nil {
			panic(err)
		}
		out = buf.Bytes()
	}
	return out
}

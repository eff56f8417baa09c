package main

// The decompression of compressed inputs, as gzip -d and zstd -d read
// them. The gzip members of an input are read one after another; after
// the last, the input may hold zero bytes up to its end (the padding of
// tapes, block devices and files allocated before they were written),
// which gzip -d passes over too. The zstd frames of an input are read one
// after another, its skippable frames passed over; nothing may follow the
// last, zero bytes neither, as zstd -d refuses them ("unsupported
// format"; RFC 8878 knows no padding but skippable frames). Any other byte
// after the last member or frame is an error that says where it is and
// shows the first bytes, escaped: nothing after it is read, so that no data
// is passed over unsaid.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// maxZstdWindow bounds the memory a zstd stream may ask for.
const maxZstdWindow = 128 << 20

// Magic numbers of the compressed formats that inputs may be in; a zstd
// skippable frame starts with a byte 0x50 to 0x5f, then these three. The
// gzip magic number is followed by its one compression method, deflate
// (8; RFC 1952 defines no other): a length-delimited record of 31 bytes
// may start with 0x1f 0x8b too, with another byte after them.
var (
	gzipMagic          = []byte{0x1f, 0x8b, 0x08}
	zstdMagic          = []byte{0x28, 0xb5, 0x2f, 0xfd}
	zstdSkippableMagic = []byte{0x2a, 0x4d, 0x18}
)

// maxLeadingSkippable bounds the payload of a skippable frame that starts
// a zstd input: pzstd's are 4 bytes (the size of the frame after them).
const maxLeadingSkippable = 64 << 10

// startsZstd reports whether the input that r buffers starts with a zstd
// frame, or with a skippable frame followed by one, as pzstd writes its
// output: a skippable frame alone is 8 bytes that a length-delimited
// record can start with too (a size of 80 to 95), so the frame after it,
// within maxLeadingSkippable bytes, is what tells.
func startsZstd(r *bufio.Reader) bool {
	h, _ := r.Peek(8)
	if bytes.HasPrefix(h, zstdMagic) {
		return true
	}
	if len(h) < 8 || !skippablePrefix(h) {
		return false
	}
	size := int(binary.LittleEndian.Uint32(h[4:8]))
	if size > maxLeadingSkippable {
		return false
	}
	h, _ = r.Peek(8 + size + len(zstdMagic))
	return len(h) == 8+size+len(zstdMagic) && bytes.HasPrefix(h[8+size:], zstdMagic)
}

// skippablePrefix reports whether h starts with a zstd skippable frame's
// magic number, or with the start of one when h is shorter.
func skippablePrefix(h []byte) bool {
	return len(h) > 0 && h[0]&0xf0 == 0x50 && bytes.HasPrefix(zstdSkippableMagic, h[1:min(len(h), 4)])
}

// countingReader counts the bytes read through it. Under the buffer of an
// input, it counts the bytes read from the file, so that the offset of
// the buffer's next byte in the input is known ([compressedInput.offset]).
type countingReader struct {
	r io.Reader
	n int64
}

// Read reads from the underlying reader and counts what was read.
func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// compressedInput is the compressed bytes of an input, as its buffer
// holds them: the decompressors read from r, which reads from src.
type compressedInput struct {
	r   *bufio.Reader
	src *countingReader
}

// offset returns the offset in the input of the next byte of r.
func (c compressedInput) offset() int64 { return c.src.n - int64(c.r.Buffered()) }

// gzipMembers reads the gzip members of an input one after another; after
// the last, the input ends as [compressedEnd] checks.
type gzipMembers struct {
	zr  *gzip.Reader
	in  compressedInput
	err error // the end of the input, or its error, once met
}

// newGzipMembers reads the header of the first member of in. The gzip
// reader reads in.r as an io.ByteReader, so it reads nothing beyond a
// member: where one ends, the next byte of in.r is the one after it.
func newGzipMembers(in compressedInput) (*gzipMembers, error) {
	zr, err := gzip.NewReader(in.r)
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	return &gzipMembers{zr: zr, in: in}, nil
}

// Read reads decompressed bytes of the current member, and at its end
// starts the next.
func (g *gzipMembers) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	for {
		n, err := g.zr.Read(p)
		if err == io.EOF {
			err = g.next()
		}
		if err != nil {
			g.err = err
			return n, err
		}
		if n > 0 || len(p) == 0 {
			return n, nil
		}
	}
}

// next starts the member that follows the one read to its end. The end of
// the input, or zero bytes up to it, is io.EOF; the start of a magic
// number cut by the end of the input is a member cut short
// (io.ErrUnexpectedEOF, as gzip -d says "unexpected end of file").
func (g *gzipMembers) next() error {
	end := g.in.offset()
	head, err := g.in.r.Peek(len(gzipMagic))
	switch {
	case bytes.Equal(head, gzipMagic):
		if err := g.zr.Reset(g.in.r); err != nil {
			return err
		}
		g.zr.Multistream(false)
		return nil
	case err != nil && err != io.EOF:
		return err
	case len(head) > 0 && err == io.EOF && bytes.HasPrefix(gzipMagic, head):
		return io.ErrUnexpectedEOF
	}
	return compressedEnd(g.in, "gzip", end, true)
}

// zstdFrames passes the compressed bytes of a zstd input to the decoder
// part by part (a frame's header, its blocks, its checksum, a skippable
// frame), following the headers to know where each frame ends: the
// decoder, given the input whole, would read what follows the last frame
// as a frame's magic number and refuse it without saying where it is.
// Where a frame ends, zstdFrames checks what follows: another frame or a
// skippable frame is passed on; the end of the input, or anything else,
// ends the stream for the decoder, and [zstdFrames.trailing] returns the
// error of anything else. A frame cut short or damaged is passed on whole
// from where its parts cannot be followed, for the decoder to refuse in
// its own words.
type zstdFrames struct {
	in       compressedInput
	left     int64     // bytes of the current part not yet passed on
	next     zstdState // where the current part leads
	checksum bool      // the current frame ends with a checksum
	err      error     // what followed the last frame: io.EOF, or an error
}

// zstdState is what the next part of a zstd input is.
type zstdState int

const (
	zstdFrame    zstdState = iota // a frame, a skippable frame, or the end
	zstdBlock                     // a block of the current frame
	zstdChecksum                  // the checksum of the current frame
	zstdRest                      // the rest of the input, a frame cut short or damaged: the decoder finds what is wrong
	zstdEnd                       // nothing: the frames have ended
)

// zstdMaxHeader is the largest size of a zstd frame header, its magic
// number included.
const zstdMaxHeader = 18

// Read passes on compressed bytes of the current part, and starts the
// next part where one ends; io.EOF after the last frame.
func (z *zstdFrames) Read(p []byte) (int, error) {
	for z.left == 0 {
		if err := z.nextPart(); err != nil {
			return 0, err
		}
	}
	if int64(len(p)) > z.left {
		p = p[:z.left]
	}
	n, err := z.in.r.Read(p)
	z.left -= int64(n)
	return n, err
}

// trailing returns the error of what followed the last frame, if the
// frames have ended and anything followed them.
func (z *zstdFrames) trailing() error {
	if z.err == io.EOF {
		return nil
	}
	return z.err
}

// nextPart reads the header of the next part, and sets how long it is and
// where it leads.
func (z *zstdFrames) nextPart() error {
	switch z.next {
	case zstdFrame:
		return z.frame()
	case zstdBlock:
		h, _ := z.in.r.Peek(3)
		if len(h) < 3 {
			z.next, z.left = zstdRest, math.MaxInt64
			return nil
		}
		v := int64(h[0]) | int64(h[1])<<8 | int64(h[2])<<16
		size := v >> 3
		switch v >> 1 & 3 {
		case 1: // RLE: one byte, repeated size times
			size = 1
		case 3: // reserved: the decoder refuses it
			z.next, z.left = zstdRest, math.MaxInt64
			return nil
		}
		z.left = 3 + size
		if v&1 != 0 { // the frame's last block
			z.next = zstdFrame
			if z.checksum {
				z.next = zstdChecksum
			}
		}
	case zstdChecksum:
		z.next, z.left = zstdFrame, 4
	case zstdRest:
		z.left = math.MaxInt64
	default: // zstdEnd
		return io.EOF
	}
	return nil
}

// frame reads what follows a frame, or starts the input: a frame's header,
// a skippable frame, or the end of the frames.
func (z *zstdFrames) frame() error {
	end := z.in.offset()
	h, err := z.in.r.Peek(zstdMaxHeader)
	if err != nil && err != io.EOF {
		return err
	}
	n := min(len(h), 4)
	skippable := skippablePrefix(h)
	switch {
	case len(h) >= 5 && bytes.HasPrefix(h, zstdMagic) && len(h) >= zstdHeaderSize(h[4]):
		z.next, z.left, z.checksum = zstdBlock, int64(zstdHeaderSize(h[4])), h[4]&4 != 0
	case len(h) >= 8 && skippable:
		z.left = 8 + int64(binary.LittleEndian.Uint32(h[4:8]))
	case n > 0 && (skippable || bytes.HasPrefix(zstdMagic, h[:n])):
		// A frame cut short, within its header.
		z.next, z.left = zstdRest, math.MaxInt64
	default:
		z.next, z.err = zstdEnd, compressedEnd(z.in, "zstd", end, false)
		return io.EOF
	}
	return nil
}

// zstdHeaderSize returns the size of a zstd frame header, its magic number
// included, from its descriptor byte (RFC 8878, section 3.1.1.1).
func zstdHeaderSize(fhd byte) int {
	single := fhd&0x20 != 0
	size := 4 + 1 + [4]int{0, 1, 2, 4}[fhd&3] // magic, descriptor, dictionary ID
	if !single {
		size++ // window descriptor
	}
	switch fcs := fhd >> 6; {
	case fcs > 0:
		size += 1 << fcs
	case single:
		size++
	}
	return size
}

// maxTrailingShown is how many bytes of trailing garbage an error shows.
const maxTrailingShown = 16

// compressedEnd reads what follows the last member or frame of a
// compressed input, which ends at byte end of the input: nothing is
// io.EOF, and so are zero bytes up to the end of the input when padding
// is set (gzip); any other byte is a [trailingGarbage] error, and nothing
// after it is read.
func compressedEnd(in compressedInput, format string, end int64, padding bool) error {
	for padding {
		if _, err := in.r.Peek(1); err != nil {
			return err // io.EOF at the end
		}
		buf, _ := in.r.Peek(in.r.Buffered())
		zeros := len(buf) - len(bytes.TrimLeft(buf, "\x00"))
		_, _ = in.r.Discard(zeros)
		if zeros < len(buf) {
			break
		}
	}
	head, err := in.r.Peek(maxTrailingShown + 1)
	if len(head) == 0 {
		return err // io.EOF at the end
	}
	e := &trailingGarbage{format: format, end: end, at: in.offset()}
	e.head, e.more = bytes.Clone(head[:min(len(head), maxTrailingShown)]), len(head) > maxTrailingShown
	e.memberAfterZeros = format == "gzip" && e.at > e.end && bytes.HasPrefix(head, gzipMagic)
	return e
}

// trailingGarbage is a compressed input whose last member or frame is
// followed by bytes that may not follow it.
type trailingGarbage struct {
	format string // "gzip" or "zstd"
	// end is the offset in the input at which the compressed data ends;
	// at is that of the garbage, after gzip's zero bytes if any (else
	// the same).
	end, at int64
	// head is the first bytes from at, more whether others follow them.
	head []byte
	more bool
	// memberAfterZeros is set when, after zero bytes, a gzip member
	// starts: it is not read, as gzip -d does not read it.
	memberAfterZeros bool
}

// Error says where the garbage starts, what it is, and what may follow
// the compressed data instead.
func (e *trailingGarbage) Error() string {
	s := fmt.Sprintf("garbage at byte %d of the compressed input", e.at)
	if e.at > e.end {
		s = fmt.Sprintf("zero bytes from byte %d of the compressed input, then garbage at byte %d", e.end, e.at)
	}
	s += fmt.Sprintf(": %q", e.head)
	if e.more {
		s += "..."
	}
	switch {
	case e.format == "zstd":
		s += "; only zstd frames and skippable frames may follow a zstd frame"
		if e.head[0] == 0 {
			s += " (zero padding is refused, as zstd -d refuses it)"
		}
	case e.memberAfterZeros:
		s += "; only zero bytes may follow the last gzip member, and a member after them is not read (remove the zero bytes before it)"
	default:
		s += "; only zero bytes may follow the last gzip member"
	}
	return s
}

// decompressed reads a decompressed input and words its errors: the
// decompressors' own ("unexpected EOF") name neither the compression nor
// where it failed. The errors do not name the file: the readers of the
// input wrap them with its name, as they wrap every error of it (a
// container reader puts the read error inside its own message, so a name
// here would be said twice).
type decompressed struct {
	r      io.Reader
	format string // "gzip" or "zstd"
	// n counts the decompressed bytes read.
	n int64
	// trailing, if not nil, returns the error of what follows the
	// compressed data, once r has returned io.EOF.
	trailing func() error
}

// Read reads decompressed bytes; an error other than io.EOF is a
// [decompressError].
func (d *decompressed) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	d.n += int64(n)
	if err == io.EOF && d.trailing != nil {
		if terr := d.trailing(); terr != nil {
			err = terr
		}
	}
	if err == nil || err == io.EOF {
		return n, err
	}
	return n, &decompressError{format: d.format, n: d.n, err: err}
}

// decompressError is a failed read of compressed input: the compression,
// how many decompressed bytes came before, and the decompressor's error
// (or [trailingGarbage]).
type decompressError struct {
	format string
	n      int64
	err    error
}

// Error says whether the data ends early, is damaged or is followed by
// garbage, and where.
func (e *decompressError) Error() string {
	var garbage *trailingGarbage
	switch {
	case errors.As(e.err, &garbage):
		return fmt.Sprintf("the %s data (%d bytes decompressed) is followed by %v", e.format, e.n, e.err)
	case errors.Is(e.err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("the %s data ends early (truncated) after %d decompressed bytes: %v", e.format, e.n, e.err)
	}
	return fmt.Sprintf("the %s data is damaged after %d decompressed bytes: %v", e.format, e.n, e.err)
}

// Unwrap returns the decompressor's error.
func (e *decompressError) Unwrap() error { return e.err }

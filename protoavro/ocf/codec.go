package ocf

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"sync"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"

	"github.com/protoavro/protoavro/internal/limits"
	"github.com/protoavro/protoavro/internal/safetext"
)

// Codec is the block codec of a container file, its avro.codec metadata.
type Codec string

// The block codecs of the Avro specification that this package implements.
const (
	Null      Codec = "null"
	Deflate   Codec = "deflate"
	Snappy    Codec = "snappy"
	Zstandard Codec = "zstandard"
)

// ParseCodec accepts the codec names of the specification, the short form
// "zstd", and "" for null.
func ParseCodec(s string) (Codec, error) {
	switch s {
	case "", "null":
		return Null, nil
	case "deflate":
		return Deflate, nil
	case "snappy":
		return Snappy, nil
	case "zstd", "zstandard":
		return Zstandard, nil
	}
	return "", fmt.Errorf("%w %s (want null, deflate, snappy or zstd)", ErrUnsupportedCodec, safetext.Quote(s, 100))
}

// Supported reports whether the package implements c. The empty Codec is
// null.
func (c Codec) Supported() bool {
	_, err := c.impl()
	return err == nil
}

// Compress appends src compressed with c to dst. It is safe for concurrent
// use, and calls from several goroutines compress at once, none waiting
// for another; the bytes do not depend on what else is compressed
// meanwhile.
func (c Codec) Compress(dst, src []byte) ([]byte, error) {
	impl, err := c.impl()
	if err != nil {
		return dst, err
	}
	return impl.compress(dst, src)
}

// Decompress appends the block src, compressed with c, decompressed to dst.
// It fails with [ErrLimit] as soon as the output would exceed limit bytes,
// without producing much more than that, and with [ErrMalformed] when src
// is not valid data of the codec. It is safe for concurrent use.
func (c Codec) Decompress(dst, src []byte, limit int) ([]byte, error) {
	impl, err := c.impl()
	if err != nil {
		return dst, err
	}
	out, err := impl.decompress(dst, src, max(limit, 0))
	if err != nil && !errors.Is(err, ErrLimit) {
		err = fmt.Errorf("%w: %s block: %v", ErrMalformed, c, err)
	}
	return out, err
}

// blockCodec compresses and decompresses blocks. Implementations are safe
// for concurrent use.
type blockCodec interface {
	compress(dst, src []byte) ([]byte, error)
	// decompress appends the decompressed block to dst, failing with
	// ErrLimit when it would exceed limit bytes.
	decompress(dst, src []byte, limit int) ([]byte, error)
}

var (
	deflateShared = &deflateCodec{}
	zstdOnce      sync.Once
	zstdShared    *zstdCodec
	zstdErr       error
)

func (c Codec) impl() (blockCodec, error) {
	switch c {
	case Null, "":
		return nullCodec{}, nil
	case Deflate:
		return deflateShared, nil
	case Snappy:
		return snappyCodec{}, nil
	case Zstandard:
		zstdOnce.Do(func() { zstdShared, zstdErr = newZstdCodec() })
		return zstdShared, zstdErr
	}
	return nil, fmt.Errorf("%w %s", ErrUnsupportedCodec, safetext.Quote(string(c), 100))
}

// tooLarge is the error of a block that decompresses beyond limit bytes.
func tooLarge(limit int) error {
	return fmt.Errorf("%w: the block decompresses to more than %d bytes (ReaderOptions.MaxBlockDataSize)", ErrLimit, limit)
}

type nullCodec struct{}

func (nullCodec) compress(dst, src []byte) ([]byte, error) { return append(dst, src...), nil }
func (nullCodec) decompress(dst, src []byte, limit int) ([]byte, error) {
	if len(src) > limit {
		return dst, tooLarge(limit)
	}
	return append(dst, src...), nil
}

// deflateCodec is raw DEFLATE (RFC 1951), as the specification requires.
type deflateCodec struct {
	writers, readers sync.Pool
}

func (c *deflateCodec) compress(dst, src []byte) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	w, _ := c.writers.Get().(*flate.Writer)
	if w == nil {
		var err error
		if w, err = flate.NewWriter(buf, flate.DefaultCompression); err != nil {
			return dst, err
		}
	} else {
		w.Reset(buf)
	}
	if _, err := w.Write(src); err != nil {
		return dst, err
	}
	if err := w.Close(); err != nil {
		return dst, err
	}
	c.writers.Put(w)
	return buf.Bytes(), nil
}

func (c *deflateCodec) decompress(dst, src []byte, limit int) ([]byte, error) {
	r, err := c.reader(src)
	if err != nil {
		return dst, err
	}
	defer c.readers.Put(r)
	// Decompress up to the probe size; a block that expands beyond it is
	// measured in constant memory before its output is materialised, so a
	// bomb is refused having produced at most probeSize bytes.
	probe := probeSize(len(src), limit)
	buf := bytes.NewBuffer(dst)
	n, err := io.Copy(buf, io.LimitReader(r, int64(probe)+1))
	if err != nil {
		return dst, err
	}
	if n <= int64(probe) {
		return buf.Bytes(), nil
	}
	rest, err := io.Copy(io.Discard, io.LimitReader(r, int64(limit-probe)))
	if err != nil {
		return dst, err
	}
	total := n + rest
	if total > int64(limit) {
		return dst, tooLarge(limit)
	}
	// Within the limit: decompress again into a buffer of the exact size.
	if err := r.(flate.Resetter).Reset(bytes.NewReader(src), nil); err != nil {
		return dst, err
	}
	out := limits.Grow(dst, int(total))
	m, err := io.ReadFull(r, out[len(dst):len(dst)+int(total)])
	if err != nil {
		return dst, err
	}
	return out[:len(dst)+m], nil
}

func (c *deflateCodec) reader(src []byte) (io.ReadCloser, error) {
	r, _ := c.readers.Get().(io.ReadCloser)
	if r == nil {
		return flate.NewReader(bytes.NewReader(src)), nil
	}
	if err := r.(flate.Resetter).Reset(bytes.NewReader(src), nil); err != nil {
		return nil, err
	}
	return r, nil
}

// minProbe and probeRatio set the probe size of a compressed block: the
// output materialised before a block that expands further is measured
// without keeping its output (decompressed twice when it fits the limit).
// Blocks of the default 256 KiB that compress less than 16× never are.
const (
	minProbe   = 4 << 20
	probeRatio = 16
)

func probeSize(srcLen, limit int) int {
	return min(limit, max(minProbe, probeRatio*srcLen))
}

// snappyCodec is Snappy block compression followed by the big-endian CRC-32
// of the uncompressed data, as the specification requires.
type snappyCodec struct{}

func (snappyCodec) compress(dst, src []byte) ([]byte, error) {
	n := snappy.MaxEncodedLen(len(src))
	start := len(dst)
	dst = append(dst, make([]byte, n+4)...)
	enc := snappy.Encode(dst[start:start+n], src)
	dst = dst[:start+len(enc)]
	return binary.BigEndian.AppendUint32(dst, crc32.ChecksumIEEE(src)), nil
}

// snappyMaxRatio bounds the expansion of Snappy data: its best element, a
// copy with a 2-byte offset, gives 64 bytes for 3.
const snappyMaxRatio = 22

func (snappyCodec) decompress(dst, src []byte, limit int) ([]byte, error) {
	if len(src) < 4 {
		return dst, errors.New("shorter than its checksum")
	}
	body, sum := src[:len(src)-4], binary.BigEndian.Uint32(src[len(src)-4:])
	n, err := snappy.DecodedLen(body)
	if err != nil {
		return dst, err
	}
	if n > limit {
		return dst, tooLarge(limit)
	}
	// The stated length is a claim: allocate it only when the data could
	// hold it.
	if n > snappyMaxRatio*len(body)+64 {
		return dst, fmt.Errorf("states %d bytes for %d bytes of data", n, len(body))
	}
	start := len(dst)
	dst = append(dst, make([]byte, n)...)
	out, err := snappy.Decode(dst[start:], body)
	if err != nil {
		return dst[:start], err
	}
	if crc32.ChecksumIEEE(out) != sum {
		return dst[:start], errors.New("checksum mismatch")
	}
	return dst[:start+len(out)], nil
}

// zstdCodec keeps encoders for the goroutines that compress at once, and
// shares one decoder per decompression limit (safe for concurrent use
// through DecodeAll, which runs up to GOMAXPROCS decodes at once).
type zstdCodec struct {
	// free holds the idle encoders, each of concurrency 1 (one EncodeAll
	// at a time). A compression takes one, or makes one while fewer than
	// cap(free) exist (GOMAXPROCS when the codec was made: no more can
	// run at once), or else waits for one: as many blocks are compressed
	// at once as goroutines can run, and the encoders are made only as
	// the compressions need them and kept.
	free  chan *zstd.Encoder
	encMu sync.Mutex
	made  int
	mu    sync.Mutex
	decs  map[int]*zstd.Decoder
	// streams are stream decoders that measure a block's decoded size.
	streams sync.Pool
}

// maxZstdDecoders bounds the decoders kept for distinct limits.
const maxZstdDecoders = 8

func newZstdCodec() (*zstdCodec, error) {
	enc, err := newZstdEncoder()
	if err != nil {
		return nil, err
	}
	c := &zstdCodec{free: make(chan *zstd.Encoder, max(runtime.GOMAXPROCS(0), 1)), made: 1, decs: map[int]*zstd.Decoder{}}
	c.free <- enc
	return c, nil
}

// newZstdEncoder makes an encoder that compresses one block at a time.
func newZstdEncoder() (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
}

func (c *zstdCodec) compress(dst, src []byte) ([]byte, error) {
	enc, err := c.encoder()
	if err != nil {
		return dst, err
	}
	dst = enc.EncodeAll(src, dst)
	c.free <- enc
	return dst, nil
}

// encoder takes an idle encoder, makes one when all are in use and fewer
// than cap(c.free) exist, or waits for one to be given back. The caller
// gives it back to c.free.
func (c *zstdCodec) encoder() (*zstd.Encoder, error) {
	select {
	case enc := <-c.free:
		return enc, nil
	default:
	}
	c.encMu.Lock()
	if c.made < cap(c.free) {
		c.made++
		c.encMu.Unlock()
		enc, err := newZstdEncoder()
		if err != nil {
			c.encMu.Lock()
			c.made--
			c.encMu.Unlock()
		}
		return enc, err
	}
	c.encMu.Unlock()
	return <-c.free, nil
}

// encoders returns the number of encoders made.
func (c *zstdCodec) encoders() int {
	c.encMu.Lock()
	defer c.encMu.Unlock()
	return c.made
}

// decoder returns the decoder for limit; the caller closes it when it is
// not kept (cached false).
func (c *zstdCodec) decoder(limit int) (d *zstd.Decoder, cached bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.decs[limit]; d != nil {
		return d, true, nil
	}
	// DecodeAll checks the output against the maximum memory after each
	// zstd block (at most 128 KiB) and the stated frame size before it.
	d, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(uint64(max(limit, 1))))
	if err != nil {
		return nil, false, err
	}
	if len(c.decs) < maxZstdDecoders {
		c.decs[limit] = d
		return d, true, nil
	}
	return d, false, nil
}

func (c *zstdCodec) decompress(dst, src []byte, limit int) ([]byte, error) {
	var h zstd.Header
	if err := h.Decode(src); err == nil && h.HasFCS && h.FrameContentSize > uint64(limit) {
		return dst, tooLarge(limit)
	}
	// As for deflate: decode within the probe size, and measure a block
	// that expands further in constant memory before materialising it.
	probe := probeSize(len(src), limit)
	if probe < limit {
		out, err := c.decodeAll(dst, src, probe)
		if !errors.Is(err, ErrLimit) {
			return out, err
		}
		n, err := c.count(src, limit)
		if err != nil {
			return dst, err
		}
		if n > int64(limit) {
			return dst, tooLarge(limit)
		}
		dst = limits.Grow(dst, int(n))
	}
	return c.decodeAll(dst, src, limit)
}

// decodeAll decodes src within limit bytes of output.
func (c *zstdCodec) decodeAll(dst, src []byte, limit int) ([]byte, error) {
	d, cached, err := c.decoder(limit)
	if err != nil {
		return dst, err
	}
	if !cached {
		defer d.Close()
	}
	out, err := d.DecodeAll(src, dst)
	if err != nil {
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
			return dst, tooLarge(limit)
		}
		return dst, err
	}
	if len(out)-len(dst) > limit {
		return dst, tooLarge(limit)
	}
	return out, nil
}

// count returns the decoded size of src, or limit+1 when it is larger,
// decoding as a stream in constant memory.
func (c *zstdCodec) count(src []byte, limit int) (int64, error) {
	// Decoders of the default limit are pooled; others are made per call.
	pooled := limit == DefaultMaxBlockDataSize
	var d *zstd.Decoder
	if pooled {
		d, _ = c.streams.Get().(*zstd.Decoder)
	}
	if d == nil {
		var err error
		// One goroutine: the stream decodes synchronously; the window is
		// bounded by the limit.
		if d, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(max(limit, 1)))); err != nil {
			return 0, err
		}
	}
	if err := d.Reset(bytes.NewReader(src)); err != nil {
		d.Close()
		return 0, err
	}
	n, err := io.Copy(io.Discard, io.LimitReader(d, int64(limit)+1))
	if err != nil {
		d.Close()
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
			return int64(limit) + 1, nil
		}
		return 0, err
	}
	if pooled {
		c.streams.Put(d)
	} else {
		d.Close()
	}
	return n, nil
}

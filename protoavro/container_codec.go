package protoavro

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
)

// Compression names the block codec of an Avro container file.
type Compression string

// The block codecs of the Avro specification that protoavro reads and writes.
const (
	CompressionNull    Compression = "null"
	CompressionDeflate Compression = "deflate"
	CompressionSnappy  Compression = "snappy"
	CompressionZstd    Compression = "zstandard"
)

// ParseCompression accepts the codec names of the specification and the
// short form "zstd".
func ParseCompression(s string) (Compression, error) {
	switch s {
	case "", "null":
		return CompressionNull, nil
	case "deflate":
		return CompressionDeflate, nil
	case "snappy":
		return CompressionSnappy, nil
	case "zstd", "zstandard":
		return CompressionZstd, nil
	}
	return "", fmt.Errorf("%w: unknown codec %q (want null, deflate, snappy or zstd)", ErrInvalidOptions, s)
}

// blockCodec compresses and decompresses blocks. Implementations are safe
// for concurrent use.
type blockCodec interface {
	compress(dst, src []byte) ([]byte, error)
	// decompress appends the decompressed block to dst, failing when it
	// would exceed limit bytes.
	decompress(dst, src []byte, limit int) ([]byte, error)
}

func newBlockCodec(c Compression) (blockCodec, error) {
	switch c {
	case CompressionNull, "":
		return nullCodec{}, nil
	case CompressionDeflate:
		return &deflateCodec{}, nil
	case CompressionSnappy:
		return snappyCodec{}, nil
	case CompressionZstd:
		return newZstdCodec()
	}
	return nil, fmt.Errorf("%w: unsupported codec %q", ErrUnsupported, c)
}

// errBlockTooLarge reports a block that decompresses beyond the limit.
var errBlockTooLarge = errors.New("block exceeds the size limit")

type nullCodec struct{}

func (nullCodec) compress(dst, src []byte) ([]byte, error) { return append(dst, src...), nil }
func (nullCodec) decompress(dst, src []byte, limit int) ([]byte, error) {
	if len(src) > limit {
		return dst, errBlockTooLarge
	}
	return append(dst, src...), nil
}

// deflateCodec is raw DEFLATE (RFC 1951), as the specification requires.
type deflateCodec struct {
	writers sync.Pool
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
	r := flate.NewReader(bytes.NewReader(src))
	defer r.Close()
	return readLimited(dst, r, limit)
}

// readLimited appends all of r to dst, failing past limit bytes.
func readLimited(dst []byte, r io.Reader, limit int) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	n, err := io.Copy(buf, io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return dst, err
	}
	if n > int64(limit) {
		return dst, errBlockTooLarge
	}
	return buf.Bytes(), nil
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

func (snappyCodec) decompress(dst, src []byte, limit int) ([]byte, error) {
	if len(src) < 4 {
		return dst, errors.New("snappy block shorter than its checksum")
	}
	body, sum := src[:len(src)-4], binary.BigEndian.Uint32(src[len(src)-4:])
	n, err := snappy.DecodedLen(body)
	if err != nil {
		return dst, err
	}
	if n > limit {
		return dst, errBlockTooLarge
	}
	start := len(dst)
	dst = append(dst, make([]byte, n)...)
	out, err := snappy.Decode(dst[start:], body)
	if err != nil {
		return dst[:start], err
	}
	if crc32.ChecksumIEEE(out) != sum {
		return dst[:start], errors.New("snappy block checksum mismatch")
	}
	return dst[:start+len(out)], nil
}

// zstdCodec shares one encoder, and one decoder per decompression limit;
// both are safe for concurrent use through EncodeAll and DecodeAll.
type zstdCodec struct {
	enc  *zstd.Encoder
	mu   sync.Mutex
	decs map[int]*zstd.Decoder
}

var (
	zstdOnce   sync.Once
	zstdShared *zstdCodec
	zstdErr    error
)

func newZstdCodec() (*zstdCodec, error) {
	zstdOnce.Do(func() {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if err != nil {
			zstdErr = err
			return
		}
		zstdShared = &zstdCodec{enc: enc, decs: map[int]*zstd.Decoder{}}
	})
	return zstdShared, zstdErr
}

func (c *zstdCodec) compress(dst, src []byte) ([]byte, error) {
	return c.enc.EncodeAll(src, dst), nil
}

func (c *zstdCodec) decompress(dst, src []byte, limit int) ([]byte, error) {
	// The frame header may state the content size; check it before decoding.
	var h zstd.Header
	if err := h.Decode(src); err == nil && h.HasFCS && h.FrameContentSize > uint64(limit) {
		return dst, errBlockTooLarge
	}
	c.mu.Lock()
	d := c.decs[limit]
	if d == nil {
		var err error
		if d, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(uint64(limit))); err != nil {
			c.mu.Unlock()
			return dst, err
		}
		c.decs[limit] = d
	}
	c.mu.Unlock()
	out, err := d.DecodeAll(src, dst)
	if err != nil {
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
			return dst, errBlockTooLarge
		}
		return dst, err
	}
	if len(out)-len(dst) > limit {
		return dst, errBlockTooLarge
	}
	return out, nil
}

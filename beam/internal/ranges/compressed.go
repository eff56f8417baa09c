package ranges

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/protoavro/protoavro/protoavro/records"
)

// The magic numbers that start compressed files, as protoavro encode
// tells them.
var (
	gzipMagic = []byte{0x1f, 0x8b, 0x08} // with the deflate method byte
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// pzstdStart reports whether head starts with a skippable frame of at most
// 4 bytes followed by a zstd frame, as pzstd writes its output (a
// skippable frame alone is 8 bytes that a length-delimited record can
// start with too).
func pzstdStart(head []byte) bool {
	if len(head) < 8 || head[0]&0xf0 != 0x50 || !bytes.Equal(head[1:4], []byte{0x2a, 0x4d, 0x18}) {
		return false
	}
	size := int(binary.LittleEndian.Uint32(head[4:8]))
	return size <= 4 && bytes.HasPrefix(head[8+size:], zstdMagic)
}

// unwrapCompressed returns a reader of r's bytes, or an error for
// source's record 0 at byte 0 when they start like a gzip or zstd file, in
// every format: the readers read uncompressed files (their byte ranges are
// offsets in the file), and a compressed file would otherwise fail on a
// length or a character that its compressed bytes happen to make (a size
// over MaxRecordSize as size32, a record cut short as delimited).
func unwrapCompressed(r io.Reader, source string) (io.Reader, error) {
	head := make([]byte, 16)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%w: %s: %w", ErrInput, Name(source), err)
	}
	head = head[:n]
	kind := ""
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		kind = "gzip"
	case bytes.HasPrefix(head, zstdMagic), pzstdStart(head):
		kind = "zstd"
	}
	if kind != "" {
		return nil, fmt.Errorf("%w: %s: %w", ErrInput, Name(source), &records.Error{Index: 0, Offset: 0,
			Err: fmt.Errorf("the input is %s-compressed: the Beam sources read uncompressed files; decompress it first (protoavro encode reads it as it is)", kind)})
	}
	return io.MultiReader(bytes.NewReader(head), r), nil
}

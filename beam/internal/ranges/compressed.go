package ranges

import (
	"bytes"
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

// unwrapCompressed returns a reader of r's bytes, or an error for
// source's record 0 at byte 0 when they start like a gzip or zstd file, in
// every format: the readers read uncompressed files (their byte ranges are
// offsets in the file), and a compressed file would otherwise fail on a
// length or a character that its compressed bytes happen to make (a size
// over MaxRecordSize as size32, a record cut short as delimited).
func unwrapCompressed(r io.Reader, source string) (io.Reader, error) {
	head := make([]byte, len(zstdMagic))
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%w: %s: %w", ErrInput, Name(source), err)
	}
	head = head[:n]
	kind := ""
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		kind = "gzip"
	case bytes.HasPrefix(head, zstdMagic):
		kind = "zstd"
	}
	if kind != "" {
		return nil, fmt.Errorf("%w: %s: %w", ErrInput, Name(source), &records.Error{Index: 0, Offset: 0,
			Err: fmt.Errorf("the input is %s-compressed: the Beam sources read uncompressed files; decompress it first (protoavro encode reads it as it is)", kind)})
	}
	return io.MultiReader(bytes.NewReader(head), r), nil
}

package ocf

import (
	"errors"
	"strconv"

	"github.com/protoavro/protoavro/internal/avrobin"
)

// Error classes. Errors of a [Reader] are *[Error] values wrapping one of
// them (or a failure of the underlying io.Reader); use [errors.Is] to tell
// them apart.
var (
	// ErrNotContainer reports input that does not start with the magic
	// "Obj\x01" of a container file.
	ErrNotContainer = errors.New("not an Avro container file")
	// ErrTruncated reports input that ends inside the header or a block.
	// It is the class of every Avro binary reader of this module.
	ErrTruncated = avrobin.ErrTruncated
	// ErrMalformed reports bytes that are not a valid container file: a bad
	// varint, a negative size, a sync marker that does not match, a block
	// that does not decompress. It is the class of every Avro binary reader
	// of this module.
	ErrMalformed = avrobin.ErrMalformed
	// ErrLimit reports a size beyond a limit of [ReaderOptions], or a
	// record with more zero-size values than any block readers accept can
	// hold ([BlockBuilder.Add]). It is the class of every breach of the
	// block bounds of docs/limits.md, by this package's writers and by
	// protoavro's ContainerWriter, and of zero-size items beyond their
	// bound in a datum, in every Avro binary reader of this module.
	ErrLimit = avrobin.ErrLimit
	// ErrUnsupportedCodec reports a block codec this package does not
	// implement.
	ErrUnsupportedCodec = errors.New("unsupported codec")
	// ErrInvalidOptions reports a nil io.Reader or io.Writer, or
	// [WriterOptions] outside their defined values (an empty schema, a
	// reserved metadata key).
	ErrInvalidOptions = errors.New("invalid options")
)

// Error is an error in the structure of a container file.
type Error struct {
	// Offset is the byte offset in the file: for a block, where the block
	// starts; for the header, where reading failed.
	Offset int64
	// Block is the 0-based index of the block, or -1 for the header.
	Block int64
	// Err is the underlying error, which wraps one of the error classes.
	Err error
}

// Error describes the error and where it is, as "container header at byte
// N: ..." or "container block B at byte N: ...".
func (e *Error) Error() string {
	where := "container header"
	if e.Block >= 0 {
		where = "container block " + strconv.FormatInt(e.Block, 10)
	}
	return avrobin.Describe("", where, e.Offset, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

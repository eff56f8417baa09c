// Package avrobin reads the Avro binary encoding (Avro specification,
// "Binary Encoding"), bounded: int and long are zig-zag varints checked for
// 64-bit overflow, float and double little-endian IEEE 754, bytes and string
// a long length checked against the bytes that remain, arrays and maps
// blocks whose counts and byte sizes are checked against the bytes that
// remain, and items that take no bytes counted against a budget. Every
// error is an *[Error] at a byte offset wrapping [ErrTruncated],
// [ErrMalformed] or [ErrLimit]. The codec of package protoavro, package
// avrojson (tojson, fromjson, cat) and package ocf read through it, so
// that they accept and refuse the same bytes.
package avrobin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/limits"
	"github.com/protoavro/protoavro/internal/safetext"
)

// Error classes: package ocf exports them as its own, and package protoavro
// the first two.
var (
	// ErrTruncated reports input that ends inside a value.
	ErrTruncated = errors.New("truncated input")
	// ErrMalformed reports bytes that are not a valid encoding.
	ErrMalformed = errors.New("malformed input")
	// ErrLimit reports input beyond a limit: zero-size items, nesting,
	// sizes.
	ErrLimit = errors.New("over the limit")
)

// Error is an error at a place in a datum.
type Error struct {
	// Path is where in the datum the error is, such as
	// "order.items[3].price"; empty for the datum itself.
	Path string
	// Offset is the byte offset in the datum, or -1.
	Offset int
	// Err wraps one of the error classes.
	Err error
	// Elems are the elements of Path, innermost first, as [Within] added
	// them (see [PrefixPath]).
	Elems []string
}

// Error returns "PATH at byte N: MESSAGE" ("datum" for an empty path).
func (e *Error) Error() string {
	where := e.Path
	if where == "" {
		where = "datum"
	}
	return Describe("", where, int64(e.Offset), e.Err)
}

// Describe formats an error at a place in the input as "PREFIXWHERE at byte
// N: MESSAGE": where names the place (a path, a block), the offset is left
// out where negative, and where both are left out the message follows the
// prefix alone. The positioned errors of the module give their messages
// through it: [Error], protoavro's DataError, ocf's Error.
func Describe(prefix, where string, offset int64, err error) string {
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString(where)
	if offset >= 0 {
		if where != "" {
			b.WriteByte(' ')
		}
		b.WriteString("at byte ")
		b.WriteString(strconv.FormatInt(offset, 10))
	}
	if where != "" || offset >= 0 {
		b.WriteString(": ")
	}
	b.WriteString(err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error at off wrapping class with a detail message.
func Errorf(class error, off int, format string, args ...any) *Error {
	if format == "" {
		return &Error{Offset: off, Err: class}
	}
	return &Error{Offset: off, Err: fmt.Errorf("%w: %s", class, fmt.Sprintf(format, args...))}
}

// The bounds of a rendered path (PrefixPath): the outermost and innermost
// pathKeep elements are named, each cut to pathElemMax bytes.
const (
	pathKeep    = 3
	pathElemMax = 200
)

// PrefixPath adds seg, a field name or an element that needs no dot before
// it ("[3]", "[\"key\"]", "<branch>"), as the outermost element of the
// path whose elements so far are elems (innermost first; none, with a
// non-empty path, makes the path one element). It returns the elements and
// the path rendered from them: every element when there are at most
// 2*pathKeep+1, else the outermost and innermost pathKeep around "(N
// more)", each escaped and cut to pathElemMax bytes, so that a path stays
// short however deep the datum nests and however long its names, and
// costs the same at every level as an error travels up.
func PrefixPath(elems []string, path, seg string) ([]string, string) {
	if len(elems) == 0 && path != "" {
		elems = append(elems, path)
	}
	elems = append(elems, seg)
	var b strings.Builder
	n := len(elems)
	for i := n - 1; i >= 0; i-- {
		e := elems[i]
		if n > 2*pathKeep+1 && i == n-1-pathKeep {
			e = "(" + strconv.Itoa(n-2*pathKeep) + " more)"
			i = pathKeep
		}
		e = safetext.Escape(e, pathElemMax)
		if b.Len() > 0 && (e == "" || e[0] != '[' && e[0] != '<') {
			b.WriteByte('.')
		}
		b.WriteString(e)
	}
	return elems, b.String()
}

// Budget counts the values of a datum, or of a container block, that take
// no bytes, which the input's size alone cannot bound.
type Budget struct {
	// N is the count so far.
	N int64
	// Max is the limit (0: limits.DatumEmptyItems).
	Max int64
	// Per names what the limit is per, for messages ("datum" when empty).
	Per string
	// item says that the value about to be read is an array or map item
	// that its block header counted already.
	item bool
}

// Item says whether the value about to be read is an item of a block whose
// items take no bytes, which BlockCount counted already.
func (b *Budget) Item(counted bool) { b.item = counted }

// Record counts a record read at off that takes no bytes (empty) and is
// neither the datum itself (top) nor an item its block counted; it clears
// the mark of [Budget.Item].
func (b *Budget) Record(empty, top bool, off int) error {
	if b.item {
		b.item = false
		return nil
	}
	if top || !empty {
		return nil
	}
	return b.Add(1, off)
}

// Add counts n zero-size values read at off: an ErrLimit *Error when they
// exceed the limit.
func (b *Budget) Add(n int64, off int) error {
	limit := b.Max
	if limit <= 0 {
		limit = limits.DatumEmptyItems
	}
	if n > limit-b.N {
		per := b.Per
		if per == "" {
			per = "datum"
		}
		return Errorf(ErrLimit, off, "%d more zero-size items exceed the limit of %d per %s", n, limit, per)
	}
	b.N += n
	return nil
}

// Reader reads Avro binary values from Buf at Pos. Its methods return an
// *Error at the offset where the bad value starts.
type Reader struct {
	Buf []byte
	Pos int
	// Empty counts the zero-size items of array and map blocks.
	Empty Budget
}

// Long reads a long.
func (r *Reader) Long() (int64, error) {
	if r.Pos < len(r.Buf) && r.Buf[r.Pos] < 0x80 { // one-byte fast path
		c := uint64(r.Buf[r.Pos])
		r.Pos++
		return int64(c>>1) ^ -int64(c&1), nil
	}
	return r.longSlow()
}

func (r *Reader) longSlow() (int64, error) {
	v, n, err := decodeLong(r.Buf[r.Pos:])
	if err != nil {
		if err == ErrTruncated {
			return 0, Errorf(ErrTruncated, r.Pos, "varint")
		}
		return 0, &Error{Offset: r.Pos, Err: err}
	}
	r.Pos += n
	return v, nil
}

// The errors of a varint beyond 64 bits: its tenth byte is more than 1.
var (
	errVarintLong     = fmt.Errorf("%w: varint longer than 10 bytes", ErrMalformed)
	errVarintOverflow = fmt.Errorf("%w: varint overflows 64 bits", ErrMalformed)
)

// tenth checks the tenth byte of a varint.
func tenth(c byte) error {
	switch {
	case c >= 0x80:
		return errVarintLong
	case c > 1:
		return errVarintOverflow
	}
	return nil
}

// decodeLong decodes a zig-zag varint from the start of b, returning its
// length; ErrTruncated, or an error wrapping ErrMalformed beyond 64 bits.
func decodeLong(b []byte) (int64, int, error) {
	var u uint64
	for i := range 10 {
		if i >= len(b) {
			return 0, 0, ErrTruncated
		}
		c := b[i]
		if i == 9 {
			if err := tenth(c); err != nil {
				return 0, 0, err
			}
		}
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), i + 1, nil
		}
	}
	panic("unreachable: the tenth byte ends the varint or is refused")
}

// ReadLong reads a long from a stream, returning it and the bytes read: io.EOF
// when the stream ends before it, io.ErrUnexpectedEOF inside it, an error
// wrapping ErrMalformed for a varint beyond 64 bits, other errors of br as
// they are.
func ReadLong(br io.ByteReader) (int64, int, error) {
	var u uint64
	for i := range 10 {
		c, err := br.ReadByte()
		if err != nil {
			if err == io.EOF && i > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, i, err
		}
		if i == 9 {
			if err := tenth(c); err != nil {
				return 0, i + 1, err
			}
		}
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), i + 1, nil
		}
	}
	panic("unreachable: the tenth byte ends the varint or is refused")
}

// Index reads a long that must be an index below n (a union branch, an
// enum symbol); format formats the error from the value and n.
func (r *Reader) Index(n int, format string) (int, error) {
	off := r.Pos
	i, err := r.Long()
	if err != nil {
		return 0, err
	}
	if i < 0 || i >= int64(n) {
		return 0, Errorf(ErrMalformed, off, format, i, n)
	}
	return int(i), nil
}

// Int reads an int: a long within 32 bits.
func (r *Reader) Int() (int32, error) {
	start := r.Pos
	v, err := r.Long()
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, Errorf(ErrMalformed, start, "int %d out of 32-bit range", v)
	}
	return int32(v), nil
}

// Fixed reads n bytes without copying.
func (r *Reader) Fixed(n int) ([]byte, error) {
	if len(r.Buf)-r.Pos < n {
		return nil, Errorf(ErrTruncated, r.Pos, "%d-byte value, %d bytes left", n, len(r.Buf)-r.Pos)
	}
	b := r.Buf[r.Pos : r.Pos+n]
	r.Pos += n
	return b, nil
}

// Float reads a float.
func (r *Reader) Float() (float32, error) {
	b, err := r.Fixed(4)
	if err != nil {
		return 0, err
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
}

// Double reads a double.
func (r *Reader) Double() (float64, error) {
	b, err := r.Fixed(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}

// Boolean reads a boolean: one byte, 0 or 1.
func (r *Reader) Boolean() (bool, error) {
	b, err := r.Fixed(1)
	if err != nil {
		return false, err
	}
	if b[0] > 1 {
		return false, Errorf(ErrMalformed, r.Pos-1, "boolean byte %#x", b[0])
	}
	return b[0] == 1, nil
}

// Bytes reads a length-prefixed value (bytes, string) without copying. A
// length that is negative or larger than the remaining input is an error, so
// no allocation is ever sized by an untrusted length.
func (r *Reader) Bytes() ([]byte, error) {
	start := r.Pos
	n, err := r.Long()
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, Errorf(ErrMalformed, start, "negative length %d", n)
	}
	if n > int64(len(r.Buf)-r.Pos) {
		return nil, Errorf(ErrTruncated, start, "length %d exceeds the %d bytes left", n, len(r.Buf)-r.Pos)
	}
	b := r.Buf[r.Pos : r.Pos+int(n)]
	r.Pos += int(n)
	return b, nil
}

// BlockCount reads the header of an array or map block: its item count,
// and for a negative count the block's byte size, which must be within the
// remaining input. The count is checked against the remaining input too:
// every item takes at least minItemSize bytes (see [MinSize]); items that
// can take none are counted against the budget r.Empty.
func (r *Reader) BlockCount(minItemSize int) (int64, error) {
	start := r.Pos
	n, err := r.Long()
	if err != nil {
		return 0, err
	}
	var size int64 // the byte size of a block with a negative count
	sizeAt := 0
	if n < 0 {
		if n == math.MinInt64 {
			return 0, Errorf(ErrMalformed, start, "block count %d", n)
		}
		n = -n
		sizeAt = r.Pos
		if size, err = r.Long(); err != nil {
			return 0, err
		}
	}
	// The count is checked first, so that a block of more items than bytes
	// is reported where its header starts whatever its size says.
	left := int64(len(r.Buf) - r.Pos)
	if minItemSize > 0 && n > left/int64(minItemSize) {
		return 0, Errorf(ErrTruncated, start, "block of %d items exceeds the %d bytes left", n, left)
	}
	if size < 0 {
		return 0, Errorf(ErrMalformed, sizeAt, "negative block size %d", size)
	}
	if size > left {
		return 0, Errorf(ErrTruncated, sizeAt, "block size %d exceeds the %d bytes left", size, left)
	}
	if minItemSize == 0 {
		if err := r.Empty.Add(n, start); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// MinSize returns the least number of bytes a value of n takes: 0 when it
// can take none (canBeEmpty decides for records: see avroschema.Empties),
// the size of a float, double or fixed, else 1.
func MinSize(n *avroschema.Node, canBeEmpty func(*avroschema.Node) bool) int {
	switch n = n.Deref(); n.Type {
	case avroschema.Null:
		return 0
	case avroschema.Float:
		return 4
	case avroschema.Double:
		return 8
	case avroschema.Fixed:
		return n.Size
	case avroschema.Record:
		if canBeEmpty(n) {
			return 0
		}
	}
	return 1 // every other type starts with at least one byte
}

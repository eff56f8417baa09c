package avrojson

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// AppendJSON decodes one binary datum of the schema from the start of
// data, appends its JSON encoding (compact, one line) to dst and returns it
// with the number of bytes the datum took. On error it returns dst
// unchanged and an *[Error] with the datum's path and byte offset.
func (c *Schema) AppendJSON(dst []byte, data []byte) ([]byte, int, error) {
	d := decoder{buf: data, c: c, lim: c.lim, limit: len(dst) + c.lim.MaxJSONSize}
	out, err := d.value(dst, c.root, 0)
	if err != nil {
		return dst, d.pos, err
	}
	return out, d.pos, nil
}

// AppendJSON is [Schema.AppendJSON] of s compiled with the default limits.
func AppendJSON(dst []byte, s *avroschema.Node, data []byte) ([]byte, int, error) {
	return Limits{}.Compile(s).AppendJSON(dst, data)
}

type decoder struct {
	buf   []byte
	pos   int
	c     *Schema
	lim   Limits
	empty emptyCount
	limit int // the length of dst past which the JSON exceeds MaxJSONSize
}

func (d *decoder) long() (int64, error) {
	var u uint64
	start := d.pos
	for shift := uint(0); shift < 64; shift += 7 {
		if d.pos >= len(d.buf) {
			return 0, errAt(ocf.ErrTruncated, start, "varint")
		}
		c := d.buf[d.pos]
		d.pos++
		if shift == 63 && c > 1 {
			return 0, errAt(ocf.ErrMalformed, start, "varint overflows 64 bits")
		}
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, errAt(ocf.ErrMalformed, start, "varint longer than 10 bytes")
}

func (d *decoder) fixed(n int) ([]byte, error) {
	if len(d.buf)-d.pos < n {
		return nil, errAt(ocf.ErrTruncated, d.pos, "%d-byte value, %d bytes left", n, len(d.buf)-d.pos)
	}
	b := d.buf[d.pos : d.pos+n]
	d.pos += n
	return b, nil
}

func (d *decoder) bytes() ([]byte, error) {
	start := d.pos
	n, err := d.long()
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, errAt(ocf.ErrMalformed, start, "negative length %d", n)
	}
	if n > int64(len(d.buf)-d.pos) {
		return nil, errAt(ocf.ErrTruncated, start, "length %d exceeds the %d bytes left", n, len(d.buf)-d.pos)
	}
	return d.fixed(int(n))
}

// blockCount reads the item count of an array or map block, checked against
// the bytes left (items of at least minItem bytes) or the limit on
// zero-size items.
func (d *decoder) blockCount(minItem int) (int64, error) {
	start := d.pos
	n, err := d.long()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		if n == math.MinInt64 {
			return 0, errAt(ocf.ErrMalformed, start, "block count %d", n)
		}
		n = -n
		if _, err := d.long(); err != nil { // the block's size in bytes
			return 0, err
		}
	}
	left := int64(len(d.buf) - d.pos)
	if minItem > 0 && n > left/int64(minItem) {
		return 0, errAt(ocf.ErrTruncated, start, "block of %d items exceeds the %d bytes left", n, left)
	}
	if minItem == 0 && !d.empty.add(n, d.lim.MaxEmptyItems) {
		return 0, errAt(ocf.ErrLimit, start, "block of %d zero-size items exceeds the limit of %d per datum", n, d.lim.MaxEmptyItems)
	}
	return n, nil
}

func (d *decoder) value(dst []byte, s *avroschema.Node, depth int) ([]byte, error) {
	s = s.Deref()
	start := d.pos
	if len(dst) > d.limit {
		// Names in the schema (fields, union branches) are written for
		// values that take a byte or none: a few bytes can ask for
		// terabytes.
		return dst, errAt(ocf.ErrLimit, start, "the datum's JSON exceeds %d bytes", d.lim.MaxJSONSize)
	}
	switch s.Type {
	case avroschema.Null:
		return append(dst, "null"...), nil
	case avroschema.Boolean:
		b, err := d.fixed(1)
		if err != nil {
			return dst, err
		}
		switch b[0] {
		case 0:
			return append(dst, "false"...), nil
		case 1:
			return append(dst, "true"...), nil
		}
		return dst, errAt(ocf.ErrMalformed, start, "boolean byte %#x", b[0])
	case avroschema.Int, avroschema.Long:
		v, err := d.long()
		if err != nil {
			return dst, err
		}
		if s.Type == avroschema.Int && (v < math.MinInt32 || v > math.MaxInt32) {
			return dst, errAt(ocf.ErrMalformed, start, "int %d out of 32-bit range", v)
		}
		return strconv.AppendInt(dst, v, 10), nil
	case avroschema.Float:
		b, err := d.fixed(4)
		if err != nil {
			return dst, err
		}
		return appendFloat(dst, float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 32), nil
	case avroschema.Double:
		b, err := d.fixed(8)
		if err != nil {
			return dst, err
		}
		return appendFloat(dst, math.Float64frombits(binary.LittleEndian.Uint64(b)), 64), nil
	case avroschema.String:
		b, err := d.bytes()
		if err != nil {
			return dst, err
		}
		return appendString(dst, b), nil
	case avroschema.Bytes:
		b, err := d.bytes()
		if err != nil {
			return dst, err
		}
		return appendByteString(dst, b), nil
	case avroschema.Fixed:
		b, err := d.fixed(s.Size)
		if err != nil {
			return dst, err
		}
		return appendByteString(dst, b), nil
	case avroschema.Enum:
		i, err := d.long()
		if err != nil {
			return dst, err
		}
		if i < 0 || i >= int64(len(s.Symbols)) {
			return dst, errAt(ocf.ErrMalformed, start, "enum %s index %d out of range (%d symbols)", s.Name, i, len(s.Symbols))
		}
		return appendString(dst, []byte(s.Symbols[i])), nil
	}
	if depth >= d.lim.MaxDepth {
		return dst, errAt(ocf.ErrLimit, start, "nested more than %d levels deep", d.lim.MaxDepth)
	}
	switch s.Type {
	case avroschema.Union:
		i, err := d.long()
		if err != nil {
			return dst, err
		}
		if i < 0 || i >= int64(len(s.Branches)) {
			return dst, errAt(ocf.ErrMalformed, start, "union branch %d out of range (%d branches)", i, len(s.Branches))
		}
		b := s.Branches[i]
		if b.Deref().Type == avroschema.Null {
			return append(dst, "null"...), nil
		}
		name := BranchName(b)
		dst = append(dst, '{')
		dst = appendString(dst, []byte(name))
		dst = append(dst, ':')
		out, err := d.value(dst, b, depth+1)
		if err != nil {
			return dst, within(err, "<"+name+">")
		}
		return append(out, '}'), nil
	case avroschema.Record:
		if !d.empty.record(d.c.zeroSize(s), depth, d.lim.MaxEmptyItems) {
			return dst, errAt(ocf.ErrLimit, start, "more than %d zero-size values in the datum", d.lim.MaxEmptyItems)
		}
		dst = append(dst, '{')
		for i := range s.Fields {
			f := &s.Fields[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, []byte(f.Name))
			dst = append(dst, ':')
			var err error
			if dst, err = d.value(dst, f.Type, depth+1); err != nil {
				return dst, within(err, f.Name)
			}
		}
		return append(dst, '}'), nil
	case avroschema.Array, avroschema.Map:
		open, close, item := byte('['), byte(']'), s.Items
		if s.Type == avroschema.Map {
			open, close, item = '{', '}', s.Values
		}
		minItem := d.c.minSize(item)
		if s.Type == avroschema.Map {
			minItem++ // the key's length
		}
		dst = append(dst, open)
		n := 0
		for {
			count, err := d.blockCount(minItem)
			if err != nil {
				return dst, err
			}
			if count == 0 {
				return append(dst, close), nil
			}
			for range count {
				if n > 0 {
					dst = append(dst, ',')
				}
				seg := "[" + strconv.Itoa(n) + "]"
				if s.Type == avroschema.Map {
					k, err := d.bytes()
					if err != nil {
						return dst, within(err, seg)
					}
					seg = "[" + strconv.Quote(string(k)) + "]"
					dst = appendString(dst, k)
					dst = append(dst, ':')
				}
				d.empty.item = minItem == 0
				if dst, err = d.value(dst, item, depth+1); err != nil {
					return dst, within(err, seg)
				}
				n++
			}
			d.empty.item = false
		}
	}
	return dst, errAt(ocf.ErrMalformed, start, "schema type %v", s.Type)
}

// appendFloat appends f as a JSON number with the fewest digits that give
// back f at the given bit size, or as the string "NaN", "Infinity" or
// "-Infinity", as Apache Avro Java's JSON encoder writes them. -0 is
// written -0.0: readers that take -0 for an integer (Java Avro's
// JsonDecoder, Python's json) would read +0.
func appendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	case f == 0 && math.Signbit(f):
		return append(dst, "-0.0"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	return strconv.AppendFloat(dst, f, format, -1, bits)
}

const hexDigits = "0123456789abcdef"

// appendString appends s, UTF-8 text, as a JSON string: quotes, backslashes
// and control characters escaped, other characters as they are, invalid
// UTF-8 replaced by U+FFFD.
func appendString(dst []byte, s []byte) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = appendASCII(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\ufffd"...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// appendByteString appends b as a JSON string whose code points 0-255 are
// the byte values.
func appendByteString(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	for _, c := range b {
		if c < utf8.RuneSelf {
			dst = appendASCII(dst, c)
		} else {
			dst = utf8.AppendRune(dst, rune(c))
		}
	}
	return append(dst, '"')
}

func appendASCII(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	if c < 0x20 || c == 0x7f {
		return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
	}
	return append(dst, c)
}

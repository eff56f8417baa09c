package avrojson

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/safetext"
)

// AppendJSON decodes one binary datum of the schema from the start of
// data, appends its JSON encoding (compact, one line) to dst and returns it
// with the number of bytes the datum took. On error it returns dst
// unchanged and an *[Error] with the datum's path and byte offset.
func (c *Schema) AppendJSON(dst []byte, data []byte) ([]byte, int, error) {
	d := decoder{Reader: avrobin.Reader{Buf: data, Empty: avrobin.Budget{Max: c.lim.MaxEmptyItems}}, c: c, lim: c.lim, limit: len(dst) + c.lim.MaxJSONSize}
	out, err := d.value(dst, c.root, -1)
	if err != nil {
		return dst, d.Pos, err
	}
	return out, d.Pos, nil
}

// AppendJSON is [Schema.AppendJSON] of s compiled with the default limits.
func AppendJSON(dst []byte, s *avroschema.Node, data []byte) ([]byte, int, error) {
	return Limits{}.Compile(s).AppendJSON(dst, data)
}

type decoder struct {
	avrobin.Reader
	c     *Schema
	lim   Limits
	limit int // the length of dst past which the JSON exceeds MaxJSONSize
}

// value appends the JSON of a value of s inside depth records (-1 for the
// datum itself: see avrobin.Nested).
func (d *decoder) value(dst []byte, s *avroschema.Node, depth int) ([]byte, error) {
	s = s.Deref()
	start := d.Pos
	if len(dst) > d.limit {
		// Names in the schema (fields, union branches) are written for
		// values that take a byte or none: a few bytes can ask for
		// terabytes.
		return dst, errAt(avrobin.ErrLimit, start, "the datum's JSON exceeds %d bytes", d.lim.MaxJSONSize)
	}
	switch s.Type {
	case avroschema.Null:
		return append(dst, "null"...), nil
	case avroschema.Boolean:
		b, err := d.Boolean()
		if err != nil {
			return dst, err
		}
		return strconv.AppendBool(dst, b), nil
	case avroschema.Int:
		v, err := d.Int()
		if err != nil {
			return dst, err
		}
		return strconv.AppendInt(dst, int64(v), 10), nil
	case avroschema.Long:
		v, err := d.Long()
		if err != nil {
			return dst, err
		}
		return strconv.AppendInt(dst, v, 10), nil
	case avroschema.Float:
		f, err := d.Float()
		if err != nil {
			return dst, err
		}
		return appendFloat(dst, float64(f), 32), nil
	case avroschema.Double:
		f, err := d.Double()
		if err != nil {
			return dst, err
		}
		return appendFloat(dst, f, 64), nil
	case avroschema.String:
		b, err := d.Bytes()
		if err != nil {
			return dst, err
		}
		return appendString(dst, b), nil
	case avroschema.Bytes:
		b, err := d.Bytes()
		if err != nil {
			return dst, err
		}
		return appendByteString(dst, b), nil
	case avroschema.Fixed:
		b, err := d.Fixed(s.Size)
		if err != nil {
			return dst, err
		}
		return appendByteString(dst, b), nil
	case avroschema.Enum:
		i, err := d.Index(len(s.Symbols), avrobin.EnumIndexFormat(s.Name))
		if err != nil {
			return dst, err
		}
		return appendString(dst, []byte(s.Symbols[i])), nil
	}
	switch s.Type {
	case avroschema.Union:
		i, err := d.Index(len(s.Branches), avrobin.UnionIndexFormat)
		if err != nil {
			return dst, err
		}
		b := s.Branches[i]
		if b.Deref().Type == avroschema.Null {
			return append(dst, "null"...), nil
		}
		name := BranchName(b)
		dst = append(dst, '{')
		dst = appendString(dst, []byte(name))
		dst = append(dst, ':')
		out, err := d.value(dst, b, max(depth, 0))
		if err != nil {
			return dst, within(err, "<"+name+">")
		}
		return append(out, '}'), nil
	case avroschema.Record:
		depth, top, err := avrobin.Nested(depth, d.lim.MaxDepth, start)
		if err != nil {
			return dst, err
		}
		if err := d.Empty.Record(d.c.zeroSize(s), top, start); err != nil {
			return dst, err
		}
		dst = append(dst, '{')
		for i := range s.Fields {
			f := &s.Fields[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, []byte(f.Name))
			dst = append(dst, ':')
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
		depth = max(depth, 0)
		n := 0
		for {
			count, err := d.BlockCount(minItem)
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
					k, err := d.Bytes()
					if err != nil {
						return dst, within(err, seg)
					}
					seg = "[" + strconv.Quote(string(k)) + "]"
					dst = appendString(dst, k)
					dst = append(dst, ':')
				}
				d.Empty.Item(minItem == 0)
				if dst, err = d.value(dst, item, depth); err != nil {
					return dst, within(err, seg)
				}
				n++
			}
			d.Empty.Item(false)
		}
	}
	return dst, errAt(avrobin.ErrMalformed, start, "schema type %v", s.Type)
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
// and the characters that could act on a terminal (C0 and C1 controls,
// format characters such as bidirectional overrides: see
// safetext.AppendJSONChar) escaped, other characters as they are, invalid
// UTF-8 replaced by U+FFFD. The escapes leave the JSON value as it is.
func appendString(dst []byte, s []byte) []byte {
	dst = append(dst, '"')
	for len(s) > 0 {
		n := 1
		if s[0] < utf8.RuneSelf {
			dst = appendASCII(dst, s[0])
		} else {
			dst, n = safetext.AppendJSONChar(dst, s)
		}
		s = s[n:]
	}
	return append(dst, '"')
}

// appendByteString appends b as a JSON string whose code points 0-255 are
// the byte values; those that are controls (C0, C1) escaped.
func appendByteString(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	for _, c := range b {
		switch {
		case c < utf8.RuneSelf:
			dst = appendASCII(dst, c)
		case c < 0xa0 || c == 0xad: // C1 controls, and the soft hyphen (Cf)
			dst = safetext.AppendJSONEscape(dst, rune(c))
		default:
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

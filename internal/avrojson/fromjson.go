package avrojson

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/jsonfloat"
)

// AppendDatum parses text, one JSON value in the specification's JSON
// encoding of the schema, and appends the datum's binary encoding to dst.
// A record field missing from the JSON takes its default; a field without
// a default must be present. An object with a key twice is refused. It
// also returns the zero-size values written inside the datum, as
// [Limits.MaxEmptyItems] counts them (at most MaxEmptyItems): a writer of
// container blocks bounds their sum per block as readers do
// (limits.BlockEmpty). On error it returns dst unchanged and an *[Error]
// naming the path of the offending value.
func (c *Schema) AppendDatum(dst []byte, text []byte) ([]byte, int64, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return dst, 0, &Error{Offset: -1, Err: errors.Join(ErrJSON, err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return dst, 0, &Error{Offset: -1, Err: errors.Join(ErrJSON, errors.New("data after the JSON value"))}
	}
	if err := checkText(text); err != nil {
		return dst, 0, &Error{Offset: -1, Err: err}
	}
	if key, off, ok := duplicateKey(text); ok {
		// JSON readers keep different ones (Java Avro the first,
		// encoding/json the last): the datum would be ambiguous.
		return dst, 0, &Error{Offset: -1, Err: fmt.Errorf("%w: key %q twice in an object (at byte %d of the JSON)", ErrJSON, key, off)}
	}
	e := encoder{c: c, lim: c.lim, empty: avrobin.Budget{Max: c.lim.MaxEmptyItems}}
	out, err := e.value(dst, c.root, v, false, -1)
	if err != nil {
		return dst, 0, err
	}
	return out, e.empty.N, nil
}

// checkText refuses text, valid JSON, that encoding/json would read with
// U+FFFD in place of what it holds: bytes that are not UTF-8, and escaped
// surrogates that are not a pair (\ud800 alone), which no string can hold
// (an Avro string is UTF-8). The error names the byte offset in text.
func checkText(text []byte) error {
	if !utf8.Valid(text) {
		for i := 0; i < len(text); {
			r, n := utf8.DecodeRune(text[i:])
			if r == utf8.RuneError && n == 1 {
				return fmt.Errorf("%w: the JSON is not UTF-8 at byte %d", ErrJSON, i)
			}
			i += n
		}
	}
	// A backslash is only ever inside a string of valid JSON, and starts
	// an escape: \uXXXX, or a backslash and one character.
	for i := 0; ; {
		k := bytes.IndexByte(text[i:], '\\')
		if k < 0 {
			return nil
		}
		i += k
		r, ok := escapedRune(text, i)
		switch {
		case !ok:
			i += 2
			continue
		case utf16.IsSurrogate(r) && r < 0xdc00:
			if lo, ok := escapedRune(text, i+6); ok && lo >= 0xdc00 && lo <= 0xdfff {
				i += 12
				continue
			}
			fallthrough
		case utf16.IsSurrogate(r):
			return fmt.Errorf("%w: the surrogate %s at byte %d of the JSON is not part of a pair; a string holds characters (UTF-8)", ErrJSON, text[i:i+6], i)
		}
		i += 6
	}
}

// escapedRune returns the code unit of the escape \uXXXX at text[i:], if
// there is one.
func escapedRune(text []byte, i int) (rune, bool) {
	if i+6 > len(text) || text[i] != '\\' || text[i+1] != 'u' {
		return 0, false
	}
	v, err := strconv.ParseUint(string(text[i+2:i+6]), 16, 16)
	return rune(v), err == nil
}

// duplicateKey returns the first key that an object of text, valid JSON,
// has twice, and the byte offset of its second occurrence. Keys are
// compared as decoded: as written, unless written with escapes or invalid
// UTF-8 (which decodes to U+FFFD).
func duplicateKey(text []byte) (string, int, bool) {
	type object struct {
		start int                 // its first key in keys
		set   map[string]struct{} // its keys, once it has many
	}
	const linear = 32 // keys compared one by one before set is built
	var (
		stack     []object // nil set and start -1 for an array
		keys      [][]byte
		expectKey bool
	)
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '{':
			stack = append(stack, object{start: len(keys)})
			expectKey = true
		case '[':
			stack = append(stack, object{start: -1})
			expectKey = false
		case '}', ']':
			if top := stack[len(stack)-1]; top.start >= 0 {
				keys = keys[:top.start]
			}
			stack = stack[:len(stack)-1]
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1].start >= 0
		case '"':
			j := i + 1
			escaped := false
			for text[j] != '"' {
				if text[j] == '\\' {
					escaped = true
					j++
				}
				j++
			}
			if expectKey {
				key := text[i+1 : j]
				if escaped || !utf8.Valid(key) {
					var k string
					_ = json.Unmarshal(text[i:j+1], &k) // valid: decoded before
					key = []byte(k)
				}
				o := &stack[len(stack)-1]
				if o.set == nil && len(keys)-o.start >= linear {
					o.set = make(map[string]struct{}, 2*linear)
					for _, k := range keys[o.start:] {
						o.set[string(k)] = struct{}{}
					}
				}
				if o.set != nil {
					if _, dup := o.set[string(key)]; dup {
						return string(key), i, true
					}
					o.set[string(key)] = struct{}{}
				} else {
					for _, k := range keys[o.start:] {
						if bytes.Equal(k, key) {
							return string(key), i, true
						}
					}
				}
				keys = append(keys, key)
				expectKey = false
			}
			i = j
		}
	}
	return "", 0, false
}

// AppendBinary is [Schema.AppendDatum] of s compiled with the default
// limits, without the count.
func AppendBinary(dst []byte, s *avroschema.Node, text []byte) ([]byte, error) {
	out, _, err := Limits{}.Compile(s).AppendDatum(dst, text)
	return out, err
}

type encoder struct {
	c     *Schema
	lim   Limits
	empty avrobin.Budget // the zero-size values, counted as readers count them
	// defaulted counts the values written from field defaults, which
	// nested record types can expand without bound.
	defaulted int64
}

// errTooManyEmpty reports zero-size values beyond Limits.MaxEmptyItems.
func (e *encoder) errTooManyEmpty() error {
	return errAt(avrobin.ErrLimit, -1, "more than %d zero-size values in the datum (empty records, nulls in arrays), which readers refuse", e.lim.MaxEmptyItems)
}

func jsonErr(format string, args ...any) error {
	return errAt(ErrJSON, -1, format, args...)
}

// value encodes v as a value of s inside depth records (-1 for the datum
// itself: see avrobin.Nested). isDefault says that v is a field default,
// where a union's value is that of its first branch, untagged.
func (e *encoder) value(dst []byte, s *avroschema.Node, v any, isDefault bool, depth int) ([]byte, error) {
	s = s.Deref()
	if isDefault {
		if e.defaulted++; e.defaulted > e.lim.MaxDefaultValues {
			return dst, errAt(avrobin.ErrLimit, -1, "more than %d values from field defaults in the datum", e.lim.MaxDefaultValues)
		}
	}
	want := func() error { return jsonErr("want %s, got %s", s.Type, avroschema.JSONKind(v)) }
	switch s.Type {
	case avroschema.Null:
		if v != nil {
			return dst, want()
		}
		return dst, nil
	case avroschema.Boolean:
		b, ok := v.(bool)
		if !ok {
			return dst, want()
		}
		if b {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case avroschema.Int, avroschema.Long:
		n, ok := v.(json.Number)
		if !ok {
			return dst, want()
		}
		bits := 64
		if s.Type == avroschema.Int {
			bits = 32
		}
		i, err := strconv.ParseInt(string(n), 10, bits)
		if errors.Is(err, strconv.ErrRange) {
			return dst, jsonErr("%s is outside the range of %s (%d to %d)", shownNumber(n), s.Type, int64(-1)<<(bits-1), uint64(1)<<(bits-1)-1)
		}
		if err != nil {
			return dst, jsonErr("%s is not a %d-bit integer", shownNumber(n), bits)
		}
		return binary.AppendVarint(dst, i), nil
	case avroschema.Float, avroschema.Double:
		f, err := number(v)
		if err != nil {
			return dst, err
		}
		if n, ok := v.(json.Number); ok {
			// A number beyond the type's range would become an
			// infinity, a value the text does not hold (the string
			// "Infinity" spells one). Numbers too small become zero, as
			// every JSON reader reads them.
			max := math.MaxFloat64
			if s.Type == avroschema.Float {
				max = math.MaxFloat32
			}
			if math.IsInf(f, 0) || s.Type == avroschema.Float && math.IsInf(float64(float32(f)), 0) {
				return dst, jsonErr("%s is outside the range of %s (±%g)", shownNumber(n), s.Type, max)
			}
		}
		if s.Type == avroschema.Float {
			return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(f))), nil
		}
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f)), nil
	case avroschema.String:
		str, ok := v.(string)
		if !ok {
			return dst, want()
		}
		dst = binary.AppendVarint(dst, int64(len(str)))
		return append(dst, str...), nil
	case avroschema.Bytes, avroschema.Fixed:
		str, ok := v.(string)
		if !ok {
			return dst, want()
		}
		n := utf8.RuneCountInString(str)
		if s.Type == avroschema.Fixed {
			if n != s.Size {
				return dst, jsonErr("fixed %s has %d bytes, got %d", s.Name, s.Size, n)
			}
		} else {
			dst = binary.AppendVarint(dst, int64(n))
		}
		for _, r := range str {
			if r > 255 {
				return dst, jsonErr("bytes are code points 0-255, got U+%04X", r)
			}
			dst = append(dst, byte(r))
		}
		return dst, nil
	case avroschema.Enum:
		str, ok := v.(string)
		if !ok {
			return dst, want()
		}
		i := e.c.index(s, len(s.Symbols), func(i int) string { return s.Symbols[i] }, str)
		if i < 0 {
			return dst, jsonErr("%q is not a symbol of enum %s", str, s.Name)
		}
		return binary.AppendVarint(dst, int64(i)), nil
	case avroschema.Union:
		return e.union(dst, s, v, isDefault, depth)
	case avroschema.Record:
		obj, ok := v.(map[string]any)
		if !ok {
			return dst, want()
		}
		// As in AppendJSON, the limit is on the nesting of records alone.
		depth, top, err := avrobin.Nested(depth, e.lim.MaxDepth, -1)
		if err != nil {
			return dst, err
		}
		if e.empty.Record(e.c.zeroSize(s), top, -1) != nil {
			return dst, e.errTooManyEmpty()
		}

		for k := range obj {
			if e.c.index(s, len(s.Fields), func(i int) string { return s.Fields[i].Name }, k) < 0 {
				return dst, jsonErr("record %s has no field %q", s.Name, k)
			}
		}
		for i := range s.Fields {
			f := &s.Fields[i]
			fv, present := obj[f.Name]
			def := isDefault
			if !present {
				if f.Default == nil {
					return dst, within(jsonErr("missing, and the field has no default"), f.Name)
				}
				d := e.c.defaults[f]
				if d.err != nil {
					return dst, within(d.err, f.Name)
				}
				fv, def = d.v, true
			}
			if dst, err = e.value(dst, f.Type, fv, def, depth+1); err != nil {
				return dst, within(err, f.Name)
			}
		}
		return dst, nil
	case avroschema.Array:
		arr, ok := v.([]any)
		if !ok {
			return dst, want()
		}
		if len(arr) > 0 {
			empty := e.c.zeroSize(s.Items)
			if empty && e.empty.Add(int64(len(arr)), -1) != nil {
				return dst, e.errTooManyEmpty()
			}
			dst = binary.AppendVarint(dst, int64(len(arr)))
			for i, item := range arr {
				e.empty.Item(empty)
				var err error
				if dst, err = e.value(dst, s.Items, item, isDefault, max(depth, 0)); err != nil {
					return dst, within(err, "["+strconv.Itoa(i)+"]")
				}
			}
			e.empty.Item(false)
		}
		return append(dst, 0), nil
	case avroschema.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return dst, want()
		}
		if len(obj) > 0 {
			dst = binary.AppendVarint(dst, int64(len(obj)))
			for _, k := range sortedKeys(obj) {
				dst = binary.AppendVarint(dst, int64(len(k)))
				dst = append(dst, k...)
				var err error
				if dst, err = e.value(dst, s.Values, obj[k], isDefault, max(depth, 0)); err != nil {
					return dst, within(err, "["+strconv.Quote(k)+"]")
				}
			}
		}
		return append(dst, 0), nil
	}
	return dst, jsonErr("schema type %v", s.Type)
}

// union encodes v as a union value: null for a null branch, else an object
// with one key naming the branch. A default, untagged, is a value of the
// first branch it matches (the specification from Avro 1.12 lets it match
// any branch; before, only the first), as twmb/avro's resolution, and so
// the schema parser, take it.
func (e *encoder) union(dst []byte, s *avroschema.Node, v any, isDefault bool, depth int) ([]byte, error) {
	if len(s.Branches) == 0 {
		return dst, jsonErr("empty union")
	}
	if isDefault {
		// A branch that does not match leaves nothing behind but the work
		// it took: its values from defaults stay counted, which bounds the
		// branches tried in nested defaults.
		empty := e.empty
		var first error
		for i, b := range s.Branches {
			out, err := e.value(binary.AppendVarint(dst, int64(i)), b, v, true, max(depth, 0))
			if err == nil {
				return out, nil
			}
			if !errors.Is(err, ErrJSON) {
				return dst, err
			}
			if first == nil {
				first = err
			}
			e.empty = empty
		}
		return dst, first
	}
	if v == nil {
		for i, b := range s.Branches {
			if b.Deref().Type == avroschema.Null {
				return binary.AppendVarint(dst, int64(i)), nil
			}
		}
		return dst, jsonErr("null, but the union has no null branch")
	}
	obj, ok := v.(map[string]any)
	if !ok || len(obj) != 1 {
		return dst, jsonErr("a union value is null or an object with one key naming the branch, got %s", avroschema.JSONKind(v))
	}
	for name, bv := range obj {
		i := e.c.index(s, len(s.Branches), func(i int) string { return BranchName(s.Branches[i]) }, name)
		if i < 0 {
			return dst, jsonErr("the union has no branch %q", name)
		}
		dst = binary.AppendVarint(dst, int64(i))
		out, err := e.value(dst, s.Branches[i], bv, false, max(depth, 0))
		if err != nil {
			return dst, within(err, "<"+name+">")
		}
		return out, nil
	}
	return dst, nil
}

// number reads a float or double value: a number, or "NaN", "Infinity",
// "-Infinity".
func number(v any) (float64, error) {
	switch t := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, jsonErr("%s is not a number", shownNumber(t))
		}
		return f, nil
	case string:
		if f, ok := jsonfloat.NonFinite(t); ok {
			return f, nil
		}
	}
	return 0, jsonErr("want a number, \"NaN\", \"Infinity\" or \"-Infinity\", got %s", avroschema.JSONKind(v))
}

// shownNumber shortens a number of the input for an error message: JSON
// puts no bound on its digits.
func shownNumber(n json.Number) string {
	const max = 40
	if len(n) <= max {
		return string(n)
	}
	return fmt.Sprintf("%s… (a number of %d characters)", n[:max], len(n))
}

func parseDefault(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, jsonErr("default: %v", err)
	}
	return v, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

package pbjson

import (
	"cmp"
	"encoding/base64"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/protoavro/protoavro/internal/jsonfloat"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
)

// AppendWire parses text, one JSON object, as a message of the plan's type
// and appends its wire bytes, as deterministic proto.Marshal writes them
// after protojson.Unmarshal, to dst. ok is false when the fast path
// declines text (then dst is returned as it was): text may be invalid, or
// valid in a form that only protojson handles.
func (p *Plan) AppendWire(dst, text []byte) (out []byte, ok bool) {
	out, _, ok = p.appendWire(dst, text, false)
	return out, ok
}

// AppendWireDiscardUnknown is [Plan.AppendWire] as protojson.Unmarshal
// reads with DiscardUnknown: a member that names no field of its message
// is skipped, in every message that the fast path reads itself (at the
// root, in fields, lists and map values, at any depth); dropped says
// that at least one was. A skipped value is checked as protojson checks
// it: one that is not JSON makes text declined. Declined too, for the
// caller's slower path to read or refuse: an enum value name that the
// enum does not declare, a member named as an extension is ("[full.name]"),
// and the JSON of the well-known types other than Struct, Value and
// ListValue with a member that names no field (such as an Any without
// "@type", or with members its packed message lacks), which protojson
// reads here as AppendWire does, without DiscardUnknown.
func (p *Plan) AppendWireDiscardUnknown(dst, text []byte) (out []byte, dropped, ok bool) {
	return p.appendWire(dst, text, true)
}

// appendWire is AppendWire, and with discard AppendWireDiscardUnknown.
func (p *Plan) appendWire(dst, text []byte, discard bool) (out []byte, dropped, ok bool) {
	if p.root.unsupported {
		return dst, false, false
	}
	st := p.pool.Get().(*state)
	d := jsonDec{in: text, st: st, p: p, str: st.str, discard: discard}
	n := len(dst)
	d.ws()
	if p.root.sk != skNone {
		out, ok = d.structMsg(p.root.sk, dst, protowire.DefaultRecursionLimit)
	} else {
		out, ok = d.message(p.root, dst, 0)
	}
	d.ws()
	st.str = d.str[:0]
	p.pool.Put(st)
	if !ok || d.pos != len(text) {
		return dst[:n], false, false
	}
	return out, d.dropped, true
}

// jsonDec is the state of one AppendWire.
type jsonDec struct {
	in  []byte
	pos int
	st  *state
	p   *Plan
	// str holds an unescaped string.
	str []byte
	// discard skips the members that name no field (dropped says that
	// one was), rather than decline them.
	discard, dropped bool
}

// ws skips JSON whitespace.
func (d *jsonDec) ws() {
	for d.pos < len(d.in) {
		switch d.in[d.pos] {
		case ' ', '\t', '\r', '\n':
			d.pos++
		default:
			return
		}
	}
}

// next returns the next byte, 0 at the end.
func (d *jsonDec) next() byte {
	if d.pos < len(d.in) {
		return d.in[d.pos]
	}
	return 0
}

// delim reports whether the input ends or a delimiter follows a number or
// a literal.
func (d *jsonDec) delim() bool {
	switch d.next() {
	case 0, ' ', '\t', '\r', '\n', ',', '}', ']':
		return d.pos <= len(d.in)
	}
	return false
}

// more consumes what follows a member of an object or an element of an
// array: a comma (more is true) or the closer.
func (d *jsonDec) more(closer byte) (more, ok bool) {
	d.ws()
	switch d.next() {
	case ',':
		d.pos++
		d.ws()
		return true, true
	case closer:
		d.pos++
		return false, true
	}
	return false, false
}

// open consumes the opening bracket opener and the space after it; empty
// says that the closer follows at once (consumed too). ok is false where
// the input does not start with opener.
func (d *jsonDec) open(opener, closer byte) (empty, ok bool) {
	if d.next() != opener {
		return false, false
	}
	d.pos++
	d.ws()
	if d.next() == closer {
		d.pos++
		return true, true
	}
	return false, true
}

// literal consumes the literal word.
func (d *jsonDec) literal(word string) bool {
	if len(d.in)-d.pos < len(word) || string(d.in[d.pos:d.pos+len(word)]) != word {
		return false
	}
	d.pos += len(word)
	return d.delim()
}

// string parses a JSON string and returns its value, valid until the next
// call; escaped says that it had escapes.
func (d *jsonDec) string() (s []byte, escaped, ok bool) {
	if d.next() != '"' {
		return nil, false, false
	}
	d.pos++
	start := d.pos
	ascii := true
	for d.pos < len(d.in) {
		// Skip plain ASCII, then look at what stopped the run.
		for d.pos < len(d.in) && !stringStop[d.in[d.pos]] {
			d.pos++
		}
		if d.pos == len(d.in) {
			break
		}
		c := d.in[d.pos]
		switch {
		case c == '"':
			s = d.in[start:d.pos]
			d.pos++
			if !ascii && !utf8.Valid(s) {
				return nil, false, false
			}
			return s, false, true
		case c == '\\':
			return d.escapedString(start, ascii)
		case c < 0x20:
			return nil, false, false
		case c >= 0x80:
			ascii = false
		}
		d.pos++
	}
	return nil, false, false
}

// stringStop marks the bytes that end a run of plain characters in a
// string: the quote, the escape, control characters and non-ASCII bytes.
var stringStop = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80
	}
	return t
}()

// escapedString continues string at its first escape.
func (d *jsonDec) escapedString(start int, ascii bool) ([]byte, bool, bool) {
	if !ascii && !utf8.Valid(d.in[start:d.pos]) {
		return nil, false, false
	}
	d.str = append(d.str[:0], d.in[start:d.pos]...)
	for d.pos < len(d.in) {
		c := d.in[d.pos]
		switch {
		case c == '"':
			d.pos++
			return d.str, true, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			if d.pos+1 >= len(d.in) {
				return nil, false, false
			}
			e := d.in[d.pos+1]
			d.pos += 2
			switch e {
			case '"', '\\', '/':
				d.str = append(d.str, e)
			case 'b':
				d.str = append(d.str, '\b')
			case 'f':
				d.str = append(d.str, '\f')
			case 'n':
				d.str = append(d.str, '\n')
			case 'r':
				d.str = append(d.str, '\r')
			case 't':
				d.str = append(d.str, '\t')
			case 'u':
				v, ok := hex4(d.in[d.pos:])
				if !ok || utf16.IsSurrogate(v) {
					return nil, false, false // surrogate pairs are left to protojson
				}
				d.pos += 4
				d.str = utf8.AppendRune(d.str, v)
			default:
				return nil, false, false
			}
		default:
			// Copy up to the next quote, escape or control character.
			s := d.pos
			for d.pos < len(d.in) && d.in[d.pos] != '"' && d.in[d.pos] != '\\' && d.in[d.pos] >= 0x20 {
				d.pos++
			}
			if !utf8.Valid(d.in[s:d.pos]) {
				return nil, false, false
			}
			d.str = append(d.str, d.in[s:d.pos]...)
		}
	}
	return nil, false, false
}

// skipString skips a JSON string, checking it as protojson does: UTF-8,
// no control character, escapes that JSON defines, \u escapes of UTF-16
// surrogates only in pairs that make a character.
func (d *jsonDec) skipString() bool {
	if d.next() != '"' {
		return false
	}
	d.pos++
	for d.pos < len(d.in) {
		for d.pos < len(d.in) && !stringStop[d.in[d.pos]] {
			d.pos++
		}
		if d.pos == len(d.in) {
			break
		}
		switch c := d.in[d.pos]; {
		case c == '"':
			d.pos++
			return true
		case c < 0x20:
			return false
		case c >= 0x80:
			r, n := utf8.DecodeRune(d.in[d.pos:])
			if r == utf8.RuneError && n == 1 {
				return false
			}
			d.pos += n
		default: // an escape
			if d.pos+1 >= len(d.in) {
				return false
			}
			switch d.in[d.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.pos += 2
			case 'u':
				r, ok := hex4(d.in[d.pos+2:])
				if !ok {
					return false
				}
				d.pos += 6
				if utf16.IsSurrogate(r) {
					r2, ok := hex4(d.in[min(d.pos+2, len(d.in)):])
					if !ok || d.in[d.pos] != '\\' || d.in[d.pos+1] != 'u' || utf16.DecodeRune(r, r2) == utf8.RuneError {
						return false
					}
					d.pos += 6
				}
			default:
				return false
			}
		}
	}
	return false
}

// hex4 returns the value of the 4 hexadecimal digits that b starts with.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number parses a JSON number and returns its text; plainInt says that
// it is an integer without fraction or exponent.
func (d *jsonDec) number() (text []byte, plainInt, ok bool) {
	start := d.pos
	text, plainInt, ok = scanNumber(d.in[d.pos:])
	if !ok {
		return nil, false, false
	}
	d.pos = start + len(text)
	return text, plainInt, d.delim()
}

// scanNumber returns the JSON number at the start of b.
func scanNumber(b []byte) (text []byte, plainInt, ok bool) {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return nil, false, false
	}
	plainInt = true
	if i < len(b) && b[i] == '.' {
		plainInt = false
		s := i + 1
		if i = skipDigits(b, s); i == s {
			return nil, false, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		plainInt = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		s := i
		if i = skipDigits(b, s); i == s {
			return nil, false, false
		}
	}
	return b[:i], plainInt, true
}

// skipDigits returns the index of the first byte of b from i on that is
// not a decimal digit.
func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// skipValue skips one JSON value, checking its syntax.
func (d *jsonDec) skipValue(depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch c := d.next(); {
	case c == '"':
		return d.skipString()
	case c == '-' || c >= '0' && c <= '9':
		_, _, ok := d.number()
		return ok
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '[' || c == '{':
		closer := byte(']')
		if c == '{' {
			closer = '}'
		}
		d.pos++
		d.ws()
		if d.next() == closer {
			d.pos++
			return true
		}
		for {
			if c == '{' {
				if !d.skipString() {
					return false
				}
				d.ws()
				if d.next() != ':' {
					return false
				}
				d.pos++
				d.ws()
			}
			if !d.skipValue(depth + 1) {
				return false
			}
			if more, ok := d.more(closer); !more {
				return ok
			}
		}
	}
	return false
}

// skipUnknown skips, when d discards them, the member of a message of mp
// at depth whose name names no field (ext says that the name is in the
// form of an extension's) and the members after it up to one whose name,
// read, names a field: it returns that field's index, or -1 when the
// object ends. ok is false when d does not discard, when a name is in the
// form of an extension's (protojson looks those up) or when a value is not
// JSON.
func (d *jsonDec) skipUnknown(mp *msgPlan, ext bool, depth int) (idx int, ok bool) {
	for {
		if !d.discard || ext {
			return 0, false
		}
		d.ws()
		if d.next() != ':' {
			return 0, false
		}
		d.pos++
		d.ws()
		if !d.skipValue(depth + 1) {
			return 0, false
		}
		d.dropped = true
		more, ok := d.more('}')
		if !ok || !more {
			return -1, ok
		}
		key, _, ok := d.string()
		if !ok {
			return 0, false
		}
		if idx, found := mp.byName[string(key)]; found {
			return idx, true
		}
		ext = isExtension(key)
	}
}

// isExtension reports whether key, the name of a member, is in the form
// of an extension's, "[full.name]".
func isExtension(key []byte) bool {
	return len(key) >= 2 && key[0] == '[' && key[len(key)-1] == ']'
}

// message parses a JSON object as a message of mp and appends its wire
// bytes to dst.
func (d *jsonDec) message(mp *msgPlan, dst []byte, depth int) ([]byte, bool) {
	if depth > maxDepth {
		return dst, false
	}
	empty, ok := d.open('{', '}')
	if !ok || empty {
		return dst, ok && len(mp.required) == 0
	}
	l := d.st.level(depth, mp)
	next := 0 // the field whose key is expected next
	for {
		key, _, ok := d.string()
		if !ok {
			return dst, false
		}
		// Keys usually come in the order of the fields: try the next one
		// before the map.
		idx := next
		if idx >= len(mp.fields) || !mp.fields[idx].ownsName || mp.fields[idx].fd.JSONName() != string(key) {
			var found bool
			if idx, found = mp.byName[string(key)]; !found {
				if idx, ok = d.skipUnknown(mp, isExtension(key), depth); !ok {
					return dst, false
				}
				if idx < 0 {
					break // the object ends
				}
			}
		}
		next = idx + 1
		d.ws()
		if d.next() != ':' {
			return dst, false
		}
		d.pos++
		d.ws()
		f := mp.fields[idx]
		if l.spans[idx].set {
			return dst, false // duplicate field
		}
		l.spans[idx] = span{start: len(l.buf), end: len(l.buf), set: true}
		if d.next() == 'n' && !f.isValue {
			if !d.literal("null") {
				return dst, false
			}
		} else {
			if f.oneof >= 0 && !f.list && !f.isMap {
				if l.oneof[f.oneof] {
					return dst, false
				}
				l.oneof[f.oneof] = true
			}
			start := len(l.buf)
			if l.buf, ok = d.field(f, l, depth); !ok {
				return dst, false
			}
			l.spans[idx] = span{start: start, end: len(l.buf), set: true}
		}
		more, ok := d.more('}')
		if !ok {
			return dst, false
		}
		if !more {
			break
		}
	}
	for _, i := range mp.required {
		if sp := l.spans[i]; sp.end == sp.start {
			return dst, false // not initialized
		}
	}
	for _, i := range mp.wireOrder {
		if sp := l.spans[i]; sp.end > sp.start {
			dst = append(dst, l.buf[sp.start:sp.end]...)
		}
	}
	return dst, true
}

// field parses the value of field f, appending its wire bytes to l.buf.
func (d *jsonDec) field(f *fieldPlan, l *level, depth int) ([]byte, bool) {
	buf := l.buf
	switch {
	case f.isMap:
		return d.mapField(f, l, depth)
	case f.list:
		return d.list(f, buf, depth)
	case f.class == classMessage:
		return d.messageField(f, buf, depth)
	}
	n := len(buf)
	buf = append(buf, f.tag...)
	buf, zero, ok := d.scalar(f, buf)
	if ok && zero && !f.presence {
		buf = buf[:n]
	}
	return buf, ok
}

// messageField appends a message value with f's tag.
func (d *jsonDec) messageField(f *fieldPlan, buf []byte, depth int) ([]byte, bool) {
	if f.wkt {
		return d.delegate(f, buf, depth)
	}
	buf = append(buf, f.ltag...)
	pos := len(buf)
	buf = append(buf, 0)
	buf, ok := d.message(f.msg, buf, depth+1)
	return finishLength(buf, pos), ok
}

// finishLength writes the length of buf[pos+1:] as the varint at pos, for
// which one byte was set aside, moving the bytes when it needs more.
func finishLength(buf []byte, pos int) []byte {
	n := len(buf) - pos - 1
	size := protowire.SizeVarint(uint64(n))
	if size > 1 {
		buf = slices.Grow(buf, size-1)[:len(buf)+size-1]
		copy(buf[pos+size:], buf[pos+1:pos+1+n])
	}
	protowire.AppendVarint(buf[pos:pos], uint64(n))
	return buf
}

// delegate has protojson parse the next value, a well-known type of field
// f, and appends its wire bytes with f's tag.
func (d *jsonDec) delegate(f *fieldPlan, buf []byte, depth int) ([]byte, bool) {
	start := d.pos
	if f.sk != skNone {
		// The limit protojson would have left at this depth.
		n := len(buf)
		buf = append(buf, f.ltag...)
		pos := len(buf)
		buf = append(buf, 0)
		out, ok := d.structMsg(f.sk, buf, protowire.DefaultRecursionLimit-1-depth)
		if ok {
			return finishLength(out, pos), true
		}
		// Declined: protojson reads it, or says what is wrong.
		buf, d.pos = out[:n], start
	}
	if !d.skipValue(depth + 1) {
		return buf, false
	}
	m := dynamicpb.NewMessage(f.fd.Message())
	// The limit protojson would have left at this depth.
	opts := protojson.UnmarshalOptions{RecursionLimit: protowire.DefaultRecursionLimit - 1 - depth, Resolver: d.p.resolver}
	if err := opts.Unmarshal(d.in[start:d.pos], m); err != nil {
		return buf, false
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return buf, false
	}
	buf = append(buf, f.ltag...)
	buf = protowire.AppendVarint(buf, uint64(len(b)))
	return append(buf, b...), true
}

// list parses a JSON array of the repeated field f.
func (d *jsonDec) list(f *fieldPlan, buf []byte, depth int) ([]byte, bool) {
	if empty, ok := d.open('[', ']'); !ok || empty {
		return buf, ok
	}
	pos := -1
	if f.packed {
		buf = append(buf, f.ltag...)
		pos = len(buf)
		buf = append(buf, 0)
	}
	for {
		var ok bool
		switch {
		case f.class == classMessage:
			buf, ok = d.messageField(f, buf, depth)
		case f.packed:
			buf, _, ok = d.scalar(f, buf)
		default:
			buf = append(buf, f.tag...)
			buf, _, ok = d.scalar(f, buf)
		}
		if !ok {
			return buf, false
		}
		more, ok := d.more(']')
		if !ok {
			return buf, false
		}
		if !more {
			break
		}
	}
	if pos >= 0 {
		buf = finishLength(buf, pos)
	}
	return buf, true
}

// mapField parses a JSON object of the map field f; its entries are
// written sorted by key, as deterministic proto.Marshal writes them.
func (d *jsonDec) mapField(f *fieldPlan, l *level, depth int) ([]byte, bool) {
	buf := l.buf
	if empty, ok := d.open('{', '}'); !ok || empty {
		return buf, ok
	}
	l.ents, l.ebuf = l.ents[:0], l.ebuf[:0]
	for {
		key, _, ok := d.string()
		if !ok {
			return buf, false
		}
		e := entry{start: len(l.ebuf)}
		l.ebuf = append(l.ebuf, f.key.tag...)
		if l.ebuf, ok = appendKey(l.ebuf, f.key, key, &e); !ok {
			return buf, false
		}
		d.ws()
		if d.next() != ':' {
			return buf, false
		}
		d.pos++
		d.ws()
		v := f.val
		if v.class == classMessage {
			l.ebuf, ok = d.messageField(v, l.ebuf, depth)
		} else {
			l.ebuf = append(l.ebuf, v.tag...)
			l.ebuf, _, ok = d.scalar(v, l.ebuf)
		}
		if !ok {
			return buf, false
		}
		e.end = len(l.ebuf)
		l.ents = append(l.ents, e)
		more, ok := d.more('}')
		if !ok {
			return buf, false
		}
		if !more {
			break
		}
	}
	slices.SortFunc(l.ents, func(a, b entry) int {
		if c := cmp.Compare(a.ikey, b.ikey); c != 0 {
			return c
		}
		if c := cmp.Compare(a.ukey, b.ukey); c != 0 {
			return c
		}
		return cmp.Compare(a.skey, b.skey)
	})
	for i, e := range l.ents {
		if i > 0 {
			if p := l.ents[i-1]; p.ikey == e.ikey && p.ukey == e.ukey && p.skey == e.skey {
				return buf, false // duplicate key
			}
		}
		buf = append(buf, f.ltag...)
		buf = protowire.AppendVarint(buf, uint64(e.end-e.start))
		buf = append(buf, l.ebuf[e.start:e.end]...)
	}
	return buf, true
}

// appendKey parses a map key as protojson does and appends its wire
// value; e gets its sort key.
func appendKey(buf []byte, k *fieldPlan, key []byte, e *entry) ([]byte, bool) {
	switch k.class {
	case classString:
		e.skey = string(key)
		buf = protowire.AppendVarint(buf, uint64(len(key)))
		return append(buf, key...), true
	case classBool:
		switch string(key) {
		case "true":
			e.ikey = 1
			return append(buf, 1), true
		case "false":
			return append(buf, 0), true
		}
		return buf, false
	case classInt:
		n, err := strconv.ParseInt(string(key), 10, int(k.bits))
		if err != nil {
			return buf, false
		}
		e.ikey = n
		return appendInt(buf, &k.kindInfo, n), true
	case classUint:
		n, err := strconv.ParseUint(string(key), 10, int(k.bits))
		if err != nil {
			return buf, false
		}
		e.ukey = n
		return appendUint(buf, &k.kindInfo, n), true
	}
	return buf, false
}

// appendInt appends the wire value of a signed integer of kind k.
func appendInt(buf []byte, k *kindInfo, n int64) []byte {
	switch {
	case k.zigzag:
		return protowire.AppendVarint(buf, protowire.EncodeZigZag(n))
	case k.wireType == protowire.Fixed32Type:
		return protowire.AppendFixed32(buf, uint32(n))
	case k.wireType == protowire.Fixed64Type:
		return protowire.AppendFixed64(buf, uint64(n))
	}
	return protowire.AppendVarint(buf, uint64(n))
}

// appendUint appends the wire value of an unsigned integer of kind k.
func appendUint(buf []byte, k *kindInfo, n uint64) []byte {
	switch k.wireType {
	case protowire.Fixed32Type:
		return protowire.AppendFixed32(buf, uint32(n))
	case protowire.Fixed64Type:
		return protowire.AppendFixed64(buf, n)
	}
	return protowire.AppendVarint(buf, n)
}

// parseUint parses t, a plain integer without sign, as strconv.ParseUint
// does with base 10 and bits.
func parseUint(t []byte, bits int) (uint64, bool) {
	if len(t) == 0 || len(t) > 19 {
		n, err := strconv.ParseUint(string(t), 10, bits)
		return n, err == nil
	}
	n := decimal(t) // 19 digits cannot overflow
	return n, bits == 64 || n <= math.MaxUint32
}

// decimal returns the value of the decimal digits t, which it must not
// overflow.
func decimal(t []byte) uint64 {
	var n uint64
	for _, c := range t {
		n = n*10 + uint64(c-'0')
	}
	return n
}

// parseInt parses t, a plain integer, as strconv.ParseInt does with base
// 10 and bits.
func parseInt(t []byte, bits int) (int64, bool) {
	neg := len(t) > 0 && t[0] == '-'
	digits := t
	if neg {
		digits = t[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		n, err := strconv.ParseInt(string(t), 10, bits)
		return n, err == nil
	}
	n := int64(decimal(digits)) // 18 digits cannot overflow
	if neg {
		n = -n
	}
	return n, bits == 64 || n >= math.MinInt32 && n <= math.MaxInt32
}

// intText returns the integer text of the next value, a number or a
// string, when it is a plain integer.
func (d *jsonDec) intText() ([]byte, bool) {
	switch c := d.next(); {
	case c == '"':
		s, escaped, ok := d.string()
		if !ok || escaped {
			return nil, false
		}
		t, plain, ok := scanNumber(s)
		return t, ok && plain && len(t) == len(s)
	case c == '-' || c >= '0' && c <= '9':
		t, plain, ok := d.number()
		return t, ok && plain
	}
	return nil, false
}

// scalar parses a scalar value of f and appends its wire value (without
// tag) to buf; zero says that it is the zero value.
func (d *jsonDec) scalar(f *fieldPlan, buf []byte) ([]byte, bool, bool) {
	switch f.class {
	case classBool:
		switch d.next() {
		case 't':
			return append(buf, 1), false, d.literal("true")
		case 'f':
			return append(buf, 0), true, d.literal("false")
		}
		return buf, false, false
	case classInt, classUint:
		t, ok := d.intText()
		if !ok {
			return buf, false, false
		}
		if f.class == classInt {
			if n, ok := parseInt(t, int(f.bits)); ok {
				return appendInt(buf, &f.kindInfo, n), n == 0, true
			}
		} else if n, ok := parseUint(t, int(f.bits)); ok && t[0] != '-' {
			return appendUint(buf, &f.kindInfo, n), n == 0, true
		}
		return buf, false, false
	case classFloat:
		v, ok := d.float(int(f.bits))
		if !ok {
			return buf, false, false
		}
		if f.bits == 32 {
			bits := math.Float32bits(float32(v))
			return protowire.AppendFixed32(buf, bits), bits == 0, true
		}
		bits := math.Float64bits(v)
		return protowire.AppendFixed64(buf, bits), bits == 0, true
	case classString:
		s, _, ok := d.string()
		if !ok {
			return buf, false, false
		}
		buf = protowire.AppendVarint(buf, uint64(len(s)))
		return append(buf, s...), len(s) == 0, true
	case classBytes:
		s, _, ok := d.string()
		if !ok {
			return buf, false, false
		}
		return d.bytes(f, buf, s)
	case classEnum:
		var n int64
		switch c := d.next(); {
		case c == '"':
			s, _, ok := d.string()
			if !ok {
				return buf, false, false
			}
			v, found := f.enumByName[string(s)]
			if !found {
				return buf, false, false
			}
			n = int64(v)
		default:
			t, plain, ok := d.number()
			if !ok || !plain {
				return buf, false, false
			}
			var err error
			if n, err = strconv.ParseInt(string(t), 10, 32); err != nil {
				return buf, false, false
			}
		}
		return protowire.AppendVarint(buf, uint64(n)), n == 0, true
	}
	return buf, false, false
}

// base64Encodings are the encodings protojson reads bytes with: standard
// or URL alphabet ([1]), padded or not ([.][1]).
var base64Encodings = [2][2]*base64.Encoding{
	{base64.StdEncoding, base64.StdEncoding.WithPadding(base64.NoPadding)},
	{base64.URLEncoding, base64.URLEncoding.WithPadding(base64.NoPadding)},
}

// bytes appends the base64 string s decoded as protojson decodes it.
func (d *jsonDec) bytes(f *fieldPlan, buf, s []byte) ([]byte, bool, bool) {
	url := 0
	for _, c := range s {
		if c == '-' || c == '_' {
			url = 1
			break
		}
	}
	raw := 0
	if len(s)%4 != 0 {
		raw = 1
	}
	enc := base64Encodings[url][raw]
	n := len(buf)
	buf = protowire.AppendVarint(buf, uint64(enc.DecodedLen(len(s))))
	m := len(buf)
	buf = slices.Grow(buf, enc.DecodedLen(len(s)))
	k, err := enc.Decode(buf[m:m+enc.DecodedLen(len(s))], s)
	if err != nil {
		return buf[:n], false, false
	}
	if d.p.suspect != nil && d.p.suspect(f.fd, buf[m:m+k]) {
		return buf[:n], false, false
	}
	if protowire.SizeVarint(uint64(k)) == m-n {
		buf = buf[:m+k]
		protowire.AppendVarint(buf[n:n], uint64(k))
		return buf, k == 0, true
	}
	// Newlines, which base64 skips, made the length shorter.
	b := append([]byte(nil), buf[m:m+k]...)
	buf = protowire.AppendVarint(buf[:n], uint64(k))
	return append(buf, b...), k == 0, true
}

// float parses a float (bits 32) or double (bits 64) value as protojson
// does.
func (d *jsonDec) float(bits int) (float64, bool) {
	var t []byte
	switch c := d.next(); {
	case c == '"':
		s, escaped, ok := d.string()
		if !ok || escaped {
			return 0, false
		}
		if f, ok := jsonfloat.NonFinite(string(s)); ok {
			return f, true
		}
		n, _, ok := scanNumber(s)
		if !ok || len(n) != len(s) {
			return 0, false
		}
		t = n
	case c == '-' || c >= '0' && c <= '9':
		n, _, ok := d.number()
		if !ok {
			return 0, false
		}
		t = n
	default:
		return 0, false
	}
	v, err := strconv.ParseFloat(string(t), bits)
	if err != nil {
		return 0, false
	}
	return v, true
}

package pbjson

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"

	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// compactJSON is protojson.Marshal's output without its white space: the
// form of the protoavro writer's JSON carrier.
func compactJSON(md protoreflect.MessageDescriptor, wire []byte) ([]byte, error) {
	text, err := wantJSON(md, wire)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, text); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// surrogate reports whether text has a \u escape of a UTF-16 surrogate,
// which the fast path leaves to protojson.
func surrogate(text []byte) bool {
	for i := 0; i+3 < len(text); i++ {
		if text[i] == '\\' && text[i+1] == 'u' && (text[i+2]|0x20) == 'd' && strings.IndexByte("89abcdefABCDEF", text[i+3]) >= 0 {
			return true
		}
	}
	return false
}

// checkStructWire checks AppendWire of a struct.proto type against
// protojson and deterministic proto.Marshal: the same verdict (but on
// surrogate escapes, which it may decline) and the same bytes.
func checkStructWire(t testing.TB, p *Plan, md protoreflect.MessageDescriptor, text []byte) {
	t.Helper()
	got, ok := p.AppendWire(nil, text)
	want, err := wantWire(md, text)
	switch {
	case ok && err != nil:
		t.Fatalf("%s: AppendWire accepts %s, protojson refuses it: %v", md.FullName(), short(text), err)
	case !ok && err == nil && !surrogate(text):
		t.Fatalf("%s: AppendWire declines %s, which protojson reads", md.FullName(), short(text))
	case ok && !bytes.Equal(got, want):
		t.Fatalf("%s: AppendWire(%s)\n got %s\nwant %s", md.FullName(), short(text), shortHex(got), shortHex(want))
	}
}

// checkStructJSON checks AppendJSON of a struct.proto type against
// proto.Unmarshal and compact protojson.Marshal: the same bytes, and the
// canonical encoding (deterministic proto.Marshal's) of what protojson
// writes is never declined.
func checkStructJSON(t testing.TB, p *Plan, md protoreflect.MessageDescriptor, wire []byte) {
	t.Helper()
	got, ok := p.AppendJSON(nil, wire)
	want, err := compactJSON(md, wire)
	switch {
	case ok && err != nil:
		t.Fatalf("%s: AppendJSON accepts %s, protobuf refuses it: %v", md.FullName(), shortHex(wire), err)
	case ok && !bytes.Equal(got, want):
		t.Fatalf("%s: AppendJSON(%s)\n got %s\nwant %s", md.FullName(), shortHex(wire), short(got), short(want))
	case !ok && err == nil:
		// The encoding of what protojson reads back from its JSON: no
		// unknown fields, one field per Value.
		if canon, _ := wantWire(md, want); bytes.Equal(canon, wire) {
			t.Fatalf("%s: AppendJSON declines the canonical %s", md.FullName(), shortHex(wire))
		}
	}
}

// randJSON writes a random JSON value: nesting, keys out of order and
// repeated, escapes, numbers of every form.
func randJSON(r *rand.Rand, b []byte, depth int) []byte {
	ws := func(b []byte) []byte {
		if r.IntN(8) == 0 {
			return append(b, " \n\t\r"[r.IntN(4)])
		}
		return b
	}
	b = ws(b)
	n := r.IntN(12)
	if depth > 5 {
		n = r.IntN(7)
	}
	switch n {
	case 0:
		b = append(b, "null"...)
	case 1:
		b = append(b, "true"...)
	case 2:
		b = append(b, "false"...)
	case 3, 4:
		b = append(b, numbers[r.IntN(len(numbers))]...)
	case 5, 6:
		b = append(b, stringsJSON[r.IntN(len(stringsJSON))]...)
	case 7, 8, 9:
		b = append(b, '[')
		for i := range r.IntN(4) {
			if i > 0 {
				b = append(b, ',')
			}
			b = randJSON(r, b, depth+1)
		}
		b = append(ws(b), ']')
	default:
		b = append(b, '{')
		for i := range r.IntN(5) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(ws(b), stringsJSON[r.IntN(len(stringsJSON))]...)
			b = append(ws(b), ':')
			b = randJSON(r, b, depth+1)
		}
		b = append(ws(b), '}')
	}
	return ws(b)
}

var numbers = []string{"0", "-0", "1", "-1", "1.5", "1e3", "1E+3", "2.5e-3", "1e400", "-1e400", "1e-400",
	"123456789012345678901234567890", "0.1", "4.9e-324", "1.7976931348623157e308", "01", "1.", ".5", "-", "1e", "0x1"}

var stringsJSON = []string{`""`, `"a"`, `"b"`, `"ab"`, `"a\"b"`, `"\u0061"`, `"\n\t"`, `"é"`, `"\u00e9"`,
	`"\ud83d\ude00"`, `"😀"`, `"NaN"`, `"Infinity"`, `"\/"`, `"\x"`, `"` + "\xff" + `"`, `"` + "\x01" + `"`, `"zz"`, `"A"`}

// structSeeds are inputs of the fuzz targets and of the tests.
var structSeeds = []string{
	`null`, `true`, `false`, `0`, `-0`, `1e400`, `""`, `"x"`, `[]`, `{}`, `[null]`, `[[]]`, `{"a":null}`,
	`{"b":1,"a":2}`, `{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"b":{"d":[],"c":{}},"a":[1,"x",true,null]}`,
	` [ 1 , 2 ] `, `[1,]`, `{"a":1,}`, `{"a"}`, `[1 2]`, `nul`, `tru`, `[`, `{`, `1 1`, `"\ud83d\ude00"`,
	`{"z":0,"y":0,"x":0,"é":0,"e":0}`, `[1.0,1e21,1e-7,123456789.125,-0.0]`,
}

// structWireSeeds are wire inputs of the fuzz target and of the tests:
// canonical encodings and their variations.
func structWireSeeds() [][]byte {
	var out [][]byte
	for _, s := range structSeeds {
		for _, md := range structTypes {
			if w, err := wantWire(md, []byte(s)); err == nil {
				out = append(out, w)
			}
		}
	}
	return append(out,
		[]byte{}, []byte{0x08, 0x00}, []byte{0x08, 0x05}, []byte{0x20, 0x02}, []byte{0x20, 0x80, 0x01},
		[]byte{0x11, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f}, []byte{0x11, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f},
		[]byte{0x1a, 0x01, 0xff}, []byte{0x08, 0x00, 0x20, 0x01}, []byte{0x08, 0x00, 0x08, 0x00},
		[]byte{0x0a, 0x00}, []byte{0x0a, 0x02, 0x08, 0x00}, []byte{0x0a, 0x04, 0x0a, 0x00, 0x12, 0x00},
		[]byte{0x0a, 0x05, 0x12, 0x02, 0x08, 0x00, 0x0a, 0x00}, []byte{0x0a, 0x06, 0x0a, 0x00, 0x12, 0x02, 0x08, 0x00},
		[]byte{0x0a, 0x07, 0x0a, 0x01, 0xff, 0x12, 0x02, 0x08, 0x00}, []byte{0x2a, 0x00}, []byte{0x32, 0x00},
		[]byte{0x32, 0x02, 0x0a, 0x00}, []byte{0x2a, 0x02, 0x0a, 0x00}, []byte{0x38, 0x01}, []byte{0x0a, 0x02, 0x08})
}

// TestStructJSONAgrees checks AppendWire of Struct, Value and ListValue
// against protojson on the seeds and on random JSON.
func TestStructJSONAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i, md := range structTypes {
		p := Compile(md, Options{})
		for _, s := range structSeeds {
			checkStructWire(t, p, md, []byte(s))
		}
		for range 3000 {
			checkStructWire(t, p, md, randJSON(r, nil, 0))
		}
		_ = i
	}
}

// TestStructWireAgrees checks AppendJSON of Struct, Value and ListValue
// against proto.Unmarshal and protojson on the seeds and on the encodings
// of random JSON, and on each of their bytes changed.
func TestStructWireAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	wires := structWireSeeds()
	for range 2000 {
		for _, md := range structTypes {
			if w, err := wantWire(md, randJSON(r, nil, 0)); err == nil {
				wires = append(wires, w)
			}
		}
	}
	plans := make([]*Plan, len(structTypes))
	for i, md := range structTypes {
		plans[i] = Compile(md, Options{})
	}
	for _, w := range wires {
		for i, md := range structTypes {
			checkStructJSON(t, plans[i], md, w)
			if len(w) > 0 {
				v := bytes.Clone(w)
				v[r.IntN(len(v))] ^= byte(1 << r.IntN(8))
				checkStructJSON(t, plans[i], md, v)
			}
		}
	}
}

// TestStructFields checks a message's Struct, Value and ListValue fields
// in both directions, JSON null of a Value field included.
func TestStructFields(t *testing.T) {
	for _, md := range append(testTypes(t), structFields(t)) {
		fields := md.Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			if fd.Message() == nil || structKindOf(fd.Message()) == skNone || fd.IsMap() {
				continue
			}
			p := Compile(md, Options{})
			for _, s := range structSeeds {
				if fd.IsList() {
					s = "[" + s + "," + s + "]"
				}
				text := []byte(`{"` + fd.JSONName() + `":` + s + `}`)
				if !p.Supported() {
					continue
				}
				checkWire(t, p, md, text)
				if w, err := wantWire(md, text); err == nil {
					checkJSON(t, p, md, w)
				}
			}
		}
	}
}

// nested returns a JSON value of n arrays (or objects), one inside the
// other, and the wire bytes of the Value that holds them. A level's bytes
// are its header (tags and lengths) and then the level inside it, so the
// wire bytes are the headers from the outermost in, then the innermost
// Value: each is computed once, from the size of what it holds.
func nested(n int, object bool) (text, wire []byte) {
	open, close := "[", "]"
	if object {
		open, close = `{"a":`, "}"
	}
	text = []byte(strings.Repeat(open, n) + "null" + strings.Repeat(close, n))
	inner := []byte{0x08, 0x00} // null_value
	heads := make([][]byte, n)  // innermost first
	size := len(inner)          // the bytes of the level inside
	for i := range heads {
		var h []byte
		if object {
			// A Struct of one entry, "a", whose value is the level inside.
			entry := 4 + protowire.SizeVarint(uint64(size)) + size
			fields := 1 + protowire.SizeVarint(uint64(entry)) + entry
			h = protowire.AppendVarint([]byte{tagStruct}, uint64(fields))
			h = protowire.AppendVarint(append(h, 0x0a), uint64(entry))
			h = protowire.AppendVarint(append(h, 0x0a, 0x01, 'a', 0x12), uint64(size))
		} else {
			// A ListValue of one value, the level inside.
			values := 1 + protowire.SizeVarint(uint64(size)) + size
			h = protowire.AppendVarint([]byte{tagList}, uint64(values))
			h = protowire.AppendVarint(append(h, 0x0a), uint64(size))
		}
		heads[i] = h
		size += len(h)
	}
	wire = make([]byte, 0, size)
	for i := n - 1; i >= 0; i-- {
		wire = append(wire, heads[i]...)
	}
	return text, append(wire, inner...)
}

// TestStructRecursionLimit checks the nesting at protojson's and
// proto.Unmarshal's recursion limits, in both directions, at the root
// and in a field.
func TestStructRecursionLimit(t *testing.T) {
	md := structTypes[0]
	p := Compile(md, Options{})
	for _, object := range []bool{false, true} {
		// protojson: a Value a level; proto.Unmarshal: a Value and a
		// ListValue (a Value, a Struct and an entry) a level.
		perLevel := 2
		if object {
			perLevel = 3
		}
		for _, n := range []int{10000 - 2, 10000 - 1, 10000, 10000 + 1} {
			text, _ := nested(n, object)
			checkStructWire(t, p, md, text)
		}
		for _, n := range []int{10000/perLevel - 2, 10000/perLevel - 1, 10000 / perLevel, 10000/perLevel + 1} {
			_, wire := nested(n, object)
			checkStructJSON(t, p, md, wire)
			if _, ok := p.AppendJSON(nil, wire); ok != (n*perLevel < 10000) {
				t.Fatalf("nesting %d (objects %v): AppendJSON ok %v", n, object, ok)
			}
		}
	}
}

// FuzzStructJSON checks AppendWire of Struct, Value and ListValue against
// protojson on any input.
func FuzzStructJSON(f *testing.F) {
	for _, s := range structSeeds {
		f.Add(uint8(0), []byte(s))
	}
	plans := make([]*Plan, len(structTypes))
	for i, md := range structTypes {
		plans[i] = Compile(md, Options{})
	}
	f.Fuzz(func(t *testing.T, typ uint8, text []byte) {
		i := int(typ) % len(structTypes)
		checkStructWire(t, plans[i], structTypes[i], text)
	})
}

// FuzzStructWire checks AppendJSON of Struct, Value and ListValue against
// proto.Unmarshal and protojson on any input.
func FuzzStructWire(f *testing.F) {
	for i, w := range structWireSeeds() {
		f.Add(uint8(i), w)
	}
	plans := make([]*Plan, len(structTypes))
	for i, md := range structTypes {
		plans[i] = Compile(md, Options{})
	}
	f.Fuzz(func(t *testing.T, typ uint8, wire []byte) {
		i := int(typ) % len(structTypes)
		checkStructJSON(t, plans[i], structTypes[i], wire)
	})
}

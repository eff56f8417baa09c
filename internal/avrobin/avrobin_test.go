package avrobin

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
)

// wantErr checks that err is an *Error of class at offset off whose message
// holds msg.
func wantErr(t *testing.T, what string, err, class error, off int, msg string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, class) || e.Offset != off || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: %v, want an *Error of class %v at byte %d with %q", what, err, class, off, msg)
	}
}

func TestLong(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, -64, 64, -65, 1 << 31, -1 << 31, math.MaxInt64, math.MinInt64} {
		data := binary.AppendVarint(nil, v) // Avro's zig-zag varint
		data = append(data, 0xff)           // a byte after it, not read
		r := Reader{Buf: data}
		got, err := r.Long()
		if err != nil || got != v || r.Pos != len(data)-1 {
			t.Errorf("Long of %x: %d at %d, %v; want %d at %d", data, got, r.Pos, err, v, len(data)-1)
		}
		got, n, err := ReadLong(bufio.NewReader(bytes.NewReader(data)))
		if err != nil || got != v || n != len(data)-1 {
			t.Errorf("ReadLong of %x: %d, %d bytes, %v; want %d, %d bytes", data, got, n, err, v, len(data)-1)
		}
	}
}

func TestLongErrors(t *testing.T) {
	ten := func(last byte) []byte { return append(bytes.Repeat([]byte{0xff}, 9), last) }
	for _, c := range []struct {
		name   string
		data   []byte
		class  error
		msg    string
		stream error // ReadLong's error
	}{
		{"empty", nil, ErrTruncated, "varint", io.EOF},
		{"ends inside", []byte{0x80, 0x80}, ErrTruncated, "varint", io.ErrUnexpectedEOF},
		{"tenth byte 2", ten(0x02), ErrMalformed, "overflows 64 bits", ErrMalformed},
		{"tenth byte 0x7f", ten(0x7f), ErrMalformed, "overflows 64 bits", ErrMalformed},
		{"eleven bytes", append(ten(0x81), 0x00), ErrMalformed, "longer than 10 bytes", ErrMalformed},
		{"nine bytes then the end", bytes.Repeat([]byte{0x80}, 9), ErrTruncated, "varint", io.ErrUnexpectedEOF},
	} {
		r := Reader{Buf: append([]byte{0}, c.data...), Pos: 1}
		_, err := r.Long()
		wantErr(t, c.name, err, c.class, 1, c.msg)
		if r.Pos != 1 {
			t.Errorf("%s: Pos %d after the error, want 1", c.name, r.Pos)
		}
		if _, _, err := ReadLong(bytes.NewReader(c.data)); !errors.Is(err, c.stream) {
			t.Errorf("ReadLong %s: %v, want %v", c.name, err, c.stream)
		}
	}
	// The largest ten-byte varints are within 64 bits.
	for _, last := range []byte{0x00, 0x01} {
		r := Reader{Buf: ten(last)}
		if _, err := r.Long(); err != nil {
			t.Errorf("tenth byte %#x: %v", last, err)
		}
	}
}

func TestInt(t *testing.T) {
	for _, v := range []int64{0, math.MaxInt32, math.MinInt32} {
		r := Reader{Buf: binary.AppendVarint(nil, v)}
		if got, err := r.Int(); err != nil || int64(got) != v {
			t.Errorf("Int %d: %d, %v", v, got, err)
		}
	}
	for _, v := range []int64{math.MaxInt32 + 1, math.MinInt32 - 1, math.MaxInt64} {
		r := Reader{Buf: append([]byte{9}, binary.AppendVarint(nil, v)...), Pos: 1}
		_, err := r.Int()
		wantErr(t, "Int", err, ErrMalformed, 1, "out of 32-bit range")
	}
}

func TestFixedWidth(t *testing.T) {
	r := Reader{Buf: []byte{0, 0, 0xc0, 0x3f, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 1, 0, 7}}
	f, err := r.Float()
	if err != nil || f != 1.5 {
		t.Errorf("Float: %v, %v", f, err)
	}
	d, err := r.Double()
	if err != nil || d != 1.5 {
		t.Errorf("Double: %v, %v", d, err)
	}
	for _, want := range []bool{true, false} {
		if b, err := r.Boolean(); err != nil || b != want {
			t.Errorf("Boolean: %v, %v; want %v", b, err, want)
		}
	}
	_, err = r.Boolean()
	wantErr(t, "Boolean 7", err, ErrMalformed, 14, "boolean byte 0x7")
	for _, c := range []struct {
		name string
		read func(*Reader) error
	}{
		{"Float", func(r *Reader) error { _, err := r.Float(); return err }},
		{"Double", func(r *Reader) error { _, err := r.Double(); return err }},
		{"Boolean", func(r *Reader) error { _, err := r.Boolean(); return err }},
		{"Fixed(4)", func(r *Reader) error { _, err := r.Fixed(4); return err }},
	} {
		r := Reader{Buf: []byte{1, 2, 3}, Pos: 3}
		wantErr(t, c.name+" at the end", c.read(&r), ErrTruncated, 3, "bytes left")
	}
	r = Reader{Buf: []byte{1, 2, 3}}
	if b, err := r.Fixed(0); err != nil || len(b) != 0 || r.Pos != 0 {
		t.Errorf("Fixed(0): %x, %v, Pos %d", b, err, r.Pos)
	}
}

func TestBytes(t *testing.T) {
	r := Reader{Buf: []byte{0x06, 'a', 'b', 'c', 0x00}}
	if b, err := r.Bytes(); err != nil || string(b) != "abc" || r.Pos != 4 {
		t.Errorf("Bytes: %q, %v, Pos %d", b, err, r.Pos)
	}
	if b, err := r.Bytes(); err != nil || len(b) != 0 || r.Pos != 5 {
		t.Errorf("empty Bytes: %q, %v, Pos %d", b, err, r.Pos)
	}
	for _, c := range []struct {
		name  string
		data  []byte
		class error
		msg   string
	}{
		{"negative length", []byte{0x01}, ErrMalformed, "negative length -1"},
		{"length beyond the bytes left", []byte{0x08, 'a', 'b', 'c'}, ErrTruncated, "length 4 exceeds the 3 bytes left"},
		{"length 2^62", binary.AppendVarint(nil, 1<<62), ErrTruncated, "exceeds the 0 bytes left"},
		{"no length", nil, ErrTruncated, "varint"},
	} {
		r := Reader{Buf: append([]byte{0xaa}, c.data...), Pos: 1}
		_, err := r.Bytes()
		wantErr(t, c.name, err, c.class, 1, c.msg)
	}
}

func TestIndex(t *testing.T) {
	r := Reader{Buf: []byte{0x02}}
	if i, err := r.Index(2, UnionIndexFormat); err != nil || i != 1 {
		t.Errorf("Index: %d, %v", i, err)
	}
	for _, data := range [][]byte{{0x04}, {0x01}, binary.AppendVarint(nil, math.MaxInt64)} {
		r := Reader{Buf: data}
		_, err := r.Index(2, UnionIndexFormat)
		wantErr(t, "Index", err, ErrMalformed, 0, "out of range (2 branches)")
	}
}

// block builds an array or map block header.
func block(count int64, size ...int64) []byte {
	b := binary.AppendVarint(nil, count)
	for _, s := range size {
		b = binary.AppendVarint(b, s)
	}
	return b
}

func TestBlockCount(t *testing.T) {
	items := bytes.Repeat([]byte{2}, 10) // ten one-byte items
	for _, c := range []struct {
		name    string
		data    []byte
		minItem int
		count   int64
		pos     int
	}{
		{"end of the items", block(0), 1, 0, 1},
		{"count", append(block(10), items...), 1, 10, 1},
		{"negative count with its size", append(block(-10, 10), items...), 1, 10, 2},
		{"size 0 of zero-size items", block(-3, 0), 0, 3, 2},
		{"items of 8 bytes", append(block(1), make([]byte, 8)...), 8, 1, 1},
	} {
		r := Reader{Buf: c.data}
		n, err := r.BlockCount(c.minItem)
		if err != nil || n != c.count || r.Pos != c.pos {
			t.Errorf("%s: %d at %d, %v; want %d at %d", c.name, n, r.Pos, err, c.count, c.pos)
		}
	}
	for _, c := range []struct {
		name    string
		data    []byte
		minItem int
		class   error
		off     int
		msg     string
	}{
		{"more items than bytes", append(block(11), items...), 1, ErrTruncated, 0, "block of 11 items exceeds the 10 bytes left"},
		{"items of 8 bytes beyond", append(block(2), make([]byte, 15)...), 8, ErrTruncated, 0, "block of 2 items exceeds"},
		{"count 2^40 with its size", append(block(-1<<40, 100), 0), 1, ErrTruncated, 0, "items exceeds the 1 bytes left"},
		{"block size beyond the bytes left", []byte{0x01, 0xc8, 0x01, 0x02, 0x61, 0x00}, 1, ErrTruncated, 1, "block size 100 exceeds the 3 bytes left"},
		{"negative block size", append(block(-1, -1), items...), 1, ErrMalformed, 1, "negative block size -1"},
		{"minimum count", block(math.MinInt64, 0), 1, ErrMalformed, 0, "block count"},
		{"no size", block(-1), 1, ErrTruncated, 1, "varint"},
		{"zero-size items beyond the budget", block(1<<20 + 1), 0, ErrLimit, 0, "zero-size items exceed the limit of 1048576 per datum"},
		{"negative count of zero-size items beyond the budget", block(-(1<<20 + 1), 0), 0, ErrLimit, 0, "exceed the limit"},
	} {
		r := Reader{Buf: c.data}
		_, err := r.BlockCount(c.minItem)
		wantErr(t, c.name, err, c.class, c.off, c.msg)
	}
}

// TestBudget: zero-size items of every block of a reader count against one
// budget, and records that take no bytes count unless an item or the datum
// itself.
func TestBudget(t *testing.T) {
	r := Reader{Buf: append(block(3), block(-2, 0)...), Empty: Budget{Max: 4, Per: "container block"}}
	if n, err := r.BlockCount(0); err != nil || n != 3 {
		t.Fatalf("first block: %d, %v", n, err)
	}
	_, err := r.BlockCount(0)
	wantErr(t, "second block", err, ErrLimit, 1, "2 more zero-size items exceed the limit of 4 per container block")
	if r.Empty.N != 3 {
		t.Errorf("count %d after the refused block, want 3", r.Empty.N)
	}

	b := Budget{Max: 2}
	for _, c := range []struct {
		empty, top, item bool
		n                int64
	}{
		{true, true, false, 0},   // the datum itself
		{false, false, false, 0}, // a record that takes bytes
		{true, false, true, 0},   // an item its block counted
		{true, false, false, 1},
		{true, false, false, 2},
	} {
		b.Item(c.item)
		if err := b.Record(c.empty, c.top, 5); err != nil || b.N != c.n {
			t.Errorf("Record(%v, %v) after Item(%v): count %d, %v; want %d", c.empty, c.top, c.item, b.N, err, c.n)
		}
	}
	wantErr(t, "a third empty record", b.Record(true, false, 5), ErrLimit, 5, "1 more zero-size items exceed the limit of 2 per datum")
}

func TestErrorText(t *testing.T) {
	e := Errorf(ErrTruncated, 7, "length %d", 9)
	for _, seg := range []string{"b", "[2]", "a"} {
		Within(e, seg)
	}
	if got, want := e.Error(), "a[2].b at byte 7: truncated input: length 9"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := (&Error{Offset: -1, Err: ErrLimit}).Error(), "datum: over the limit"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, got := PrefixPath(nil, `["k"].x`, "m"); got != `m["k"].x` {
		t.Errorf("PrefixPath: %q", got)
	}
	if _, got := PrefixPath(nil, "<R>.x", "u"); got != "u<R>.x" {
		t.Errorf("PrefixPath: %q", got)
	}
}

// TestPathBounded: however deep the datum and however long its names, a
// path names the outermost and innermost three elements, each escaped and
// cut, and what it costs to build does not grow with the depth at each
// level.
func TestPathBounded(t *testing.T) {
	long := strings.Repeat("r", 5000)
	e := Errorf(ErrMalformed, 3, "")
	for i := range 2000 {
		Within(e, "[\x1b"+strconv.Itoa(i)+"]")
		Within(e, long)
	}
	if len(e.Path) > 2000 || strings.ContainsRune(e.Path, 0x1b) {
		t.Fatalf("a path of %d bytes: %.300q", len(e.Path), e.Path)
	}
	r := strings.Repeat("r", 200) + "… (5000 bytes)"
	want := r + `[\x1b1999].` + r + `.(3994 more)[\x1b1].` + r + `[\x1b0]`
	if e.Path != want {
		t.Errorf("path\n got %q\nwant %q", e.Path, want)
	}
	if _, p := PrefixPath(nil, "", "a"); p != "a" {
		t.Errorf("one element: %q", p)
	}
	elems, p := PrefixPath(nil, "x", "")
	if _, p = PrefixPath(elems, p, "y"); p != "y..x" {
		t.Errorf("an empty element: %q", p)
	}
}

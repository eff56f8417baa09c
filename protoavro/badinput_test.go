package protoavro

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testutil"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// avroBuf builds Avro binary by hand, so a test knows the offset of every
// value it writes.
type avroBuf struct{ b []byte }

func (a *avroBuf) long(v int64) *avroBuf          { a.b = appendLong(a.b, v); return a }
func (a *avroBuf) null() *avroBuf                 { return a.long(0) } // union branch 0
func (a *avroBuf) some() *avroBuf                 { return a.long(1) } // union branch 1
func (a *avroBuf) str(s string) *avroBuf          { a.b = appendAvroBytes(a.b, []byte(s)); return a }
func (a *avroBuf) raw(b ...byte) *avroBuf         { a.b = append(a.b, b...); return a }
func (a *avroBuf) nulls(n int) *avroBuf           { return a.raw(make([]byte, n)...) }
func (a *avroBuf) pos() int                       { return len(a.b) }
func (a *avroBuf) bytes() []byte                  { return a.b }
func (a *avroBuf) then(f func(*avroBuf)) *avroBuf { f(a); return a }

// The default-profile record of avro2147.Foo, in field order:
//
//	0 int32 (int), 1-14 int64 … bytes (["null", T]), 15 enum (["null", A]),
//	16 intArray, 17 fooArray, 18 syms (arrays), 19 foo (["null", Foo]),
//	20 bar (["null", MessageWithLargeEnum {enum: ["null", LargeEnum]}]).
//
// fooHead writes fields 0-12 of a Foo with every nullable field null.
func fooHead(a *avroBuf) { a.long(7).nulls(12) }

// fooTail writes fields 15-20 of a Foo: null, empty arrays, null, null.
func fooTail(a *avroBuf) { a.null().long(0).long(0).long(0).null().null() }

// minimalFoo is Foo{int32: 7} (21 bytes).
func minimalFoo() []byte {
	return new(avroBuf).then(fooHead).null().null().then(fooTail).bytes()
}

// wantDataError checks that err is a *DataError of class, at path and
// offset, and returns it.
func wantDataError(t *testing.T, err error, class error, path string, offset int) *DataError {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v at %s byte %d", class, path, offset)
	}
	if !errors.Is(err, class) {
		t.Errorf("error %v: not of class %v", err, class)
	}
	var de *DataError
	if !errors.As(err, &de) {
		t.Fatalf("error %v: not a *DataError", err)
	}
	if de.Path != path {
		t.Errorf("error %v: path %q, want %q", err, shorten(de.Path), shorten(path))
	}
	if de.Offset != offset {
		t.Errorf("error %v: offset %d, want %d", shorten(err.Error()), de.Offset, offset)
	}
	return de
}

func shorten(s string) string {
	if len(s) > 200 {
		return s[:90] + fmt.Sprintf("…(%d bytes)…", len(s)-180) + s[len(s)-90:]
	}
	return s
}

// decodeBoth runs Unmarshal and TranscodeToProto on data and checks that
// they fail the same way; it returns the Unmarshal error.
func decodeBoth(t *testing.T, c *Codec, data []byte) error {
	t.Helper()
	err := c.Unmarshal(data, &avro2147pb.Foo{})
	if _, err2 := c.TranscodeToProto(nil, data); fmt.Sprint(err) != fmt.Sprint(err2) {
		t.Errorf("Unmarshal: %v\nTranscodeToProto: %v", err, err2)
	}
	return err
}

func TestBadAvroInput(t *testing.T) {
	c := mustCodec(t, Options{}, &avro2147pb.Foo{})
	if err := c.Unmarshal(minimalFoo(), &avro2147pb.Foo{}); err != nil {
		t.Fatalf("minimal Foo: %v", err)
	}
	type tc struct {
		name   string
		data   []byte
		class  error
		path   string
		offset int
	}
	var cases []tc
	add := func(name string, class error, path string, build func(a *avroBuf) int) {
		a := new(avroBuf)
		off := build(a)
		cases = append(cases, tc{name, a.bytes(), class, path, off})
	}
	add("negative length", ErrMalformed, "Foo.string", func(a *avroBuf) int {
		fooHead(a)
		a.some()
		off := a.pos()
		a.long(-1)
		return off
	})
	add("huge length", ErrTruncated, "Foo.string", func(a *avroBuf) int {
		fooHead(a)
		a.some()
		off := a.pos()
		a.long(1 << 40).raw([]byte("abc")...)
		return off
	})
	add("huge bytes length", ErrTruncated, "Foo.bytes", func(a *avroBuf) int {
		fooHead(a)
		a.null().some()
		off := a.pos()
		a.long(1<<62 - 1)
		return off
	})
	add("huge array block count", ErrTruncated, "Foo.intArray", func(a *avroBuf) int {
		fooHead(a)
		a.nulls(3)
		off := a.pos()
		a.long(1 << 40).long(1).long(2)
		return off
	})
	add("huge negative block count", ErrTruncated, "Foo.syms", func(a *avroBuf) int {
		fooHead(a)
		a.nulls(3).long(0).long(0)
		off := a.pos()
		a.long(-(1 << 40)).long(100).long(0)
		return off
	})
	add("minimum block count", ErrMalformed, "Foo.intArray", func(a *avroBuf) int {
		fooHead(a)
		a.nulls(3)
		off := a.pos()
		a.raw(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01).long(0)
		return off
	})
	add("bad union index", ErrMalformed, "Foo.string", func(a *avroBuf) int {
		fooHead(a)
		off := a.pos()
		a.long(5).str("x")
		return off
	})
	add("negative union index", ErrMalformed, "Foo.int64", func(a *avroBuf) int {
		a.long(7)
		off := a.pos()
		a.long(-1)
		return off
	})
	add("bad enum index", ErrMalformed, "Foo.enum", func(a *avroBuf) int {
		fooHead(a)
		a.null().null().some()
		off := a.pos()
		a.long(3)
		return off
	})
	add("bad enum index in a nested record", ErrMalformed, "Foo.bar.enum", func(a *avroBuf) int {
		fooHead(a)
		a.null().null().null().long(0).long(0).long(0).null().some().some()
		off := a.pos()
		a.long(676) // LargeEnum has 676 symbols
		return off
	})
	add("invalid UTF-8", ErrMalformed, "Foo.string", func(a *avroBuf) int {
		fooHead(a)
		a.some()
		off := a.pos()
		a.str("ok\xffno").null().then(fooTail)
		return off
	})
	add("invalid UTF-8 in an array element", ErrMalformed, "Foo.fooArray[1].string", func(a *avroBuf) int {
		fooHead(a)
		a.null().null().null().long(0).long(2)
		a.then(fooHead).null().null().then(fooTail) // element 0
		a.then(fooHead).some()
		off := a.pos()
		a.str("\xc3(")
		return off
	})
	add("element of a second block", ErrMalformed, "Foo.intArray[3]", func(a *avroBuf) int {
		fooHead(a)
		a.nulls(3).long(2).long(1).long(2) // a block of two items
		a.long(-2).long(6).long(3)         // a block of two items with its size
		off := a.pos()
		a.long(1 << 40)
		return off
	})
	add("int out of range", ErrMalformed, "Foo.int32", func(a *avroBuf) int {
		a.long(1 << 40)
		return 0
	})
	add("int out of range in an element", ErrMalformed, "Foo.intArray[0]", func(a *avroBuf) int {
		fooHead(a)
		a.nulls(3).long(1)
		off := a.pos()
		a.long(-1 << 35)
		return off
	})
	add("varint too long", ErrMalformed, "Foo.int64", func(a *avroBuf) int {
		a.long(7).some()
		off := a.pos()
		a.raw(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01)
		return off
	})
	add("bad boolean", ErrMalformed, "Foo.bool", func(a *avroBuf) int {
		a.long(7).nulls(11).some()
		off := a.pos()
		a.raw(2)
		return off
	})
	add("truncated double", ErrTruncated, "Foo.double", func(a *avroBuf) int {
		a.long(7).nulls(10).some()
		off := a.pos()
		a.raw(1, 2, 3)
		return off
	})
	add("trailing bytes", ErrMalformed, "Foo", func(a *avroBuf) int {
		a.raw(minimalFoo()...)
		off := a.pos()
		a.raw(0)
		return off
	})
	add("empty input", ErrTruncated, "Foo.int32", func(a *avroBuf) int { return 0 })

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := decodeBoth(t, c, tc.data)
			wantDataError(t, err, tc.class, tc.path, tc.offset)
		})
	}
}

// TestBadAvroInputNoBigAllocation checks that lengths and counts read from
// the input never size an allocation.
func TestBadAvroInputNoBigAllocation(t *testing.T) {
	c := mustCodec(t, Options{}, &avro2147pb.Foo{})
	inputs := map[string][]byte{
		"string length 1<<40": new(avroBuf).then(fooHead).some().long(1 << 40).bytes(),
		"bytes length 1<<62":  new(avroBuf).then(fooHead).null().some().long(1 << 62).bytes(),
		"block count 1<<40":   new(avroBuf).then(fooHead).nulls(3).long(1 << 40).bytes(),
		"block count -1<<40":  new(avroBuf).then(fooHead).nulls(3).long(-1 << 40).long(1 << 40).bytes(),
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			m := &avro2147pb.Foo{}
			if err := c.Unmarshal(data, m); err == nil {
				t.Fatal("no error")
			}
			const runs = 100
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for range runs {
				_ = c.Unmarshal(data, m)
				_, _ = c.TranscodeToProto(nil, data)
			}
			runtime.ReadMemStats(&after)
			if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 64<<10 {
				t.Errorf("%d bytes allocated per call, want < 64 KiB", per)
			}
		})
	}
}

// TestTruncatedAvro cuts valid datums at every length: every prefix must
// fail with ErrTruncated, at an offset inside the prefix.
func TestTruncatedAvro(t *testing.T) {
	type datum struct {
		name string
		c    *Codec
		data []byte
	}
	var datums []datum
	for _, o := range []Options{{}, {Profile: JavaProfile}} {
		c := mustCodec(t, o, &avro2147pb.Foo{})
		b, err := c.Marshal(sampleFoo())
		if err != nil {
			t.Fatal(err)
		}
		datums = append(datums, datum{"sampleFoo/" + o.Profile.String(), c, b})
		kc := mustCodec(t, o, &kitchenpb.KitchenSink{})
		for i, m := range sampleMessages(&kitchenpb.KitchenSink{}, 2) {
			b, err := kc.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			datums = append(datums, datum{fmt.Sprintf("kitchen%d/%s", i, o.Profile), kc, b})
		}
	}
	for _, d := range readJavaDatums(t) {
		datums = append(datums, datum{"java/" + d.Name, mustCodec(t, Options{Profile: JavaProfile}, &avro2147pb.Foo{}), d.Avro})
	}
	for _, d := range datums {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			m := d.c.Schema().Descriptor()
			msg := newMessageOf(m)
			if err := d.c.Unmarshal(d.data, msg); err != nil {
				t.Fatalf("full datum: %v", err)
			}
			for n := range len(d.data) {
				err := d.c.Unmarshal(d.data[:n:n], msg)
				if !errors.Is(err, ErrTruncated) {
					t.Fatalf("prefix of %d of %d bytes: %v, want ErrTruncated", n, len(d.data), err)
				}
				var de *DataError
				if !errors.As(err, &de) || de.Offset > n || !strings.HasPrefix(de.Path, string(m.Name())) {
					t.Fatalf("prefix of %d bytes: %#v", n, de)
				}
				if _, err := d.c.TranscodeToProto(nil, d.data[:n:n]); !errors.Is(err, ErrTruncated) {
					t.Fatalf("TranscodeToProto of a prefix of %d bytes: %v", n, err)
				}
			}
		})
	}
}

// newMessageOf returns a new generated message of the descriptor's type.
func newMessageOf(md protoreflect.MessageDescriptor) proto.Message {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil {
		panic(err)
	}
	return mt.New().Interface()
}

// deepAvroFoo is the Avro of a Foo nested n deep through its foo field.
func deepAvroFoo(n int) []byte {
	a := new(avroBuf)
	for range n {
		a.then(fooHead).null().null().null().long(0).long(0).long(0).some()
	}
	a.then(fooHead).null().null().then(fooTail)
	for range n {
		a.null() // bar
	}
	return a.bytes()
}

// deepPath is the path of a Foo inside maxDepth others through foo: the
// outermost and innermost three of its maxDepth+2 elements.
var deepPath = "Foo.foo.foo.(" + strconv.Itoa(maxDepth-4) + " more).foo.foo.foo"

func TestAvroTooDeep(t *testing.T) {
	c := mustCodec(t, Options{}, &avro2147pb.Foo{})
	if err := c.Unmarshal(deepAvroFoo(maxDepth), &avro2147pb.Foo{}); err != nil {
		t.Fatalf("%d levels: %v", maxDepth, err)
	}
	// Each level takes 20 bytes before its foo record; the record at depth
	// maxDepth+1 starts at byte 20*(maxDepth+1).
	err := decodeBoth(t, c, deepAvroFoo(2000))
	wantDataError(t, err, ErrTooDeep, deepPath, 20*(maxDepth+1))
}

func TestBadWireInput(t *testing.T) {
	foo := mustCodec(t, Options{}, &avro2147pb.Foo{})
	kitchen := mustCodec(t, Options{}, &kitchenpb.KitchenSink{})
	tag := protowire.AppendTag
	type tc struct {
		name   string
		c      *Codec
		wire   []byte
		class  error
		path   string
		offset int
	}
	int32Field := tag(nil, 1, protowire.VarintType)
	int32Field = protowire.AppendVarint(int32Field, 7)
	elem1 := testutil.Wire(t, &avro2147pb.Foo{Int32: proto.Int32(1)})
	elem2 := tag(append([]byte(nil), int32Field...), 14, protowire.BytesType)
	elem2 = protowire.AppendBytes(elem2, []byte("a\xffb"))
	fooArray := tag(append([]byte(nil), int32Field...), 20, protowire.BytesType)
	fooArray = protowire.AppendBytes(fooArray, elem1)
	fooArray = tag(fooArray, 20, protowire.BytesType)
	elem2Off := len(fooArray) + 1 // after the element's length prefix
	fooArray = protowire.AppendBytes(fooArray, elem2)
	stringOff := elem2Off + len(int32Field) + 2 // the string's tag and length

	bar := tag(append([]byte(nil), int32Field...), 21, protowire.BytesType)
	bar = append(bar, 2) // length of the MessageWithLargeEnum
	barEnumOff := len(bar) + 1
	bar = append(bar, 0x08, 0) // enum = 0: LargeEnum starts at 1

	// A well-known message whose second field's varint does not end: the
	// error is at that varint, 2 bytes into the message, after the field's
	// tag and length.
	wellKnown := mustCodec(t, Options{}, &kitchenpb.WellKnown{})
	badVarint := []byte{0x08, 0x01, 0x10, 0xff}
	wellKnownWire := func(num protowire.Number) []byte {
		return protowire.AppendBytes(tag(nil, num, protowire.BytesType), badVarint)
	}

	cases := []tc{
		{"truncated varint in a Timestamp", wellKnown, wellKnownWire(1), ErrTruncated, "WellKnown.timestamp", 2 + 3},
		{"truncated varint in a wrapper", wellKnown, wellKnownWire(7), ErrTruncated, "WellKnown.int32_wrapper", 2 + 3},
		{"invalid UTF-8 in an element", foo, fooArray, ErrMalformed, "Foo.fooArray[1].string", stringOff},
		{"unknown closed enum number in a nested message", foo, bar, ErrUnknownEnum, "Foo.bar.enum", barEnumOff},
		{"missing required field", foo, nil, ErrMissingRequired, "Foo.int32", 0},
		{"missing required field in an element", foo, protowire.AppendBytes(tag(append([]byte(nil), int32Field...), 20, protowire.BytesType), nil), ErrMissingRequired, "Foo.fooArray[0].int32", 5},
		{"huge length", foo, protowire.AppendVarint(tag(append([]byte(nil), int32Field...), 14, protowire.BytesType), 1<<40), ErrTruncated, "Foo.#14", 3},
		{"field number above the maximum", foo, protowire.AppendVarint(append([]byte(nil), int32Field...), uint64(protowire.MaxValidNumber+1)<<3), ErrMalformed, "Foo", 2},
		{"bad varint", foo, []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, ErrMalformed, "Foo.#1", 1},
		{"truncated tag", foo, append(append([]byte(nil), int32Field...), 0x80), ErrTruncated, "Foo", 2},
		{"end group without start", foo, append(append([]byte(nil), int32Field...), 0x0c), ErrMalformed, "Foo.#1", 3},
		{"invalid UTF-8 in a proto3 string", kitchen, protowire.AppendBytes(tag(nil, 1, protowire.BytesType), []byte{'x', 0xff}), ErrMalformed, "KitchenSink.id", 2},
		{"unknown enum number", kitchen, protowire.AppendVarint(tag(nil, 12, protowire.VarintType), 77), ErrUnknownEnum, "KitchenSink.color", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.c.TranscodeToAvro(nil, tc.wire)
			de := wantDataError(t, err, tc.class, tc.path, tc.offset)
			if tc.class == ErrUnknownEnum && !strings.Contains(de.Error(), "77") && tc.c == kitchen {
				t.Errorf("error %v does not name the number 77", err)
			}
		})
	}
}

func TestUnknownEnumNamesFieldAndNumber(t *testing.T) {
	c := mustCodec(t, Options{}, &kitchenpb.KitchenSink{})
	m := &kitchenpb.KitchenSink{Scalars: &kitchenpb.Scalars{EnumField: 77}}
	// Marshal's input is a message, not bytes: the error names the field,
	// and no offset, on the struct path and on the dynamic one alike.
	wire := testutil.Wire(t, m)
	dyn := dynamicpb.NewMessage(m.ProtoReflect().Descriptor())
	if err := proto.Unmarshal(wire, dyn); err != nil {
		t.Fatal(err)
	}
	for _, in := range []proto.Message{m, dyn} {
		_, err := c.Marshal(in)
		de := wantDataError(t, err, ErrUnknownEnum, "KitchenSink.scalars.enum_field", -1)
		if !strings.Contains(de.Error(), "77") || !strings.Contains(de.Error(), "protoavro.test.kitchen.Color") {
			t.Errorf("error %q does not name the number and the enum", de)
		}
		if want := "protoavro: KitchenSink.scalars.enum_field: unknown enum number"; !strings.HasPrefix(de.Error(), want) {
			t.Errorf("error %q, want it to start %q", de, want)
		}
	}
	_, err := c.TranscodeToAvro(nil, wire)
	wantDataError(t, err, ErrUnknownEnum, "KitchenSink.scalars.enum_field", 4)
	// The UnknownEnumDefault policy writes the zero value instead.
	c2 := mustCodec(t, Options{UnknownEnums: UnknownEnumDefault}, &kitchenpb.KitchenSink{})
	got, err := codecRoundTrip(c2, m)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, &kitchenpb.KitchenSink{Scalars: &kitchenpb.Scalars{}}) {
		t.Errorf("got %v", got)
	}
}

// TestTruncatedWire cuts the protobuf encoding of a Foo at every length.
// A cut between top-level fields leaves a valid message (or one without its
// required int32); any other cut is ErrTruncated.
func TestTruncatedWire(t *testing.T) {
	wire := testutil.Wire(t, sampleFoo())
	boundaries := map[int]bool{0: true}
	for b := wire; len(b) > 0; {
		_, _, n := protowire.ConsumeField(b)
		if n < 0 {
			t.Fatal("bad wire")
		}
		b = b[n:]
		boundaries[len(wire)-len(b)] = true
	}
	for _, o := range []Options{{}, {Profile: JavaProfile}} {
		c := mustCodec(t, o, &avro2147pb.Foo{})
		for n := range len(wire) + 1 {
			_, err := c.TranscodeToAvro(nil, wire[:n:n])
			switch {
			case boundaries[n] && n == 0:
				wantDataError(t, err, ErrMissingRequired, "Foo.int32", 0)
			case boundaries[n]:
				if err != nil {
					t.Errorf("%v: cut at field boundary %d: %v", o.Profile, n, err)
				}
			default:
				var de *DataError
				if !errors.Is(err, ErrTruncated) || !errors.As(err, &de) || de.Offset > n {
					t.Errorf("%v: cut at %d of %d: %v, want ErrTruncated", o.Profile, n, len(wire), err)
				}
			}
		}
	}
}

// TestWireTooDeep: the writers (the transcoder and the direct writer of
// generated messages) write a message inside maxDepth others, which the
// readers read (TestAvroTooDeep), and refuse one inside maxDepth+1.
func TestWireTooDeep(t *testing.T) {
	c := mustCodec(t, Options{}, &avro2147pb.Foo{})
	deep := func(n int) []byte {
		m := &avro2147pb.Foo{Int32: proto.Int32(1)}
		for range n {
			m = &avro2147pb.Foo{Int32: proto.Int32(1), Foo: m}
		}
		return testutil.Wire(t, m)
	}
	if _, err := c.TranscodeToAvro(nil, deep(maxDepth)); err != nil {
		t.Fatalf("%d levels: %v", maxDepth, err)
	}
	deepest := &avro2147pb.Foo{}
	if err := proto.Unmarshal(deep(maxDepth), deepest); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Marshal(deepest); err != nil {
		t.Fatalf("Marshal, %d levels: %v", maxDepth, err)
	}
	wire := deep(2000)
	// Find the start of the message inside maxDepth+1 others: each level
	// is int32 (2 bytes), then the tag and length of foo.
	off := 0
	for range maxDepth + 1 {
		b := wire[off+2:]
		_, _, n := protowire.ConsumeTag(b)
		_, m := protowire.ConsumeVarint(b[n:])
		off += 2 + n + m
	}
	_, err := c.TranscodeToAvro(nil, wire)
	wantDataError(t, err, ErrTooDeep, deepPath, off)
	// The direct writer of generated messages has the same limit.
	m := &avro2147pb.Foo{}
	if err := proto.Unmarshal(wire, m); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Marshal(m); !errors.Is(err, ErrTooDeep) {
		t.Errorf("Marshal: %v, want ErrTooDeep", err)
	}
}

// TestCarriedTooDeep: a value carried whole (a Value as JSON, or a message
// below the recursion bound as bytes or JSON) nested deeper than
// protobuf-go's parsers take (10,000 messages) is ErrTooDeep, as nesting
// past the plan's own limit is, from TranscodeToAvro and from Marshal.
func TestCarriedTooDeep(t *testing.T) {
	v := structpb.NewNullValue()
	for range 5100 { // two messages a level: Value, ListValue
		v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
	}
	m := &kitchenpb.WellKnown{Value: v}
	wire, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(wire, &kitchenpb.WellKnown{}); err == nil {
		t.Fatal("test premise: proto.Unmarshal takes 10,200 levels")
	}
	for _, o := range []Options{{DynamicAsJSON: true}, {RecursionDepth: 1}, {RecursionDepth: 1, RecursionCarrier: CarrierJSON}} {
		c := mustCodec(t, o, m)
		if _, err := c.TranscodeToAvro(nil, wire); !errors.Is(err, ErrTooDeep) {
			t.Errorf("%v: TranscodeToAvro: %v; want ErrTooDeep", o, err)
		}
		if _, err := c.Marshal(m); !errors.Is(err, ErrTooDeep) {
			t.Errorf("%v: Marshal: %v; want ErrTooDeep", o, err)
		}
	}
}

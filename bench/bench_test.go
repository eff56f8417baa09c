package bench_test

import (
	"testing"

	"github.com/hamba/avro/v2"
	"github.com/linkedin/goavro/v2"
	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// fixture is the datum, protoavro's codec for it, and the other libraries'
// codecs of the same schema.
type fixture struct {
	msg    *avro2147pb.Foo
	codec  *protoavro.Codec
	goavro *goavro.Codec
	hamba  avro.Schema
}

func newFixture(tb testing.TB) fixture {
	tb.Helper()
	codec, err := protoavro.Options{}.Codec((&avro2147pb.Foo{}).ProtoReflect().Descriptor())
	if err != nil {
		tb.Fatal(err)
	}
	gc, err := goavro.NewCodec(codec.Schema().Canonical())
	if err != nil {
		tb.Fatal(err)
	}
	hs, err := avro.Parse(codec.Schema().Canonical())
	if err != nil {
		tb.Fatal(err)
	}
	msg := testutil.AVRO2147Datum()
	// One marshal before measuring, as the root module's benchmarks do in
	// their setup: the first call initializes the message's struct plan.
	if _, err := codec.Marshal(msg); err != nil {
		tb.Fatal(err)
	}
	return fixture{msg: msg, codec: codec, goavro: gc, hamba: hs}
}

// TestComparisons checks that the libraries of BenchmarkAVRO2147 encode the
// same datum: goavro the same bytes as protoavro, hamba bytes that protoavro
// decodes to the message (hamba writes array blocks with byte sizes, so its
// bytes differ).
func TestComparisons(t *testing.T) {
	f := newFixture(t)
	want, err := f.codec.Marshal(f.msg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.goavro.BinaryFromNative(nil, goavroNative(f.msg.ProtoReflect()))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("goavro encodes\n%x\nprotoavro encodes\n%x", got, want)
	}
	got, err = avro.Marshal(f.hamba, hambaDatum())
	if err != nil {
		t.Fatal(err)
	}
	back := &avro2147pb.Foo{}
	if err := f.codec.Unmarshal(got, back); err != nil || !proto.Equal(back, f.msg) {
		t.Errorf("hamba struct encodes %v (%v), want %v", back, err, f.msg)
	}
}

func BenchmarkAVRO2147(b *testing.B) {
	f := newFixture(b)
	buf := make([]byte, 0, 256)
	var err error

	// Marshal: protoavro's direct writer, the reference for this run.
	b.Run("Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if buf, err = f.codec.MarshalAppend(buf[:0], f.msg); err != nil {
				b.Fatal(err)
			}
		}
	})

	// Goavro: linkedin/goavro over a native map built from the message per
	// datum, as goavro-based converters (go.einride.tech/protobuf-avro) do.
	b.Run("Goavro", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			native := goavroNative(f.msg.ProtoReflect())
			if buf, err = f.goavro.BinaryFromNative(buf[:0], native); err != nil {
				b.Fatal(err)
			}
		}
	})

	// HambaStruct: hamba/avro's struct codec on a hand-written struct of
	// the same schema, filled once.
	b.Run("HambaStruct", func(b *testing.B) {
		v := hambaDatum()
		// hamba writes array blocks with byte sizes: check the datum, not the
		// bytes. This first Marshal also builds hamba's codec for the type.
		got, err := avro.Marshal(f.hamba, v)
		if err != nil {
			b.Fatal(err)
		}
		back := &avro2147pb.Foo{}
		if err := f.codec.Unmarshal(got, back); err != nil || !proto.Equal(back, f.msg) {
			b.Fatalf("hamba struct encodes %v (%v), want %v", back, err, f.msg)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := avro.Marshal(f.hamba, v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// goavroNative builds goavro's native form of a message under the default
// profile: a map per record, union values wrapped in a one-entry map.
func goavroNative(m protoreflect.Message) map[string]any {
	fields := m.Descriptor().Fields()
	out := make(map[string]any, fields.Len())
	for i := range fields.Len() {
		fd := fields.Get(i)
		switch {
		case fd.IsList():
			l := m.Get(fd).List()
			items := make([]any, l.Len())
			for j := range l.Len() {
				items[j] = goavroValue(fd, l.Get(j))
			}
			out[string(fd.Name())] = items
		case fd.Cardinality() == protoreflect.Required:
			out[string(fd.Name())] = goavroValue(fd, m.Get(fd))
		case !m.Has(fd):
			out[string(fd.Name())] = nil
		default:
			out[string(fd.Name())] = goavro.Union(goavroBranch(fd), goavroValue(fd, m.Get(fd)))
		}
	}
	return out
}

func goavroValue(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	switch fd.Kind() {
	case protoreflect.MessageKind:
		return goavroNative(v.Message())
	case protoreflect.EnumKind:
		return string(fd.Enum().Values().ByNumber(v.Enum()).Name())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return int64(v.Uint())
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return int64(v.Uint())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return int32(v.Int())
	case protoreflect.FloatKind:
		return float32(v.Float())
	}
	return v.Interface()
}

func goavroBranch(fd protoreflect.FieldDescriptor) string {
	switch fd.Kind() {
	case protoreflect.MessageKind:
		return string(fd.Message().FullName())
	case protoreflect.EnumKind:
		return string(fd.Enum().FullName())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return "int"
	case protoreflect.FloatKind:
		return "float"
	case protoreflect.DoubleKind:
		return "double"
	case protoreflect.BoolKind:
		return "boolean"
	case protoreflect.StringKind:
		return "string"
	case protoreflect.BytesKind:
		return "bytes"
	}
	return "long"
}

// hambaFoo is a hand-written struct for Foo's default-profile schema. Its
// integer fields are in the embedded hambaInts, whose fields hamba/avro
// treats as hambaFoo's own.
type hambaFoo struct {
	hambaInts
	Float    *float32    `avro:"float"`
	Double   *float64    `avro:"double"`
	Bool     *bool       `avro:"bool"`
	String   *string     `avro:"string"`
	Bytes    *[]byte     `avro:"bytes"`
	Enum     *string     `avro:"enum"`
	IntArray []int32     `avro:"intArray"`
	FooArray []hambaFoo  `avro:"fooArray"`
	Syms     []string    `avro:"syms"`
	Foo      *hambaFoo   `avro:"foo"`
	Bar      *hambaLarge `avro:"bar"`
}

// hambaInts holds Foo's integer fields.
type hambaInts struct {
	Int32    int32  `avro:"int32"`
	Int64    *int64 `avro:"int64"`
	Uint32   *int64 `avro:"uint32"`
	Uint64   *int64 `avro:"uint64"`
	Sint32   *int32 `avro:"sint32"`
	Sint64   *int64 `avro:"sint64"`
	Fixed32  *int64 `avro:"fixed32"`
	Fixed64  *int64 `avro:"fixed64"`
	Sfixed32 *int32 `avro:"sfixed32"`
	Sfixed64 *int64 `avro:"sfixed64"`
}

type hambaLarge struct {
	Enum *string `avro:"enum"`
}

func hambaDatum() *hambaFoo {
	i64 := func(v int64) *int64 { return &v }
	i32 := func(v int32) *int32 { return &v }
	str := func(v string) *string { return &v }
	f32, f64, t, by := float32(1), float64(2), true, []byte("bar")
	return &hambaFoo{
		hambaInts: hambaInts{
			Int32: 0, Int64: i64(2), Uint32: i64(3), Uint64: i64(4), Sint32: i32(5), Sint64: i64(6),
			Fixed32: i64(7), Fixed64: i64(8), Sfixed32: i32(9), Sfixed64: i64(10),
		},
		Float: &f32, Double: &f64, Bool: &t, String: str("foo"), Bytes: &by, Enum: str("X"), IntArray: []int32{27}, Syms: []string{"Y"},
		Bar: &hambaLarge{Enum: str("AA")},
	}
}

// Command gensample writes testdata/avro2147.delimited, the sample input of
// "protoavro encode": 1,000 varied protoavro.avro2147.Foo messages in
// length-delimited form (a varint size before each message, as protodelim
// and Java's writeDelimitedTo write them).
//
// Usage, from anywhere in the repository:
//
//	go run ./internal/cmd/gensample          # write the file
//	go run ./internal/cmd/gensample -check   # exit 1 if the committed file differs
//
// The output is deterministic: a fixed-seed generator and deterministic
// marshalling, so the same program always writes the same bytes. The first
// records are hand-picked edge cases (extreme integers, NaN and infinities,
// empty and unicode strings, the first and last values of the 676-value
// LargeEnum, deep nesting); the rest are random mixes of all field kinds.
// Every record is complete on its own, so concatenating copies of the file
// makes a valid larger input.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"

	pb "github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/testpbgen"
)

// File is the path of the sample, relative to the repository root.
const File = "testdata/avro2147.delimited"

func main() {
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "gensample: "+format+"\n", args...) }
	check := flag.Bool("check", false, "generate into memory and exit 1 if the committed file differs")
	n := flag.Int("n", 1000, "number of records")
	out := flag.String("o", "", "output file (default "+File+" in the repository root)")
	testpbgen.ParseFlags("gensample [-check] [-n N] [-o FILE]")
	path := *out
	if path == "" {
		root, err := testpbgen.FindRoot(".")
		if err != nil {
			log("%v", err)
			os.Exit(2)
		}
		path = filepath.Join(root, filepath.FromSlash(File))
	}
	data, err := Generate(*n)
	if err != nil {
		log("%v", err)
		os.Exit(1)
	}
	if testpbgen.WriteOrCheck("gensample", path, data, *check) {
		log("wrote %d records (%d bytes) to %s", *n, len(data), path)
	}
}

// Generate returns n records in length-delimited form.
func Generate(n int) ([]byte, error) {
	var buf bytes.Buffer
	opts := protodelim.MarshalOptions{MarshalOptions: proto.MarshalOptions{Deterministic: true}}
	for _, m := range Messages(n) {
		if _, err := opts.MarshalTo(&buf, m); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// Messages returns the n sample messages: the edge cases first, then random
// ones from a fixed seed.
func Messages(n int) []*pb.Foo {
	g := &gen{r: rand.New(rand.NewPCG(2147, 20190408))}
	msgs := edgeCases()
	for i := len(msgs); i < n; i++ {
		msgs = append(msgs, g.foo(int32(i), 0))
	}
	return msgs[:min(n, len(msgs))]
}

// edgeCases are hand-picked records that cover the extremes of every field.
func edgeCases() []*pb.Foo {
	all := func(i int32) *pb.Foo {
		return &pb.Foo{Int32: proto.Int32(i)}
	}
	minimal := all(0)
	maxes := &pb.Foo{
		Int32:    proto.Int32(math.MaxInt32),
		Int64:    proto.Int64(math.MaxInt64),
		Uint32:   proto.Uint32(math.MaxUint32),
		Uint64:   proto.Uint64(math.MaxUint64),
		Sint32:   proto.Int32(math.MaxInt32),
		Sint64:   proto.Int64(math.MaxInt64),
		Fixed32:  proto.Uint32(math.MaxUint32),
		Fixed64:  proto.Uint64(math.MaxUint64),
		Sfixed32: proto.Int32(math.MaxInt32),
		Sfixed64: proto.Int64(math.MaxInt64),
		Float:    proto.Float32(math.MaxFloat32),
		Double:   proto.Float64(math.MaxFloat64),
		Bool:     proto.Bool(true),
		String_:  proto.String("max"),
		Bytes:    bytes.Repeat([]byte{0xff}, 300),
		Enum:     pb.A_Z.Enum(),
		IntArray: []int32{math.MaxInt32, math.MinInt32, -1, 0, 1},
		Syms:     []pb.A{pb.A_Z, pb.A_Y, pb.A_X},
		Bar:      &pb.MessageWithLargeEnum{Enum: pb.LargeEnum_ZZ.Enum()},
	}
	mins := &pb.Foo{
		Int32:    proto.Int32(math.MinInt32),
		Int64:    proto.Int64(math.MinInt64),
		Uint32:   proto.Uint32(0),
		Uint64:   proto.Uint64(0),
		Sint32:   proto.Int32(math.MinInt32),
		Sint64:   proto.Int64(math.MinInt64),
		Fixed32:  proto.Uint32(0),
		Fixed64:  proto.Uint64(0),
		Sfixed32: proto.Int32(math.MinInt32),
		Sfixed64: proto.Int64(math.MinInt64),
		Float:    proto.Float32(-math.MaxFloat32),
		Double:   proto.Float64(-math.MaxFloat64),
		Bool:     proto.Bool(false),
		String_:  proto.String(""),
		Bytes:    []byte{},
		Enum:     pb.A_X.Enum(),
		Bar:      &pb.MessageWithLargeEnum{Enum: pb.LargeEnum_AA.Enum()},
	}
	specials := []*pb.Foo{}
	floats := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0,
		math.SmallestNonzeroFloat64, 5e-324, 1.0000000000000002, -2.5e-310}
	float32s := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.Copysign(0, -1)), 0, math.SmallestNonzeroFloat32, 1.0000001, -3.4e-40, 16777217}
	for i := range floats {
		specials = append(specials, &pb.Foo{
			Int32:  proto.Int32(int32(10 + i)),
			Float:  proto.Float32(float32s[i]),
			Double: proto.Float64(floats[i]),
		})
	}
	var unicode []*pb.Foo
	for i, s := range unicodeStrings {
		unicode = append(unicode, &pb.Foo{
			Int32:   proto.Int32(int32(100 + i)),
			String_: proto.String(s),
			Bytes:   []byte(s),
		})
	}
	// A chain of nested foo fields, and a tree of fooArray elements.
	deep := all(200)
	cur := deep
	for d := range 8 {
		cur.Foo = &pb.Foo{Int32: proto.Int32(int32(201 + d)), Syms: []pb.A{pb.A(d%3 + 1)}}
		cur = cur.Foo
	}
	tree := all(300)
	tree.FooArray = []*pb.Foo{
		{Int32: proto.Int32(301), FooArray: []*pb.Foo{{Int32: proto.Int32(302)}, {Int32: proto.Int32(303), Bar: &pb.MessageWithLargeEnum{}}}},
		{Int32: proto.Int32(304), Foo: &pb.Foo{Int32: proto.Int32(305), String_: proto.String("leaf ✓")}},
		{Int32: proto.Int32(306)},
	}
	emptyBar := all(400)
	emptyBar.Bar = &pb.MessageWithLargeEnum{}
	longArrays := all(500)
	for i := range 200 {
		longArrays.IntArray = append(longArrays.IntArray, int32(i*i-10000))
		longArrays.Syms = append(longArrays.Syms, pb.A(i%3+1))
	}
	bigString := all(600)
	bigString.String_ = proto.String(string(bytes.Repeat([]byte("αβγ→"), 1000)))
	out := []*pb.Foo{minimal, maxes, mins}
	out = append(out, specials...)
	out = append(out, unicode...)
	return append(out, deep, tree, emptyBar, longArrays, bigString)
}

// unicodeStrings are strings the random records also draw from: scripts,
// emoji and characters that need escaping in JSON.
var unicodeStrings = []string{
	"",
	"hello",
	"héllo wörld",
	"日本語のテキスト",
	"中文字符",
	"한국어",
	"Ελληνικά",
	"Кириллица",
	"עברית",
	"العربية",
	"हिन्दी",
	"emoji 🎉🚀👩‍👩‍👧‍👦",
	"𝄞 musical symbol (outside the BMP)",
	"combining e\u0301 and a\u030a",
	"quotes \" and backslash \\ and slash /",
	"tab\tnewline\nreturn\r",
	"nul \x00 and control \x01\x1f",
	"line separator \u2028 paragraph \u2029",
	"zero width \u200b joiner \u200d",
	"BOM \ufeff",
	"\U0010ffff highest code point",
}

// gen makes random records.
type gen struct {
	r *rand.Rand
}

// maybe reports true with probability p.
func (g *gen) maybe(p float64) bool { return g.r.Float64() < p }

// pick returns one of the values.
func pick[T any](g *gen, vs ...T) T { return vs[g.r.IntN(len(vs))] }

func (g *gen) i32() int32 {
	switch g.r.IntN(4) {
	case 0:
		return pick[int32](g, 0, 1, -1, math.MaxInt32, math.MinInt32, 127, 128, -129)
	case 1:
		return int32(g.r.IntN(200) - 100)
	default:
		return int32(g.r.Uint32())
	}
}

func (g *gen) i64() int64 {
	switch g.r.IntN(4) {
	case 0:
		return pick[int64](g, 0, 1, -1, math.MaxInt64, math.MinInt64, 1<<53, -(1<<53)-1)
	case 1:
		return int64(g.r.IntN(20000) - 10000)
	default:
		return int64(g.r.Uint64() >> g.r.IntN(64))
	}
}

func (g *gen) u32() uint32 {
	if g.maybe(0.2) {
		return pick[uint32](g, 0, 1, math.MaxUint32, 1<<31)
	}
	return g.r.Uint32() >> g.r.IntN(32)
}

func (g *gen) u64() uint64 {
	if g.maybe(0.2) {
		return pick[uint64](g, 0, 1, math.MaxUint64, 1<<63, 1<<63-1)
	}
	return g.r.Uint64() >> g.r.IntN(64)
}

func (g *gen) f32() float32 {
	if g.maybe(0.1) {
		return pick(g, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
			math.MaxFloat32, math.SmallestNonzeroFloat32, 0, float32(math.Copysign(0, -1)))
	}
	return float32(g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(20)-10)))
}

func (g *gen) f64() float64 {
	if g.maybe(0.1) {
		return pick(g, math.Inf(1), math.Inf(-1), math.NaN(),
			math.MaxFloat64, math.SmallestNonzeroFloat64, 0, math.Copysign(0, -1))
	}
	return g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(60)-30))
}

func (g *gen) str() string {
	if g.maybe(0.5) {
		return pick(g, unicodeStrings...)
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.é日🙂"
	runes := []rune(alphabet)
	out := make([]rune, g.r.IntN(40))
	for i := range out {
		out[i] = runes[g.r.IntN(len(runes))]
	}
	return string(out)
}

func (g *gen) bytes() []byte {
	b := make([]byte, pick(g, 0, 1, 3, 16, 64, g.r.IntN(300)))
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	return b
}

func (g *gen) a() pb.A { return pb.A(g.r.IntN(3) + 1) }

func (g *gen) large() pb.LargeEnum {
	if g.maybe(0.3) {
		return pick(g, pb.LargeEnum_AA, pb.LargeEnum_ZZ, pb.LargeEnum_ZY, pb.LargeEnum_AB)
	}
	return pb.LargeEnum(g.r.IntN(676) + 1)
}

// foo returns a random record at nesting depth depth; int32 is its required
// field's value at the top level.
func (g *gen) foo(int32v int32, depth int) *pb.Foo {
	p := 0.6 / float64(depth+1) // presence of optional fields thins out with depth
	m := &pb.Foo{Int32: proto.Int32(int32v)}
	if depth > 0 {
		m.Int32 = proto.Int32(g.i32())
	}
	if g.maybe(p) {
		m.Int64 = proto.Int64(g.i64())
	}
	if g.maybe(p) {
		m.Uint32 = proto.Uint32(g.u32())
	}
	if g.maybe(p) {
		m.Uint64 = proto.Uint64(g.u64())
	}
	if g.maybe(p) {
		m.Sint32 = proto.Int32(g.i32())
	}
	if g.maybe(p) {
		m.Sint64 = proto.Int64(g.i64())
	}
	if g.maybe(p) {
		m.Fixed32 = proto.Uint32(g.u32())
	}
	if g.maybe(p) {
		m.Fixed64 = proto.Uint64(g.u64())
	}
	if g.maybe(p) {
		m.Sfixed32 = proto.Int32(g.i32())
	}
	if g.maybe(p) {
		m.Sfixed64 = proto.Int64(g.i64())
	}
	if g.maybe(p) {
		m.Float = proto.Float32(g.f32())
	}
	if g.maybe(p) {
		m.Double = proto.Float64(g.f64())
	}
	if g.maybe(p) {
		m.Bool = proto.Bool(g.maybe(0.5))
	}
	if g.maybe(p) {
		m.String_ = proto.String(g.str())
	}
	if g.maybe(p) {
		m.Bytes = g.bytes()
	}
	if g.maybe(p) {
		m.Enum = g.a().Enum()
	}
	if g.maybe(p) {
		for range g.r.IntN(8) + 1 {
			m.IntArray = append(m.IntArray, g.i32())
		}
	}
	if g.maybe(p) {
		for range g.r.IntN(5) + 1 {
			m.Syms = append(m.Syms, g.a())
		}
	}
	if depth < 3 && g.maybe(p/2) {
		m.Foo = g.foo(0, depth+1)
	}
	if depth < 3 && g.maybe(p/2) {
		for range g.r.IntN(3) + 1 {
			m.FooArray = append(m.FooArray, g.foo(0, depth+1))
		}
	}
	if g.maybe(p) {
		m.Bar = &pb.MessageWithLargeEnum{}
		if g.maybe(0.9) {
			m.Bar.Enum = g.large().Enum()
		}
	}
	return m
}

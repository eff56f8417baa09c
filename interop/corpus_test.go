package interop

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testpb/legacypb"
	"github.com/protoavro/protoavro/protoavro"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// The test corpus: for every message type of the test protos, a few
// messages whose every field is set to edge values (extreme integers,
// unsigned maxima, NaN, ±Inf, −0.0, subnormals, empty and non-ASCII strings,
// empty and large bytes, lists and maps holding every edge value, messages
// nested several levels deep, recursion included), an empty message, and
// seeded random messages that mix edge values with random bit patterns.

// testFiles are the generated test protos.
var testFiles = []protoreflect.FileDescriptor{
	avro2147pb.File_avro2147_proto,
	kitchenpb.File_kitchen_kitchen_proto,
	legacypb.File_legacy_legacy_proto,
}

// testMessages lists every message type of the test protos except map
// entries, nested types included.
func testMessages() []protoreflect.MessageDescriptor {
	var out []protoreflect.MessageDescriptor
	var walk func(ms protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			m := ms.Get(i)
			if m.IsMapEntry() {
				continue
			}
			out = append(out, m)
			walk(m.Messages())
		}
	}
	for _, fd := range testFiles {
		walk(fd.Messages())
	}
	return out
}

// corpusConfig sizes the corpus.
type corpusConfig struct {
	edges  int // messages with every field set to edge values
	random int // seeded random messages
}

// corpus returns the test messages of type md: an empty one (required
// fields set), cfg.edges edge-value messages, for each member of each
// oneof a message with only that member set (edge values inside), and
// cfg.random random ones. Timestamps fit precision ts exactly. seed
// distinguishes corpora of the same type.
func corpus(md protoreflect.MessageDescriptor, cfg corpusConfig, ts protoavro.TimestampPrecision, seed string) []proto.Message {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil {
		panic(err)
	}
	key := seedKey(seed + "/" + string(md.FullName()))
	var out []proto.Message
	empty := mt.New()
	(&gen{r: rand.New(rand.NewPCG(key, 0)), maxDepth: 0}).fillRequired(empty)
	out = append(out, empty.Interface())
	for i := range cfg.edges {
		m := mt.New()
		g := &gen{r: rand.New(rand.NewPCG(key, uint64(1000+i))), edgeMode: true, k: i, maxDepth: 6, ts: ts}
		g.fill(m, 0)
		out = append(out, m.Interface())
	}
	ods := md.Oneofs()
	for i := range ods.Len() {
		od := ods.Get(i)
		if od.IsSynthetic() {
			continue
		}
		for j := range od.Fields().Len() {
			m := mt.New()
			g := &gen{r: rand.New(rand.NewPCG(key, uint64(2000+100*i+j))), edgeMode: true, k: j, maxDepth: 3, ts: ts}
			g.fillRequired(m)
			g.setSingular(m, od.Fields().Get(j), 0)
			out = append(out, m.Interface())
		}
	}
	for i := range cfg.random {
		m := mt.New()
		g := &gen{r: rand.New(rand.NewPCG(key, uint64(i))), maxDepth: 5, ts: ts}
		g.fill(m, 0)
		out = append(out, m.Interface())
	}
	for _, m := range out {
		if err := proto.CheckInitialized(m); err != nil {
			panic(err)
		}
	}
	return out
}

func seedKey(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

var (
	edgeInt32   = []int32{0, 1, -1, math.MinInt32, math.MaxInt32, 127, 128, -129, 63, -64}
	edgeInt64   = []int64{0, 1, -1, math.MinInt64, math.MaxInt64, math.MinInt32, math.MaxInt32, 1 << 32, -1 << 53, 1<<53 + 1}
	edgeUint32  = []uint32{0, 1, math.MaxUint32, 1 << 31, 1<<31 - 1, 127, 128}
	edgeUint64  = []uint64{0, 1, math.MaxUint64, 1 << 63, 1<<63 - 1, math.MaxUint32, 1 << 32, 9007199254740993}
	edgeFloat32 = []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 0.1, 3.25, 16777217}
	edgeFloat64 = []float64{0, math.Copysign(0, -1), 1, -1, math.NaN(), math.Inf(1), math.Inf(-1),
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0.1, -1.5, 6.02e23, 1e300}
	edgeStrings = []string{"", "a", "\x00", "h\u00e9llo w\u00f6rld \u2713", "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8", "\U0001F600\U0001F389",
		"\uFFFD", "\U0010FFFF", "e\u0301", "\u2028\u2029", "with \"quotes\" and \\ and\nnewline\tand\x01control", "true", "-12", "null",
		strings.Repeat("x", 127), strings.Repeat("\u00e9", 300)}
)

// largeBytes is a large bytes value with every byte value, larger than the
// 4 KiB blocks the tests write.
var largeBytes = func() []byte {
	b := make([]byte, 5000)
	for i := range b {
		b[i] = byte(i*7 + i/256)
	}
	return b
}()

var edgeBytes = [][]byte{{}, {0}, {0xff, 0xfe, 0x80, 0xc3}, []byte("plain ascii"), largeBytes}

// gen fills messages. In edge mode every field is set: scalars take edge
// values chosen by k and the field number, lists and maps hold every edge
// value, and message fields nest down to maxDepth (lists and maps of
// messages stop earlier, so the messages stay small). Otherwise fields are
// set at random, half of the scalars from the edge values.
type gen struct {
	r        *rand.Rand
	edgeMode bool
	k        int
	maxDepth int
	ts       protoavro.TimestampPrecision
	oneofs   int // oneofs filled so far, to vary the member in edge mode
	wkt      int // Timestamps and Durations filled so far, to vary them
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// fillRequired sets only the required fields, recursively.
func (g *gen) fillRequired(m protoreflect.Message) {
	fds := m.Descriptor().Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if fd.Cardinality() != protoreflect.Required {
			continue
		}
		if fd.Message() != nil {
			v := m.NewField(fd)
			g.fillRequired(v.Message())
			m.Set(fd, v)
		} else {
			m.Set(fd, g.scalar(fd, 0))
		}
	}
}

func (g *gen) fill(m protoreflect.Message, d int) {
	md := m.Descriptor()
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		g.timestamp(m)
		return
	case "google.protobuf.Duration":
		g.duration(m)
		return
	}
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			continue // below
		}
		switch {
		case fd.IsMap():
			g.fillMap(m, fd, d)
		case fd.IsList():
			g.fillList(m, fd, d)
		case fd.Cardinality() == protoreflect.Required:
			g.setSingular(m, fd, d)
		case fd.Message() != nil:
			if g.edgeMode && d < g.maxDepth || !g.edgeMode && d < g.maxDepth && g.chance(0.6/float64(1+d)) {
				g.setSingular(m, fd, d)
			}
		default:
			if g.edgeMode || g.chance(0.5) {
				g.setSingular(m, fd, d)
			}
		}
	}
	ods := md.Oneofs()
	for i := range ods.Len() {
		od := ods.Get(i)
		if od.IsSynthetic() {
			continue
		}
		var fd protoreflect.FieldDescriptor
		if g.edgeMode {
			fd = od.Fields().Get((g.k + g.oneofs) % od.Fields().Len())
			g.oneofs++
		} else if g.chance(0.65) {
			fd = od.Fields().Get(g.r.IntN(od.Fields().Len()))
		}
		if fd == nil || fd.Message() != nil && d >= g.maxDepth {
			continue
		}
		g.setSingular(m, fd, d)
	}
}

func (g *gen) setSingular(m protoreflect.Message, fd protoreflect.FieldDescriptor, d int) {
	if fd.Message() != nil {
		v := m.NewField(fd)
		if d >= g.maxDepth {
			g.fillRequired(v.Message())
		} else {
			g.fill(v.Message(), d+1)
		}
		m.Set(fd, v)
		return
	}
	m.Set(fd, g.scalar(fd, int(fd.Number())))
}

// count returns the number of elements of a list or map at depth d.
func (g *gen) count(fd protoreflect.FieldDescriptor, d int) int {
	msgs := fd.Message() != nil
	if fd.IsMap() {
		msgs = fd.MapValue().Message() != nil
	}
	if g.edgeMode {
		switch {
		case !msgs:
			return -1 // every edge value
		case d >= 3:
			return 0
		case d == 0:
			return 3
		default:
			return 1
		}
	}
	if msgs && d >= g.maxDepth-1 {
		return 0
	}
	n := 5
	if msgs {
		n = max(1, 4-d)
	}
	return g.r.IntN(n + 1)
}

func (g *gen) fillList(m protoreflect.Message, fd protoreflect.FieldDescriptor, d int) {
	n := g.count(fd, d)
	if n < 0 {
		n = edgeCount(fd)
	}
	if n == 0 {
		return
	}
	l := m.Mutable(fd).List()
	for i := range n {
		if fd.Message() != nil {
			v := l.NewElement()
			g.fill(v.Message(), d+1)
			l.Append(v)
		} else {
			l.Append(g.scalar(fd, i))
		}
	}
}

func (g *gen) fillMap(m protoreflect.Message, fd protoreflect.FieldDescriptor, d int) {
	kfd, vfd := fd.MapKey(), fd.MapValue()
	n := g.count(fd, d)
	if n < 0 {
		n = max(edgeCount(kfd), edgeCount(vfd))
	}
	if g.edgeMode && vfd.Message() != nil {
		n = max(n, min(edgeCount(kfd), 2)) // edge keys, and more than one entry
		if d >= 3 {
			n = 0
		}
	}
	if n == 0 {
		return
	}
	mp := m.Mutable(fd).Map()
	for i := range n {
		k := g.scalar(kfd, i).MapKey()
		if vfd.Message() != nil {
			v := mp.NewValue()
			g.fill(v.Message(), d+1)
			mp.Set(k, v)
		} else {
			mp.Set(k, g.scalar(vfd, i+g.k))
		}
	}
}

// edgeCount is the number of edge values of a field's kind.
func edgeCount(fd protoreflect.FieldDescriptor) int {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return 2
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return len(edgeInt32)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return len(edgeInt64)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return len(edgeUint32)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return len(edgeUint64)
	case protoreflect.FloatKind:
		return len(edgeFloat32)
	case protoreflect.DoubleKind:
		return len(edgeFloat64)
	case protoreflect.StringKind:
		return len(edgeStrings)
	case protoreflect.BytesKind:
		return len(edgeBytes)
	case protoreflect.EnumKind:
		return fd.Enum().Values().Len()
	}
	return 1
}

// pick returns the index of an edge value: in edge mode the one at i
// (shifted by k), else half of the time a random one, else -1.
func (g *gen) pick(n, i int) int {
	if g.edgeMode {
		return (i + g.k) % n
	}
	if g.chance(0.5) {
		return g.r.IntN(n)
	}
	return -1
}

// scalar returns a value of a non-message field (or list element or map
// key or value); i selects the edge value in edge mode.
func (g *gen) scalar(fd protoreflect.FieldDescriptor, i int) protoreflect.Value {
	bits := func() uint64 { return g.r.Uint64() >> g.r.IntN(64) }
	switch fd.Kind() {
	case protoreflect.BoolKind:
		if g.edgeMode {
			return protoreflect.ValueOfBool((i+g.k)%2 == 1)
		}
		return protoreflect.ValueOfBool(g.chance(0.5))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if j := g.pick(len(edgeInt32), i); j >= 0 {
			return protoreflect.ValueOfInt32(edgeInt32[j])
		}
		return protoreflect.ValueOfInt32(int32(bits()))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if j := g.pick(len(edgeInt64), i); j >= 0 {
			return protoreflect.ValueOfInt64(edgeInt64[j])
		}
		return protoreflect.ValueOfInt64(int64(bits()))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if j := g.pick(len(edgeUint32), i); j >= 0 {
			return protoreflect.ValueOfUint32(edgeUint32[j])
		}
		return protoreflect.ValueOfUint32(uint32(bits()))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if j := g.pick(len(edgeUint64), i); j >= 0 {
			return protoreflect.ValueOfUint64(edgeUint64[j])
		}
		return protoreflect.ValueOfUint64(bits())
	case protoreflect.FloatKind:
		if j := g.pick(len(edgeFloat32), i); j >= 0 {
			return protoreflect.ValueOfFloat32(edgeFloat32[j])
		}
		if g.chance(0.5) {
			return protoreflect.ValueOfFloat32(math.Float32frombits(g.r.Uint32())) // any bit pattern
		}
		return protoreflect.ValueOfFloat32(float32(g.r.NormFloat64() * 1000))
	case protoreflect.DoubleKind:
		if j := g.pick(len(edgeFloat64), i); j >= 0 {
			return protoreflect.ValueOfFloat64(edgeFloat64[j])
		}
		if g.chance(0.5) {
			return protoreflect.ValueOfFloat64(math.Float64frombits(g.r.Uint64()))
		}
		return protoreflect.ValueOfFloat64(g.r.NormFloat64() * 1e6)
	case protoreflect.StringKind:
		if j := g.pick(len(edgeStrings), i); j >= 0 {
			return protoreflect.ValueOfString(edgeStrings[j])
		}
		return protoreflect.ValueOfString(g.randString())
	case protoreflect.BytesKind:
		if j := g.pick(len(edgeBytes), i); j >= 0 {
			return protoreflect.ValueOfBytes(edgeBytes[j])
		}
		b := make([]byte, g.r.IntN(40))
		for i := range b {
			b[i] = byte(g.r.Uint32())
		}
		return protoreflect.ValueOfBytes(b)
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		if j := g.pick(vals.Len(), i); j >= 0 {
			return protoreflect.ValueOfEnum(vals.Get(j).Number())
		}
		return protoreflect.ValueOfEnum(vals.Get(g.r.IntN(vals.Len())).Number())
	}
	panic("gen: no scalar of kind " + fd.Kind().String())
}

// runeRanges are the ranges random string characters come from: ASCII,
// control characters, Latin, Greek to Arabic, kana, CJK, the private use
// area and the supplementary planes.
var runeRanges = [][2]rune{{0x20, 0x7e}, {0, 0x1f}, {0xa0, 0x2ff}, {0x370, 0x6ff}, {0x3040, 0x30ff}, {0x4e00, 0x9fff}, {0xe000, 0xfffd}, {0x10000, 0x10ffff}}

func (g *gen) randString() string {
	n := g.r.IntN(24)
	var sb strings.Builder
	for range n {
		rg := runeRanges[g.r.IntN(len(runeRanges))]
		c := rg[0] + g.r.Int32N(rg[1]-rg[0]+1)
		if !utf8.ValidRune(c) {
			c = 'x'
		}
		sb.WriteRune(c)
	}
	return sb.String()
}

// Timestamps span 0001-01-01 to 9999-12-31 (micros and millis) or the
// range of a long of nanoseconds (nanos), at the precision of the
// generator's Timestamps, so they convert exactly.
const (
	minTimestampSeconds = -62135596800
	maxTimestampSeconds = 253402300799
	minNanosSeconds     = -9223372036 // whole seconds only: the instant before has nanos ≥ 145224192
	maxNanosSeconds     = 9223372035
)

func (g *gen) timestamp(m protoreflect.Message) {
	lo, hi, unit := int64(minTimestampSeconds), int64(maxTimestampSeconds), int64(1000)
	switch g.ts {
	case protoavro.TimestampMillis:
		unit = 1e6
	case protoavro.TimestampNanos:
		lo, hi, unit = minNanosSeconds, maxNanosSeconds, 1
	}
	var secs, nanos int64
	if g.edgeMode {
		edges := [][2]int64{{0, 0}, {lo, 0}, {hi, 1e9 - unit}, {-1, 1e9 - unit}, {1, unit}, {1700000000, 123456789 / unit * unit}}
		e := edges[(g.k+g.wkt)%len(edges)]
		secs, nanos = e[0], e[1]
		g.wkt++
	} else {
		secs = lo + g.r.Int64N(hi-lo+1)
		nanos = g.r.Int64N(1e9/unit) * unit
	}
	fds := m.Descriptor().Fields()
	if secs != 0 {
		m.Set(fds.ByNumber(1), protoreflect.ValueOfInt64(secs))
	}
	if nanos != 0 {
		m.Set(fds.ByNumber(2), protoreflect.ValueOfInt32(int32(nanos)))
	}
}

// duration sets a valid Duration: |seconds| ≤ 315576000000, |nanos| < 1e9,
// nanos of the same sign as seconds.
func (g *gen) duration(m protoreflect.Message) {
	const maxSecs = 315576000000
	var secs, nanos int64
	if g.edgeMode {
		edges := [][2]int64{{0, 0}, {maxSecs, 999_999_999}, {-maxSecs, -999_999_999}, {0, -1}, {1, 1}}
		e := edges[(g.k+g.wkt)%len(edges)]
		secs, nanos = e[0], e[1]
		g.wkt++
	} else {
		secs = g.r.Int64N(2*maxSecs+1) - maxSecs
		nanos = g.r.Int64N(1e9)
		if secs < 0 {
			nanos = -nanos
		}
	}
	fds := m.Descriptor().Fields()
	if secs != 0 {
		m.Set(fds.ByNumber(1), protoreflect.ValueOfInt64(secs))
	}
	if nanos != 0 {
		m.Set(fds.ByNumber(2), protoreflect.ValueOfInt32(int32(nanos)))
	}
}

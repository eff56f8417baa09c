package testutil

import (
	"bytes"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The generator works through protoreflect only, so it fills generated and
// dynamicpb messages alike, and everything it does follows from a seed.
//
// Random messages: every field is randomly left unset or set; values favour
// the edges of their type (0, ±1, minima and maxima, NaN, ±Inf, −0.0,
// subnormals, empty and non-ASCII strings, empty and large bytes); repeated
// fields and maps get 0..N elements, maps every key kind with edge keys; a
// oneof gets one member or none; message fields nest with a probability
// that falls with depth, up to a bound.
//
// Edge messages (Corpus): every field is set, scalars to edge values chosen
// by an index and the field number, lists and maps hold every edge value,
// and message fields nest to a bound.
//
// In both, proto2 required fields are always set, so generated messages are
// initialized; Timestamps and Durations are valid, and Timestamps fit the
// precision asked for.

// Precision is the precision of the Timestamps generated, in the order of
// protoavro.TimestampPrecision: TimestampNanos, TimestampMicros,
// TimestampMillis and TimestampRecord convert to it.
type Precision uint8

const (
	// Nanos, the zero value, gives any nanos, but only instants that a long
	// of nanoseconds holds.
	Nanos Precision = iota
	// Micros gives nanos that are multiples of 1000 over the whole
	// Timestamp range, 0001-01-01 to 9999-12-31.
	Micros
	// Millis gives nanos that are multiples of 1e6 over the whole range.
	Millis
	// Any gives any nanos over the whole range.
	Any
)

// Config configures the random messages.
type Config struct {
	// MaxDepth bounds the nesting of optional, repeated and map message
	// fields; below it, required message fields get their required fields.
	MaxDepth int
	// MaxLen bounds the elements of a repeated field or map at depth 0; the
	// bound falls by one per level of depth for message elements.
	MaxLen int
	// UnknownEnums lets open enum fields take numbers that have no value.
	// Closed enums never get them.
	UnknownEnums bool
	// Timestamps selects the Timestamps generated.
	Timestamps Precision
	// SubMicros, with Micros, gives Timestamps any nanos: values that
	// microsecond precision truncates.
	SubMicros bool
}

// DefaultConfig is the configuration of the main round-trip tests.
var DefaultConfig = Config{MaxDepth: 5, MaxLen: 4}

// SeedKey derives a seed key from a name, such as a test variant and the
// message's full name.
func SeedKey(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// NewMessage returns an empty message of type md: the generated type if one
// is registered for md and dynamic is false, else a dynamicpb message.
func NewMessage(md protoreflect.MessageDescriptor, dynamic bool) proto.Message {
	if !dynamic {
		if mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName()); err == nil && mt.Descriptor() == md {
			return mt.New().Interface()
		}
	}
	return dynamicpb.NewMessage(md)
}

// RandMessage returns random message number i of type md for the seed key:
// the same key, i and cfg give the same message.
func RandMessage(md protoreflect.MessageDescriptor, dynamic bool, key uint64, i int, cfg Config) proto.Message {
	m := NewMessage(md, dynamic)
	newGen(key, uint64(i), cfg).fill(m.ProtoReflect(), 0)
	return m
}

// CorpusConfig sizes a corpus.
type CorpusConfig struct {
	Edges  int // messages with every field set to edge values
	Random int // random messages
}

// Corpus returns messages of the generated type md: an empty one (required
// fields set), cfg.Edges edge-value messages, for each member of each oneof
// a message with only that member set (edge values inside), and cfg.Random
// random messages, whose Timestamps have precision ts. seed distinguishes
// corpora of the same type.
func Corpus(md protoreflect.MessageDescriptor, cfg CorpusConfig, ts Precision, seed string) []proto.Message {
	key := SeedKey(seed + "/" + string(md.FullName()))
	random := Config{MaxDepth: 5, MaxLen: 5, Timestamps: ts}
	edge := func(stream uint64, k, maxDepth int) *gen {
		g := newGen(key, stream, Config{MaxDepth: maxDepth, MaxLen: 5, Timestamps: ts})
		g.edgeMode, g.k = true, k
		return g
	}
	empty := NewMessage(md, false)
	newGen(key, 0, random).fillRequired(empty.ProtoReflect())
	out := []proto.Message{empty}
	for i := range cfg.Edges {
		m := NewMessage(md, false)
		edge(uint64(1000+i), i, 6).fill(m.ProtoReflect(), 0)
		out = append(out, m)
	}
	ods := md.Oneofs()
	for i := range ods.Len() {
		od := ods.Get(i)
		if od.IsSynthetic() {
			continue
		}
		for j := range od.Fields().Len() {
			m := NewMessage(md, false)
			g := edge(uint64(2000+100*i+j), j, 3)
			g.fillRequired(m.ProtoReflect())
			g.setSingular(m.ProtoReflect(), od.Fields().Get(j), 0)
			out = append(out, m)
		}
	}
	for i := range cfg.Random {
		out = append(out, RandMessage(md, false, key, i, random))
	}
	return out
}

// gen generates the contents of messages from one seed.
type gen struct {
	r   *rand.Rand
	cfg Config
	// edgeMode sets every field, to edge values chosen by k and the field
	// number or element index.
	edgeMode bool
	k        int
	oneofs   int // oneofs filled so far, to vary the member in edge mode
	wkt      int // Timestamps and Durations filled so far, to vary them in edge mode
}

func newGen(key, stream uint64, cfg Config) *gen {
	return &gen{r: rand.New(rand.NewPCG(key, stream)), cfg: cfg}
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// fillRequired sets only the required fields, recursively.
func (g *gen) fillRequired(m protoreflect.Message) {
	fds := m.Descriptor().Fields()
	for i := range fds.Len() {
		if fd := fds.Get(i); fd.Cardinality() == protoreflect.Required {
			g.setSingular(m, fd, g.cfg.MaxDepth)
		}
	}
}

// fill sets contents in m, an empty message at nesting depth d.
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
			if d < g.cfg.MaxDepth && (g.edgeMode || g.chance(0.6/float64(1+d))) {
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
		switch {
		case g.edgeMode:
			fd = od.Fields().Get((g.k + g.oneofs) % od.Fields().Len())
			g.oneofs++
		case g.chance(0.65):
			fd = od.Fields().Get(g.r.IntN(od.Fields().Len()))
		}
		if fd != nil && (fd.Message() == nil || d < g.cfg.MaxDepth) {
			g.setSingular(m, fd, d)
		}
	}
}

// setSingular sets fd, a singular field of m at depth d: a message below
// the depth bound gets only its required fields.
func (g *gen) setSingular(m protoreflect.Message, fd protoreflect.FieldDescriptor, d int) {
	if fd.Message() == nil {
		m.Set(fd, g.scalar(fd, int(fd.Number())))
		return
	}
	v := m.NewField(fd)
	if d >= g.cfg.MaxDepth {
		g.fillRequired(v.Message())
	} else {
		g.fill(v.Message(), d+1)
	}
	m.Set(fd, v)
}

// count returns the number of elements of a list or map at depth d: in
// edge mode −1 for every edge value.
func (g *gen) count(fd protoreflect.FieldDescriptor, d int) int {
	msgs := fd.Message() != nil
	if fd.IsMap() {
		msgs = fd.MapValue().Message() != nil
	}
	switch {
	case g.edgeMode && !msgs:
		return -1
	case g.edgeMode && d >= 3:
		return 0
	case g.edgeMode && d == 0:
		return 3
	case g.edgeMode:
		return 1
	case msgs && d >= g.cfg.MaxDepth:
		return 0
	case msgs:
		return g.r.IntN(max(0, g.cfg.MaxLen-d) + 1)
	}
	return g.r.IntN(g.cfg.MaxLen + 1)
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
	if g.edgeMode && vfd.Message() != nil && d < 3 {
		n = max(n, min(edgeCount(kfd), 2)) // edge keys, and more than one entry
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

var (
	edgeInt32   = []int32{0, 1, -1, math.MinInt32, math.MaxInt32, 127, 128, -128, -129, 63, -64}
	edgeInt64   = []int64{0, 1, -1, math.MinInt64, math.MaxInt64, math.MinInt32, math.MaxInt32, 1 << 32, -1 << 53, 1<<53 + 1}
	edgeUint32  = []uint32{0, 1, math.MaxUint32, 1 << 31, 1<<31 - 1, 127, 128}
	edgeUint64  = []uint64{0, 1, math.MaxUint64, 1 << 63, 1<<63 - 1, math.MaxUint32, 1 << 32, 9007199254740993}
	edgeFloat32 = []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 0.1, 3.25, 16777217}
	edgeFloat64 = []float64{0, math.Copysign(0, -1), 1, -1, math.NaN(), math.Inf(1), math.Inf(-1),
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0.1, -1.5, 6.02e23, 1e300}
	edgeStrings = []string{"", "a", "\x00", "h\u00e9llo w\u00f6rld \u2713", "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8", "\U0001F600\U0001F389",
		"\uFFFD", "\U0010FFFF", "e\u0301", "\u2028\u2029", "with \"quotes\" and \\ and\nnewline\tand\x01control", "true", "-12", "null",
		strings.Repeat("x", 127), strings.Repeat("\u00e9", 300), strings.Repeat("ab", 100)}
	// edgeBytes has a value larger than the 4 KiB blocks the
	// interoperability tests write, with every byte value, and one that is
	// not UTF-8.
	edgeBytes = [][]byte{nil, {}, {0}, {0xff, 0xfe, 0x80, 0xc3}, []byte("plain ascii"), func() []byte {
		b := make([]byte, 5000)
		for i := range b {
			b[i] = byte(i*7 + i/256)
		}
		return b
	}()}
)

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

// pick returns the index of one of n edge values: in edge mode the one at i
// (shifted by k), else half of the time a random one, else −1.
func (g *gen) pick(n, i int) int {
	switch {
	case g.edgeMode:
		return (i + g.k) % n
	case g.chance(0.5):
		return g.r.IntN(n)
	}
	return -1
}

// bits returns a random 64-bit pattern of random width, so varints of every
// length occur.
func (g *gen) bits() uint64 {
	return g.r.Uint64() >> g.r.IntN(64)
}

// scalar returns a value of a non-message field (or list element or map key
// or value); i selects the edge value in edge mode.
func (g *gen) scalar(fd protoreflect.FieldDescriptor, i int) protoreflect.Value {
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
		return protoreflect.ValueOfInt32(int32(g.bits()))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if j := g.pick(len(edgeInt64), i); j >= 0 {
			return protoreflect.ValueOfInt64(edgeInt64[j])
		}
		return protoreflect.ValueOfInt64(int64(g.bits()))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if j := g.pick(len(edgeUint32), i); j >= 0 {
			return protoreflect.ValueOfUint32(edgeUint32[j])
		}
		return protoreflect.ValueOfUint32(uint32(g.bits()))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if j := g.pick(len(edgeUint64), i); j >= 0 {
			return protoreflect.ValueOfUint64(edgeUint64[j])
		}
		return protoreflect.ValueOfUint64(g.bits())
	case protoreflect.FloatKind:
		if j := g.pick(len(edgeFloat32), i); j >= 0 {
			return protoreflect.ValueOfFloat32(edgeFloat32[j])
		}
		if g.chance(0.5) {
			return protoreflect.ValueOfFloat32(math.Float32frombits(g.r.Uint32())) // any bit pattern, NaN payloads included
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
		return protoreflect.ValueOfString(g.string())
	case protoreflect.BytesKind:
		if j := g.pick(len(edgeBytes), i); j >= 0 {
			return protoreflect.ValueOfBytes(bytes.Clone(edgeBytes[j]))
		}
		return protoreflect.ValueOfBytes(g.bytes())
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(g.enum(fd.Enum(), i))
	}
	panic("testutil: no scalar of kind " + fd.Kind().String())
}

// runeRanges are the ranges random string characters come from: ASCII,
// control characters, Latin, Greek to Arabic, kana, CJK, the private use
// area and the supplementary planes.
var runeRanges = [][2]rune{{0x20, 0x7e}, {0, 0x1f}, {0xa0, 0x2ff}, {0x370, 0x6ff}, {0x3040, 0x30ff}, {0x4e00, 0x9fff}, {0xe000, 0xfffd}, {0x10000, 0x10ffff}}

func (g *gen) string() string {
	n := g.r.IntN(24)
	if g.chance(0.01) {
		n = 200 + g.r.IntN(3000)
	}
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

func (g *gen) bytes() []byte {
	n := g.r.IntN(40)
	if g.chance(0.02) {
		n = 128 + g.r.IntN(20000) // multi-byte lengths
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	return b
}

// enum returns a number of ed: in edge mode the value at i (shifted by k);
// else any declared value, aliases included, and, when the configuration
// allows it and the enum is open, sometimes a number without a value.
func (g *gen) enum(ed protoreflect.EnumDescriptor, i int) protoreflect.EnumNumber {
	vals := ed.Values()
	if g.edgeMode {
		return vals.Get((i + g.k) % vals.Len()).Number()
	}
	if g.cfg.UnknownEnums && !ed.IsClosed() && g.chance(0.15) {
		for _, n := range []protoreflect.EnumNumber{3, 4, 6, -2, 1000, math.MaxInt32, math.MinInt32, protoreflect.EnumNumber(g.r.Int32())} {
			if vals.ByNumber(n) == nil && g.chance(0.5) {
				return n
			}
		}
		return math.MinInt32 + 7 // no test enum has it
	}
	return vals.Get(g.r.IntN(vals.Len())).Number()
}

// Timestamp bounds: 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, and the
// seconds of the first and last instants a long of nanoseconds holds,
// 1677-09-21T00:12:43.145224192Z and 2262-04-11T23:47:16.854775807Z.
const (
	MinTimestampSeconds = -62135596800
	MaxTimestampSeconds = 253402300799
	MinNanosSeconds     = -9223372037 // with nanos >= 145224192
	MaxNanosSeconds     = 9223372036  // with nanos <= 854775807
)

// timestamp sets a valid Timestamp of the configured precision.
func (g *gen) timestamp(m protoreflect.Message) {
	var secs, nanos int64
	switch {
	case g.edgeMode:
		lo, hi, unit := int64(MinTimestampSeconds), int64(MaxTimestampSeconds), [...]int64{Micros: 1000, Millis: 1e6, Nanos: 1, Any: 1}[g.cfg.Timestamps]
		if g.cfg.Timestamps == Nanos {
			lo, hi = MinNanosSeconds+1, MaxNanosSeconds-1 // whole seconds at both ends
		}
		edges := [][2]int64{{0, 0}, {lo, 0}, {hi, 1e9 - unit}, {-1, 1e9 - unit}, {1, unit}, {1700000000, 123456789 / unit * unit}}
		e := edges[(g.k+g.wkt)%len(edges)]
		secs, nanos = e[0], e[1]
		g.wkt++
	case g.cfg.Timestamps == Nanos:
		switch g.r.IntN(8) {
		case 0:
			secs, nanos = MinNanosSeconds, 145224192+g.r.Int64N(1e9-145224192)
		case 1:
			secs, nanos = MaxNanosSeconds, g.r.Int64N(854775807+1)
		case 2:
			secs, nanos = []int64{0, -1, 1}[g.r.IntN(3)], g.r.Int64N(1e9)
		default:
			secs, nanos = MinNanosSeconds+1+g.r.Int64N(MaxNanosSeconds-MinNanosSeconds-1), g.r.Int64N(1e9)
		}
	default:
		switch g.r.IntN(6) {
		case 0:
			secs = []int64{MinTimestampSeconds, MaxTimestampSeconds, 0, -1, 1}[g.r.IntN(5)]
		case 1:
			secs = g.r.Int64N(1 << 31)
		default:
			secs = MinTimestampSeconds + g.r.Int64N(MaxTimestampSeconds-MinTimestampSeconds+1)
		}
		nanos = g.r.Int64N(1e9)
		if g.chance(0.2) {
			nanos = []int64{0, 999_999_999}[g.r.IntN(2)]
		}
		switch {
		case g.cfg.Timestamps == Millis:
			nanos -= nanos % 1_000_000
		case !g.cfg.SubMicros && g.cfg.Timestamps != Any:
			nanos -= nanos % 1_000
		}
	}
	g.setSecondsNanos(m, secs, nanos)
}

// duration sets a valid Duration: |seconds| ≤ 315576000000, |nanos| < 1e9,
// and nanos of the same sign as seconds.
func (g *gen) duration(m protoreflect.Message) {
	const maxSecs = 315576000000
	var secs, nanos int64
	switch {
	case g.edgeMode:
		edges := [][2]int64{{0, 0}, {maxSecs, 999_999_999}, {-maxSecs, -999_999_999}, {0, -1}, {1, 1}}
		e := edges[(g.k+g.wkt)%len(edges)]
		secs, nanos = e[0], e[1]
		g.wkt++
	default:
		secs = g.r.Int64N(2*maxSecs+1) - maxSecs
		if g.r.IntN(4) == 0 {
			secs = []int64{0, 1, -1, maxSecs, -maxSecs}[g.r.IntN(5)]
		}
		if g.chance(0.7) {
			nanos = g.r.Int64N(1e9)
			if secs < 0 || (secs == 0 && g.chance(0.5)) {
				nanos = -nanos
			}
		}
	}
	g.setSecondsNanos(m, secs, nanos)
}

// setSecondsNanos sets fields 1 and 2 of a Timestamp or Duration, zeros
// left unset (or, at random, set: the encoding is the same).
func (g *gen) setSecondsNanos(m protoreflect.Message, secs, nanos int64) {
	fds := m.Descriptor().Fields()
	if secs != 0 || !g.edgeMode && g.chance(0.5) {
		m.Set(fds.ByNumber(1), protoreflect.ValueOfInt64(secs))
	}
	if nanos != 0 || !g.edgeMode && g.chance(0.5) {
		m.Set(fds.ByNumber(2), protoreflect.ValueOfInt32(int32(nanos)))
	}
}

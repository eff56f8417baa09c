package protoavro

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// This file holds a deterministic random message generator for the
// round-trip tests. It works through protoreflect only, so it fills
// generated and dynamicpb messages alike. Every field is randomly left unset
// or set; values favour the edges of their type (0, ±1, minima and maxima,
// NaN, ±Inf, −0.0, empty and non-ASCII strings, empty and large bytes);
// repeated fields and maps get 0..N elements, maps every key kind with edge
// keys; a oneof gets one member or none; message fields nest with a
// probability that falls with depth, up to a bound. proto2 required fields
// are always set, so generated messages are initialized. Timestamps and
// Durations are valid, and Timestamps fit the precision the test asks for.

// randConfig configures the generator.
type randConfig struct {
	// MaxDepth bounds the nesting of optional, repeated and map message
	// fields; required message fields are filled below it too.
	MaxDepth int
	// MaxLen bounds the elements of a repeated field or map at depth 0; the
	// bound falls by one per level of depth for message elements.
	MaxLen int
	// UnknownEnums lets open (proto3) enum fields take numbers that have no
	// value. Closed enums never get them.
	UnknownEnums bool
	// Timestamps selects the Timestamps generated: TimestampMicros (the
	// zero value) gives nanos that are multiples of 1000 over the whole
	// Timestamp range, TimestampMillis multiples of 1e6, TimestampNanos any
	// nanos but only instants that fit a long of nanoseconds.
	Timestamps TimestampPrecision
	// SubMicros, with TimestampMicros, gives Timestamps any nanos: values
	// that the default precision truncates.
	SubMicros bool
}

// defaultRandConfig is the configuration of the main round-trip tests.
var defaultRandConfig = randConfig{MaxDepth: 5, MaxLen: 4}

// randGen generates random message contents from one seed.
type randGen struct {
	r   *rand.Rand
	cfg randConfig
}

// newRandGen returns a generator for message number i of a test whose
// messages are seeded with key: the same key and i give the same message.
func newRandGen(key uint64, i int, cfg randConfig) *randGen {
	return &randGen{r: rand.New(rand.NewPCG(key, uint64(i))), cfg: cfg}
}

// seedKey derives a seed key from a name, such as the message's full name.
func seedKey(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// newTestMessage returns an empty message of type md: the generated type if
// one is registered and dynamic is false, else a dynamicpb message.
func newTestMessage(md protoreflect.MessageDescriptor, dynamic bool) proto.Message {
	if !dynamic {
		if mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName()); err == nil && mt.Descriptor() == md {
			return mt.New().Interface()
		}
	}
	return dynamicpb.NewMessage(md)
}

// randMessage returns a new random message of type md.
func randMessage(md protoreflect.MessageDescriptor, dynamic bool, key uint64, i int, cfg randConfig) proto.Message {
	m := newTestMessage(md, dynamic)
	newRandGen(key, i, cfg).fill(m.ProtoReflect(), 0)
	return m
}

func (g *randGen) chance(p float64) bool { return g.r.Float64() < p }

// setProb is the probability that an optional message field is set at depth d.
func (g *randGen) setProb(d int) float64 {
	if d >= g.cfg.MaxDepth {
		return 0
	}
	return 0.6 / float64(1+d)
}

// maxLen is the bound of elements of a repeated or map field at depth d.
func (g *randGen) maxLen(fd protoreflect.FieldDescriptor, d int) int {
	msgs := fd.Message() != nil
	if fd.IsMap() {
		msgs = fd.MapValue().Message() != nil
	}
	if !msgs {
		return g.cfg.MaxLen
	}
	if d >= g.cfg.MaxDepth {
		return 0
	}
	return max(0, g.cfg.MaxLen-d)
}

// fill sets random contents in m, an empty message at nesting depth d.
func (g *randGen) fill(m protoreflect.Message, d int) {
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
			if g.chance(g.setProb(d)) {
				g.setSingular(m, fd, d)
			}
		default:
			if g.chance(0.5) {
				g.setSingular(m, fd, d)
			}
		}
	}
	ods := md.Oneofs()
	for i := range ods.Len() {
		od := ods.Get(i)
		if od.IsSynthetic() || g.chance(0.35) {
			continue
		}
		fd := od.Fields().Get(g.r.IntN(od.Fields().Len()))
		if fd.Message() != nil && d >= g.cfg.MaxDepth {
			continue
		}
		g.setSingular(m, fd, d)
	}
}

func (g *randGen) setSingular(m protoreflect.Message, fd protoreflect.FieldDescriptor, d int) {
	if fd.Message() != nil {
		v := m.NewField(fd)
		g.fill(v.Message(), d+1)
		m.Set(fd, v)
		return
	}
	m.Set(fd, g.scalar(fd))
}

func (g *randGen) fillList(m protoreflect.Message, fd protoreflect.FieldDescriptor, d int) {
	n := g.r.IntN(g.maxLen(fd, d) + 1)
	if n == 0 {
		return
	}
	l := m.Mutable(fd).List()
	for range n {
		if fd.Message() != nil {
			v := l.NewElement()
			g.fill(v.Message(), d+1)
			l.Append(v)
		} else {
			l.Append(g.scalar(fd))
		}
	}
}

func (g *randGen) fillMap(m protoreflect.Message, fd protoreflect.FieldDescriptor, d int) {
	n := g.r.IntN(g.maxLen(fd, d) + 1)
	if n == 0 {
		return
	}
	mp := m.Mutable(fd).Map()
	kfd, vfd := fd.MapKey(), fd.MapValue()
	for range n {
		k := g.scalar(kfd).MapKey()
		if vfd.Message() != nil {
			v := mp.NewValue()
			g.fill(v.Message(), d+1)
			mp.Set(k, v)
		} else {
			mp.Set(k, g.scalar(vfd))
		}
	}
}

// edge returns, half of the time, the index of one of n edge values, else -1.
func (g *randGen) edge(n int) int {
	if g.chance(0.5) {
		return g.r.IntN(n)
	}
	return -1
}

// bits returns a random 64-bit pattern of random width, so varints of every
// length occur.
func (g *randGen) bits() uint64 {
	return g.r.Uint64() >> g.r.IntN(64)
}

var (
	edgeInt32   = []int32{0, 1, -1, math.MinInt32, math.MaxInt32, 127, 128, -128, -129, 63, -64}
	edgeInt64   = []int64{0, 1, -1, math.MinInt64, math.MaxInt64, math.MinInt32, math.MaxInt32, 1 << 32, -1 << 53, 1<<53 + 1}
	edgeUint32  = []uint32{0, 1, math.MaxUint32, 1 << 31, 1<<31 - 1, 127, 128}
	edgeUint64  = []uint64{0, 1, math.MaxUint64, 1 << 63, 1<<63 - 1, math.MaxUint32, 1 << 32, 9007199254740993}
	edgeFloat32 = []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 0.1, 3.25}
	edgeFloat64 = []float64{0, math.Copysign(0, -1), 1, -1, math.NaN(), math.Inf(1), math.Inf(-1),
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0.1, -1.5, 6.02e23}
	edgeStrings = []string{"", "a", "\x00", "héllo wörld ✓", "日本語のテキスト", "😀🎉", "\uFFFD", "\U0010FFFF", "e\u0301", "\u2028\u2029",
		"with \"quotes\" and \\ and\nnewline", "true", "-12", strings.Repeat("x", 127), strings.Repeat("é", 64), strings.Repeat("ab", 100)}
)

// runeRanges are the ranges random string characters come from.
var runeRanges = [][2]rune{{0x20, 0x7e}, {0, 0x1f}, {0xa0, 0x2ff}, {0x370, 0x6ff}, {0x3040, 0x30ff}, {0x4e00, 0x9fff}, {0xe000, 0xfffd}, {0x10000, 0x10ffff}}

func (g *randGen) string() string {
	if i := g.edge(len(edgeStrings)); i >= 0 {
		return edgeStrings[i]
	}
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

func (g *randGen) bytes() []byte {
	switch g.r.IntN(8) {
	case 0:
		return nil
	case 1:
		return []byte{}
	case 2:
		return []byte{0}
	case 3:
		return []byte{0xff, 0xfe, 0x80, 0xc3} // not UTF-8
	}
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

// scalar returns a random value of a non-message field (or list element or
// map key or value).
func (g *randGen) scalar(fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(g.chance(0.5))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if i := g.edge(len(edgeInt32)); i >= 0 {
			return protoreflect.ValueOfInt32(edgeInt32[i])
		}
		return protoreflect.ValueOfInt32(int32(g.bits()))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if i := g.edge(len(edgeInt64)); i >= 0 {
			return protoreflect.ValueOfInt64(edgeInt64[i])
		}
		return protoreflect.ValueOfInt64(int64(g.bits()))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if i := g.edge(len(edgeUint32)); i >= 0 {
			return protoreflect.ValueOfUint32(edgeUint32[i])
		}
		return protoreflect.ValueOfUint32(uint32(g.bits()))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if i := g.edge(len(edgeUint64)); i >= 0 {
			return protoreflect.ValueOfUint64(edgeUint64[i])
		}
		return protoreflect.ValueOfUint64(g.bits())
	case protoreflect.FloatKind:
		if i := g.edge(len(edgeFloat32)); i >= 0 {
			return protoreflect.ValueOfFloat32(edgeFloat32[i])
		}
		if g.chance(0.5) {
			return protoreflect.ValueOfFloat32(math.Float32frombits(g.r.Uint32())) // any bit pattern, NaN payloads included
		}
		return protoreflect.ValueOfFloat32(float32(g.r.NormFloat64() * 1000))
	case protoreflect.DoubleKind:
		if i := g.edge(len(edgeFloat64)); i >= 0 {
			return protoreflect.ValueOfFloat64(edgeFloat64[i])
		}
		if g.chance(0.5) {
			return protoreflect.ValueOfFloat64(math.Float64frombits(g.r.Uint64()))
		}
		return protoreflect.ValueOfFloat64(g.r.NormFloat64() * 1e6)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(g.string())
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(g.bytes())
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(g.enum(fd.Enum()))
	}
	panic("randGen: no scalar of kind " + fd.Kind().String())
}

// enum returns a random number of ed: any declared value, aliases included,
// and, when the configuration allows it and the enum is open, sometimes a
// number without a value.
func (g *randGen) enum(ed protoreflect.EnumDescriptor) protoreflect.EnumNumber {
	vals := ed.Values()
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
	minTimestampSeconds = -62135596800
	maxTimestampSeconds = 253402300799
	minNanosSeconds     = -9223372037 // with nanos >= 145224192
	maxNanosSeconds     = 9223372036  // with nanos <= 854775807
)

func (g *randGen) timestamp(m protoreflect.Message) {
	var secs, nanos int64
	switch g.cfg.Timestamps {
	case TimestampNanos:
		switch g.r.IntN(8) {
		case 0:
			secs, nanos = minNanosSeconds, 145224192+g.r.Int64N(1e9-145224192)
		case 1:
			secs, nanos = maxNanosSeconds, g.r.Int64N(854775807+1)
		case 2:
			secs, nanos = []int64{0, -1, 1}[g.r.IntN(3)], g.r.Int64N(1e9)
		default:
			secs, nanos = minNanosSeconds+1+g.r.Int64N(maxNanosSeconds-minNanosSeconds-1), g.r.Int64N(1e9)
		}
	default:
		switch g.r.IntN(6) {
		case 0:
			secs = []int64{minTimestampSeconds, maxTimestampSeconds, 0, -1, 1}[g.r.IntN(5)]
		case 1:
			secs = g.r.Int64N(1 << 31)
		default:
			secs = minTimestampSeconds + g.r.Int64N(maxTimestampSeconds-minTimestampSeconds+1)
		}
		switch {
		case g.chance(0.2):
			nanos = []int64{0, 999_999_999}[g.r.IntN(2)]
		default:
			nanos = g.r.Int64N(1e9)
		}
		switch {
		case g.cfg.Timestamps == TimestampMillis:
			nanos -= nanos % 1_000_000
		case !g.cfg.SubMicros:
			nanos -= nanos % 1_000
		}
	}
	fds := m.Descriptor().Fields()
	if secs != 0 || g.chance(0.5) {
		m.Set(fds.ByNumber(1), protoreflect.ValueOfInt64(secs))
	}
	if nanos != 0 || g.chance(0.5) {
		m.Set(fds.ByNumber(2), protoreflect.ValueOfInt32(int32(nanos)))
	}
}

// duration sets a valid Duration: |seconds| ≤ 315576000000, |nanos| < 1e9,
// and nanos of the same sign as seconds.
func (g *randGen) duration(m protoreflect.Message) {
	const maxSecs = 315576000000
	var secs int64
	switch g.r.IntN(4) {
	case 0:
		secs = []int64{0, 1, -1, maxSecs, -maxSecs}[g.r.IntN(5)]
	default:
		secs = g.r.Int64N(2*maxSecs+1) - maxSecs
	}
	nanos := int64(0)
	if g.chance(0.7) {
		nanos = g.r.Int64N(1e9)
		if secs < 0 || (secs == 0 && g.chance(0.5)) {
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

// TestRandMessageCoverage checks the generator itself: over a few hundred
// messages of each test type, every field (each oneof member, map and list
// included) is set at least once, and the edge values occur somewhere.
func TestRandMessageCoverage(t *testing.T) {
	edges := map[string]bool{}
	note := func(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
		switch fd.Kind() {
		case protoreflect.DoubleKind, protoreflect.FloatKind:
			f := v.Float()
			k := fd.Kind().String()
			switch {
			case math.IsNaN(f):
				edges[k+" NaN"] = true
			case f == 0 && math.Signbit(f):
				edges[k+" -0"] = true
			case math.IsInf(f, 1):
				edges[k+" +Inf"] = true
			case math.IsInf(f, -1):
				edges[k+" -Inf"] = true
			}
		case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
			if v.Int() == math.MinInt64 {
				edges["int64 min"] = true
			}
		case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
			if v.Int() == math.MinInt32 {
				edges["int32 min"] = true
			}
		case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
			if v.Uint() == math.MaxUint64 {
				edges["uint64 max"] = true
			}
		case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
			if v.Uint() == math.MaxUint32 {
				edges["uint32 max"] = true
			}
		case protoreflect.StringKind:
			if v.String() == "" {
				edges["empty string"] = true
			}
			for _, c := range v.String() {
				if c >= 0x10000 {
					edges["astral string"] = true
				}
			}
		case protoreflect.BytesKind:
			if len(v.Bytes()) >= 128 {
				edges["large bytes"] = true
			}
		case protoreflect.EnumKind:
			if v.Enum() < 0 {
				edges["negative enum"] = true
			}
		}
	}
	var walk func(m protoreflect.Message, d int)
	walk = func(m protoreflect.Message, d int) {
		if d >= defaultRandConfig.MaxDepth {
			edges["max depth"] = true
		}
		if m.Descriptor().FullName() == "google.protobuf.Timestamp" && m.Get(m.Descriptor().Fields().ByNumber(1)).Int() < 0 {
			edges["timestamp before 1970"] = true
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsMap():
				v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
					note(fd.MapKey(), k.Value())
					if fd.MapValue().Message() != nil {
						walk(mv.Message(), d+1)
					} else {
						note(fd.MapValue(), mv)
					}
					return true
				})
			case fd.IsList():
				for i := range v.List().Len() {
					if fd.Message() != nil {
						walk(v.List().Get(i).Message(), d+1)
					} else {
						note(fd, v.List().Get(i))
					}
				}
			case fd.Message() != nil:
				walk(v.Message(), d+1)
			default:
				note(fd, v)
			}
			return true
		})
	}
	for _, md := range testMessages() {
		seen := map[protoreflect.Name]bool{}
		key := seedKey("coverage/" + string(md.FullName()))
		for i := range 400 {
			m := randMessage(md, i%2 == 1, key, i, defaultRandConfig).ProtoReflect()
			if err := proto.CheckInitialized(m.Interface()); err != nil {
				t.Fatalf("%s: %v", md.FullName(), err)
			}
			m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
				seen[fd.Name()] = true
				return true
			})
			walk(m, 0)
		}
		for i := range md.Fields().Len() {
			if fd := md.Fields().Get(i); !seen[fd.Name()] {
				t.Errorf("%s: field %s never set", md.FullName(), fd.Name())
			}
		}
	}
	for _, e := range []string{"double NaN", "double -0", "double +Inf", "double -Inf", "float NaN", "float -0", "float +Inf", "float -Inf",
		"int64 min", "int32 min", "uint64 max", "uint32 max", "empty string", "astral string", "large bytes", "negative enum",
		"max depth", "timestamp before 1970"} {
		if !edges[e] {
			t.Errorf("no %s generated", e)
		}
	}
}

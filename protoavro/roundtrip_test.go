package protoavro

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testpb/legacypb"
	"github.com/protoavro/protoavro/internal/testutil"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// The randomized round-trip tests: under the default profile (and its
// option variants), protobuf → Avro → protobuf gives back a message that
// proto.Equal accepts and whose deterministic protobuf encoding is the
// original's byte for byte (so −0.0 and NaN payloads survive too), for every
// message type of the test protos and randomly generated contents. What the
// mapping cannot carry exactly is tested as documented further down.

// raceEnabled is set under the race detector (race_test.go).
var raceEnabled bool

// rtCount returns full, or short under -short, or a tenth of full under the
// race detector.
func rtCount(full, short int) int {
	if testing.Short() {
		return short
	}
	if raceEnabled {
		return full / 10 // the race detector makes the encoders ~10× slower
	}
	return full
}

// roundTripVariants are the option sets the random round trips run under.
var roundTripVariants = []struct {
	name        string
	opts        Options
	cfg         testutil.Config
	full, short int
}{
	{"default", Options{}, testutil.DefaultConfig, 10_000, 500},
	{"map-entries", Options{MapKeys: MapAsEntryArray}, testutil.DefaultConfig, 1_000, 100},
	{"uint64-decimal", Options{Uint64: Uint64AsDecimal}, testutil.DefaultConfig, 1_000, 100},
	{"timestamp-micros", Options{Timestamps: TimestampMicros}, withTimestamps(TimestampMicros), 1_000, 100},
	{"timestamp-record", Options{Timestamps: TimestampRecord}, withTimestamps(TimestampRecord), 1_000, 100},
	{"timestamp-millis", Options{Timestamps: TimestampMillis}, withTimestamps(TimestampMillis), 1_000, 100},
}

func withTimestamps(p TimestampPrecision) testutil.Config {
	c := testutil.DefaultConfig
	c.Timestamps = testutil.Precision(p)
	return c
}

func TestRoundTripRandom(t *testing.T) {
	for _, v := range roundTripVariants {
		for _, md := range testutil.Messages() {
			t.Run(v.name+"/"+string(md.FullName()), func(t *testing.T) {
				t.Parallel()
				runRoundTrips(t, v.opts, v.name, md, false, v.cfg, rtCount(v.full, v.short))
			})
		}
	}
}

// TestRoundTripRandomDynamic runs the same round trips on dynamicpb
// messages, which Marshal writes through the protobuf-wire transcoder rather
// than the direct writer of generated types (a fifth of the count: the
// transcoder is checked on every generated message too, through
// TranscodeToAvro).
func TestRoundTripRandomDynamic(t *testing.T) {
	mds := []protoreflect.MessageDescriptor{
		(&kitchenpb.KitchenSink{}).ProtoReflect().Descriptor(),
		(&legacypb.Legacy{}).ProtoReflect().Descriptor(),
		(&avro2147pb.Foo{}).ProtoReflect().Descriptor(),
	}
	for _, v := range roundTripVariants {
		for _, md := range mds {
			t.Run(v.name+"/"+string(md.FullName()), func(t *testing.T) {
				t.Parallel()
				runRoundTrips(t, v.opts, "dynamic/"+v.name, md, true, v.cfg, rtCount(v.full/5, v.short/5))
			})
		}
	}
}

// runRoundTrips checks n random messages of type md.
func runRoundTrips(t *testing.T, opts Options, variant string, md protoreflect.MessageDescriptor, dynamic bool, cfg testutil.Config, n int) {
	t.Helper()
	c := mustCodecFor(t, opts, md)
	key := testutil.SeedKey(variant + "/" + string(md.FullName()))
	reuse := testutil.NewMessage(md, dynamic) // Unmarshal resets it each time
	for i := range n {
		m := testutil.RandMessage(md, dynamic, key, i, cfg)
		if err := checkExactRoundTrip(c, m, reuse); err != nil {
			t.Fatalf("message %d (RandMessage seed key %#x, index %d): %v\nmessage:\n%s", i, key, i, err, shortText(m))
		}
	}
}

// checkExactRoundTrip checks that m survives Marshal/Unmarshal and both
// transcoders exactly. reuse is a message of m's type, possibly holding an
// earlier result. TranscodeToAvro gets the deterministic protobuf encoding:
// Marshal writes maps in key order, which plain proto.Marshal does not.
func checkExactRoundTrip(c *Codec, m, reuse proto.Message) error {
	wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return fmt.Errorf("proto.Marshal: %w", err)
	}
	data, err := c.Marshal(m)
	if err != nil {
		return fmt.Errorf("Marshal: %w", err)
	}
	tr, err := c.TranscodeToAvro([]byte("prefix"), wire)
	if err != nil {
		return fmt.Errorf("TranscodeToAvro: %w", err)
	}
	if !bytes.HasPrefix(tr, []byte("prefix")) || !bytes.Equal(tr[len("prefix"):], data) {
		return fmt.Errorf("TranscodeToAvro(proto.Marshal(m)) differs from Marshal(m):\n%x\n%x", tr, data)
	}
	if err := c.Unmarshal(data, reuse); err != nil {
		return fmt.Errorf("Unmarshal: %w", err)
	}
	if err := sameMessage(m, reuse, wire); err != nil {
		return fmt.Errorf("Unmarshal: %w", err)
	}
	back, err := c.TranscodeToProto(nil, data)
	if err != nil {
		return fmt.Errorf("TranscodeToProto: %w", err)
	}
	got := reuse.ProtoReflect().Type().New().Interface()
	if err := proto.Unmarshal(back, got); err != nil {
		return fmt.Errorf("proto.Unmarshal of TranscodeToProto: %w", err)
	}
	if !proto.Equal(m, got) { // the bytes are Unmarshal's, checked above
		return fmt.Errorf("TranscodeToProto: not proto.Equal: %s", firstDiff(m.ProtoReflect(), got.ProtoReflect(), ""))
	}
	// The wire bytes are those of deterministic proto.Marshal: fields in
	// number order, zero values of implicit fields omitted, maps in key order.
	if !bytes.Equal(back, wire) {
		return fmt.Errorf("TranscodeToProto bytes differ from deterministic proto.Marshal:\n%x\n%x", back, wire)
	}
	return nil
}

// sameMessage checks proto.Equal and, stricter, that got has the same
// deterministic encoding as want (wantWire), which also tells −0.0 from 0.0
// and one NaN from another.
func sameMessage(want, got proto.Message, wantWire []byte) error {
	if !proto.Equal(want, got) {
		return fmt.Errorf("not proto.Equal: %s\ngot:\n%s", firstDiff(want.ProtoReflect(), got.ProtoReflect(), ""), shortText(got))
	}
	gw, err := proto.MarshalOptions{Deterministic: true}.Marshal(got)
	if err != nil {
		return err
	}
	if !bytes.Equal(gw, wantWire) {
		return fmt.Errorf("proto.Equal, but the protobuf encodings differ:\nwant %x\ngot  %x", wantWire, gw)
	}
	return nil
}

func shortText(m proto.Message) string {
	s := prototext.Format(m)
	if len(s) > 4000 {
		s = s[:4000] + "\n…"
	}
	return s
}

// firstDiff describes the first field where a and b differ.
func firstDiff(a, b protoreflect.Message, path string) string {
	fds := a.Descriptor().Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		p := path + "." + string(fd.Name())
		if a.Has(fd) != b.Has(fd) {
			return fmt.Sprintf("%s: set %v, got set %v", p, a.Has(fd), b.Has(fd))
		}
		va, vb := a.Get(fd), b.Get(fd)
		switch {
		case fd.IsList():
			la, lb := va.List(), vb.List()
			if la.Len() != lb.Len() {
				return fmt.Sprintf("%s: %d elements, got %d", p, la.Len(), lb.Len())
			}
			for j := range la.Len() {
				if fd.Message() != nil {
					if d := firstDiff(la.Get(j).Message(), lb.Get(j).Message(), fmt.Sprintf("%s[%d]", p, j)); d != "" {
						return d
					}
				} else if !la.Get(j).Equal(lb.Get(j)) {
					return fmt.Sprintf("%s[%d]: %v, got %v", p, j, la.Get(j), lb.Get(j))
				}
			}
		case fd.IsMap():
			if !va.Equal(vb) {
				return fmt.Sprintf("%s: %v, got %v", p, va, vb)
			}
		case fd.Message() != nil:
			if d := firstDiff(va.Message(), vb.Message(), p); d != "" {
				return d
			}
		default:
			if !va.Equal(vb) {
				return fmt.Sprintf("%s: %v, got %v", p, va, vb)
			}
		}
	}
	if !bytes.Equal(a.GetUnknown(), b.GetUnknown()) {
		return path + ": unknown fields differ"
	}
	return ""
}

// TestMarshalDeterministic: equal messages give equal bytes, whatever the
// map iteration order: Marshal writes map entries in key order, not in Go's
// random order.
func TestMarshalDeterministic(t *testing.T) {
	m := &kitchenpb.Maps{
		Int32ToString:  map[int32]string{1: "a", 2: "b", 3: "c", 4: "d", 5: "e", -6: "f"},
		StringToString: map[string]string{"x": "1", "y": "2", "z": "3", "": "4", "é": "5"},
		BoolToBool:     map[bool]bool{true: false, false: true},
	}
	for _, o := range []Options{{}, {MapKeys: MapAsEntryArray}, {Profile: JavaProfile}} {
		c := mustCodecFor(t, o, m.ProtoReflect().Descriptor())
		wire := testutil.Wire(t, m)
		want, err := c.TranscodeToAvro(nil, wire)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			got, err := c.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%+v: Marshal #%d:\ngot  %x\nwant %x", o, i, got, want)
			}
		}
	}
}

// TestTimestampNanosRangeEdges: under TimestampNanos, the first and last
// instants a long of nanoseconds holds round-trip, and the next ones out
// fail with ErrOutOfRange; the last whole seconds at both ends of the range
// are written.
func TestTimestampNanosRangeEdges(t *testing.T) {
	c := mustCodec(t, Options{Timestamps: TimestampNanos}, &kitchenpb.WellKnown{})
	for _, ts := range []*timestamppb.Timestamp{
		{Seconds: testutil.MinNanosSeconds, Nanos: 145224192}, // 1677-09-21T00:12:43.145224192Z, math.MinInt64 ns
		{Seconds: testutil.MinNanosSeconds, Nanos: 999999999},
		{Seconds: testutil.MinNanosSeconds + 1},
		{Seconds: testutil.MinNanosSeconds + 1, Nanos: 999999999},
		{Seconds: testutil.MaxNanosSeconds - 1, Nanos: 999999999},
		{Seconds: testutil.MaxNanosSeconds},
		{Seconds: testutil.MaxNanosSeconds, Nanos: 854775807}, // 2262-04-11T23:47:16.854775807Z, math.MaxInt64 ns
	} {
		m := &kitchenpb.WellKnown{Timestamp: ts, RepeatedTimestamp: []*timestamppb.Timestamp{ts, ts}}
		if err := checkExactRoundTrip(c, m, &kitchenpb.WellKnown{}); err != nil {
			t.Errorf("%v: %v", ts, err)
		}
	}
	for _, ts := range []*timestamppb.Timestamp{
		{Seconds: testutil.MinNanosSeconds, Nanos: 145224191},
		{Seconds: testutil.MinNanosSeconds - 1, Nanos: 999999999},
		{Seconds: testutil.MaxNanosSeconds, Nanos: 854775808},
		{Seconds: testutil.MaxNanosSeconds + 1},
		{Seconds: math.MaxInt64},
		{Seconds: math.MinInt64},
	} {
		_, err := c.Marshal(&kitchenpb.WellKnown{Timestamp: ts})
		if !errors.Is(err, ErrOutOfRange) {
			t.Errorf("%v: got %v, want ErrOutOfRange", ts, err)
		}
	}
}

// TestTimestampFits compares timestampFits with exact arithmetic around the
// ends of the long range, for the three units.
func TestTimestampFits(t *testing.T) {
	for _, unit := range []int64{1_000, 1_000_000, 1_000_000_000} {
		lo, hi := math.MinInt64/unit, math.MaxInt64/unit
		for _, secs := range []int64{lo - 2, lo - 1, lo, lo + 1, -1, 0, 1, hi - 1, hi, hi + 1, math.MinInt64, math.MaxInt64} {
			for _, q := range []int64{0, 1, unit / 2, unit - 1, unit - (lo*unit - math.MinInt64), unit - (lo*unit - math.MinInt64) - 1, math.MaxInt64 - hi*unit, math.MaxInt64 - hi*unit + 1} {
				if q < 0 || q >= unit {
					continue
				}
				v := new(big.Int).Mul(big.NewInt(secs), big.NewInt(unit))
				v.Add(v, big.NewInt(q))
				want := v.IsInt64()
				if got := timestampFits(secs, q, unit); got != want {
					t.Errorf("timestampFits(%d, %d, %d) = %v, want %v", secs, q, unit, got, want)
				}
			}
		}
	}
}

// Documented lossy cases.

// TestRoundTripTimestampTruncation: a Timestamp finer than the precision is
// truncated toward negative infinity; nanos stays in [0, 1e9), so only nanos
// changes (docs/mapping.md, 2.2).
func TestRoundTripTimestampTruncation(t *testing.T) {
	cases := []struct {
		prec         TimestampPrecision
		secs         int64
		nanos, wantN int32
	}{
		{TimestampMicros, 0, 1, 0},
		{TimestampMicros, 0, 999, 0},
		{TimestampMicros, 0, 1999, 1000},
		{TimestampMicros, 1, 999_999_999, 999_999_000},
		{TimestampMicros, -1, 500, 0},                   // −0.9999995 s → −1.000000 s
		{TimestampMicros, -1, 999_999_999, 999_999_000}, // −1 ns → −1 µs
		{TimestampMicros, testutil.MinTimestampSeconds, 1, 0},
		{TimestampMicros, testutil.MaxTimestampSeconds, 999_999_999, 999_999_000},
		{TimestampMillis, 5, 1_999_999, 1_000_000},
		{TimestampMillis, -5, 999_999, 0},
		{TimestampMillis, testutil.MaxTimestampSeconds, 999_999_999, 999_000_000},
		{TimestampNanos, -1, 1, 1}, // exact
	}
	for _, tc := range cases {
		c := mustCodec(t, Options{Timestamps: tc.prec}, &kitchenpb.WellKnown{})
		ts := &timestamppb.Timestamp{Seconds: tc.secs, Nanos: tc.nanos}
		m := &kitchenpb.WellKnown{
			Timestamp:         ts,
			RepeatedTimestamp: []*timestamppb.Timestamp{ts},
			MapTimestamp:      map[string]*timestamppb.Timestamp{"k": ts},
			Choice:            &kitchenpb.WellKnown_OneofTimestamp{OneofTimestamp: ts},
		}
		data, err := c.Marshal(m)
		if err != nil {
			t.Fatalf("%v %v: %v", tc.prec, ts, err)
		}
		got := &kitchenpb.WellKnown{}
		if err := c.Unmarshal(data, got); err != nil {
			t.Fatal(err)
		}
		want := &timestamppb.Timestamp{Seconds: tc.secs, Nanos: tc.wantN}
		for _, g := range []*timestamppb.Timestamp{got.Timestamp, got.RepeatedTimestamp[0], got.MapTimestamp["k"], got.GetOneofTimestamp()} {
			if !proto.Equal(g, want) {
				t.Errorf("%v: %v decodes as %v, want %v", tc.prec, ts, g, want)
			}
		}
	}
}

// TestRoundTripTimestampTruncationRandom: random messages whose Timestamps
// have any nanos decode, under micros, as the same message with every
// Timestamp truncated to the microsecond.
func TestRoundTripTimestampTruncationRandom(t *testing.T) {
	cfg := testutil.DefaultConfig
	cfg.Timestamps, cfg.SubMicros = testutil.Micros, true
	checkAdjustedRoundTrips(t, adjustedRoundTrips{
		seed: "submicros/", cfg: cfg, opts: Options{Timestamps: TimestampMicros},
		types:  []proto.Message{&kitchenpb.KitchenSink{}, &kitchenpb.WellKnown{}},
		adjust: func(m protoreflect.Message) bool { return truncateTimestamps(m, 1000) },
		what:   "a sub-microsecond Timestamp",
	})
}

// adjustedRoundTrips are random messages that a codec reads back as
// adjusted copies of themselves.
type adjustedRoundTrips struct {
	seed  string          // the SeedKey prefix, followed by the type's name
	cfg   testutil.Config // of the random messages
	opts  Options         // of the codec that writes and reads them
	types []proto.Message
	// adjust turns a copy of a message into what opts reads back and
	// reports whether it changed it; what says, for the error when it
	// changes none, what it adjusts.
	adjust func(protoreflect.Message) bool
	what   string
	// each, if not nil, checks message i (adjusted: whether adjust changed
	// it) before its round trip.
	each func(typ proto.Message, i int, m proto.Message, adjusted bool)
}

// checkAdjustedRoundTrips round-trips rtCount(1000, 100) random messages of
// each of a's types through a.opts' codec: each must read back as its
// adjusted copy, and adjust must change at least one.
func checkAdjustedRoundTrips(t *testing.T, a adjustedRoundTrips) {
	t.Helper()
	for _, typ := range a.types {
		md := typ.ProtoReflect().Descriptor()
		c := mustCodec(t, a.opts, typ)
		key := testutil.SeedKey(a.seed + string(md.FullName()))
		changed := 0
		for i := range rtCount(1000, 100) {
			m := testutil.RandMessage(md, false, key, i, a.cfg)
			want := testutil.CloneExact(m)
			adjusted := a.adjust(want.ProtoReflect())
			if adjusted {
				changed++
			}
			if a.each != nil {
				a.each(typ, i, m, adjusted)
			}
			if err := roundTripsTo(c, m, want); err != nil {
				t.Fatalf("%s message %d: %v", md.FullName(), i, err)
			}
		}
		if changed == 0 {
			t.Errorf("%s: no message had %s", md.FullName(), a.what)
		}
	}
}

// roundTripsTo checks that m, marshaled and unmarshaled with c, is want;
// the error says where they differ.
func roundTripsTo(c *Codec, m, want proto.Message) error {
	got, err := codecRoundTrip(c, m)
	if err != nil {
		return err
	}
	if !proto.Equal(got, want) {
		return errors.New(firstDiff(want.ProtoReflect(), got.ProtoReflect(), ""))
	}
	return nil
}

// truncateTimestamps truncates the nanos of every Timestamp in m to a
// multiple of per and reports whether one changed.
func truncateTimestamps(m protoreflect.Message, per int32) bool {
	if m.Descriptor().FullName() == "google.protobuf.Timestamp" {
		fd := m.Descriptor().Fields().ByNumber(2)
		n := int32(m.Get(fd).Int())
		if n%per == 0 {
			return false
		}
		m.Set(fd, protoreflect.ValueOfInt32(n-n%per))
		return true
	}
	changed := false
	testutil.WalkMessages(m, func(sub protoreflect.Message) {
		if truncateTimestamps(sub, per) {
			changed = true
		}
	})
	return changed
}

// TestRoundTripUnknownFieldsDropped: unknown fields (and extensions) have no
// place in the schema and are dropped, at every level.
func TestRoundTripUnknownFieldsDropped(t *testing.T) {
	var unknown []byte
	unknown = protowire.AppendVarint(protowire.AppendTag(unknown, 5000, protowire.VarintType), 42)
	unknown = protowire.AppendBytes(protowire.AppendTag(unknown, 150, protowire.BytesType), []byte("reserved number"))
	unknown = protowire.AppendFixed32(protowire.AppendTag(unknown, 5002, protowire.Fixed32Type), 7)
	unknown = protowire.AppendFixed64(protowire.AppendTag(unknown, 5003, protowire.Fixed64Type), 8)
	unknown = protowire.AppendTag(unknown, 5004, protowire.StartGroupType)
	unknown = protowire.AppendVarint(protowire.AppendTag(unknown, 1, protowire.VarintType), 1)
	unknown = protowire.AppendTag(unknown, 5004, protowire.EndGroupType)

	for _, md := range []protoreflect.MessageDescriptor{
		(&kitchenpb.KitchenSink{}).ProtoReflect().Descriptor(),
		(&legacypb.Legacy{}).ProtoReflect().Descriptor(),
		(&avro2147pb.Foo{}).ProtoReflect().Descriptor(),
	} {
		for _, dynamic := range []bool{false, true} {
			c := mustCodecFor(t, Options{}, md)
			key := testutil.SeedKey("unknown/" + string(md.FullName()))
			for i := range rtCount(300, 30) {
				want := testutil.RandMessage(md, dynamic, key, i, testutil.DefaultConfig)
				m := testutil.CloneExact(want)
				addUnknown(m.ProtoReflect(), unknown)
				if proto.Equal(m, want) {
					t.Fatal("unknown fields were not added")
				}
				wantData, err := c.Marshal(want)
				if err != nil {
					t.Fatal(err)
				}
				data, err := c.Marshal(m)
				if err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
				if !bytes.Equal(data, wantData) {
					t.Fatalf("message %d: unknown fields changed the Avro data", i)
				}
				wire := testutil.Wire(t, m)
				if tr, err := c.TranscodeToAvro(nil, wire); err != nil || !bytes.Equal(tr, wantData) {
					t.Fatalf("message %d: TranscodeToAvro: %v", i, err)
				}
				got := testutil.NewMessage(md, dynamic)
				if err := c.Unmarshal(data, got); err != nil {
					t.Fatal(err)
				}
				if !proto.Equal(got, want) {
					t.Fatalf("message %d: %s", i, firstDiff(want.ProtoReflect(), got.ProtoReflect(), ""))
				}
			}
		}
	}

	// Extensions are dropped the same way.
	ext := &legacypb.Extendable{Base: proto.String("b")}
	proto.SetExtension(ext, legacypb.E_ExtInt32, int32(5))
	proto.SetExtension(ext, legacypb.E_ExtMessage, &legacypb.ExtPayload{Text: proto.String("t")})
	proto.SetExtension(ext, legacypb.E_ExtRepeated, []int64{1, 2})
	proto.SetExtension(ext, legacypb.E_ExtensionHolder_NestedFlag, true)
	got, err := codecRoundTrip(mustCodec(t, Options{}, ext), ext)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, &legacypb.Extendable{Base: proto.String("b")}) {
		t.Errorf("extensions: got %v", got)
	}
}

// addUnknown appends raw unknown fields to m and to every message it holds.
func addUnknown(m protoreflect.Message, raw []byte) {
	testutil.WalkMessages(m, func(sub protoreflect.Message) { addUnknown(sub, raw) })
	m.SetUnknown(append(m.GetUnknown(), raw...))
}

// TestRoundTripUnknownEnums: an enum number without a value (open enums
// only) fails under the default policy, with the field and the number in the
// message; under UnknownEnumDefault it becomes the enum's first value (the
// proto3 zero value).
func TestRoundTripUnknownEnums(t *testing.T) {
	cases := []struct {
		m     proto.Message
		field string
		want  proto.Message // under UnknownEnumDefault
	}{
		{&kitchenpb.KitchenSink{Color: 7}, "KitchenSink.color", &kitchenpb.KitchenSink{}},
		{&kitchenpb.KitchenSink{Status: -100, Id: "x"}, "KitchenSink.status", &kitchenpb.KitchenSink{Id: "x"}},
		{&kitchenpb.OptionalScalars{EnumField: kitchenpb.Color(3).Enum()}, "OptionalScalars.enum_field",
			&kitchenpb.OptionalScalars{EnumField: kitchenpb.Color_COLOR_UNSPECIFIED.Enum()}},
		{&kitchenpb.Repeateds{PackedEnum: []kitchenpb.Color{1, 4, 5}}, "Repeateds.packed_enum[1]",
			&kitchenpb.Repeateds{PackedEnum: []kitchenpb.Color{1, 0, 5}}},
		{&kitchenpb.Repeateds{UnpackedEnum: []kitchenpb.Color{math.MaxInt32}}, "Repeateds.unpacked_enum[0]",
			&kitchenpb.Repeateds{UnpackedEnum: []kitchenpb.Color{0}}},
		{&kitchenpb.Maps{StringToEnum: map[string]kitchenpb.Color{"k": 6}}, "Maps.string_to_enum",
			&kitchenpb.Maps{StringToEnum: map[string]kitchenpb.Color{"k": 0}}},
		{&kitchenpb.Maps{Sint64ToEnum: map[int64]kitchenpb.Color{-1: 6}}, "Maps.sint64_to_enum",
			&kitchenpb.Maps{Sint64ToEnum: map[int64]kitchenpb.Color{-1: 0}}},
		{&kitchenpb.Oneofs{Mixed: &kitchenpb.Oneofs_EnumChoice{EnumChoice: 99}}, "Oneofs.enum_choice",
			&kitchenpb.Oneofs{Mixed: &kitchenpb.Oneofs_EnumChoice{EnumChoice: 0}}},
		{&kitchenpb.KitchenSink{Outer: &kitchenpb.Outer{Middle: &kitchenpb.Outer_Middle{MiddleEnum: 4}}}, "KitchenSink.outer.middle.middle_enum",
			&kitchenpb.KitchenSink{Outer: &kitchenpb.Outer{Middle: &kitchenpb.Outer_Middle{}}}},
		{&kitchenpb.WellKnown{Value: &structpb.Value{Kind: &structpb.Value_NullValue{NullValue: 1}}}, "WellKnown.value.null_value",
			&kitchenpb.WellKnown{Value: structpb.NewNullValue()}},
	}
	for _, tc := range cases {
		md := tc.m.ProtoReflect().Descriptor()
		c := mustCodecFor(t, Options{}, md)
		_, err := c.Marshal(tc.m)
		wire, _ := proto.Marshal(tc.m)
		_, terr := c.TranscodeToAvro(nil, wire)
		for _, err := range []error{err, terr} {
			if !errors.Is(err, ErrUnknownEnum) {
				t.Errorf("%v: got %v, want ErrUnknownEnum", tc.m, err)
				continue
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("%v: error %q does not name the field %s", tc.m, err, tc.field)
			}
		}
		dc := mustCodecFor(t, Options{UnknownEnums: UnknownEnumDefault}, md)
		data, err := dc.Marshal(tc.m)
		if err != nil {
			t.Fatalf("%v: UnknownEnumDefault: %v", tc.m, err)
		}
		got := tc.m.ProtoReflect().Type().New().Interface()
		if err := dc.Unmarshal(data, got); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(got, tc.want) {
			t.Errorf("%v: UnknownEnumDefault decodes as %v, want %v", tc.m, got, tc.want)
		}
	}

	// Under the Java profile the enum schema of a proto2 field with an
	// explicit default names that default, and UnknownEnumDefault writes it,
	// on the struct path and on the wire path alike.
	jc := mustCodec(t, Options{Profile: JavaProfile, UnknownEnums: UnknownEnumDefault}, &legacypb.Defaults{})
	unknown := &legacypb.Defaults{EnumDefault: legacypb.Level(77).Enum(), NestedEnumDefault: legacypb.Legacy_Kind(-9).Enum()}
	if js := string(jc.Schema().root.JSON()); !strings.Contains(js, `"default":"LEVEL_HIGH"`) {
		t.Fatalf("schema %s: the enum default is not LEVEL_HIGH", js)
	}
	viaWire, err := jc.TranscodeToAvro(nil, testutil.Wire(t, unknown))
	if err != nil {
		t.Fatal(err)
	}
	viaStruct, err := jc.Marshal(unknown)
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{viaStruct, viaWire} {
		var got legacypb.Defaults
		if err := jc.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if got.GetEnumDefault() != legacypb.Level_LEVEL_HIGH || got.GetNestedEnumDefault() != legacypb.Legacy_KIND_C {
			t.Errorf("Java profile, UnknownEnumDefault: read %v and %v, want the fields' defaults LEVEL_HIGH and KIND_C", got.GetEnumDefault(), got.GetNestedEnumDefault())
		}
	}

	// The number appears in the message.
	c := mustCodec(t, Options{}, &kitchenpb.KitchenSink{})
	if _, err := c.Marshal(&kitchenpb.KitchenSink{Color: 1234567}); err == nil || !strings.Contains(err.Error(), "1234567") {
		t.Errorf("error %v does not give the number 1234567", err)
	}

	// Random messages with unknown numbers in their open enums.
	// The default codec refuses them; UnknownEnumDefault reads them back
	// with each unknown number replaced.
	cfg := testutil.DefaultConfig
	cfg.UnknownEnums = true
	refusing := map[protoreflect.FullName]*Codec{}
	checkAdjustedRoundTrips(t, adjustedRoundTrips{
		seed: "unknown-enums/", cfg: cfg, opts: Options{UnknownEnums: UnknownEnumDefault},
		types:  []proto.Message{&kitchenpb.KitchenSink{}, &kitchenpb.Repeateds{}, &kitchenpb.Maps{}, &kitchenpb.WellKnown{}},
		adjust: replaceUnknownEnums,
		what:   "an unknown enum number",
		each: func(typ proto.Message, i int, m proto.Message, has bool) {
			name := typ.ProtoReflect().Descriptor().FullName()
			if refusing[name] == nil {
				refusing[name] = mustCodec(t, Options{}, typ)
			}
			_, err := refusing[name].Marshal(m)
			switch {
			case has:
				if !errors.Is(err, ErrUnknownEnum) {
					t.Fatalf("message %d: got %v, want ErrUnknownEnum", i, err)
				}
			case err != nil:
				t.Fatalf("message %d: %v", i, err)
			}
		},
	})
}

// replaceUnknownEnums replaces every enum number of m that has no value by
// the enum's first value, and reports whether there was one.
func replaceUnknownEnums(m protoreflect.Message) bool {
	found := false
	fix := func(ed protoreflect.EnumDescriptor, v protoreflect.Value) (protoreflect.Value, bool) {
		if ed.Values().ByNumber(v.Enum()) != nil {
			return v, false
		}
		found = true
		return protoreflect.ValueOfEnum(ed.Values().Get(0).Number()), true
	}
	type set struct {
		fd protoreflect.FieldDescriptor
		v  protoreflect.Value
	}
	var sets []set
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if ed := fd.MapValue().Enum(); ed != nil {
				mp := v.Map()
				var keys []protoreflect.MapKey
				mp.Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
					keys = append(keys, k)
					return true
				})
				for _, k := range keys {
					if nv, ok := fix(ed, mp.Get(k)); ok {
						mp.Set(k, nv)
					}
				}
			}
		case fd.IsList():
			if ed := fd.Enum(); ed != nil {
				l := v.List()
				for i := range l.Len() {
					if nv, ok := fix(ed, l.Get(i)); ok {
						l.Set(i, nv)
					}
				}
			}
		case fd.Enum() != nil:
			if nv, ok := fix(fd.Enum(), v); ok {
				sets = append(sets, set{fd, nv})
			}
		}
		return true
	})
	for _, s := range sets {
		m.Set(s.fd, s.v)
	}
	testutil.WalkMessages(m, func(sub protoreflect.Message) {
		if replaceUnknownEnums(sub) {
			found = true
		}
	})
	return found
}

// TestRoundTripMissingRequired: a proto2 required field that is not set
// fails with ErrMissingRequired and its path, at any depth, for generated
// and dynamicpb messages alike (for a dynamicpb message too, the error
// wraps the class, not only proto.Marshal's error).
func TestRoundTripMissingRequired(t *testing.T) {
	full := func() *legacypb.Required {
		return &legacypb.Required{Id: proto.Int32(1), Name: proto.String("n"), Level: legacypb.Level_LEVEL_HIGH.Enum(),
			Inner: &legacypb.Legacy_Inner{}, Count: proto.Int64(10)}
	}
	noInner := full()
	noInner.Inner = nil
	noCount := full()
	noCount.Count = nil
	cases := []struct {
		m    proto.Message
		path string
	}{
		{&legacypb.Required{}, "Required.id"},
		{noCount, "Required.count"},
		{&legacypb.Legacy{Required: noInner}, "Legacy.required.inner"},
		{&legacypb.WithGroups{Item: []*legacypb.WithGroups_Item{{Key: proto.String("k")}, {Value: proto.Int64(1)}}}, "WithGroups.item[1].key"},
		{&legacypb.Legacy{Groups: &legacypb.WithGroups{Item: []*legacypb.WithGroups_Item{{}}}}, "Legacy.groups.item[0].key"},
	}
	if err := checkExactRoundTrip(mustCodec(t, Options{}, full()), full(), &legacypb.Required{}); err != nil {
		t.Fatalf("complete message: %v", err)
	}
	for _, o := range []Options{{}, {Profile: JavaProfile}} {
		for _, tc := range cases {
			c := mustCodec(t, o, tc.m)
			wire, err := proto.MarshalOptions{AllowPartial: true}.Marshal(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			dyn := dynamicpb.NewMessage(tc.m.ProtoReflect().Descriptor())
			if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(wire, dyn); err != nil {
				t.Fatal(err)
			}
			_, errGen := c.Marshal(tc.m)
			_, errDyn := c.Marshal(dyn)
			_, errTr := c.TranscodeToAvro(nil, wire)
			for i, err := range []error{errGen, errDyn, errTr} {
				what := []string{"Marshal", "Marshal of dynamicpb", "TranscodeToAvro"}[i]
				if !errors.Is(err, ErrMissingRequired) {
					t.Errorf("%v: %s of %v: got %v, want ErrMissingRequired", o.Profile, what, tc.m, err)
				} else if !strings.Contains(err.Error(), tc.path) {
					t.Errorf("%v: %s: error %q does not name %s", o.Profile, what, err, tc.path)
				}
			}
		}
	}
}

// TestRoundTripInvalidUTF8 documents that string fields must hold valid
// UTF-8 even in proto2, where protobuf-go does not check it: the Avro string
// type is UTF-8 text.
func TestRoundTripInvalidUTF8(t *testing.T) {
	m := &legacypb.Legacy{Strings: []string{"ok", "\xff\xfe"}}
	c := mustCodec(t, Options{}, m)
	if _, err := c.Marshal(m); !errors.Is(err, ErrMalformed) {
		t.Errorf("got %v, want ErrMalformed", err)
	}
}

// TestRoundTripJavaProfile: under the Java profile the round trip is exact
// up to presence: a field set to its default (the explicit proto2 default,
// else the zero value) decodes as unset, and an unset one as unset.
func TestRoundTripJavaProfile(t *testing.T) {
	for _, md := range testutil.Messages() {
		for _, dynamic := range []bool{false, true} {
			name := string(md.FullName())
			if dynamic {
				name = "dynamic/" + name
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				c := mustCodecFor(t, Options{Profile: JavaProfile}, md)
				key := testutil.SeedKey("java/" + name)
				n := rtCount(1000, 100)
				if dynamic {
					n /= 5
				}
				for i := range n {
					m := testutil.RandMessage(md, dynamic, key, i, testutil.DefaultConfig)
					if err := checkJavaRoundTrip(c, m); err != nil {
						t.Fatalf("message %d (seed key %#x, index %d): %v\nmessage:\n%s", i, key, i, err, shortText(m))
					}
				}
			})
		}
	}
}

func checkJavaRoundTrip(c *Codec, m proto.Message) error {
	wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return err
	}
	data, err := c.Marshal(m)
	if err != nil {
		return fmt.Errorf("Marshal: %w", err)
	}
	if tr, err := c.TranscodeToAvro(nil, wire); err != nil || !bytes.Equal(tr, data) {
		return fmt.Errorf("TranscodeToAvro(proto.Marshal(m)) differs from Marshal(m) (%v)", err)
	}
	got := m.ProtoReflect().Type().New().Interface()
	if err := c.Unmarshal(data, got); err != nil {
		return fmt.Errorf("Unmarshal: %w", err)
	}
	want := testutil.CloneExact(m)
	testutil.ClearDefaults(want.ProtoReflect())
	testutil.NullEmptyValues(want.ProtoReflect())
	if !proto.Equal(got, want) {
		return fmt.Errorf("%s\ngot:\n%s", firstDiff(want.ProtoReflect(), got.ProtoReflect(), ""), shortText(got))
	}
	return nil
}

// TestRoundTripWrappersInLists: a wrapper in a list or map cannot be null in
// Avro; an empty wrapper decodes as a wrapper holding the zero value, which
// proto.Equal accepts (the field has no presence).
func TestRoundTripWrappersInLists(t *testing.T) {
	m := &kitchenpb.WellKnown{
		RepeatedStringWrapper: []*wrapperspb.StringValue{{}, {Value: "x"}},
		MapBoolWrapper:        map[string]*wrapperspb.BoolValue{"a": {}},
		DoubleWrapper:         &wrapperspb.DoubleValue{},
	}
	if err := checkExactRoundTrip(mustCodec(t, Options{}, m), m, &kitchenpb.WellKnown{}); err != nil {
		t.Error(err)
	}
}

// TestUint64DecimalMapKeys: under Uint64AsDecimal, uint64 and fixed64 map
// keys are written as decimal text, which the reader reads back, not as
// empty strings.
func TestUint64DecimalMapKeys(t *testing.T) {
	m := &kitchenpb.Maps{
		Uint64ToUint64:        map[uint64]uint64{math.MaxUint64: 1, 0: math.MaxUint64, 1 << 63: 2},
		Fixed64ToFixed64:      map[uint64]uint64{math.MaxUint64 - 1: 3},
		Uint64ToNestedMessage: map[uint64]*kitchenpb.Outer_Middle{12345678901234567890: {}},
	}
	c := mustCodec(t, Options{Uint64: Uint64AsDecimal}, m)
	if err := checkExactRoundTrip(c, m, &kitchenpb.Maps{}); err != nil {
		t.Fatal(err)
	}
	data, err := c.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"18446744073709551615", "9223372036854775808", "18446744073709551614", "12345678901234567890"} {
		if !bytes.Contains(data, []byte(k)) {
			t.Errorf("key %s is not in the Avro data %x", k, data)
		}
	}
}

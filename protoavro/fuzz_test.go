package protoavro

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testpb/legacypb"
	"github.com/protoavro/protoavro/internal/testutil"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The fuzz targets feed arbitrary bytes to the codecs of a few message types
// under both profiles. Their seeds (the Java reference datums, datums of
// pseudo-randomly populated messages, and truncations and bit flips of them)
// run under plain `go test`; run a target longer with, for example,
//
//	go test -run '^$' -fuzz FuzzTranscodeToAvro -fuzztime 60s ./protoavro
//
// Inputs that found bugs are kept in testdata/fuzz/<FuzzName>/.

// fuzzCodec is one codec under test and a constructor of its message type.
type fuzzCodec struct {
	name string
	c    *Codec
	new  func() proto.Message
}

// checkViaWire decodes the Avro datum data through TranscodeToProto and
// proto.Unmarshal, and checks that both succeed with the message m that
// Unmarshal decoded from data. It returns the message decoded via the wire.
func (fc fuzzCodec) checkViaWire(t *testing.T, data []byte, m proto.Message) proto.Message {
	t.Helper()
	wire, err := fc.c.TranscodeToProto(nil, data)
	if err != nil {
		t.Fatalf("%s: Unmarshal succeeded, TranscodeToProto of %x failed: %v", fc.name, data, err)
	}
	viaWire := fc.new()
	if err := proto.Unmarshal(wire, viaWire); err != nil {
		t.Fatalf("%s: proto.Unmarshal of TranscodeToProto output %x: %v", fc.name, wire, err)
	}
	if !proto.Equal(m, viaWire) {
		t.Fatalf("%s: Unmarshal and TranscodeToProto disagree:\n%v\n%v", fc.name, m, viaWire)
	}
	return viaWire
}

var (
	fuzzCodecsOnce sync.Once
	fuzzCodecsAll  []fuzzCodec
	fuzzCodecsErr  error
)

// fuzzCodecs returns codecs of avro2147.Foo, kitchen.KitchenSink and
// legacy.Legacy under both profiles, plus KitchenSink under the non-default
// mapping options.
func fuzzCodecs(t testing.TB) []fuzzCodec {
	t.Helper()
	fuzzCodecsOnce.Do(func() {
		add := func(name string, o Options, m proto.Message) {
			if fuzzCodecsErr != nil {
				return
			}
			c, err := o.Codec(m.ProtoReflect().Descriptor())
			if err != nil {
				fuzzCodecsErr = err
				return
			}
			fuzzCodecsAll = append(fuzzCodecsAll, fuzzCodec{name: name, c: c, new: func() proto.Message {
				return m.ProtoReflect().New().Interface()
			}})
		}
		java := Options{Profile: JavaProfile}
		add("Foo/default", Options{}, &avro2147pb.Foo{})
		add("Foo/java", java, &avro2147pb.Foo{})
		add("KitchenSink/default", Options{}, &kitchenpb.KitchenSink{})
		add("KitchenSink/java", java, &kitchenpb.KitchenSink{})
		add("KitchenSink/variant", Options{Uint64: Uint64AsDecimal, MapKeys: MapAsEntryArray, Timestamps: TimestampNanos}, &kitchenpb.KitchenSink{})
		add("Legacy/default", Options{}, &legacypb.Legacy{})
		add("Legacy/java", java, &legacypb.Legacy{})
	})
	if fuzzCodecsErr != nil {
		t.Fatal(fuzzCodecsErr)
	}
	return fuzzCodecsAll
}

// readCodecs are the codecs FuzzUnmarshal and FuzzTranscodeToProto read
// with: Foo and KitchenSink under both profiles.
func readCodecs(t testing.TB) []fuzzCodec {
	var out []fuzzCodec
	for _, fc := range fuzzCodecs(t) {
		switch fc.name {
		case "Foo/default", "Foo/java", "KitchenSink/default", "KitchenSink/java":
			out = append(out, fc)
		}
	}
	return out
}

// sampleConfig makes small random messages (testutil's generator) that
// every codec can marshal: enum values are valid, strings valid UTF-8 and
// timestamps whole microseconds.
var sampleConfig = testutil.Config{MaxDepth: 3, MaxLen: 3}

// sampleMessages returns n random messages of the type of m.
func sampleMessages(m proto.Message, n int) []proto.Message {
	md := m.ProtoReflect().Descriptor()
	out := make([]proto.Message, n)
	for i := range out {
		out[i] = testutil.RandMessage(md, false, testutil.SeedKey("sample/"+string(md.FullName())), i, sampleConfig)
	}
	return out
}

// sampleFoo is a populated avro2147.Foo with nested records, used by the
// bad-input tests to know the layout.
func sampleFoo() *avro2147pb.Foo {
	return &avro2147pb.Foo{
		Int32:    proto.Int32(7),
		String_:  proto.String("héllo"),
		Enum:     avro2147pb.A_Y.Enum(),
		IntArray: []int32{1, -2, 300},
		FooArray: []*avro2147pb.Foo{{Int32: proto.Int32(1)}, {Int32: proto.Int32(2), String_: proto.String("x")}},
		Syms:     []avro2147pb.A{avro2147pb.A_X, avro2147pb.A_Z},
		Foo:      &avro2147pb.Foo{Int32: proto.Int32(3), Bytes: []byte{0, 1, 2}},
		Bar:      &avro2147pb.MessageWithLargeEnum{Enum: avro2147pb.LargeEnum_ZZ.Enum()},
	}
}

// mutations returns b with truncations and single-bit flips of it, spread
// over its length.
func mutations(b []byte) [][]byte {
	out := [][]byte{b}
	if len(b) == 0 {
		return out
	}
	for _, n := range []int{0, 1, len(b) / 3, len(b) / 2, len(b) - 1} {
		if n < len(b) {
			out = append(out, b[:n:n])
		}
	}
	for k := 0; k < 4; k++ {
		i := (k*len(b))/4 + k%len(b)
		if i >= len(b) {
			i = len(b) - 1
		}
		c := append([]byte(nil), b...)
		c[i] ^= 1 << (k * 3 % 8)
		out = append(out, c)
	}
	return out
}

// seedMessages are the messages whose encodings seed the fuzz targets.
func seedMessages() []proto.Message {
	msgs := []proto.Message{sampleFoo(), &kitchenpb.KitchenSink{}, &legacypb.Legacy{}}
	msgs = append(msgs, sampleMessages(&avro2147pb.Foo{}, 2)...)
	msgs = append(msgs, sampleMessages(&kitchenpb.KitchenSink{}, 3)...)
	msgs = append(msgs, sampleMessages(&legacypb.Legacy{}, 2)...)
	return msgs
}

// addAvroSeeds adds the Java reference datums and the Avro encodings of the
// seed messages under every read codec, with mutations.
func addAvroSeeds(f *testing.F) {
	for _, d := range readJavaDatums(f) {
		for _, b := range mutations(d.Avro) {
			f.Add(b)
		}
	}
	codecs := readCodecs(f)
	for _, m := range seedMessages() {
		for _, fc := range codecs {
			if fc.c.Schema().Descriptor() != m.ProtoReflect().Descriptor() {
				continue
			}
			b, err := fc.c.Marshal(m)
			if err != nil {
				f.Fatalf("%s: Marshal: %v", fc.name, err)
			}
			for _, mb := range mutations(b) {
				f.Add(mb)
			}
		}
	}
}

// addWireSeeds adds the protobuf encodings of the Java reference datums and
// of the seed messages, with mutations.
func addWireSeeds(f *testing.F) {
	for _, d := range readJavaDatums(f) {
		for _, b := range mutations(d.Proto) {
			f.Add(b)
		}
	}
	var prev []byte
	for _, m := range seedMessages() {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		for _, mb := range mutations(b) {
			f.Add(mb)
		}
		// Two encodings of one type, concatenated, are a merge: repeated
		// occurrences of message fields, oneof members replacing each other.
		if len(prev) > 0 {
			f.Add(append(append([]byte(nil), prev...), b...))
		}
		prev = b
	}
}

// dataErrorClasses are the classes a DataError may wrap.
var dataErrorClasses = []error{ErrTruncated, ErrMalformed, ErrUnknownEnum, ErrOutOfRange, ErrMissingRequired, ErrTooDeep, ErrIncompatible}

// checkDataError fails unless err is a *DataError of a known class, with a
// path that starts at the top-level record and an offset inside the input.
func checkDataError(t *testing.T, what string, err error, c *Codec, input []byte) {
	t.Helper()
	var de *DataError
	if !errors.As(err, &de) {
		t.Fatalf("%s: error is not a *DataError: %v", what, err)
	}
	known := false
	for _, class := range dataErrorClasses {
		if errors.Is(err, class) {
			known = true
		}
	}
	if !known {
		t.Errorf("%s: error of no known class: %v", what, err)
	}
	name := string(c.Schema().Descriptor().Name())
	if len(de.Path) < len(name) || de.Path[:len(name)] != name {
		t.Errorf("%s: path %q does not start at %s: %v", what, de.Path, name, err)
	}
	if de.Offset < 0 || de.Offset > len(input) {
		t.Errorf("%s: offset %d outside the %d-byte input: %v", what, de.Offset, len(input), err)
	}
}

// hasUnknown reports whether m or any message in it has unknown fields.
func hasUnknown(m protoreflect.Message) bool {
	found := len(m.GetUnknown()) > 0
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		testutil.ForEachMessage(fd, v, func(sub protoreflect.Message) {
			found = found || hasUnknown(sub)
		})
		return !found
	})
	return found
}

// FuzzUnmarshal decodes arbitrary bytes as Avro datums of Foo and
// KitchenSink under both profiles. Bad input must fail with a *DataError;
// good input must decode the same through TranscodeToProto, and the decoded
// message must marshal and decode back to itself.
func FuzzUnmarshal(f *testing.F) {
	addAvroSeeds(f)
	codecs := readCodecs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, fc := range codecs {
			m := fc.new()
			err := fc.c.Unmarshal(data, m)
			if err != nil {
				checkDataError(t, fc.name+": Unmarshal", err, fc.c, data)
				continue
			}
			fc.checkViaWire(t, data, m)
			again, err := fc.c.Marshal(m)
			if err != nil {
				t.Fatalf("%s: Marshal of a decoded datum: %v\n%v", fc.name, err, m)
			}
			back := fc.new()
			if err := fc.c.Unmarshal(again, back); err != nil {
				t.Fatalf("%s: Unmarshal of re-marshaled datum %x: %v", fc.name, again, err)
			}
			if !proto.Equal(m, back) {
				t.Fatalf("%s: round trip changed the message:\n%v\n%v", fc.name, m, back)
			}
		}
	})
}

// FuzzTranscodeToProto converts arbitrary bytes, as Avro datums of Foo and
// KitchenSink under both profiles, to protobuf wire bytes. When it succeeds,
// the output must parse with proto.Unmarshal into a message without unknown
// fields, encode again both as protobuf and as Avro, and a Resolver built
// from the codec's own schema must produce the same bytes.
func FuzzTranscodeToProto(f *testing.F) {
	addAvroSeeds(f)
	codecs := readCodecs(f)
	resolvers := make([]*Resolver, len(codecs))
	for i, fc := range codecs {
		r, err := fc.c.Resolve(fc.c.Schema())
		if err != nil {
			f.Fatal(err)
		}
		resolvers[i] = r
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for i, fc := range codecs {
			wire, err := fc.c.TranscodeToProto(nil, data)
			rwire, rerr := resolvers[i].TranscodeToProto(nil, data)
			if (err == nil) != (rerr == nil) || string(wire) != string(rwire) {
				t.Fatalf("%s: codec and resolver disagree: %x, %v; %x, %v", fc.name, wire, err, rwire, rerr)
			}
			if err != nil {
				checkDataError(t, fc.name+": TranscodeToProto", err, fc.c, data)
				continue
			}
			m := fc.new()
			if err := proto.Unmarshal(wire, m); err != nil {
				t.Fatalf("%s: proto.Unmarshal of output %x: %v", fc.name, wire, err)
			}
			if hasUnknown(m.ProtoReflect()) {
				t.Fatalf("%s: output %x has unknown fields: %v", fc.name, wire, m)
			}
			if _, err := proto.Marshal(m); err != nil {
				t.Fatalf("%s: proto.Marshal: %v", fc.name, err)
			}
			if _, err := fc.c.TranscodeToAvro(nil, wire); err != nil {
				t.Fatalf("%s: TranscodeToAvro of output %x: %v", fc.name, wire, err)
			}
		}
	})
}

// FuzzTranscodeToAvro converts arbitrary bytes, as protobuf wire encodings
// of Foo, KitchenSink and Legacy, to Avro. Bad input must fail with a
// *DataError. When it succeeds, the Avro must transcode back and decode into
// the message proto.Unmarshal makes of the input, up to what the mapping
// loses on purpose (normalizeExpected).
func FuzzTranscodeToAvro(f *testing.F) {
	addWireSeeds(f)
	codecs := fuzzCodecs(f)
	f.Fuzz(func(t *testing.T, wire []byte) {
		for _, fc := range codecs {
			out, err := fc.c.TranscodeToAvro(nil, wire)
			if err != nil {
				checkDataError(t, fc.name+": TranscodeToAvro", err, fc.c, wire)
				if !mappingRefuses(err) && proto.Unmarshal(wire, fc.new()) == nil {
					t.Fatalf("%s: TranscodeToAvro refused what proto.Unmarshal accepts (%v):\n%x", fc.name, err, wire)
				}
				continue
			}
			decoded := fc.new()
			if err := fc.c.Unmarshal(out, decoded); err != nil {
				t.Fatalf("%s: Unmarshal of output %x: %v", fc.name, out, err)
			}
			got := fc.checkViaWire(t, out, decoded)
			want := fc.new()
			if err := proto.Unmarshal(wire, want); err != nil {
				t.Fatalf("%s: TranscodeToAvro accepted what proto.Unmarshal rejects (%v):\n%x", fc.name, err, wire)
			}
			normalizeExpected(want.ProtoReflect(), fc.c.opts)
			if !proto.Equal(got, want) {
				t.Fatalf("%s: round trip of %x:\ngot  %v\nwant %v", fc.name, wire, got, want)
			}
			// Marshal of the message (the direct writer of generated
			// types) agrees with the transcoder.
			direct, err := fc.c.Marshal(want)
			if err != nil {
				t.Fatalf("%s: Marshal: %v\n%v", fc.name, err, want)
			}
			viaDirect := fc.new()
			if err := fc.c.Unmarshal(direct, viaDirect); err != nil {
				t.Fatalf("%s: Unmarshal of Marshal output: %v", fc.name, err)
			}
			if !proto.Equal(viaDirect, got) {
				t.Fatalf("%s: Marshal and TranscodeToAvro disagree on %x:\n%v\n%v", fc.name, wire, viaDirect, got)
			}
		}
	})
}

// mappingRefuses reports an error of TranscodeToAvro for input that
// proto.Unmarshal may accept but Avro cannot hold: an enum number without a
// symbol, a timestamp beyond the long, invalid UTF-8 in a string protobuf
// does not check (proto2), nesting beyond the transcoder's limit.
func mappingRefuses(err error) bool {
	return errors.Is(err, ErrUnknownEnum) || errors.Is(err, ErrOutOfRange) || errors.Is(err, ErrTooDeep) ||
		errors.Is(err, ErrMalformed) && strings.Contains(err.Error(), "not valid UTF-8")
}

// normalizeExpected removes from m, the proto.Unmarshal of some wire input,
// what the Avro mapping drops on purpose: unknown fields and extensions
// (they have no place in the schema), sub-precision digits of timestamps
// under the default profile, and under the Java profile, which carries no
// presence, every non-required field set to its default (and a Value left
// without a member becomes a null Value).
func normalizeExpected(m protoreflect.Message, o Options) {
	m.SetUnknown(nil)
	java := o.Profile == JavaProfile
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsExtension():
			m.Clear(fd)
			return true
		case fd.IsMap() || fd.IsList() || fd.Message() != nil:
			testutil.ForEachMessage(fd, v, func(sub protoreflect.Message) {
				normalizeExpected(sub, o)
				if !java && classifyWellKnown(sub.Descriptor()) == wellKnownTimestamp {
					truncateTimestamp(sub, o.Timestamps)
				}
			})
		case java && fd.Cardinality() != protoreflect.Required && testutil.SameScalar(fd, v, fd.Default()):
			m.Clear(fd)
		}
		return true
	})
	// The Java profile reads a Value that sets no member as JSON null.
	if md := m.Descriptor(); java && md.FullName() == "google.protobuf.Value" && m.WhichOneof(md.Oneofs().Get(0)) == nil {
		m.Set(md.Fields().ByNumber(1), protoreflect.ValueOfEnum(0))
	}
}

// truncateTimestamp drops the digits of a Timestamp below the precision.
func truncateTimestamp(m protoreflect.Message, p TimestampPrecision) {
	nf := m.Descriptor().Fields().ByNumber(2)
	nanos := m.Get(nf).Int()
	per := int64(1000)
	switch p {
	case TimestampMillis:
		per = 1_000_000
	case TimestampNanos:
		per = 1
	}
	if nanos -= nanos % per; nanos == 0 {
		m.Clear(nf)
	} else {
		m.Set(nf, protoreflect.ValueOfInt32(int32(nanos)))
	}
}

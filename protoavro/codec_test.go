package protoavro

import (
	"bytes"
	"errors"
	"strings"

	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"
)

// Tests of the codec's edge cases: wire input the transcoder must read as
// proto.Unmarshal does, bounds on empty items, and names in the null
// namespace. Inputs the fuzzers found are kept in testdata/fuzz.

// A oneof member set, then another member, then the first again: protobuf
// keeps only the last occurrence of the first member, it does not merge it
// with the occurrence before the other member, and neither does
// TranscodeToAvro.
func TestTranscodeToAvroOneofMemberSetAgain(t *testing.T) {
	c := mustCodec(t, Options{}, &kitchenpb.Oneofs{})
	var w []byte
	for _, part := range []proto.Message{
		&kitchenpb.Oneofs{SameType: &kitchenpb.Oneofs_FirstPoint{FirstPoint: &kitchenpb.Point{X: 1}}},
		&kitchenpb.Oneofs{SameType: &kitchenpb.Oneofs_SecondPoint{SecondPoint: &kitchenpb.Point{X: 2}}},
		&kitchenpb.Oneofs{SameType: &kitchenpb.Oneofs_FirstPoint{FirstPoint: &kitchenpb.Point{Y: 3}}},
		// The same member twice in a row does merge.
		&kitchenpb.Oneofs{Mixed: &kitchenpb.Oneofs_MessageChoice{MessageChoice: &kitchenpb.Scalars{Int32Field: 4}}},
		&kitchenpb.Oneofs{Mixed: &kitchenpb.Oneofs_MessageChoice{MessageChoice: &kitchenpb.Scalars{Int64Field: 5}}},
	} {
		b, err := proto.Marshal(part)
		if err != nil {
			t.Fatal(err)
		}
		w = append(w, b...)
	}
	want := &kitchenpb.Oneofs{}
	if err := proto.Unmarshal(w, want); err != nil {
		t.Fatal(err)
	}
	got := &kitchenpb.Oneofs{}
	if err := unmarshalTranscoded(c, w, got); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// A packed repeated varint whose last varint overflows 64 bits is an error
// of TranscodeToAvro, not a panic.
func TestTranscodeToAvroPackedVarintOverflow(t *testing.T) {
	c := mustCodec(t, Options{}, &kitchenpb.Repeateds{})
	for _, packed := range [][]byte{
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
		{0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
	} {
		w := protowire.AppendTag(nil, 3, protowire.BytesType) // packed_int32
		w = protowire.AppendBytes(w, packed)
		_, err := c.TranscodeToAvro(nil, w)
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%x: %v, want ErrMalformed", packed, err)
		}
	}
}

// A map key in packed form (wire type 2 for a numeric key), or a packed
// singular field: proto.Unmarshal takes a known field in a wire type it
// does not take as an unknown field (the entry keeps key 0), so the
// transcoder drops it as it drops unknown fields, and gives what
// proto.Unmarshal gives, without reading a fixed32 from fewer than 4 bytes.
// Other fields given in the wrong wire type, a string as a varint, a
// message as a fixed64, a wrapper's value as a varint, go the same way.
func TestWrongWireTypeIsUnknown(t *testing.T) {
	entry := func(key []byte) []byte {
		e := protowire.AppendTag(nil, 1, protowire.BytesType)
		e = protowire.AppendBytes(e, key)
		e = protowire.AppendTag(e, 2, protowire.Fixed32Type)
		e = protowire.AppendFixed32(e, 9)
		w := protowire.AppendTag(nil, 7, protowire.BytesType) // fixed32_to_fixed32
		return protowire.AppendBytes(w, e)
	}
	int32Field := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 7) // Foo's required int32
	fooString := protowire.AppendVarint(protowire.AppendTag(append([]byte(nil), int32Field...), 14, protowire.VarintType), 1)
	fooBar := protowire.AppendFixed64(protowire.AppendTag(append([]byte(nil), int32Field...), 21, protowire.Fixed64Type), 5)
	wrapper := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 3)     // StringValue.value as a varint
	wrapper = protowire.AppendBytes(protowire.AppendTag(nil, 10, protowire.BytesType), wrapper) // WellKnown.string_wrapper
	packedInt := protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), []byte{1, 2})
	for _, tc := range []struct {
		name string
		m    proto.Message
		o    Options
		wire []byte
	}{
		{"packed key 01", &kitchenpb.Maps{}, Options{}, entry([]byte("\x01"))},
		{"packed key empty", &kitchenpb.Maps{}, Options{}, entry(nil)},
		{"packed key of 8 bytes", &kitchenpb.Maps{}, Options{}, entry([]byte("\x01\x00\x00\x00\x02\x00\x00\x00"))},
		{"packed singular int32", &kitchenpb.Scalars{}, Options{}, packedInt},
		{"string as varint", &avro2147pb.Foo{}, Options{}, fooString},
		{"string as varint, Java profile", &avro2147pb.Foo{}, Options{Profile: JavaProfile}, fooString},
		{"message as fixed64", &avro2147pb.Foo{}, Options{}, fooBar},
		{"wrapper value as varint", &kitchenpb.WellKnown{}, Options{}, wrapper},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.m.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(tc.wire, want); err != nil {
				t.Fatalf("proto.Unmarshal: %v (the premise of the test)", err)
			}
			if _, isMap := tc.m.(*kitchenpb.Maps); !isMap && !hasUnknown(want.ProtoReflect()) { // map entries keep no unknown fields
				t.Fatalf("proto.Unmarshal kept no unknown field: %v (the premise of the test)", want)
			}
			c := mustCodec(t, tc.o, tc.m)
			datum, err := c.TranscodeToAvro(nil, tc.wire)
			if err != nil {
				t.Fatalf("TranscodeToAvro: %v; proto.Unmarshal takes it", err)
			}
			got := tc.m.ProtoReflect().New().Interface()
			if err := c.Unmarshal(datum, got); err != nil {
				t.Fatal(err)
			}
			normalizeExpected(want.ProtoReflect(), tc.o)
			if !proto.Equal(got, want) {
				t.Errorf("got %v\nwant %v", got, want)
			}
		})
	}
}

// Arrays of empty records (repeated google.protobuf.Empty) take no bytes per
// item, so the reader does not bound their item count by the bytes left, and
// reads back what Marshal wrote.
func TestListOfEmptyMessages(t *testing.T) {
	for _, o := range []Options{{}, {Profile: JavaProfile}} {
		c := mustCodec(t, o, &kitchenpb.WellKnown{})
		m := &kitchenpb.WellKnown{MapEmpty: map[string]*emptypb.Empty{}}
		for range 1000 {
			m.RepeatedEmpty = append(m.RepeatedEmpty, &emptypb.Empty{})
		}
		b, err := c.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got := &kitchenpb.WellKnown{}
		if err := c.Unmarshal(b, got); err != nil {
			t.Fatalf("%v: %v", o.Profile, err)
		}
		if !proto.Equal(got, m) {
			t.Errorf("%v: got %d elements, want %d", o.Profile, len(got.RepeatedEmpty), len(m.RepeatedEmpty))
		}
	}
	// An Avro map of empty records takes one byte per entry (its key
	// length): the same key many times, as TranscodeToAvro writes it.
	c := mustCodec(t, Options{}, &kitchenpb.WellKnown{})
	entry := protowire.AppendTag(nil, 1, protowire.BytesType)
	entry = protowire.AppendBytes(entry, nil)
	var w []byte
	for range 100 {
		w = protowire.AppendTag(w, 56, protowire.BytesType) // map_empty
		w = protowire.AppendBytes(w, entry)
	}
	got := &kitchenpb.WellKnown{}
	if err := unmarshalTranscoded(c, w, got); err != nil {
		t.Fatal(err)
	}
	if len(got.MapEmpty) != 1 {
		t.Errorf("got %v", got.MapEmpty)
	}
}

// Empty items are bounded over the whole datum, not per block: many blocks
// of a million empty records each must fail fast instead of producing
// megabytes of output per input byte.
func TestEmptyItemsBoundedPerDatum(t *testing.T) {
	c := mustCodec(t, Options{}, &kitchenpb.WellKnown{})
	// Fields of WellKnown before repeated_empty: 17 nullable singular
	// fields and 15 empty arrays.
	a := new(avroBuf).nulls(17).nulls(15)
	a.long(maxEmptyItems / 2).long(maxEmptyItems / 2) // the limit, reached
	off := a.pos()
	for range 100 {
		a.long(maxEmptyItems / 2)
	}
	_, err := c.TranscodeToProto(nil, a.bytes())
	wantDataError(t, err, ErrMalformed, "WellKnown.repeated_empty", off)
}

// Skipping a writer field the reader lacks bounds an array block by the
// bytes its items take, not by a fixed number of items, so a large array in
// a removed field is skipped.
func TestSkipLargeArray(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p; message M { int32 a = 1; }`, "p.M")
	c := mustCodecFor(t, Options{}, md)
	w, err := ParseSchema([]byte(`{"type": "record", "name": "p.M", "fields": [
		{"name": "removed", "type": {"type": "array", "items": "int"}},
		{"name": "a", "type": "int"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Resolve(w)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1<<20 + 10
	a := new(avroBuf).long(n)
	for range n {
		a.long(1)
	}
	a.long(0).long(42)
	m := dynamicpb.NewMessage(md)
	if err := r.Unmarshal(a.bytes(), m); err != nil {
		t.Fatal(err)
	}
	if got := m.Get(md.Fields().ByName("a")); got.Int() != 42 {
		t.Errorf("a = %v", got)
	}
	// A count larger than the bytes left still fails early.
	_, err = r.TranscodeToProto(nil, new(avroBuf).long(1<<40).bytes())
	wantDataError(t, err, ErrTruncated, "M.removed", 0)
}

// A message of a file without a package, used from a packaged file, is an
// Avro record in the null namespace inside a namespaced one. Its JSON must
// say "namespace":"" (else any reader puts it in the enclosing namespace:
// pkg.Foo, whose canonical form and fingerprint differ from protoavro's),
// and a container file of it reads back, with the writer schema as parsed
// from the header.
func TestNullNamespaceInsideNamespace(t *testing.T) {
	files := testcompile.Sources(t, map[string]string{
		"nopkg.proto": `syntax = "proto3"; message Foo { int32 x = 1; }`,
		"bar.proto": `syntax = "proto3"; package pkg; import "nopkg.proto";
			message Bar { Foo a = 1; Foo b = 2; Baz c = 3; }
			message Baz { Foo f = 1; }`,
	}, "bar.proto")
	md := testutil.FindMessage(files[0], "pkg.Bar")
	s := mustSchema(t, Options{}, md)
	text, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	checkParses(t, s, text) // twmb/avro and ParseSchema: the same canonical form
	if !strings.Contains(s.Canonical(), `"name":"Foo"`) {
		t.Errorf("canonical form %s has no record Foo", s.Canonical())
	}

	m := dynamicpb.NewMessage(md)
	foo := dynamicpb.NewMessage(md.Fields().ByName("a").Message())
	foo.Set(foo.Descriptor().Fields().ByName("x"), protoreflect.ValueOfInt32(7))
	m.Set(md.Fields().ByName("a"), protoreflect.ValueOfMessage(foo))
	m.Set(md.Fields().ByName("b"), protoreflect.ValueOfMessage(foo))
	buf := bytes.NewReader(writeContainer(t, md, ContainerOptions{}, m))
	r, err := NewContainerReader(buf, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := r.NewMessage()
	if err := r.Read(got); err != nil {
		t.Fatal(err)
	}
	// The message read is of the type embedded in the file: compare the
	// deterministic encodings.
	det := proto.MarshalOptions{Deterministic: true}
	gw, err1 := det.Marshal(got)
	mw, err2 := det.Marshal(m)
	if err := errors.Join(err1, err2); err != nil || !bytes.Equal(gw, mw) {
		t.Errorf("read %v, wrote %v (%v)", got, m, err)
	}
}

// A reference to a type without a namespace, written inside a namespace that
// also holds a type of the same simple name, may name that other type
// (twmb/avro takes it wherever it is defined, Java when it comes first): Avro
// cannot spell it, so deriving the schema is an ErrNameCollision, in either
// order. A single use, which is a definition, is fine (its canonical form,
// which has no namespace attributes, cannot be parsed back: a limit of the
// specification's canonical form, which is for fingerprints).
func TestNullNamespaceReferenceAmbiguous(t *testing.T) {
	src := map[string]string{
		"nopkg.proto": `syntax = "proto3"; message Foo { int32 x = 1; }`,
		"bar.proto": `syntax = "proto3"; package pkg; import "nopkg.proto";
			message Foo { string s = 1; }
			message First { pkg.Foo p = 1; .Foo a = 2; .Foo b = 3; }
			message Last { .Foo a = 1; .Foo b = 2; pkg.Foo p = 3; }
			message Once { .Foo a = 1; pkg.Foo p = 2; }`,
	}
	fd := testcompile.Sources(t, src, "bar.proto")[0]
	for _, name := range []protoreflect.FullName{"pkg.First", "pkg.Last"} {
		_, err := Options{}.Schema(testutil.FindMessage(fd, name))
		if !errors.Is(err, ErrNameCollision) || !strings.Contains(err.Error(), "a reference to Foo (of a file without a package) inside namespace pkg would name pkg.Foo (pkg.Foo)") {
			t.Errorf("%s: %v, want an ErrNameCollision naming the reference", name, err)
		}
	}
	s := mustSchema(t, Options{}, testutil.FindMessage(fd, "pkg.Once"))
	if parsed := reparsed(t, s); parsed.Canonical() != s.Canonical() {
		t.Errorf("the JSON parses to another schema:\n%s\n%s", parsed.Canonical(), s.Canonical())
	}
}

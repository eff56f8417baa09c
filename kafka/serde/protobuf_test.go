package serde_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

func TestProtoIn(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	enc := serde.NewProtoEncoder(reg)
	id1 := registerPerson(t, enc, "v1")
	id2 := registerPerson(t, enc, "v2")
	if id1 == id2 {
		t.Fatalf("v1 and v2 share ID %d", id1)
	}
	dec := serde.NewProtoDecoder(reg, protoavro.Options{})
	var fps [2]uint64
	for k, v := range []struct {
		id  uint32
		ver string
	}{{id1, "v1"}, {id2, "v2"}} {
		md := kafkatest.Person(t, v.ver)
		wire := kafkatest.Wire(t, kafkatest.NewPerson(md, 7))
		rec, err := dec.Decode(ctx, enc.Append(nil, v.id, md, wire))
		if err != nil {
			t.Fatal(err)
		}
		if rec.ID != v.id || !bytes.Equal(rec.Wire, wire) || rec.Codec.Schema().Descriptor().FullName() != md.FullName() {
			t.Fatalf("%s: decoded %+v", v.ver, rec)
		}
		want, _ := protoavro.Options{}.Schema(md)
		if got := rec.Codec.Schema(); got.Canonical() != want.Canonical() {
			t.Errorf("%s: schema from the registry\n%s\nwant\n%s", v.ver, got.Canonical(), want.Canonical())
		}
		fps[k] = rec.Codec.Schema().Fingerprint()
		// The nested Address message: indexes [0, 0].
		addr := md.Messages().ByName("Address")
		if got := serde.MessageIndexes(addr); len(got) != 2 || got[0] != 0 || got[1] != 0 {
			t.Errorf("MessageIndexes(Address) = %v", got)
		}
		rec, err = dec.Decode(ctx, enc.Append(nil, v.id, addr, nil))
		if err != nil || rec.Codec.Schema().Descriptor().FullName() != addr.FullName() {
			t.Errorf("%s Address: %v", v.ver, err)
		}
	}
	if fps[0] == fps[1] {
		t.Error("two IDs with two versions share a schema")
	}

	// Bad indexes, unknown IDs, Avro schemas.
	if _, err := dec.Decode(ctx, serde.AppendProtoHeader(nil, id1, []int{5})); !errors.Is(err, serde.ErrBadIndexes) {
		t.Errorf("index 5: %v", err)
	}
	// Negative indexes given to the exported API (ParseIndexes refuses them
	// in records) are bad indexes too, not a panic.
	for _, idx := range [][]int{{-1}, {0, -1}} {
		if _, err := dec.Codec(ctx, id1, idx); !errors.Is(err, serde.ErrBadIndexes) {
			t.Errorf("Codec(%v): %v", idx, err)
		}
	}
	if _, err := dec.Decode(ctx, serde.AppendProtoHeader(nil, 4242, []int{0})); !errors.Is(err, serde.ErrUnknownID) {
		t.Errorf("unknown ID: %v", err)
	}
	avroID, _, err := reg.Register(ctx, "avro-value", serde.Schema{Text: `{"type":"record","name":"R","fields":[]}`})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dec.Decode(ctx, serde.AppendProtoHeader(nil, uint32(avroID), []int{0})); !errors.Is(err, serde.ErrWrongSchemaType) {
		t.Errorf("AVRO schema read as protobuf: %v", err)
	}
}

// acme/common.proto and acme/order.proto, which imports it.
const (
	acmeCommon = `syntax = "proto3"; package acme.common; message Money { string currency = 1; int64 units = 2; }`
	acmeOrder  = `syntax = "proto3"; package acme; import "acme/common.proto"; import "google/protobuf/timestamp.proto";
message Other { int32 x = 1; }
message Order { string id = 1; acme.common.Money total = 2; google.protobuf.Timestamp at = 3; Other other = 4; }`
)

// commonRef is the reference of acme/order.proto to acme/common.proto,
// registered under its name.
var commonRef = []serde.Reference{{Name: "acme/common.proto", Subject: "acme/common.proto", Version: 1}}

// decodeOrder registers schema (acme/order.proto, in either form) under
// subject with commonRef and decodes an empty acme.Order record of it.
func decodeOrder(t *testing.T, reg *serde.Registry, subject, schema string) serde.ProtoRecord {
	t.Helper()
	id, err := serde.NewProtoEncoder(reg).Register(ctx, subject, schema, commonRef)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := serde.NewProtoDecoder(reg, protoavro.Options{}).Decode(ctx, serde.AppendProtoHeader(nil, id, []int{1}))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestProtoInReferences(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	enc := serde.NewProtoEncoder(reg)
	if _, err := enc.Register(ctx, "acme/common.proto", acmeCommon, nil); err != nil {
		t.Fatal(err)
	}
	md := decodeOrder(t, reg, "orders-value", acmeOrder).Codec.Schema().Descriptor()
	if md.FullName() != "acme.Order" || md.Fields().ByName("total").Message().FullName() != "acme.common.Money" {
		t.Fatalf("decoded type %s", md.FullName())
	}
	// A reference the registry does not hold.
	id, err := enc.Register(ctx, "bad-value", acmeOrder, []serde.Reference{{Name: "acme/common.proto", Subject: "nope", Version: 1}})
	if err == nil {
		if _, err := serde.NewProtoDecoder(reg, protoavro.Options{}).Decode(ctx, serde.AppendProtoHeader(nil, id, []int{1})); err == nil {
			t.Error("a missing reference decoded")
		}
	}
}

// TestProtoInKnownTypes: Confluent's serializers (Java, JavaScript, Go)
// register a .proto without references for the files they treat as built
// in, confluent/meta.proto, confluent/type/decimal.proto and
// google/type/*.proto; the decoder compiles such a schema.
func TestProtoInKnownTypes(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	const sale = `syntax = "proto3";
package shop;
import "confluent/meta.proto";
import "confluent/type/decimal.proto";
import "google/type/date.proto";
import "google/type/money.proto";
message Sale {
  google.type.Date day = 1 [(confluent.field_meta).doc = "the day of the sale"];
  google.type.Money price = 2;
  confluent.type.Decimal amount = 3;
}
`
	id, err := serde.NewProtoEncoder(reg).Register(ctx, "sales-value", sale, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := serde.NewProtoDecoder(reg, protoavro.Options{}).Decode(ctx, serde.AppendProtoHeader(nil, id, []int{0}))
	if err != nil {
		t.Fatal(err)
	}
	fields := rec.Codec.Schema().Descriptor().Fields()
	for name, want := range map[string]string{"day": "google.type.Date", "price": "google.type.Money", "amount": "confluent.type.Decimal"} {
		if f := fields.ByName(protoreflect.Name(name)); f == nil || string(f.Message().FullName()) != want {
			t.Errorf("field %s: %v, want a %s", name, f, want)
		}
	}
}

// serializedSchema is fd as Confluent's JavaScript serializer registers it
// (and Confluent's registry returns it with ?format=serialized): its
// FileDescriptorProto, serialized, base64.
func serializedSchema(t testing.TB, fd protoreflect.FileDescriptor) string {
	t.Helper()
	b, err := proto.Marshal(protodesc.ToFileDescriptorProto(fd))
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// TestProtoInSerialized: a schema and its reference registered as base64
// serialized FileDescriptorProtos (what @confluentinc/schemaregistry's
// ProtobufSerializer registers, and srfake returns as stored) compile as the
// .proto text does; relative type names resolve; garbage is ErrBadSchema
// naming the file, never text compiled by chance.
func TestProtoInSerialized(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	fd, err := serde.Compile(ctx, "acme/order.proto", map[string]string{"acme/common.proto": acmeCommon, "acme/order.proto": acmeOrder})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := serde.NewProtoEncoder(reg).Register(ctx, "acme/common.proto", serializedSchema(t, fd.Imports().Get(0)), nil); err != nil {
		t.Fatal(err)
	}
	// The main file's own name is the writer's; the decoder names it.
	rec := decodeOrder(t, reg, "orders-value", serializedSchema(t, fd))
	md := rec.Codec.Schema().Descriptor()
	want, _ := protoavro.Options{}.Schema(fd.Messages().ByName("Order"))
	if md.FullName() != "acme.Order" || rec.Codec.Schema().Canonical() != want.Canonical() {
		t.Fatalf("decoded %s, schema\n%s\nwant\n%s", md.FullName(), rec.Codec.Schema().Canonical(), want.Canonical())
	}

	// Relative type names, as a registry may return them (JavaScript's
	// deserializer qualifies them itself), and padding left off.
	fdp := protodesc.ToFileDescriptorProto(fd)
	for _, f := range fdp.MessageType[1].Field {
		if f.GetName() == "other" {
			f.TypeName = proto.String("Other")
		}
	}
	b, _ := proto.Marshal(fdp)
	rel := strings.TrimRight(base64.StdEncoding.EncodeToString(b), "=") + "\n"
	rec = decodeOrder(t, reg, "orders-rel-value", rel)
	if got := rec.Codec.Schema().Descriptor().Fields().ByName("other").Message().FullName(); got != "acme.Other" {
		t.Errorf("relative type name resolved to %s", got)
	}

	// Garbage: neither text nor a descriptor.
	for name, schema := range map[string]string{
		"not a descriptor": base64.StdEncoding.EncodeToString([]byte{0x07, 0x01}), // wire type 7
		"bad base64":       "QUJD!",
		"padding":          "QQ===",
		"truncated":        base64.StdEncoding.EncodeToString(b[:len(b)/2]),
		"too large":        strings.Repeat("AAAA", 2<<20),
		"deep":             base64.StdEncoding.EncodeToString(deepDescriptor(200)),
	} {
		_, err := serde.Compile(ctx, "x.proto", map[string]string{"x.proto": schema})
		if !errors.Is(err, serde.ErrBadSchema) || !strings.Contains(err.Error(), "x.proto") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Text stays text: a comment-only file, and source with a syntax error.
	if _, err := serde.Compile(ctx, "x.proto", map[string]string{"x.proto": "//AAAA"}); err != nil {
		t.Errorf("comment-only file: %v", err)
	}
	if _, err := serde.Compile(ctx, "x.proto", map[string]string{"x.proto": "message {"}); !errors.Is(err, serde.ErrBadSchema) {
		t.Errorf("bad text: %v", err)
	}
}

// deepDescriptor is a serialized FileDescriptorProto with messages nested n
// deep.
func deepDescriptor(n int) []byte {
	msg := &descriptorpb.DescriptorProto{Name: proto.String("M")}
	for range n {
		msg = &descriptorpb.DescriptorProto{Name: proto.String("M"), NestedType: []*descriptorpb.DescriptorProto{msg}}
	}
	b, _ := proto.Marshal(&descriptorpb.FileDescriptorProto{Name: proto.String("d.proto"), MessageType: []*descriptorpb.DescriptorProto{msg}})
	return b
}

// FuzzCompileSerialized: any bytes given as a base64 serialized
// FileDescriptorProto compile or fail with ErrBadSchema, without a panic; a
// file that compiles has the name it was asked for.
func FuzzCompileSerialized(f *testing.F) {
	for _, v := range []string{"v1", "v2"} {
		b, _ := proto.Marshal(protodesc.ToFileDescriptorProto(kafkatest.Person(f, v).ParentFile()))
		f.Add(b)
	}
	f.Add(deepDescriptor(3))
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0x01, 'x', 0x22, 0x03, 0x0a, 0x01, 'M'})
	f.Fuzz(func(t *testing.T, b []byte) {
		fd, err := serde.Compile(ctx, "f.proto", map[string]string{"f.proto": base64.StdEncoding.EncodeToString(b)})
		if err != nil {
			if !errors.Is(err, serde.ErrBadSchema) {
				t.Fatalf("error not ErrBadSchema: %v", err)
			}
			return
		}
		if fd.Path() != "f.proto" {
			t.Fatalf("compiled file named %q", fd.Path())
		}
	})
}

// BenchmarkProtoDecodeCached decodes the header of a record whose schema ID
// is cached: the per-record path, which reads the decoder's caches only.
func BenchmarkProtoDecodeCached(b *testing.B) {
	_, reg := kafkatest.Registry(b)
	enc := serde.NewProtoEncoder(reg)
	id := registerPerson(b, enc, "v2")
	md := kafkatest.Person(b, "v2")
	rec := enc.Append(nil, id, md, kafkatest.Wire(b, kafkatest.NewPerson(md, 7)))
	dec := serde.NewProtoDecoder(reg, protoavro.Options{})
	if _, err := dec.Decode(ctx, rec); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := dec.Decode(ctx, rec); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkEncodeAnyResolver encodes a message holding an Any written as
// JSON, with no AnyResolver set (the default resolver) and with one: the
// per-record path of a Serializer, which costs the same with both.
func BenchmarkEncodeAnyResolver(b *testing.B) {
	m := wrapperAny(b)
	for _, bc := range []struct {
		name     string
		resolver protoavro.AnyResolver
	}{
		{"none", nil},
		{"GlobalTypes", protoregistry.GlobalTypes},
	} {
		b.Run("resolver="+bc.name, func(b *testing.B) {
			_, reg := kafkatest.Registry(b)
			ser := serde.NewSerializer(reg, serde.SerializerOptions{Options: protoavro.Options{DynamicAsJSON: true, AnyResolver: bc.resolver}})
			buf, err := ser.Encode(ctx, nil, "orders", m)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if buf, err = ser.Encode(ctx, buf[:0], "orders", m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// registerPerson registers version v of the evolution test's Person schema
// (kafkatest.EvolutionSource) under the subject people-value and returns its
// ID.
func registerPerson(t testing.TB, enc *serde.ProtoEncoder, v string) uint32 {
	t.Helper()
	id, err := enc.Register(ctx, "people-value", kafkatest.EvolutionSource(t, v), nil)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

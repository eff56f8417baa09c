package serde_test

import (
	"context"
	"fmt"
	"log"

	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
)

// Example writes a protobuf message as a Confluent-framed Avro record, its
// schema registered under the topic's subject, and reads it back, on an
// in-process registry (srfake).
func Example() {
	ctx := context.Background()
	fake := srfake.New()
	defer fake.Close()
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, fake.URL())
	if err != nil {
		log.Fatal(err)
	}

	// The message type; a program would usually take a generated one.
	const src = `syntax = "proto3"; package shop; message Order { string id = 1; int64 cents = 2; }`
	fd, err := serde.Compile(ctx, "order.proto", map[string]string{"order.proto": src})
	if err != nil {
		log.Fatal(err)
	}
	md := fd.Messages().ByName("Order")
	order := dynamicpb.NewMessage(md)
	order.Set(md.Fields().ByName("id"), protoreflect.ValueOfString("order-1"))
	order.Set(md.Fields().ByName("cents"), protoreflect.ValueOfInt64(1250))

	ser := serde.NewSerializer(reg, serde.SerializerOptions{})
	record, err := ser.Encode(ctx, nil, "orders", order)
	if err != nil {
		log.Fatal(err)
	}
	id, _, err := serde.ParseHeader(record)
	if err != nil {
		log.Fatal(err)
	}
	s, err := reg.SchemaByVersion(ctx, "orders-value", -1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("subject orders-value:", s.Type, "schema ID", id, "in the record's header")

	de, err := serde.NewDeserializer(reg, md, protoavro.Options{})
	if err != nil {
		log.Fatal(err)
	}
	back := dynamicpb.NewMessage(md)
	if err := de.Decode(ctx, record, back); err != nil {
		log.Fatal(err)
	}
	fmt.Println("read back equal:", proto.Equal(order, back))
	// Output:
	// subject orders-value: AVRO schema ID 1 in the record's header
	// read back equal: true
}

// ExampleCheckCompatibility runs the local compatibility gate on two
// versions of a schema: the new one changes a field from long to int, which
// readers of the new schema cannot read from data of the old one.
func ExampleCheckCompatibility() {
	v1 := `{"type":"record","name":"Person","fields":[{"name":"name","type":"string"},{"name":"age","type":"long"}]}`
	v2 := `{"type":"record","name":"Person","fields":[{"name":"name","type":"string"},{"name":"age","type":"int"}]}`
	report, err := serde.CheckCompatibility(serde.LevelBackward, v2, []string{v1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("compatible:", report.Compatible())
	for _, p := range report.Problems {
		fmt.Println(p.Path, "-", p.Direction)
	}
	// Output:
	// compatible: false
	// Person.age - new reads old
}

// ExampleProtoDecoder reads a Confluent-framed protobuf record, as
// Confluent's protobuf serializer writes it (here ProtoEncoder, on an
// in-process registry): the decoder fetches the record's .proto schema by
// ID, compiles it, and picks the message type by the record's message
// indexes, so no generated code is needed.
func ExampleProtoDecoder() {
	ctx := context.Background()
	reg, stop := exampleRegistry() // as in Example
	defer stop()

	// The producer's side: a .proto file of two messages, registered under
	// the topic's subject, and a record of the second one (index 1).
	const src = `syntax = "proto3"; package shop;
message Customer { string name = 1; }
message Order { string id = 1; int64 cents = 2; }`
	enc := serde.NewProtoEncoder(reg)
	id, err := enc.Register(ctx, "orders-value", src, nil)
	if err != nil {
		log.Fatal(err)
	}
	fd, err := serde.Compile(ctx, "order.proto", map[string]string{"order.proto": src})
	if err != nil {
		log.Fatal(err)
	}
	wire := []byte{0x0a, 7, 'o', 'r', 'd', 'e', 'r', '-', '1', 0x10, 0xe2, 0x09} // id "order-1", cents 1250
	record := enc.Append(nil, id, fd.Messages().ByName("Order"), wire)

	// The consumer's side: only the record and the registry.
	dec := serde.NewProtoDecoder(reg, protoavro.Options{})
	rec, err := dec.Decode(ctx, record)
	if err != nil {
		log.Fatal(err)
	}
	got := rec.Codec.Schema().Descriptor()
	fmt.Println("schema ID", rec.ID, "message indexes", rec.Indexes, "type", got.FullName())
	m := dynamicpb.NewMessage(got)
	if err := proto.Unmarshal(rec.Wire, m); err != nil {
		log.Fatal(err)
	}
	fmt.Println("id:", m.Get(got.Fields().ByName("id")).String(), "cents:", m.Get(got.Fields().ByName("cents")).Int())
	// Output:
	// schema ID 1 message indexes [1] type shop.Order
	// id: order-1 cents: 1250
}

// ExampleSerializer_EncodeWire turns protobuf wire bytes, as a topic or a
// file holds them (or the Wire of a ProtoRecord), into a Confluent-framed
// Avro record without building a message: the Serializer registers the
// Avro schema of the codec's type under the topic's subject, once, and the
// codec transcodes the bytes.
func ExampleSerializer_EncodeWire() {
	ctx := context.Background()
	reg, stop := exampleRegistry() // as in Example
	defer stop()
	const src = `syntax = "proto3"; package shop; message Order { string id = 1; int64 cents = 2; }`
	fd, err := serde.Compile(ctx, "order.proto", map[string]string{"order.proto": src})
	if err != nil {
		log.Fatal(err)
	}

	ser := serde.NewSerializer(reg, serde.SerializerOptions{})
	codec, err := ser.Codec(fd.Messages().ByName("Order")) // cached: one codec per message type
	if err != nil {
		log.Fatal(err)
	}
	wire := []byte{0x0a, 7, 'o', 'r', 'd', 'e', 'r', '-', '1', 0x10, 0xe2, 0x09} // id "order-1", cents 1250
	record, err := ser.EncodeWire(ctx, nil, "orders", codec, wire)
	if err != nil {
		log.Fatal(err)
	}
	id, datum, err := serde.ParseHeader(record)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("schema ID %d, Avro datum % x\n", id, datum)
	// Output:
	// schema ID 1, Avro datum 0e 6f 72 64 65 72 2d 31 c4 13
}

// exampleRegistry returns a client of an in-process schema registry
// (srfake), and the function that stops the registry.
func exampleRegistry() (*serde.Registry, func()) {
	fake := srfake.New()
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, fake.URL())
	if err != nil {
		log.Fatal(err)
	}
	return reg, fake.Close
}

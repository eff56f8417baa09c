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

package protoavro_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/protoload"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// A codec is compiled once per message type and options, and shared.
func ExampleCodec_MarshalAppend() {
	codec, err := protoavro.Options{}.Codec((&avro2147pb.Foo{}).ProtoReflect().Descriptor())
	if err != nil {
		log.Fatal(err)
	}
	var buf []byte // reused across messages: no allocation per datum
	for i := range 2 {
		msg := &avro2147pb.Foo{Int32: proto.Int32(int32(i)), String_: proto.String("hi")}
		if buf, err = codec.MarshalAppend(buf[:0], msg); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d: %x\n", i, buf)
	}
	// Output:
	// 0: 000000000000000000000000000204686900000000000000
	// 1: 020000000000000000000000000204686900000000000000
}

func ExampleCodec_Unmarshal() {
	codec, err := protoavro.Options{}.Codec((&avro2147pb.Foo{}).ProtoReflect().Descriptor())
	if err != nil {
		log.Fatal(err)
	}
	data, err := codec.Marshal(&avro2147pb.Foo{Int32: proto.Int32(7), Syms: []avro2147pb.A{avro2147pb.A_Y}})
	if err != nil {
		log.Fatal(err)
	}
	var msg avro2147pb.Foo
	if err := codec.Unmarshal(data, &msg); err != nil {
		log.Fatal(err)
	}
	fmt.Println(msg.GetInt32(), msg.GetSyms())
	// Output: 7 [Y]
}

// Pipelines often hold protobuf bytes (a Kafka value, a file record), not
// messages: the transcoders convert them without building a message.
func ExampleCodec_TranscodeToAvro() {
	codec, err := protoavro.Options{Profile: protoavro.JavaProfile}.Codec((&avro2147pb.Foo{}).ProtoReflect().Descriptor())
	if err != nil {
		log.Fatal(err)
	}
	wire := []byte{0x08, 0x07} // int32: 7
	data, err := codec.TranscodeToAvro(nil, wire)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%x\n", data) // the "minimal" datum of Apache Avro Java's reference output
	back, err := codec.TranscodeToProto(nil, data)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%x\n", back)
	// Output:
	// 0e000000000000000000000000000000000000000000000000040000000000
	// 0807
}

// Bad input names the field and the byte offset.
func ExampleCodec_TranscodeToProto_error() {
	codec, err := protoavro.Options{}.Codec((&avro2147pb.Foo{}).ProtoReflect().Descriptor())
	if err != nil {
		log.Fatal(err)
	}
	data, err := codec.Marshal(&avro2147pb.Foo{Int32: proto.Int32(1), String_: proto.String("hello")})
	if err != nil {
		log.Fatal(err)
	}
	_, err = codec.TranscodeToProto(nil, data[:18])
	fmt.Println(err)
	// Output: protoavro: Foo.string at byte 14: truncated input: length 5 exceeds the 3 bytes left
}

// Single-object encoding prefixes the datum with the schema fingerprint.
func ExampleCodec_MarshalSingleObject() {
	codec, err := protoavro.Options{Profile: protoavro.JavaProfile}.Codec((&avro2147pb.Foo{}).ProtoReflect().Descriptor())
	if err != nil {
		log.Fatal(err)
	}
	so, err := codec.MarshalSingleObject(nil, &avro2147pb.Foo{Int32: proto.Int32(7)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("% x\n", so[:10])
	fp, _ := protoavro.SingleObjectFingerprint(so)
	fmt.Printf("%016x\n", fp)
	// Output:
	// c3 01 28 b7 f5 99 b7 8e 59 1b
	// 1b598eb799f5b728
}

// Single-object data written with another schema is read by a resolver:
// the fingerprint in the header tells which writer schema to look up (here
// it is at hand), and the resolver reads the datum after it.
func ExampleResolver_UnmarshalSingleObject() {
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	writer, err := protoavro.Options{Profile: protoavro.JavaProfile}.Codec(md)
	if err != nil {
		log.Fatal(err)
	}
	so, err := writer.MarshalSingleObject(nil, &avro2147pb.Foo{Int32: proto.Int32(7)})
	if err != nil {
		log.Fatal(err)
	}

	reader, err := protoavro.Options{}.Codec(md)
	if err != nil {
		log.Fatal(err)
	}
	fp, err := protoavro.SingleObjectFingerprint(so)
	if err != nil {
		log.Fatal(err)
	}
	schemas := map[uint64]*protoavro.Schema{writer.Schema().Fingerprint(): writer.Schema()}
	r, err := reader.Resolve(schemas[fp])
	if err != nil {
		log.Fatal(err)
	}
	var m avro2147pb.Foo
	if err := r.UnmarshalSingleObject(so, &m); err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.GetInt32())
	// Output: 7
}

// A container file holds the schema, the message type and its descriptors:
// it can be read back without the .proto files.
func ExampleNewContainerWriter() {
	var file bytes.Buffer
	w, err := protoavro.NewContainerWriter(&file, (&avro2147pb.Foo{}).ProtoReflect().Descriptor(),
		protoavro.ContainerOptions{Compression: protoavro.CompressionZstd})
	if err != nil {
		log.Fatal(err)
	}
	for i := range 3 {
		if err := w.Write(&avro2147pb.Foo{Int32: proto.Int32(int32(i))}); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := protoavro.NewContainerReader(&file, protoavro.ReaderOptions{}) // the embedded type
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.MessageType().Descriptor().FullName(), r.Compression())
	for {
		m := r.NewMessage()
		if err := r.Read(m); err == io.EOF {
			break
		} else if err != nil {
			log.Fatal(err)
		}
		fmt.Println(m)
	}
	// Output:
	// protoavro.avro2147.Foo zstandard
	// int32:0
	// int32:1
	// int32:2
}

// An Avro datum does not say which schema wrote it: data written with
// another version of the message is read by a resolver of the writer's
// schema. Here version 1 of a Person wrote the datum, and version 2, which
// removed nickname, widened age to int64 and added phone, reads it.
func ExampleCodec_Resolve() {
	person := func(version string) protoreflect.MessageDescriptor {
		md, err := protoload.Resolve(context.Background(), protoload.Input{
			Protos:      []string{"person.proto"},
			ImportPaths: []string{"../testdata/proto/evolution/" + version},
			Message:     "protoavro.test.evolution.Person",
		})
		if err != nil {
			log.Fatal(err)
		}
		return md
	}
	v1, v2 := person("v1"), person("v2")
	writer, err := protoavro.Options{}.Codec(v1)
	if err != nil {
		log.Fatal(err)
	}
	old := dynamicpb.NewMessage(v1)
	if err := protojson.Unmarshal([]byte(`{"name":"Ada","age":36,"nickname":"ada","role":"ROLE_ADMIN"}`), old); err != nil {
		log.Fatal(err)
	}
	data, err := writer.Marshal(old)
	if err != nil {
		log.Fatal(err)
	}

	reader, err := protoavro.Options{}.Codec(v2)
	if err != nil {
		log.Fatal(err)
	}
	r, err := reader.Resolve(writer.Schema()) // once per writer schema; it is safe for concurrent use
	if err != nil {
		log.Fatal(err)
	}
	m := dynamicpb.NewMessage(v2)
	if err := r.Unmarshal(data, m); err != nil {
		log.Fatal(err)
	}
	get := func(name protoreflect.Name) protoreflect.Value { return m.Get(v2.Fields().ByName(name)) }
	role := v2.Enums().ByName("Role").Values().ByNumber(get("role").Enum()).Name()
	fmt.Printf("name %q, age %v (%T), role %s, phone %q\n",
		get("name").String(), get("age").Interface(), get("age").Interface(), role, get("phone").String())

	// Version 1 cannot read version 2's data: Avro does not narrow a long
	// to an int.
	_, err = writer.Resolve(reader.Schema())
	fmt.Println(errors.Is(err, protoavro.ErrIncompatible))
	fmt.Println(err)
	// Output:
	// name "Ada", age 36 (int64), role ROLE_ADMIN, phone ""
	// true
	// field protoavro.test.evolution.Person.age: incompatible schemas: writer type long cannot be read as int
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"

	"google.golang.org/protobuf/proto"
	// Your generated package; descriptorpb stands in for it here.
	pb "google.golang.org/protobuf/types/descriptorpb"

	"github.com/protoavro/protoavro/protoavro"
)

func main() {
	md := (&pb.FieldDescriptorProto{}).ProtoReflect().Descriptor()

	// The Avro schema of the message type: derived once, then cached.
	schema, err := protoavro.Options{}.Schema(md)
	if err != nil {
		log.Fatal(err)
	}
	avsc, err := schema.JSON() // the .avsc text; schema.Fingerprint() is its CRC-64-AVRO
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("schema:", schema.FullName(), json.Valid(avsc))

	// One message to Avro binary and back. A Codec is safe for concurrent use.
	codec, err := protoavro.Options{}.Codec(md)
	if err != nil {
		log.Fatal(err)
	}
	msg := &pb.FieldDescriptorProto{Name: proto.String("id"), Number: proto.Int32(1)}
	datum, err := codec.MarshalAppend(nil, msg)
	if err != nil {
		log.Fatal(err)
	}
	back := &pb.FieldDescriptorProto{}
	if err := codec.Unmarshal(datum, back); err != nil {
		log.Fatal(err)
	}
	fmt.Println("round trip equal:", proto.Equal(msg, back))

	// An Avro Object Container File, the format BigQuery, Spark and Hive load.
	var file bytes.Buffer // or an *os.File
	w, err := protoavro.NewContainerWriter(&file, md, protoavro.ContainerOptions{
		Compression: protoavro.CompressionZstd,
	})
	if err != nil {
		log.Fatal(err)
	}
	for i, name := range []string{"id", "name", "price"} {
		if err := w.Write(&pb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(int32(i + 1))}); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil { // flushes; does not close the file
		log.Fatal(err)
	}

	// Reading it back. Without ReaderOptions.Message, the reader uses the
	// message type embedded in the file, as dynamicpb messages.
	r, err := protoavro.NewContainerReader(&file, protoavro.ReaderOptions{Message: back.ProtoReflect().Type()})
	if err != nil {
		log.Fatal(err)
	}
	for {
		m := &pb.FieldDescriptorProto{}
		err := r.Read(m)
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			log.Fatal(err) // a *protoavro.DataError says where
		}
		fmt.Println(m.GetNumber(), m.GetName())
	}
}

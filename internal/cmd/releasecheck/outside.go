package main

// outsideMain is the program of the outside module: it uses the library,
// kafka/serde and the Beam transforms (a pipeline run on prism, in process)
// as a user's module would, and fails if a result is wrong.
const outsideMain = `package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	protoavrobeam "github.com/protoavro/protoavro/beam"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

func main() {
	flag.Parse()
	beam.Init()
	log.SetFlags(0)
	md := (&timestamppb.Timestamp{}).ProtoReflect().Descriptor()

	// The library: a message to Avro binary and back.
	codec, err := protoavro.Options{}.Codec(md)
	if err != nil {
		log.Fatal(err)
	}
	in := &timestamppb.Timestamp{Seconds: 1700000000, Nanos: 5}
	data, err := codec.Marshal(in)
	if err != nil {
		log.Fatal(err)
	}
	var back timestamppb.Timestamp
	if err := codec.Unmarshal(data, &back); err != nil || !proto.Equal(in, &back) {
		log.Fatalf("library: round trip: %v, %v", &back, err)
	}
	fmt.Printf("library: %s, %d bytes\n", codec.Schema().FullName(), len(data))

	// kafka/serde: the wire header and the compatibility check.
	id, rest, err := serde.ParseHeader(serde.AppendHeader(nil, 7))
	if err != nil || id != 7 || len(rest) != 0 {
		log.Fatalf("serde: header: %d %q %v", id, rest, err)
	}
	avsc := codec.Schema().String()
	rep, err := serde.CheckCompatibility(serde.LevelFull, avsc, []string{avsc})
	if err != nil || len(rep.Problems) != 0 {
		log.Fatalf("serde: %s against itself: %v %v", avsc, rep, err)
	}
	fmt.Println("kafka/serde: FULL compatible with itself")

	// The Beam transforms: length-delimited messages to a container file.
	dir, err := os.MkdirTemp("", "outside")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var delimited bytes.Buffer
	for i := range 3 {
		if _, err := protodelim.MarshalTo(&delimited, &timestamppb.Timestamp{Seconds: int64(i)}); err != nil {
			log.Fatal(err)
		}
	}
	src := filepath.Join(dir, "in.delimited")
	if err := os.WriteFile(src, delimited.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	t, err := protoavrobeam.TypeOf(md, protoavro.Options{})
	if err != nil {
		log.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	if _, err := protoavrobeam.Convert(s, t, protoavrobeam.Delimited, src, filepath.Join(dir, "out"), protoavrobeam.WriteOptions{Shards: 1}); err != nil {
		log.Fatal(err)
	}
	if _, err := prism.Execute(context.Background(), p); err != nil {
		log.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, protoavrobeam.ShardName("out", 0, 1, ".avro")))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	cr, err := protoavro.NewContainerReader(f, protoavro.ReaderOptions{Message: (&timestamppb.Timestamp{}).ProtoReflect().Type()})
	if err != nil {
		log.Fatal(err)
	}
	var n int64
	for {
		var m timestamppb.Timestamp
		err := cr.Read(&m)
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			log.Fatal(err)
		}
		if m.Seconds != n {
			log.Fatalf("beam: record %d: %v", n, &m)
		}
		n++
	}
	if n != 3 {
		log.Fatalf("beam: %d records, want 3", n)
	}
	fmt.Println("beam: 3 records converted on prism")
}
`

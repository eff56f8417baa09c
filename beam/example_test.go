package protoavrobeam_test

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"google.golang.org/protobuf/encoding/protodelim"

	protoavrobeam "github.com/protoavro/protoavro/beam"
	pb "github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/protoavro"
)

// Convert the sample's length-delimited messages to two container files on
// prism, in process.
func ExampleConvert() {
	t, err := protoavrobeam.TypeOf((&pb.Foo{}).ProtoReflect().Descriptor(), protoavro.Options{})
	if err != nil {
		panic(err)
	}
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	p, s := beam.NewPipelineWithRoot()
	if _, err := protoavrobeam.Convert(s, t, protoavrobeam.Delimited, "../testdata/avro2147.delimited",
		filepath.Join(dir, "foo"), protoavrobeam.WriteOptions{Shards: 2}); err != nil {
		panic(err)
	}
	if _, err := prism.Execute(context.Background(), p); err != nil {
		panic(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, n := range names {
		fmt.Println(filepath.Base(n))
	}
	// Output:
	// foo-00000-of-00002.avro
	// foo-00001-of-00002.avro
}

// ExampleWriteAvro converts a JSON Lines file (one protojson object a
// line; a blank line is skipped, and {} is a message with no field set) to
// one self-describing container file with WriteAvro, then reads it back
// with ReadAvro, which needs no Type: it reads each file as the message
// type embedded in it. The records read are written as a length-delimited
// file, to print here. Each pipeline runs on prism, in process.
func ExampleWriteAvro() {
	t, err := protoavrobeam.TypeOf((&kitchenpb.Point{}).ProtoReflect().Descriptor(), protoavro.Options{})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "points.jsonl")
	if err := os.WriteFile(in, []byte("{\"x\": 3, \"y\": 4}\n\n{\"x\": 1, \"y\": 2}\n{}\n"), 0o644); err != nil {
		log.Fatal(err)
	}

	// JSON in, Avro out: one shard, points-00000-of-00001.avro.
	p, s := beam.NewPipelineWithRoot()
	protoavrobeam.WriteAvro(s, t, filepath.Join(dir, "points"), protoavrobeam.WriteOptions{Shards: 1},
		protoavrobeam.ReadJSONLines(s, t, in))
	if _, err := prism.Execute(context.Background(), p); err != nil {
		log.Fatal(err)
	}
	names, err := filepath.Glob(filepath.Join(dir, "points-*.avro"))
	if err != nil {
		log.Fatal(err)
	}
	for _, n := range names {
		fmt.Println("wrote", filepath.Base(n))
	}

	// Avro in, protobuf out: the wire bytes of each record.
	p, s = beam.NewPipelineWithRoot()
	back := protoavrobeam.ReadAvro(s, filepath.Join(dir, "points-*.avro"), protoavrobeam.ReadAvroOptions{})
	protoavrobeam.WriteDelimited(s, filepath.Join(dir, "back"), protoavrobeam.WriteOptions{Shards: 1}, back)
	if _, err := prism.Execute(context.Background(), p); err != nil {
		log.Fatal(err)
	}
	for _, pt := range readDelimited(filepath.Join(dir, "back-00000-of-00001.delimited")) {
		fmt.Printf("read x=%d y=%d\n", pt.GetX(), pt.GetY())
	}
	// Output:
	// wrote points-00000-of-00001.avro
	// read x=0 y=0
	// read x=1 y=2
	// read x=3 y=4
}

// readDelimited reads the points of a length-delimited file, sorted by x
// and then y: a pipeline's output order is not fixed.
func readDelimited(name string) []*kitchenpb.Point {
	f, err := os.Open(name)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var points []*kitchenpb.Point
	for {
		pt := new(kitchenpb.Point)
		if err = protodelim.UnmarshalFrom(r, pt); err != nil {
			break
		}
		points = append(points, pt)
	}
	if err != io.EOF {
		log.Fatal(err)
	}
	slices.SortFunc(points, func(a, b *kitchenpb.Point) int {
		return cmp.Or(cmp.Compare(a.GetX(), b.GetX()), cmp.Compare(a.GetY(), b.GetY()))
	})
	return points
}

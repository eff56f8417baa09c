package protoavrobeam_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	protoavrobeam "github.com/protoavro/protoavro/beam"
	pb "github.com/protoavro/protoavro/internal/testpb/avro2147pb"
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

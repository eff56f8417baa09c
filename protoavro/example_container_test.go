package protoavro_test

import (
	"bytes"
	"fmt"
	"io"
	"log"

	"google.golang.org/protobuf/proto"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/protoavro"
)

// A damaged file is salvaged with Resync: the reader skips to the next
// sync marker and goes on with the blocks after it.
func ExampleContainerReader_Resync() {
	var file bytes.Buffer
	w, err := protoavro.NewContainerWriter(&file, (&avro2147pb.Foo{}).ProtoReflect().Descriptor(),
		protoavro.ContainerOptions{BlockSize: 1, Descriptors: protoavro.DescriptorsMinimal}) // a block per record
	if err != nil {
		log.Fatal(err)
	}
	for i := range 5 {
		if err := w.Write(&avro2147pb.Foo{Int32: proto.Int32(int32(i))}); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	data := file.Bytes()
	sync := data[len(data)-16:] // every block ends with the header's sync marker
	headerEnd := bytes.Index(data, sync) + 16
	firstSync := headerEnd + bytes.Index(data[headerEnd:], sync)
	data[firstSync+3] ^= 0xff // damage the marker after record 0: blocks 0 and 1 are lost

	m := &avro2147pb.Foo{}
	r, err := protoavro.NewContainerReader(bytes.NewReader(data), protoavro.ReaderOptions{Message: m.ProtoReflect().Type()})
	if err != nil {
		log.Fatal(err)
	}
	for {
		err := r.Read(m)
		if err == io.EOF {
			break
		}
		if err != nil {
			skipped, err := r.Resync(nil)
			fmt.Printf("skipped %d damaged block, %d bytes\n", skipped.Blocks, skipped.Bytes)
			if err == io.EOF {
				break
			}
			continue
		}
		fmt.Println("record", m.GetInt32())
	}
	// Output:
	// skipped 1 damaged block, 78 bytes
	// record 2
	// record 3
	// record 4
}

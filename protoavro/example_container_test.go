package protoavro_test

import (
	"bytes"
	"fmt"
	"io"
	"log"

	"google.golang.org/protobuf/proto"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
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

// Files written by ContainerWriters with the same message type and options
// are merged without decoding their records: a file started with
// ContainerHeader takes their blocks as they are stored.
func ExampleContainerHeader() {
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	opts := protoavro.ContainerOptions{Compression: protoavro.CompressionDeflate}
	var parts [2]bytes.Buffer
	for i := range parts {
		w, err := protoavro.NewContainerWriter(&parts[i], md, opts)
		if err != nil {
			log.Fatal(err)
		}
		for j := range 2 {
			if err := w.Write(&avro2147pb.Foo{Int32: proto.Int32(int32(10*i + j))}); err != nil {
				log.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			log.Fatal(err)
		}
	}

	header, err := protoavro.ContainerHeader(md, opts)
	if err != nil {
		log.Fatal(err)
	}
	var merged bytes.Buffer
	ow, err := ocf.NewWriter(&merged, header)
	if err != nil {
		log.Fatal(err)
	}
	for i := range parts {
		or, err := ocf.NewReader(&parts[i], ocf.ReaderOptions{})
		if err != nil {
			log.Fatal(err)
		}
		for {
			b, err := or.NextRaw() // the block as stored, still compressed
			if err == io.EOF {
				break
			} else if err != nil {
				log.Fatal(err)
			}
			if err := ow.WriteRawBlock(b.Count, b.Data); err != nil {
				log.Fatal(err)
			}
		}
	}
	if err := ow.Close(); err != nil {
		log.Fatal(err)
	}

	m := &avro2147pb.Foo{}
	r, err := protoavro.NewContainerReader(&merged, protoavro.ReaderOptions{Message: m.ProtoReflect().Type()})
	if err != nil {
		log.Fatal(err)
	}
	for err = r.Read(m); err == nil; err = r.Read(m) {
		fmt.Println(m.GetInt32())
	}
	if err != io.EOF {
		log.Fatal(err)
	}
	fmt.Println(r.Blocks(), "blocks")
	// Output:
	// 0
	// 1
	// 10
	// 11
	// 2 blocks
}

// A program that looks at a file's header before it reads the records
// (to pick the message type, say) opens the file with package ocf, then
// hands the ocf.Reader on.
func ExampleNewContainerReaderFrom() {
	var file bytes.Buffer
	w, err := protoavro.NewContainerWriter(&file, (&avro2147pb.Foo{}).ProtoReflect().Descriptor(),
		protoavro.ContainerOptions{Metadata: map[string][]byte{"origin": []byte("example")}})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Write(&avro2147pb.Foo{Int32: proto.Int32(7)}); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	// The ocf.Reader's limits bound the blocks, not ReaderOptions.MaxBlockSize.
	or, err := ocf.NewReader(&file, ocf.ReaderOptions{MaxBlockSize: 1 << 20, MaxBlockDataSize: 1 << 20})
	if err != nil {
		log.Fatal(err)
	}
	h := or.Header()
	fmt.Printf("%s from %s, codec %s\n", h.Metadata[protoavro.MetaMessage], h.Metadata["origin"], h.Codec)

	m := &avro2147pb.Foo{}
	r, err := protoavro.NewContainerReaderFrom(or, protoavro.ReaderOptions{Message: m.ProtoReflect().Type()})
	if err != nil {
		log.Fatal(err)
	}
	if err := r.Read(m); err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.GetInt32())
	// Output:
	// protoavro.avro2147.Foo from example, codec null
	// 7
}

// WriteWire takes records as protobuf wire bytes, as a pipeline holds
// them, and converts them on the writer's workers: a bad record is
// reported later, here to OnBadRecord, which skips it. Fields the message
// does not declare are dropped, and the records that had some counted.
func ExampleContainerWriter_WriteWire() {
	var file bytes.Buffer
	w, err := protoavro.NewContainerWriter(&file, (&avro2147pb.Foo{}).ProtoReflect().Descriptor(),
		protoavro.ContainerOptions{OnBadRecord: func(e *protoavro.RecordError) error {
			fmt.Printf("record %d skipped: %v\n", e.Index, e.Err)
			return nil
		}})
	if err != nil {
		log.Fatal(err)
	}
	for _, wire := range [][]byte{
		{0x08, 0x01},                   // int32: 1
		{0x08},                         // cut short
		{0x08, 0x03, 0x98, 0x06, 0x01}, // int32: 3, and a field 99 that Foo has not
		{0x08, 0x04},                   // int32: 4
	} {
		if err := w.WriteWire(wire); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(w.Records(), "records written,", w.DroppedUnknown(), "with unknown fields dropped")
	// Output:
	// record 1 skipped: protoavro: Foo.#1 at byte 1: truncated input: protobuf value: unexpected EOF
	// 3 records written, 1 with unknown fields dropped
}

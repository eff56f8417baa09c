package ocf_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"

	"github.com/protoavro/protoavro/protoavro/ocf"
)

// Write a file of two blocks of Avro longs, then read it back without
// parsing its schema.
func Example() {
	var file bytes.Buffer
	w, err := ocf.NewWriter(&file, ocf.WriterOptions{
		Schema:   []byte(`"long"`),
		Codec:    ocf.Deflate,
		Metadata: map[string][]byte{"origin": []byte("example")},
	})
	if err != nil {
		log.Fatal(err)
	}
	// Records are encoded by the caller: the longs 1, 2, 3 and then 4.
	if err := w.WriteBlock(3, []byte{2, 4, 6}); err != nil {
		log.Fatal(err)
	}
	if err := w.WriteBlock(1, []byte{8}); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := ocf.NewReader(&file, ocf.ReaderOptions{})
	if err != nil {
		log.Fatal(err)
	}
	h := r.Header()
	fmt.Printf("schema %s, codec %s, origin %s\n", h.Schema, h.Codec, h.Metadata["origin"])
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("block %d at byte %d: %d records, %d bytes stored, data %x\n", b.Index, b.Offset, b.Count, b.Size, b.Data)
	}
	fmt.Println(r.Records(), "records in", r.Offset(), "bytes")
	// Output:
	// schema "long", codec deflate, origin example
	// block 0 at byte 75: 3 records, 9 bytes stored, data 020406
	// block 1 at byte 102: 1 records, 7 bytes stored, data 08
	// 4 records in 127 bytes
}

// Errors name the place in the file and wrap an error class.
func ExampleError() {
	_, err := ocf.NewReader(bytes.NewReader([]byte("Obj\x01\x02")), ocf.ReaderOptions{})
	fmt.Println(err)
	var e *ocf.Error
	if errors.As(err, &e) && errors.Is(err, ocf.ErrTruncated) {
		fmt.Println("truncated at byte", e.Offset)
	}
	// Output:
	// container header at byte 5: metadata key: truncated input: the file ends in the metadata
	// truncated at byte 5
}

// Gather records into blocks that readers accept: 100,000 records of the
// schema "null" take no bytes, so the builder closes a block at
// MaxBlockRecords of them.
func ExampleBlockBuilder() {
	var file bytes.Buffer
	w, err := ocf.NewWriter(&file, ocf.WriterOptions{Schema: []byte(`"null"`)})
	if err != nil {
		log.Fatal(err)
	}
	b := ocf.NewBlockBuilder(256<<10, w.WriteBlock)
	for range 100_000 {
		datum := b.Data() // a null is no bytes: nothing to append
		if err := b.Add(datum, 0); err != nil {
			log.Fatal(err)
		}
	}
	if err := b.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(w.Records(), "records in", w.Blocks(), "blocks")
	// Output:
	// 100000 records in 2 blocks
}

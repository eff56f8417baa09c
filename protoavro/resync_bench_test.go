package protoavro

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/protoavro/ocf"
)

// BenchmarkResyncSparseBadRecords reads, with 1 and 2 workers, a file in
// which one record in 25 holds a null the reader's type cannot take (as
// Spark writes a nullable column), calling Resync after each: the bad
// records are skipped alone, in every block. With 2 workers the records
// after a block's first bad one are decoded by the workers too.
func BenchmarkResyncSparseBadRecords(b *testing.B) {
	md := loadPersonVariant(b, "v2", "int64 age = 2;", "uint32 age = 2;")
	mt := dynamicpb.NewMessageType(md)
	const blocks, perBlock = 40, 500
	var buf bytes.Buffer
	ow, err := ocf.NewWriter(&buf, ocf.WriterOptions{Schema: []byte(nullablePerson), Codec: ocf.Deflate})
	if err != nil {
		b.Fatal(err)
	}
	for k := range blocks {
		var data []byte
		for i := k * perBlock; i < (k+1)*perBlock; i++ {
			if i%25 == 7 {
				data = append(data, personDatum(nil, int64(i))...)
			} else {
				data = append(data, goodPerson(i)...)
			}
		}
		if err := ow.WriteBlock(perBlock, data); err != nil {
			b.Fatal(err)
		}
	}
	if err := ow.Close(); err != nil {
		b.Fatal(err)
	}
	file := buf.Bytes()
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			for range b.N {
				cr, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{Message: mt, Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				read, bad := 0, 0
				var w []byte
				for {
					w, err = cr.ReadWire(w[:0])
					if err == io.EOF {
						break
					}
					if err != nil {
						bad++
						if _, err := cr.Resync(nil); err != nil {
							b.Fatal(err)
						}
						continue
					}
					read++
				}
				if read+bad != blocks*perBlock || bad != blocks*perBlock/25 {
					b.Fatalf("%d records read and %d bad, want %d and %d", read, bad, blocks*perBlock-blocks*perBlock/25, blocks*perBlock/25)
				}
			}
		})
	}
}

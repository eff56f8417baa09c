package protoavro

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
)

// TestParallelReaderRoundTrip reads the same files with 1 to 4 workers:
// the same records in the same order, and io.EOF after them.
func TestParallelReaderRoundTrip(t *testing.T) {
	msgs := sampleFoos(2000)
	for _, comp := range allCompressions {
		file := containerBytes(t, comp, 2048, msgs)
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/workers=%d", comp, workers), func(t *testing.T) {
				cr, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{Message: (&avro2147pb.Foo{}).ProtoReflect().Type(), Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				m := &avro2147pb.Foo{}
				for i, want := range msgs {
					if err := cr.Read(m); err != nil {
						t.Fatalf("record %d: %v", i, err)
					}
					if !proto.Equal(m, want) {
						t.Fatalf("record %d differs", i)
					}
				}
				if err := cr.Read(m); err != io.EOF {
					t.Fatalf("after the records: %v", err)
				}
				if cr.Records() != int64(len(msgs)) {
					t.Fatalf("Records %d", cr.Records())
				}
			})
		}
	}
}

// TestParallelReaderAbandoned: readers dropped before the end stop their
// workers once collected.
func TestParallelReaderAbandoned(t *testing.T) {
	file := containerBytes(t, CompressionSnappy, 1024, sampleFoos(500))
	runtime.GC()
	before := runtime.NumGoroutine()
	for range 20 {
		cr, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{Message: (&avro2147pb.Foo{}).ProtoReflect().Type(), Workers: 4})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cr.ReadWire(nil); err != nil {
			t.Fatal(err)
		}
	}
	var after int
	for range 50 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		if after = runtime.NumGoroutine(); after <= before {
			break
		}
	}
	if after > before {
		t.Fatalf("%d goroutines before, %d after the readers were dropped", before, after)
	}
}

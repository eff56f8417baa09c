package protoavro

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testutil"
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

// TestNextDelimited reads files with NextDelimited, mixed with ReadWire,
// with 1 and 2 workers: the records length-delimited, as protodelim writes
// them, the same as ReadWire gives; and a bad record after the records
// before it, with ReadWire's error.
func TestNextDelimited(t *testing.T) {
	msgs := sampleFoos(1500)
	var want []byte
	for _, m := range msgs {
		w := testutil.Wire(t, m)
		want = protowire.AppendVarint(want, uint64(len(w)))
		want = append(want, w...)
	}
	file := containerBytes(t, CompressionNull, 2048, msgs)
	opts := func(workers int) ReaderOptions {
		return ReaderOptions{Message: (&avro2147pb.Foo{}).ProtoReflect().Type(), Workers: workers}
	}
	for _, workers := range []int{1, 2} {
		cr, err := NewContainerReader(bytes.NewReader(file), opts(workers))
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		calls := 0
		for {
			if calls%3 == 2 {
				// A record by ReadWire now and then, delimited here.
				w, err := cr.ReadWire(nil)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = protowire.AppendVarint(got, uint64(len(w)))
				got = append(got, w...)
			} else {
				b, n, err := cr.NextDelimited()
				if err == io.EOF {
					break
				}
				if err != nil || n < 1 {
					t.Fatalf("workers=%d: %d records, %v", workers, n, err)
				}
				got = append(got, b...)
			}
			calls++
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("workers=%d: NextDelimited gave %d bytes, want %d", workers, len(got), len(want))
		}
		if cr.Records() != int64(len(msgs)) {
			t.Fatalf("workers=%d: Records %d", workers, cr.Records())
		}
	}

	// A corrupt record in the middle of a block: the records before it,
	// then the error ReadWire reports.
	bad := bytes.Clone(file)
	copy(bad[len(bad)/2:], bytes.Repeat([]byte{0xff}, 12)) // a long that does not end
	for _, workers := range []int{1, 2} {
		var wantErr error
		var wantRecords int64
		cr, _ := NewContainerReader(bytes.NewReader(bad), opts(workers))
		for {
			if _, wantErr = cr.ReadWire(nil); wantErr != nil {
				break
			}
		}
		wantRecords = cr.Records()
		if wantErr == io.EOF {
			t.Fatal("the corruption is not seen")
		}
		cr, _ = NewContainerReader(bytes.NewReader(bad), opts(workers))
		var err error
		for {
			var n int
			if _, n, err = cr.NextDelimited(); err != nil {
				break
			}
			if n < 1 {
				t.Fatal("no records")
			}
		}
		t.Logf("workers=%d: %v after %d records", workers, err, cr.Records())
		if err.Error() != wantErr.Error() || cr.Records() != wantRecords {
			t.Fatalf("workers=%d: NextDelimited: %v after %d records; ReadWire: %v after %d", workers, err, cr.Records(), wantErr, wantRecords)
		}
	}
}

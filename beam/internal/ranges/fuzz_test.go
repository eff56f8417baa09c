package ranges

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	pb "github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

func sampleSeed(tb testing.TB, n int) []byte {
	data, err := os.ReadFile("../../../testdata/avro2147.delimited")
	if err != nil {
		tb.Fatal(err)
	}
	var out []byte
	for range n {
		_, k := protowire.ConsumeBytes(data)
		out, data = append(out, data[:k]...), data[k:]
	}
	return out
}

// Binary input of any bytes, in any framing, gives records or an ErrInput,
// never a panic; the records read from any start offset are a suffix of
// those read from 0.
func FuzzReadDelimited(f *testing.F) {
	f.Add(sampleSeed(f, 5), int64(0), uint8(Varint))
	f.Add(sampleSeed(f, 5), int64(100), uint8(VarintUnsaid))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x7f}, int64(0), uint8(Varint)) // a length over the limit
	f.Add([]byte{0x05, 0x01}, int64(0), uint8(Varint))                   // a truncated record
	f.Add([]byte{0, 0, 0, 1, 8, 0, 0, 0, 0}, int64(5), uint8(Size32))    // two 4-byte sizes
	f.Add([]byte{0, 0, 0, 1, 8}, int64(0), uint8(VarintUnsaid))          // the same, refused
	f.Fuzz(func(t *testing.T, data []byte, start int64, framing uint8) {
		fr := Framing(framing % 3)
		var all, part []Batch
		all0 := func(b Batch) { all = append(all, b) }
		ok, err := Framed(bufio.NewReader(bytes.NewReader(data)), "fuzz", fr, 64, 0, func(int64) bool { return true }, all0)
		if err != nil {
			return
		}
		if !ok {
			t.Fatal("no claim was refused, yet not at the end")
		}
		var n int64
		for _, r := range all {
			if int64(len(r.Offsets)) != r.Count || r.Offsets[0] != r.Offset || !slices.IsSorted(r.Offsets) {
				t.Fatalf("batch of %d records at %d has offsets %v", r.Count, r.Offset, r.Offsets)
			}
			if err := r.Each("fuzz", func(int64, []byte) error { n++; return nil }); err != nil {
				t.Fatal(err)
			}
		}
		if start < 0 {
			start = -start
		}
		if _, err := Framed(bufio.NewReader(bytes.NewReader(data)), "fuzz", fr, 64, start, func(int64) bool { return true }, func(b Batch) { part = append(part, b) }); err != nil {
			t.Fatalf("from %d: %v", start, err)
		}
		var m int64
		for _, r := range part {
			if r.Offset < start {
				t.Fatalf("batch at %d before the start %d", r.Offset, start)
			}
			m += r.Count
		}
		if m > n {
			t.Fatalf("%d records from %d, %d from 0", m, start, n)
		}
	})
}

// JSON lines of any bytes give records or an error, never a panic.
func FuzzReadJSONLines(f *testing.F) {
	f.Add([]byte(`{"a": 1}` + "\n\n" + `{}` + "\n"))
	f.Add([]byte("{\n"))
	f.Add([]byte(`{"int32": 7, "fooArray": [{"int32": 1, "string": "x"}]}` + "\n"))
	mt := (&pb.Foo{}).ProtoReflect().Type()
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = JSONLines(bytes.NewReader(data), mt, nil, "fuzz", 64, func(b Batch) {
			if err := b.Each("fuzz", func(int64, []byte) error { return nil }); err != nil {
				t.Fatal(err)
			}
		})
	})
}

// A container file of any bytes, read over any range, gives records or an
// error, never a panic or a hang.
func FuzzReadAvroRange(f *testing.F) {
	// Small seeds keep executions fast: Foo's schema alone is 5 KB. One file
	// has no descriptors (read as Foo), one embeds them (read as its type).
	for _, tc := range []struct {
		records     int
		descriptors protoavro.DescriptorMode
	}{{4, protoavro.DescriptorsNone}, {2, protoavro.DescriptorsMinimal}} {
		var buf bytes.Buffer
		cw, err := protoavro.NewContainerWriter(&buf, (&pb.Foo{}).ProtoReflect().Descriptor(), protoavro.ContainerOptions{BlockSize: 1, Descriptors: tc.descriptors})
		if err != nil {
			f.Fatal(err)
		}
		rest := sampleSeed(f, tc.records)
		for len(rest) > 0 {
			v, k := protowire.ConsumeBytes(rest)
			if err := cw.WriteWire(v); err != nil {
				f.Fatal(err)
			}
			rest = rest[k:]
		}
		if err := cw.Close(); err != nil {
			f.Fatal(err)
		}
		if cw.Blocks() < 2 {
			f.Fatalf("%d blocks: the seed does not split", cw.Blocks())
		}
		f.Add(buf.Bytes(), int64(0), int64(buf.Len()))
		f.Add(buf.Bytes(), int64(buf.Len()/2), int64(buf.Len()))
		f.Add(buf.Bytes()[:buf.Len()-7], int64(0), int64(buf.Len()))
	}
	// The file's embedded type when it has one (protoavro reads it), else Foo.
	a := Avro{MaxBlockSize: 1 << 20, Reader: func(h *ocf.Header) (protoavro.ReaderOptions, error) {
		if h.Metadata[protoavro.MetaDescriptors] != nil {
			return protoavro.ReaderOptions{}, nil
		}
		return protoavro.ReaderOptions{Message: (&pb.Foo{}).ProtoReflect().Type()}, nil
	}}
	f.Fuzz(func(t *testing.T, data []byte, start, end int64) {
		size := int64(len(data))
		start, end = min(max(start, 0), size), min(max(end, 0), size)
		if start > end {
			start, end = end, start
		}
		// The claims of a tracker of [start, end): increasing offsets below end.
		last := int64(-1)
		claim := func(off int64) bool {
			if off <= last {
				t.Fatalf("offset %d claimed after %d", off, last)
			}
			last = off
			return off < end
		}
		// Seekable input when start is even, a stream otherwise.
		open := func() (io.ReadCloser, error) {
			if start%2 == 0 {
				return readSeekCloser{bytes.NewReader(data)}, nil
			}
			return io.NopCloser(bytes.NewReader(data)), nil
		}
		res, err := a.Read(open, "fuzz", start, claim, func([]byte) {})
		if err == nil && res.Done && last >= end {
			t.Fatalf("done after a refused claim at %d", last)
		}
	})
}

type readSeekCloser struct{ *bytes.Reader }

func (readSeekCloser) Close() error { return nil }

package protoavrobeam

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"google.golang.org/protobuf/encoding/protowire"

	pb "github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/protoavro"
)

func sampleSeed(tb testing.TB, n int) []byte {
	data, err := os.ReadFile("../testdata/avro2147.delimited")
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

// Delimited input of any bytes gives records or an ErrInput, never a panic;
// the records read from any start offset are a suffix of those read from 0.
func FuzzReadDelimited(f *testing.F) {
	f.Add(sampleSeed(f, 5), int64(0))
	f.Add(sampleSeed(f, 5), int64(100))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x7f}, int64(0)) // a length over the limit
	f.Add([]byte{0x05, 0x01}, int64(0))                   // a truncated record
	f.Fuzz(func(t *testing.T, data []byte, start int64) {
		var all, part []Records
		all0 := func(r Records) { all = append(all, r) }
		ok, err := readDelimited(bufio.NewReader(bytes.NewReader(data)), "fuzz", 64, 0, func(any) bool { return true }, all0)
		if err != nil {
			return
		}
		if !ok {
			t.Fatal("no claim was refused, yet not at the end")
		}
		var n int64
		for _, r := range all {
			if err := r.Each(func(int64, []byte) error { n++; return nil }); err != nil {
				t.Fatal(err)
			}
		}
		if start < 0 {
			start = -start
		}
		if _, err := readDelimited(bufio.NewReader(bytes.NewReader(data)), "fuzz", 64, start, func(any) bool { return true }, func(r Records) { part = append(part, r) }); err != nil {
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
	f.Fuzz(func(t *testing.T, data []byte) {
		c := fooCompiled(t)
		_ = c.readJSONLines(bytes.NewReader(data), "fuzz", 64, func(r Records) {
			if err := r.Each(func(int64, []byte) error { return nil }); err != nil {
				t.Fatal(err)
			}
		})
	})
}

func fooCompiled(tb testing.TB) *compiled {
	ty, err := TypeOf((&pb.Foo{}).ProtoReflect().Descriptor(), protoavro.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	c, err := ty.compile()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// A container file of any bytes, read over any range, gives records or an
// error, never a panic or a hang.
func FuzzReadAvroRange(f *testing.F) {
	var buf bytes.Buffer
	cw, err := protoavro.NewContainerWriter(&buf, (&pb.Foo{}).ProtoReflect().Descriptor(), protoavro.ContainerOptions{BlockSize: 512})
	if err != nil {
		f.Fatal(err)
	}
	rest := sampleSeed(f, 10)
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
	f.Add(buf.Bytes(), int64(0), int64(buf.Len()))
	f.Add(buf.Bytes(), int64(buf.Len()/2), int64(buf.Len()))
	f.Add(buf.Bytes()[:buf.Len()-7], int64(0), int64(buf.Len()))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, start, end int64) {
		path := filepath.Join(dir, "f.avro")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		size := int64(len(data))
		start, end = min(max(start, 0), size), min(max(end, 0), size)
		if start > end {
			start, end = end, start
		}
		rt := sdf.NewLockRTracker(offsetrange.NewTracker(offsetrange.Restriction{Start: start, End: end}))
		file := fileio.ReadableFile{Metadata: fileio.FileMetadata{Path: path, Size: size}}
		fn := &readAvroFn{MaxBlockSize: 1 << 20}
		_ = fn.ProcessElement(context.Background(), rt, file, func([]byte) {})
	})
}

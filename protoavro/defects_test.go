package protoavro

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
)

// TestUnmarshalDynamicEmpty: decoding into a dynamicpb message of a type
// with no fields once zeroed the dynamicpb struct itself (the direct reader
// took it for a generated struct), so its Descriptor became nil.
func TestUnmarshalDynamicEmpty(t *testing.T) {
	md := (&emptypb.Empty{}).ProtoReflect().Descriptor()
	c, err := Options{Cache: NewCache()}.Codec(md)
	if err != nil {
		t.Fatal(err)
	}
	m := dynamicpb.NewMessage(md)
	if err := c.Unmarshal(nil, m); err != nil {
		t.Fatal(err)
	}
	if m.Descriptor() != md {
		t.Fatalf("descriptor after Unmarshal is %v", m.Descriptor())
	}
	// The message is still usable: a second round trip works.
	out, err := c.Marshal(m)
	if err != nil || len(out) != 0 {
		t.Fatalf("Marshal after Unmarshal: %x, %v", out, err)
	}
	if err := c.Unmarshal(out, m); err != nil {
		t.Fatal(err)
	}
}

// TestMarshalTypedNil: Marshal of a typed nil message panicked; proto.Marshal
// treats it as the empty message, and so does the codec now.
func TestMarshalTypedNil(t *testing.T) {
	for _, m := range []proto.Message{(*kitchenpb.Scalars)(nil), (*timestamppb.Timestamp)(nil)} {
		md := m.ProtoReflect().Descriptor()
		c, err := Options{Cache: NewCache()}.Codec(md)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Marshal(m)
		if err != nil {
			t.Fatalf("%s: Marshal(nil): %v", md.FullName(), err)
		}
		want, err := c.Marshal(m.ProtoReflect().Type().New().Interface())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: Marshal(nil) = %x, Marshal(empty) = %x", md.FullName(), got, want)
		}
		if err := c.Unmarshal(want, m); !errors.Is(err, ErrWrongType) {
			t.Errorf("%s: Unmarshal into a typed nil: %v, want ErrWrongType", md.FullName(), err)
		}
		r, err := c.Resolve(c.Schema())
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Unmarshal(want, m); !errors.Is(err, ErrWrongType) {
			t.Errorf("%s: Resolver.Unmarshal into a typed nil: %v, want ErrWrongType", md.FullName(), err)
		}
	}
	if _, err := (&Codec{}).Resolve(nil); err == nil {
		t.Error("Resolve(nil) succeeded")
	}
}

// TestUnmarshalListClaimsAllocateNothing: a datum whose list claims as many
// items as bytes remain (64 MiB) once made Unmarshal allocate the whole list
// before failing at item 0. Lists now grow as their elements are read.
func TestUnmarshalListClaimsAllocateNothing(t *testing.T) {
	const size = 64 << 20
	c, err := Options{Cache: NewCache()}.Codec((&kitchenpb.Tree{}).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		datum []byte
	}{
		// Tree: label "" then children: a block claiming size-8 records.
		{"messages", append(appendLong([]byte{0}, size-8), make([]byte, size-8)...)},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := c.Unmarshal(tc.datum[:len(tc.datum)-1], &kitchenpb.Tree{})
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%s: Unmarshal accepted a truncated datum", tc.name)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("%s: Unmarshal allocated %d MiB for a bad %d MiB datum", tc.name, grew>>20, size>>20)
		}
	}
	// The scalar lists: Repeateds.packed_double is the first field.
	r, err := Options{Cache: NewCache()}.Codec((&kitchenpb.Repeateds{}).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	datum := append(appendLong(nil, size/8-2), make([]byte, size)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	datum[len(appendLong(nil, size/8-2))+8] = 0xff // garbage after item 0 does not matter: doubles are fixed
	err = r.Unmarshal(datum[:len(datum)/2], &kitchenpb.Repeateds{})
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("Unmarshal accepted a truncated list")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 80<<20 {
		t.Errorf("scalar list: Unmarshal allocated %d MiB for a bad datum of %d MiB", grew>>20, len(datum)>>21)
	}
}

// TestContainerManyEmptyRecords: 70,000 empty messages once went into one
// block of 0 bytes, beyond the 65,536 zero-size records per block that
// ContainerReader accepts, so the reader refused the writer's file. Blocks
// are now closed at that many records.
func TestContainerManyEmptyRecords(t *testing.T) {
	md := (&emptypb.Empty{}).ProtoReflect().Descriptor()
	var b bytes.Buffer
	w, err := NewContainerWriter(&b, md, ContainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 70000
	for range n {
		if err := w.Write(&emptypb.Empty{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewContainerReader(bytes.NewReader(b.Bytes()), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for ; ; got++ {
		if _, err := r.ReadWire(nil); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("record %d: %v", got, err)
			}
			break
		}
	}
	if got != n || w.Blocks() != 2 {
		t.Errorf("read %d records in %d blocks, want %d in 2", got, w.Blocks(), n)
	}
}

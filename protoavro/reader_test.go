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

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/tracepb"
)

// TestUnmarshalDynamicEmpty: decoding into a dynamicpb message of a type
// with no fields leaves the message usable, with its descriptor: the direct
// struct reader must not take a dynamicpb struct for a generated one.
func TestUnmarshalDynamicEmpty(t *testing.T) {
	md := (&emptypb.Empty{}).ProtoReflect().Descriptor()
	c := mustCodecFor(t, Options{Cache: NewCache()}, md)
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

// TestMarshalTypedNil: Marshal of a typed nil message writes the empty
// message, as proto.Marshal treats it, and does not panic.
func TestMarshalTypedNil(t *testing.T) {
	for _, m := range []proto.Message{(*kitchenpb.Scalars)(nil), (*timestamppb.Timestamp)(nil)} {
		md := m.ProtoReflect().Descriptor()
		c := mustCodecFor(t, Options{Cache: NewCache()}, md)
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
// items as bytes remain (64 MiB) fails at item 0 without Unmarshal
// allocating the list it claims: lists grow as their elements are read.
func TestUnmarshalListClaimsAllocateNothing(t *testing.T) {
	const size = 64 << 20
	c := mustCodec(t, Options{Cache: NewCache()}, &kitchenpb.Tree{})
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
	r := mustCodec(t, Options{Cache: NewCache()}, &kitchenpb.Repeateds{})
	datum := append(appendLong(nil, size/8-2), make([]byte, size)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	datum[len(appendLong(nil, size/8-2))+8] = 0xff // garbage after item 0 does not matter: doubles are fixed
	err := r.Unmarshal(datum[:len(datum)/2], &kitchenpb.Repeateds{})
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("Unmarshal accepted a truncated list")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 80<<20 {
		t.Errorf("scalar list: Unmarshal allocated %d MiB for a bad datum of %d MiB", grew>>20, len(datum)>>21)
	}
}

// TestContainerManyEmptyRecords: 70,000 empty messages take 0 bytes each;
// the writer closes blocks at 65,536 records, the most zero-size records per
// block that ContainerReader accepts, so the reader reads the writer's file.
func TestContainerManyEmptyRecords(t *testing.T) {
	md := (&emptypb.Empty{}).ProtoReflect().Descriptor()
	const n = 70000
	file, w := writeRecords(t, md, ContainerOptions{}, n, func(w *ContainerWriter, _ int) error { return w.Write(&emptypb.Empty{}) })
	got, err := readAll(file, ReaderOptions{})
	if err != nil {
		t.Fatalf("record %d: %v", got, err)
	}
	if got != n || w.Blocks() != 2 {
		t.Errorf("read %d records in %d blocks, want %d in 2", got, w.Blocks(), n)
	}
}

// TestContainerEmptyItemsInRecords: records holding many empty messages in
// a list: the writer counts the zero-size items as the reader does and
// splits blocks within the reader's bound, by Write and by WriteWire, so that
// ContainerReader reads every block; a record beyond the bound on its own is
// a bad record.
func TestContainerEmptyItemsInRecords(t *testing.T) {
	md := (&kitchenpb.WellKnown{}).ProtoReflect().Descriptor()
	// Only schemas with records that take no bytes pay for the counting.
	for _, c := range []struct {
		m    proto.Message
		want bool
	}{{&kitchenpb.WellKnown{}, true}, {&avro2147pb.Foo{}, false}, {&tracepb.TracesData{}, false}} {
		s, err := SchemaOf(c.m.ProtoReflect().Descriptor())
		if err != nil {
			t.Fatal(err)
		}
		if got := hasEmptyRecords(s); got != c.want {
			t.Errorf("%s: hasEmptyRecords %v, want %v", s.FullName(), got, c.want)
		}
	}
	withEmpties := func(n int) *kitchenpb.WellKnown {
		m := &kitchenpb.WellKnown{RepeatedEmpty: make([]*emptypb.Empty, n)}
		for i := range m.RepeatedEmpty {
			m.RepeatedEmpty[i] = &emptypb.Empty{}
		}
		return m
	}
	readBack := func(t *testing.T, file []byte) []*kitchenpb.WellKnown {
		t.Helper()
		r, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{Message: (&kitchenpb.WellKnown{}).ProtoReflect().Type()})
		if err != nil {
			t.Fatal(err)
		}
		var got []*kitchenpb.WellKnown
		for {
			m := &kitchenpb.WellKnown{}
			if err := r.Read(m); err == io.EOF {
				return got
			} else if err != nil {
				t.Fatalf("after %d records: %v", len(got), err)
			}
			got = append(got, m)
		}
	}
	// Five records of 40,000 empty messages each: one fits a block, two do not.
	var msgs []*kitchenpb.WellKnown
	for range 5 {
		msgs = append(msgs, withEmpties(40_000))
	}
	for _, viaWire := range []bool{false, true} {
		var buf bytes.Buffer
		w, err := NewContainerWriter(&buf, md, ContainerOptions{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if viaWire {
				wire, err := proto.Marshal(m)
				if err == nil {
					err = w.WriteWire(wire)
				}
				if err != nil {
					t.Fatal(err)
				}
			} else if err := w.Write(m); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got := readBack(t, buf.Bytes())
		if len(got) != len(msgs) || w.Blocks() != 5 {
			t.Fatalf("viaWire=%v: read %d records of %d, in %d blocks, want 5", viaWire, len(got), len(msgs), w.Blocks())
		}
		for i := range got {
			if !proto.Equal(got[i], msgs[i]) {
				t.Fatalf("viaWire=%v: record %d differs", viaWire, i)
			}
		}
	}
	// 100,000 empty messages in one record exceed the bound on their own:
	// a bad record, reported at Close, or skipped with OnBadRecord.
	var buf bytes.Buffer
	w, err := NewContainerWriter(&buf, md, ContainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(withEmpties(100_000)); err != nil {
		t.Fatal(err)
	}
	err = w.Close()
	var re *RecordError
	if !errors.As(err, &re) || re.Index != 0 || !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("Close: %v, want a RecordError of record 0 wrapping ErrOutOfRange", err)
	}
	buf.Reset()
	var bad []int64
	var inputs [][]byte
	var badRecord []byte
	w, err = NewContainerWriter(&buf, md, ContainerOptions{OnBadRecord: func(re *RecordError) error {
		bad, badRecord = append(bad, re.Index), bytes.Clone(re.Record)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range []int{3, 100_000, 5} {
		wire, _ := proto.Marshal(withEmpties(n))
		inputs = append(inputs, wire)
		if err := w.WriteWireAt(wire, int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readBack(t, buf.Bytes())
	if len(bad) != 1 || bad[0] != 1 || len(got) != 2 || len(got[0].RepeatedEmpty) != 3 || len(got[1].RepeatedEmpty) != 5 {
		t.Fatalf("bad records %v; read %d records", bad, len(got))
	}
	if !bytes.Equal(badRecord, inputs[1]) {
		t.Errorf("the bad record's Record is %d bytes, not its %d input bytes", len(badRecord), len(inputs[1]))
	}
	// A WriteDatum datum that does not read back (for such a schema the
	// workers read each one) is a bad record, not a broken writer.
	buf.Reset()
	bad = nil
	w, err = NewContainerWriter(&buf, md, ContainerOptions{OnBadRecord: func(re *RecordError) error { bad = append(bad, re.Index); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	good, err := w.Codec().Marshal(withEmpties(2))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range [][]byte{good, {0xff}, good} {
		if err := w.WriteDatum(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, buf.Bytes()); len(bad) != 1 || bad[0] != 1 || len(got) != 2 {
		t.Fatalf("WriteDatum: bad records %v; read %d records", bad, len(got))
	}
}

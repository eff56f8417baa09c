package protoavro

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testutil"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

var allCompressions = []Compression{CompressionNull, CompressionDeflate, CompressionSnappy, CompressionZstd}

// sampleFoos returns n varied Foo messages.
func sampleFoos(n int) []*avro2147pb.Foo {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]*avro2147pb.Foo, n)
	for i := range out {
		f := &avro2147pb.Foo{Int32: proto.Int32(int32(i))}
		if r.IntN(2) == 0 {
			f.String_ = proto.String(fmt.Sprintf("record %d ✓", i))
		}
		if r.IntN(3) == 0 {
			f.Uint64 = proto.Uint64(r.Uint64())
		}
		f.IntArray = make([]int32, r.IntN(5))
		for j := range f.IntArray {
			f.IntArray[j] = r.Int32()
		}
		if r.IntN(2) == 0 {
			f.Bar = &avro2147pb.MessageWithLargeEnum{Enum: avro2147pb.LargeEnum(1 + r.IntN(676)).Enum()}
		}
		if r.IntN(4) == 0 {
			f.Foo = &avro2147pb.Foo{Int32: proto.Int32(-int32(i)), Syms: []avro2147pb.A{avro2147pb.A_Z}}
		}
		out[i] = f
	}
	return out
}

func TestContainerRoundTrip(t *testing.T) {
	msgs := sampleFoos(3000)
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	for _, comp := range allCompressions {
		for _, viaWire := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/wire=%v", comp, viaWire), func(t *testing.T) {
				var buf bytes.Buffer
				w, err := NewContainerWriter(&buf, md, ContainerOptions{Compression: comp, BlockSize: 4096, Workers: 3,
					Metadata: map[string][]byte{"origin": []byte("test")}})
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range msgs {
					if viaWire {
						wire, _ := proto.Marshal(m)
						err = w.WriteWire(wire)
					} else {
						err = w.Write(m)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if w.Records() != int64(len(msgs)) || w.Blocks() < 2 {
					t.Errorf("wrote %d records in %d blocks", w.Records(), w.Blocks())
				}
				if int64(buf.Len()) != w.BytesWritten() {
					t.Errorf("BytesWritten %d, file %d", w.BytesWritten(), buf.Len())
				}

				// Read into the generated type.
				r, err := NewContainerReader(bytes.NewReader(buf.Bytes()), ReaderOptions{Message: (&avro2147pb.Foo{}).ProtoReflect().Type()})
				if err != nil {
					t.Fatal(err)
				}
				if string(r.Metadata()["origin"]) != "test" || r.Compression() != comp {
					t.Errorf("metadata %q, codec %s", r.Metadata()["origin"], r.Compression())
				}
				readFoos(t, r, msgs)

				// Read with the embedded type only (dynamicpb), no .proto files.
				r, err = NewContainerReader(bytes.NewReader(buf.Bytes()), ReaderOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if r.MessageType().Descriptor().FullName() != md.FullName() {
					t.Fatalf("embedded type %s", r.MessageType().Descriptor().FullName())
				}
				for i, want := range msgs {
					dm := r.NewMessage()
					if err := r.Read(dm); err != nil {
						t.Fatalf("record %d: %v", i, err)
					}
					b, _ := proto.Marshal(dm)
					got := &avro2147pb.Foo{}
					if err := proto.Unmarshal(b, got); err != nil || !proto.Equal(got, want) {
						t.Fatalf("record %d via dynamicpb: %v %v", i, got, err)
					}
				}
			})
		}
	}
}

func TestContainerJavaProfileKeepsOptions(t *testing.T) {
	in := &kitchenpb.Scalars{Uint32Field: 7, StringField: "x"}
	data := writeContainer(t, in.ProtoReflect().Descriptor(), ContainerOptions{Options: Options{Profile: JavaProfile}}, in)
	r, err := NewContainerReader(bytes.NewReader(data), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Codec().Schema().Options().Profile != JavaProfile {
		t.Errorf("profile %v, want java (from %s)", r.Codec().Schema().Options().Profile, r.Metadata()[MetaOptions])
	}
	readsBack(t, r, in)
}

// containerBytes writes msgs into a container file.
func containerBytes(t testing.TB, comp Compression, blockSize int, msgs []*avro2147pb.Foo) []byte {
	t.Helper()
	ms := make([]proto.Message, len(msgs))
	for i, m := range msgs {
		ms[i] = m
	}
	return writeContainer(t, (&avro2147pb.Foo{}).ProtoReflect().Descriptor(), ContainerOptions{Compression: comp, BlockSize: blockSize}, ms...)
}

// writeContainer writes msgs, of type md, into a container file.
func writeContainer(t testing.TB, md protoreflect.MessageDescriptor, opts ContainerOptions, msgs ...proto.Message) []byte {
	t.Helper()
	file, _ := writeRecords(t, md, opts, len(msgs), func(w *ContainerWriter, i int) error { return w.Write(msgs[i]) })
	return file
}

// writeRecords writes n records into a container file of md, record i by
// write(w, i), and closes w. It returns the file and w.
func writeRecords(t testing.TB, md protoreflect.MessageDescriptor, opts ContainerOptions, n int, write func(w *ContainerWriter, i int) error) ([]byte, *ContainerWriter) {
	t.Helper()
	file, w, err := containerRecords(md, opts, n, write)
	if err != nil {
		t.Fatal(err)
	}
	return file, w
}

// containerRecords writes n records into a container file of md, record i
// by write(w, i), and closes w. It returns the file and w, or the first
// error of NewContainerWriter, write or Close; w is closed after an error
// of write.
func containerRecords(md protoreflect.MessageDescriptor, opts ContainerOptions, n int, write func(w *ContainerWriter, i int) error) ([]byte, *ContainerWriter, error) {
	var buf bytes.Buffer
	w, err := NewContainerWriter(&buf, md, opts)
	if err != nil {
		return nil, nil, err
	}
	for i := range n {
		if err := write(w, i); err != nil {
			w.Close()
			return nil, w, fmt.Errorf("record %d: %w", i, err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, w, err
	}
	return buf.Bytes(), w, nil
}

func readAll(data []byte, opts ReaderOptions) (int, error) {
	r, err := NewContainerReader(bytes.NewReader(data), opts)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		if _, err := r.ReadWire(nil); err == io.EOF {
			return n, nil
		} else if err != nil {
			return n, err
		}
		n++
	}
}

// TestContainerCorruption: each structural failure gives a clear error,
// and no bogus size makes the reader allocate it.
func TestContainerCorruption(t *testing.T) {
	msgs := sampleFoos(200)
	good := containerBytes(t, CompressionNull, 1024, msgs)
	if n, err := readAll(good, ReaderOptions{}); err != nil || n != len(msgs) {
		t.Fatalf("good file: %d records, %v", n, err)
	}
	// The first block starts after the header.
	r, _ := NewContainerReader(bytes.NewReader(good), ReaderOptions{})
	hdrLen := int(r.Offset())
	sync := r.or.Header().Sync

	badSync := bytes.Clone(good)
	i := bytes.Index(badSync[hdrLen:], sync[:]) + hdrLen
	badSync[i] ^= 0xff

	huge := append(bytes.Clone(good[:hdrLen]), appendLong(appendLong(nil, 5), 1<<40)...)
	huge = append(huge, good[hdrLen+4:hdrLen+100]...)

	lying := append(bytes.Clone(good[:hdrLen]), appendLong(appendLong(nil, 5), 1<<20)...)
	lying = append(lying, make([]byte, 1000)...)

	for _, tc := range []struct {
		name string
		data []byte
		want error
		text string
	}{
		{"not a container", []byte("hello world"), ErrNotContainer, "not an Avro container file"},
		{"truncated header", good[:hdrLen-3], ErrTruncated, "header"},
		{"bad sync marker", badSync, ErrMalformed, "sync marker"},
		{"truncated block", good[:len(good)-40], ErrTruncated, "block"},
		{"block larger than the limit", huge, ErrMalformed, "exceeds the limit"},
		{"block claiming more bytes than exist", lying, ErrTruncated, "block claims 1048576 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readAll(tc.data, ReaderOptions{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("err = %v, want %v mentioning %q", err, tc.want, tc.text)
			}
			t.Log(err)
		})
	}
}

func TestContainerBadRecords(t *testing.T) {
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	good, _ := proto.Marshal(&avro2147pb.Foo{Int32: proto.Int32(1)})
	bad := []byte{0x0a, 0x05, 'x'} // field 1 with wire type 2, truncated
	records := [][]byte{good, good, good, bad, good}
	var buf bytes.Buffer
	w, err := NewContainerWriter(&buf, md, ContainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range records {
		if err := w.WriteWireAt(rec, int64(100*i)); err != nil {
			t.Fatal(err)
		}
	}
	err = w.Close()
	var re *RecordError
	if !errors.As(err, &re) || re.Index != 3 || re.Offset != 300 {
		t.Fatalf("err = %v, want a RecordError for record 3 at 300", err)
	}
	if w.Records() != 0 {
		t.Errorf("%d records written despite the error", w.Records())
	}

	// With OnBadRecord the record is skipped and reported.
	buf.Reset()
	var rejected []int64
	w, err = NewContainerWriter(&buf, md, ContainerOptions{OnBadRecord: func(e *RecordError) error {
		rejected = append(rejected, e.Index)
		if !bytes.Equal(e.Record, bad) {
			t.Errorf("rejected record %x, want %x", e.Record, bad)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range records {
		if err := w.WriteWire(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(rejected) != 1 || rejected[0] != 3 || w.Records() != 4 {
		t.Errorf("rejected %v, wrote %d", rejected, w.Records())
	}
	if n, err := readAll(buf.Bytes(), ReaderOptions{}); err != nil || n != 4 {
		t.Errorf("read %d records: %v", n, err)
	}
}

func TestContainerReadsOtherVersion(t *testing.T) {
	v1 := compileMessage(t, `syntax = "proto3"; package ev; message P { string name = 1; int32 age = 2; string gone = 3; }`, "ev.P")
	v2 := compileMessage(t, `syntax = "proto3"; package ev; message P { string name = 1; int64 age = 2; repeated string tags = 4; }`, "ev.P")
	m := newDynamic(v1)
	m.Set(v1.Fields().ByName("name"), protoreflect.ValueOfString("ada"))
	m.Set(v1.Fields().ByName("age"), protoreflect.ValueOfInt32(36))
	m.Set(v1.Fields().ByName("gone"), protoreflect.ValueOfString("x"))
	file := writeContainer(t, v1, ContainerOptions{Options: Options{Cache: NewCache()}}, m.Interface())
	r, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{Message: newDynamic(v2).Type(), Options: Options{Cache: NewCache()}})
	if err != nil {
		t.Fatal(err)
	}
	got := r.NewMessage()
	if err := r.Read(got); err != nil {
		t.Fatal(err)
	}
	g := got.ProtoReflect()
	if g.Get(v2.Fields().ByName("name")).String() != "ada" || g.Get(v2.Fields().ByName("age")).Int() != 36 {
		t.Errorf("read %v", got)
	}
}

func newDynamic(md protoreflect.MessageDescriptor) protoreflect.Message {
	return dynamicpb.NewMessage(md)
}

func TestOptionsStringRoundTrip(t *testing.T) {
	for _, p := range []Profile{DefaultProfile, JavaProfile} {
		for _, ts := range []TimestampPrecision{TimestampMicros, TimestampMillis, TimestampNanos} {
			for _, u := range []Uint64Mapping{Uint64AsLong, Uint64AsDecimal} {
				for _, mk := range []MapKeyMapping{MapKeysAsText, MapAsEntryArray} {
					o := Options{Profile: p, Timestamps: ts, Uint64: u, MapKeys: mk}
					want := o
					if p == JavaProfile {
						// String leaves out what the Java profile ignores.
						want = Options{Profile: JavaProfile}
					}
					got, err := ParseOptions(o.String())
					if err != nil || got != want {
						t.Errorf("ParseOptions(%q) = %+v, %v", o.String(), got, err)
					}
				}
			}
		}
	}
	long := strings.Repeat("x", 1<<20)
	for _, bad := range []string{"profile=python", "timestamps=days", "colour=blue", "uint64=huge",
		"recursion=\x1b[2J\x1b]0;pwn\x07", "preset=\u202e" + long, "profile=" + long, "k\x1b=" + long, "recursion=" + long} {
		_, err := ParseOptions(bad)
		if !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("ParseOptions(%.40q): %v, want ErrInvalidOptions", bad, err)
			continue
		}
		// Options come from files and registries: the error quotes them
		// escaped and cut.
		if msg := err.Error(); len(msg) > 300 || !safetext.Safe(msg) {
			t.Errorf("ParseOptions(%.40q): an error of %d bytes, %.300q", bad, len(msg), msg)
		}
	}
}

func TestContainerFileOptions(t *testing.T) {
	var buf bytes.Buffer
	md := (&kitchenpb.Scalars{}).ProtoReflect().Descriptor()
	w, err := NewContainerWriter(&buf, md, ContainerOptions{Options: Options{Profile: JavaProfile}})
	if err != nil {
		t.Fatal(err)
	}
	if w.Codec().Schema().Options().Profile != JavaProfile {
		t.Error("Codec() is not the writer's codec")
	}
	if err := w.Write(&kitchenpb.Scalars{Int32Field: 3}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// The generated type, with the file's (Java) options: no resolution needed.
	r, err := NewContainerReader(bytes.NewReader(buf.Bytes()), ReaderOptions{Message: (&kitchenpb.Scalars{}).ProtoReflect().Type(), FileOptions: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Codec().Schema().Options().Profile != JavaProfile || r.WriterSchema().Fingerprint() != r.Codec().Schema().Fingerprint() {
		t.Errorf("profile %v, writer fingerprint %x, codec %x", r.Codec().Schema().Options().Profile,
			r.WriterSchema().Fingerprint(), r.Codec().Schema().Fingerprint())
	}
	got := &kitchenpb.Scalars{}
	if err := r.Read(got); err != nil || got.Int32Field != 3 {
		t.Errorf("read %v, %v", got, err)
	}
}

func TestContainerWriteBadMessage(t *testing.T) {
	md := (&kitchenpb.Scalars{}).ProtoReflect().Descriptor()
	bad := &kitchenpb.Scalars{StringField: "\xff"} // not UTF-8
	var buf bytes.Buffer
	w, err := NewContainerWriter(&buf, md, ContainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(bad)
	var re *RecordError
	if !errors.As(err, &re) || re.Index != 0 || !errors.Is(err, ErrMalformed) ||
		!strings.HasPrefix(err.Error(), "protoavro: record 0: Scalars.string_field") {
		t.Fatalf("err = %v", err)
	}
	var skipped []int64
	w, err = NewContainerWriter(&buf, md, ContainerOptions{OnBadRecord: func(e *RecordError) error {
		skipped = append(skipped, e.Index)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*kitchenpb.Scalars{{Int32Field: 1}, bad, {Int32Field: 2}} {
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil || w.Records() != 2 || len(skipped) != 1 || skipped[0] != 1 {
		t.Errorf("close %v, %d records, skipped %v", err, w.Records(), skipped)
	}
}

// A block of WriteWire records that are all empty messages (no wire bytes).
func TestContainerEmptyWireRecords(t *testing.T) {
	md := (&kitchenpb.Scalars{}).ProtoReflect().Descriptor()
	file, _ := writeRecords(t, md, ContainerOptions{}, 3, func(w *ContainerWriter, _ int) error { return w.WriteWire(nil) })
	if n, err := readAll(file, ReaderOptions{}); err != nil || n != 3 {
		t.Fatalf("read %d records: %v", n, err)
	}
}

// A file written with another timestamp precision reads in the file's
// unit, whatever the reader's options: the canonical forms are equal (they
// strip logical types), so the reader must look at the logical types.
func TestContainerTimestampUnits(t *testing.T) {
	md := (&kitchenpb.WellKnown{}).ProtoReflect().Descriptor()
	ts := &timestamppb.Timestamp{Seconds: 1700000000, Nanos: 123456789}
	for _, wp := range []TimestampPrecision{TimestampMillis, TimestampMicros, TimestampNanos} {
		for _, rp := range []TimestampPrecision{TimestampMillis, TimestampMicros, TimestampNanos} {
			file := writeContainer(t, md, ContainerOptions{Options: Options{Timestamps: wp}}, &kitchenpb.WellKnown{Timestamp: ts})
			r, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{Message: (&kitchenpb.WellKnown{}).ProtoReflect().Type(), Options: Options{Timestamps: rp}})
			if err != nil {
				t.Fatal(err)
			}
			got := &kitchenpb.WellKnown{}
			if err := r.Read(got); err != nil {
				t.Fatal(err)
			}
			want := map[TimestampPrecision]int32{TimestampMillis: 123000000, TimestampMicros: 123456000, TimestampNanos: 123456789}[wp]
			if got.Timestamp.GetSeconds() != ts.Seconds || got.Timestamp.GetNanos() != want {
				t.Errorf("written %v, read %v: %v, want %d s %d ns", wp, rp, got.Timestamp, ts.Seconds, want)
			}
		}
	}
}

// A record skipped by Write (OnBadRecord) still counts in the indexes of
// the bad WriteWire records after it in the same block.
func TestContainerBadRecordIndexAfterSkippedWrite(t *testing.T) {
	md := (&kitchenpb.Scalars{}).ProtoReflect().Descriptor()
	badWire := []byte{0x0a, 0x05, 'x'} // truncated
	good, _ := proto.Marshal(&kitchenpb.Scalars{Int32Field: 1})
	var skipped []int64
	var buf bytes.Buffer
	w, err := NewContainerWriter(&buf, md, ContainerOptions{OnBadRecord: func(e *RecordError) error {
		skipped = append(skipped, e.Index)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&kitchenpb.Scalars{StringField: "\xff"}); err != nil { // record 0: not UTF-8
		t.Fatal(err)
	}
	for _, rec := range [][]byte{badWire, good, badWire} { // records 1, 2, 3
		if err := w.WriteWire(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Write(&kitchenpb.Scalars{Int32Field: 4}); err != nil { // record 4
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 1, 3}; !slices.Equal(skipped, want) || w.Records() != 2 {
		t.Errorf("skipped %v, want %v; %d records written", skipped, want, w.Records())
	}
	r, err := NewContainerReader(&buf, ReaderOptions{Message: (&kitchenpb.Scalars{}).ProtoReflect().Type()})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []int32{1, 4} {
		got := &kitchenpb.Scalars{}
		if err := r.Read(got); err != nil || got.Int32Field != want {
			t.Fatalf("read %v, %v; want int32_field %d", got, err, want)
		}
	}
}

// A Read with a message of another type fails and leaves the record to the
// next Read.
func TestContainerReadWrongTypeKeepsRecord(t *testing.T) {
	msgs := sampleFoos(3)
	data := containerBytes(t, CompressionNull, 1024, msgs)
	r, err := NewContainerReader(bytes.NewReader(data), ReaderOptions{Message: (&avro2147pb.Foo{}).ProtoReflect().Type()})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Read(&kitchenpb.Scalars{}); !errors.Is(err, ErrWrongType) {
		t.Fatalf("Read into a Scalars: %v, want ErrWrongType", err)
	}
	for i, want := range msgs {
		got := &avro2147pb.Foo{}
		if err := r.Read(got); err != nil || !proto.Equal(got, want) {
			t.Fatalf("record %d: %v, %v; want %v", i, got, err, want)
		}
	}
	if r.Records() != 3 {
		t.Errorf("Records() = %d", r.Records())
	}
}

// WriteDatum adds records converted by the caller, in order with the
// others; a datum beyond the per-record limit is refused and the writer
// goes on.
func TestContainerWriteDatum(t *testing.T) {
	foos := sampleFoos(50)
	md := foos[0].ProtoReflect().Descriptor()
	var buf bytes.Buffer
	w, err := NewContainerWriter(&buf, md, ContainerOptions{BlockSize: 2000})
	if err != nil {
		t.Fatal(err)
	}
	var datum []byte
	for i, m := range foos {
		wire := testutil.Wire(t, m)
		switch i % 3 {
		case 0:
			err = w.WriteWire(wire)
		case 1:
			err = w.Write(m)
		default:
			if datum, err = w.Codec().TranscodeToAvro(datum[:0], wire); err != nil {
				t.Fatal(err)
			}
			err = w.WriteDatum(datum)
		}
		if err != nil {
			t.Fatal(err)
		}
		if i == 10 {
			var re *RecordError
			err := w.WriteDatum(make([]byte, maxRecordAvroSize+1))
			if !errors.As(err, &re) || !errors.Is(err, ErrOutOfRange) || re.Index != 11 {
				t.Fatalf("oversized datum: %v", err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewContainerReader(bytes.NewReader(buf.Bytes()), ReaderOptions{Message: (&avro2147pb.Foo{}).ProtoReflect().Type()})
	if err != nil {
		t.Fatal(err)
	}
	readFoos(t, r, foos)
}

// readFoos reads want's records from r, each equal to its message, and then
// io.EOF.
func readFoos(t *testing.T, r *ContainerReader, want []*avro2147pb.Foo) {
	t.Helper()
	for i, w := range want {
		got := &avro2147pb.Foo{}
		if err := r.Read(got); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !proto.Equal(got, w) {
			t.Fatalf("record %d: got %v, want %v", i, got, w)
		}
	}
	if err := r.Read(&avro2147pb.Foo{}); err != io.EOF {
		t.Fatalf("after the last record: %v, want io.EOF", err)
	}
}

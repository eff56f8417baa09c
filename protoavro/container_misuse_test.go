package protoavro

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// compiledKitchen compiles kitchen.proto with source info, as the command
// line does.
func compiledKitchen(t *testing.T) protoreflect.FileDescriptor {
	t.Helper()
	return testcompile.Protos(t, "../testdata/proto", "kitchen/kitchen.proto")[0]
}

// embeddedSet returns the FileDescriptorSet a container file embeds.
func embeddedSet(t *testing.T, data []byte) *descriptorpb.FileDescriptorSet {
	t.Helper()
	or, err := ocf.NewReader(bytes.NewReader(data), ocf.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(or.Header().Metadata[MetaDescriptors], &set); err != nil {
		t.Fatal(err)
	}
	return &set
}

func TestContainerDescriptorModes(t *testing.T) {
	fd := compiledKitchen(t)
	for _, name := range []protoreflect.Name{"Scalars", "WellKnown", "Outer", "KitchenSink"} {
		md := fd.Messages().ByName(name)
		src := kitchenMessage(t, md)
		sizes := map[DescriptorMode]int{}
		for _, mode := range []DescriptorMode{DescriptorsFull, DescriptorsStripped, DescriptorsMinimal, DescriptorsNone} {
			file := writeContainer(t, md, ContainerOptions{Descriptors: mode}, src)
			sizes[mode] = len(file)
			r, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{})
			if mode == DescriptorsNone {
				if !errors.Is(err, ErrIncompatible) || r != nil {
					t.Errorf("%s/none: reading without a type: %v", name, err)
				}
				if len(embeddedSet(t, file).GetFile()) != 0 {
					t.Errorf("%s/none: descriptors embedded", name)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s/%s: %v", name, mode, err)
			}
			got := r.NewMessage()
			if err := r.Read(got); err != nil {
				t.Fatalf("%s/%s: %v", name, mode, err)
			}
			if !bytes.Equal(testutil.Wire(t, src), testutil.Wire(t, got)) {
				t.Errorf("%s/%s: read back another message", name, mode)
			}
			set := embeddedSet(t, file)
			for _, f := range set.GetFile() {
				// The standard imports come from the Go runtime, without source info.
				if f.GetName() == "kitchen/kitchen.proto" && (f.SourceCodeInfo != nil) != (mode == DescriptorsFull) {
					t.Errorf("%s/%s: %s has source info: %v", name, mode, f.GetName(), f.SourceCodeInfo != nil)
				}
			}
			if mode == DescriptorsMinimal && name == "Scalars" {
				if len(set.File) != 1 || len(set.File[0].MessageType) != 1 || len(set.File[0].Dependency) != 0 ||
					len(set.File[0].EnumType) != 1 || set.File[0].EnumType[0].GetName() != "Color" {
					t.Errorf("minimal Scalars: %d files, %v", len(set.File), set.File[0].Dependency)
				}
			}
		}
		// KitchenSink uses every type of its file and imports.
		smaller := sizes[DescriptorsStripped] > sizes[DescriptorsMinimal] || name == "KitchenSink" && sizes[DescriptorsStripped] == sizes[DescriptorsMinimal]
		if !(sizes[DescriptorsFull] > sizes[DescriptorsStripped] && smaller && sizes[DescriptorsMinimal] > sizes[DescriptorsNone]) {
			t.Errorf("%s: sizes full %d, stripped %d, minimal %d, none %d", name, sizes[DescriptorsFull], sizes[DescriptorsStripped], sizes[DescriptorsMinimal], sizes[DescriptorsNone])
		}
	}
	if _, err := NewContainerWriter(io.Discard, fd.Messages().ByName("Scalars"), ContainerOptions{Descriptors: 9}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("mode 9: %v", err)
	}
	for _, s := range []string{"stripped", "full", "minimal", "none"} {
		if m, err := ParseDescriptorMode(s); err != nil || m.String() != s {
			t.Errorf("ParseDescriptorMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseDescriptorMode("some"); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("ParseDescriptorMode(some): %v", err)
	}
}

// kitchenMessage returns a message of md (a compiled kitchen type) with
// the values of a generated message of the same name set, through wire bytes.
func kitchenMessage(t *testing.T, md protoreflect.MessageDescriptor) proto.Message {
	t.Helper()
	var gen proto.Message
	switch md.Name() {
	case "Scalars":
		gen = &kitchenpb.Scalars{Int32Field: 7, StringField: "s", BytesField: []byte{1}}
	case "WellKnown", "Outer", "KitchenSink":
		gen = nil
	}
	m := dynamicpb.NewMessage(md)
	if gen != nil {
		if err := proto.Unmarshal(testutil.Wire(t, gen), m); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func TestContainerWriterMisuse(t *testing.T) {
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	if _, err := NewContainerWriter(nil, md, ContainerOptions{}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("nil writer: %v", err)
	}
	if _, err := NewContainerWriter(io.Discard, nil, ContainerOptions{}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("nil descriptor: %v", err)
	}
	var nilW *ContainerWriter
	if err := nilW.Write(&avro2147pb.Foo{}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("nil *ContainerWriter: %v", err)
	}
	w, err := NewContainerWriter(io.Discard, md, ContainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(nil); !errors.Is(err, ErrWrongType) {
		t.Errorf("Write(nil): %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.Write(&avro2147pb.Foo{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
	if err := w.WriteWire(nil); !errors.Is(err, ErrClosed) {
		t.Errorf("WriteWire after Close: %v", err)
	}
	if err := w.Flush(); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Close: %v", err)
	}
	// A callback that calls back into the writer gets an error, not a deadlock.
	w, err = NewContainerWriter(io.Discard, md, ContainerOptions{OnBadRecord: func(e *RecordError) error {
		return w.Write(&avro2147pb.Foo{})
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteWire([]byte{0x0f}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, ErrConcurrentUse) {
		t.Errorf("re-entrant call: %v", err)
	}
}

// TestContainerWriterConcurrentUse calls one writer from several
// goroutines: every call either succeeds or returns ErrConcurrentUse,
// nothing panics or hangs, and the file holds the records that were
// accepted (run with -race).
func TestContainerWriterConcurrentUse(t *testing.T) {
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	for run := range 10 {
		var buf bytes.Buffer
		w, err := NewContainerWriter(&buf, md, ContainerOptions{BlockSize: 64, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			accepted int64
			refused  int
		)
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 200 {
					var err error
					switch (g + i) % 4 {
					case 0:
						err = w.Write(&avro2147pb.Foo{Int32: proto.Int32(int32(i))})
					case 1:
						err = w.WriteWire([]byte{0x08, 0x01})
					case 2:
						err = w.Flush()
					case 3:
						_ = w.Records() + w.Blocks() + w.BytesWritten()
					}
					mu.Lock()
					switch {
					case err == nil:
						if (g+i)%4 < 2 {
							accepted++
						}
					case errors.Is(err, ErrConcurrentUse):
						refused++
					default:
						t.Errorf("run %d: %v", run, err)
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		n, err := readAll(buf.Bytes(), ReaderOptions{})
		if err != nil || int64(n) != accepted || w.Records() != accepted {
			t.Errorf("run %d: read %d records (%v), accepted %d, refused %d", run, n, err, accepted, refused)
		}
	}
}

func TestContainerReaderMisuse(t *testing.T) {
	if _, err := NewContainerReader(nil, ReaderOptions{}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("nil reader: %v", err)
	}
	if _, err := NewContainerReaderFrom(nil, ReaderOptions{}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("nil ocf reader: %v", err)
	}
	var nilR *ContainerReader
	if _, err := nilR.ReadWire(nil); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("nil *ContainerReader: %v", err)
	}
	data := containerBytes(t, CompressionSnappy, 256, sampleFoos(500))
	r, err := NewContainerReader(bytes.NewReader(data), ReaderOptions{Message: (&avro2147pb.Foo{}).ProtoReflect().Type()})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Read(nil); !errors.Is(err, ErrWrongType) {
		t.Errorf("Read(nil): %v", err)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		read int
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for {
				var err error
				buf, err = r.ReadWire(buf[:0])
				if errors.Is(err, ErrConcurrentUse) {
					continue
				}
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				read++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if read != 500 {
		t.Errorf("read %d records from 4 goroutines, want 500", read)
	}
}

// TestContainerWorkersBound: more workers than MaxWorkers is refused with
// ErrInvalidOptions by the writer and the reader, before any goroutine
// starts; MaxWorkers itself works.
func TestContainerWorkersBound(t *testing.T) {
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	for _, n := range []int{MaxWorkers + 1, 1 << 28} {
		if _, err := NewContainerWriter(io.Discard, md, ContainerOptions{Workers: n}); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("NewContainerWriter with %d workers: %v, want ErrInvalidOptions", n, err)
		}
	}
	var buf bytes.Buffer
	cw, err := NewContainerWriter(&buf, md, ContainerOptions{Workers: MaxWorkers})
	if err != nil {
		t.Fatal(err)
	}
	if err := cw.Write(&avro2147pb.Foo{Int32: proto.Int32(1)}); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	if _, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{Workers: MaxWorkers + 1}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("NewContainerReader with %d workers: %v, want ErrInvalidOptions", MaxWorkers+1, err)
	}
	cr, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{Workers: MaxWorkers})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cr.ReadWire(nil); err != nil {
		t.Errorf("a reader of %d workers: %v", MaxWorkers, err)
	}
	if _, err := cr.ReadWire(nil); err != io.EOF {
		t.Errorf("a reader of %d workers, after the record: %v, want io.EOF", MaxWorkers, err)
	}
}

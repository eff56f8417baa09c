package protoavro

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// distinctMessage builds message leakN.M (80 fields, a nested message and
// an enum) in a file of its own: a descriptor no other call shares, as the
// types embedded in files from different writers are.
func distinctMessage(t testing.TB, n int) protoreflect.MessageDescriptor {
	pkg := fmt.Sprintf("leak%d", n)
	sub := &descriptorpb.DescriptorProto{Name: proto.String("Sub")}
	m := &descriptorpb.DescriptorProto{Name: proto.String("M")}
	for i := 1; i <= 80; i++ {
		m.Field = append(m.Field, &descriptorpb.FieldDescriptorProto{Name: proto.String(fmt.Sprintf("f%d", i)), Number: proto.Int32(int32(i)),
			Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()})
		sub.Field = append(sub.Field, &descriptorpb.FieldDescriptorProto{Name: proto.String(fmt.Sprintf("s%d", i)), Number: proto.Int32(int32(i)),
			Type: descriptorpb.FieldDescriptorProto_TYPE_INT64.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()})
	}
	m.Field = append(m.Field,
		&descriptorpb.FieldDescriptorProto{Name: proto.String("sub"), Number: proto.Int32(100), TypeName: proto.String("." + pkg + ".Sub"),
			Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()},
		&descriptorpb.FieldDescriptorProto{Name: proto.String("e"), Number: proto.Int32(101), TypeName: proto.String("." + pkg + ".E"),
			Type: descriptorpb.FieldDescriptorProto_TYPE_ENUM.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()})
	e := &descriptorpb.EnumDescriptorProto{Name: proto.String("E")}
	for i := range 50 {
		e.Value = append(e.Value, &descriptorpb.EnumValueDescriptorProto{Name: proto.String(fmt.Sprintf("E_%d", i)), Number: proto.Int32(int32(i))})
	}
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{Name: proto.String(pkg + ".proto"), Package: proto.String(pkg),
		Syntax: proto.String("proto3"), MessageType: []*descriptorpb.DescriptorProto{m, sub}, EnumType: []*descriptorpb.EnumDescriptorProto{e}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("M")
}

// embeddedFile writes a container file of 3 records of md, which embeds md.
func embeddedFile(t testing.TB, md protoreflect.MessageDescriptor) []byte {
	msgs := make([]proto.Message, 3)
	for i := range msgs {
		m := dynamicpb.NewMessage(md)
		m.Set(md.Fields().Get(i), protoreflect.ValueOfString("v"))
		msgs[i] = m
	}
	return writeContainer(t, md, ContainerOptions{Workers: 1}, msgs...)
}

func heapAfterGC() uint64 {
	var ms runtime.MemStats
	for range 3 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond) // cleanups run on their own goroutine
	}
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestCacheReleasesEmbeddedTypes reads many files with distinct embedded
// descriptors through the default ReaderOptions (the package-wide cache):
// once the readers are dropped, the cache's entries and the memory go,
// rather than stay for the life of the process.
func TestCacheReleasesEmbeddedTypes(t *testing.T) {
	const files = 150
	data := make([][]byte, files)
	for i := range data {
		data[i] = embeddedFile(t, distinctMessage(t, i))
	}
	base := heapAfterGC()
	baseLen := defaultCache.Len()
	var peakLen int
	read := func(file []byte) {
		cr, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		m := cr.NewMessage()
		n := 0
		for ; ; n++ {
			if err := cr.Read(m); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		if n != 3 {
			t.Fatalf("%d records", n)
		}
		peakLen = max(peakLen, defaultCache.Len())
	}
	// Keep the first 50 readers' types alive to see the cache hold them.
	var held []*ContainerReader
	for i, file := range data {
		if i < 50 {
			cr, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, cr)
			continue
		}
		read(file)
	}
	heldHeap := heapAfterGC()
	heldLen := defaultCache.Len()
	if heldLen < baseLen+50 {
		t.Fatalf("cache holds %d entries with 50 readers alive, %d before", heldLen, baseLen)
	}
	runtime.KeepAlive(held)
	held = nil
	var after uint64
	var afterLen int
	for range 20 {
		after, afterLen = heapAfterGC(), defaultCache.Len()
		if afterLen <= baseLen {
			break
		}
	}
	t.Logf("cache entries: %d before, %d peak, %d with 50 readers held, %d after; heap %d KiB before, %d KiB held, %d KiB after",
		baseLen, peakLen, heldLen, afterLen, base>>10, heldHeap>>10, after>>10)
	if afterLen > baseLen {
		t.Errorf("cache holds %d entries after the readers are gone, %d before", afterLen, baseLen)
	}
	if after > base+8<<20 {
		t.Errorf("heap %d KiB after, %d KiB before", after>>10, base>>10)
	}
	if heldHeap <= after {
		t.Errorf("heap did not shrink: %d KiB with readers held, %d KiB after", heldHeap>>10, after>>10)
	}
}

// TestCacheKeepsRegisteredTypes: the schemas of generated types stay cached
// (the same *Schema) across garbage collections.
func TestCacheKeepsRegisteredTypes(t *testing.T) {
	md := sampleFoo().ProtoReflect().Descriptor()
	s1 := mustSchema(t, Options{}, md)
	p1 := fmt.Sprintf("%p", s1)
	s1 = nil
	heapAfterGC()
	s2 := mustSchema(t, Options{}, md)
	if fmt.Sprintf("%p", s2) != p1 {
		t.Fatal("the schema of a generated type was derived again after a GC")
	}
}

// TestCacheRuntimeTypeStaysWhileUsed: a schema in use keeps its entry.
func TestCacheRuntimeTypeStaysWhileUsed(t *testing.T) {
	md := distinctMessage(t, 100000)
	c := NewCache()
	s1 := mustSchema(t, Options{Cache: c}, md)
	heapAfterGC()
	s2 := mustSchema(t, Options{Cache: c}, md)
	if s1 != s2 || c.Len() == 0 {
		t.Fatalf("schema in use was dropped: %p %p, Len %d", s1, s2, c.Len())
	}
	runtime.KeepAlive(md)
}

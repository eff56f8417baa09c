package protoavrobeam

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unicode"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
	"github.com/protoavro/protoavro/protoavro/protoload"
)

// timestampSet returns a serialized FileDescriptorSet of
// google/protobuf/timestamp.proto, moved to package pkg (and file pkg.proto)
// unless pkg is empty: a distinct type for each pkg.
func timestampSet(t *testing.T, pkg string) []byte {
	t.Helper()
	fdp := protodesc.ToFileDescriptorProto((&timestamppb.Timestamp{}).ProtoReflect().Descriptor().ParentFile())
	if pkg != "" {
		fdp.Package = proto.String(pkg)
		fdp.Name = proto.String(pkg + ".proto")
	}
	b, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{fdp}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// heapAfterGC returns the bytes of live heap objects after a collection.
func heapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// The type embedded in a container file's header is untrusted: the errors
// of a file whose type does not compile quote its name, its options and the
// errors about them escaped (no control or format characters) and cut.
func TestTypeErrorsEscapedAndBounded(t *testing.T) {
	fds := timestampSet(t, "")
	const escapes = "\x1b[2J\x1b[31mFAKE: all good\x1b[0m\r\n\u202e"
	for _, tc := range []struct {
		name  string
		meta  map[string][]byte
		class error
	}{
		{"message name with terminal escapes", map[string][]byte{
			protoavro.MetaMessage: []byte(escapes), protoavro.MetaDescriptors: fds}, ErrType},
		{"2 MiB of options", map[string][]byte{
			protoavro.MetaMessage: []byte("google.protobuf.Timestamp"), protoavro.MetaDescriptors: fds,
			protoavro.MetaOptions: []byte("profile=" + strings.Repeat("\x1bX", 1<<20))}, protoavro.ErrInvalidOptions},
		{"a recursion option of 2 MiB", map[string][]byte{
			protoavro.MetaMessage: []byte("google.protobuf.Timestamp"), protoavro.MetaDescriptors: fds,
			protoavro.MetaOptions: []byte("recursion=" + strings.Repeat("\x1b", 2<<20))}, protoavro.ErrInvalidOptions},
		{"a field, not a message", map[string][]byte{
			protoavro.MetaMessage: []byte("google.protobuf.Timestamp.seconds"), protoavro.MetaDescriptors: fds}, ErrType},
		{"descriptors that do not link", map[string][]byte{
			protoavro.MetaMessage:     []byte("a.M"),
			protoavro.MetaDescriptors: brokenSet(t, strings.Repeat("\x1b[2J", 1<<20))}, ErrType},
	} {
		fn := &readAvroFn{}
		_, err := fn.readerOptions(&ocf.Header{Metadata: tc.meta})
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		msg := err.Error()
		if !errors.Is(err, ErrType) || !errors.Is(err, tc.class) {
			t.Errorf("%s: %.200q is not an ErrType and a %v", tc.name, msg, tc.class)
		}
		if len(msg) > 1000 {
			t.Errorf("%s: error of %d bytes, want at most 1000: %.200q", tc.name, len(msg), msg)
		}
		if strings.ContainsFunc(msg, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) {
			t.Errorf("%s: control or format characters in the error: %.300q", tc.name, msg)
		}
	}
}

// brokenSet returns a serialized FileDescriptorSet of a file whose message
// a.M has a field of an unknown type named typeName.
func brokenSet(t *testing.T, typeName string) []byte {
	t.Helper()
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("a.proto"),
		Package: proto.String("a"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("M"),
			Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("f"), Number: proto.Int32(1),
				Label:    descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				Type:     descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(),
				TypeName: proto.String("." + typeName),
			}},
		}},
	}
	b, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{fdp}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A Type that fails to compile is not kept, nor its error: files whose
// embedded options are 2 MiB of bad text leave nothing behind.
func TestCompiledTypesDropFailures(t *testing.T) {
	fds := timestampSet(t, "")
	before := compiledTypeCount()
	heap := heapAfterGC()
	for i := range 3 {
		meta := map[string][]byte{protoavro.MetaMessage: []byte("google.protobuf.Timestamp"), protoavro.MetaDescriptors: fds,
			protoavro.MetaOptions: []byte(fmt.Sprintf("profile=%d", i) + strings.Repeat("\x1bX", 1<<20))}
		if _, err := (&readAvroFn{}).readerOptions(&ocf.Header{Metadata: meta}); err == nil {
			t.Fatal("bad options compiled")
		}
	}
	grown := int64(heapAfterGC()) - int64(heap)
	if n := compiledTypeCount(); n > before {
		t.Errorf("%d failed Types cached (%d entries, %d before)", n-before, n, before)
	}
	if grown > 2<<20 {
		t.Errorf("3 failed Types of 2 MiB of options each: heap +%.1f MiB after GC, want under 2 MiB", float64(grown)/(1<<20))
	}
}

// The cache of compiled Types is bounded: a worker that reads files of many
// distinct embedded types keeps at most maxCompiledTypes of them, and at
// most maxCompiledBytes of serialized Types but the last; the last is the
// one a second read finds.
func TestCompiledTypesBounded(t *testing.T) {
	const n = 400
	sets := make([][]byte, n)
	for i := range sets {
		sets[i] = timestampSet(t, fmt.Sprintf("bounded%d", i))
	}
	heap := heapAfterGC()
	read := func(i int) protoavro.ReaderOptions {
		t.Helper()
		meta := map[string][]byte{protoavro.MetaMessage: fmt.Appendf(nil, "bounded%d.Timestamp", i), protoavro.MetaDescriptors: sets[i]}
		ro, err := (&readAvroFn{}).readerOptions(&ocf.Header{Metadata: meta})
		if err != nil {
			t.Fatal(err)
		}
		return ro
	}
	for i := range n {
		read(i)
	}
	grown := int64(heapAfterGC()) - int64(heap)
	count := compiledTypeCount()
	t.Logf("%d distinct embedded types read: %d cached, heap +%.2f MiB after GC", n, count, float64(grown)/(1<<20))
	if count > maxCompiledTypes {
		t.Errorf("%d compiled Types cached, want at most %d", count, maxCompiledTypes)
	}
	// 64 entries take under 1 MiB; each of the 400 about 12 KiB.
	if grown > 2<<20 {
		t.Errorf("heap +%.2f MiB after GC, want under 2 MiB", float64(grown)/(1<<20))
	}
	if a, b := read(n-1), read(n-1); a.Message != b.Message {
		t.Error("the last Type read was compiled again")
	}

	// Types of 768 KiB each (descriptor sets padded with an unknown
	// field): two fit in maxCompiledBytes.
	pad := make([]byte, 768<<10)
	for i := range 4 {
		set := protowire.AppendTag(timestampSet(t, fmt.Sprintf("big%d", i)), 1023, protowire.BytesType)
		set = protowire.AppendBytes(set, pad)
		meta := map[string][]byte{protoavro.MetaMessage: fmt.Appendf(nil, "big%d.Timestamp", i), protoavro.MetaDescriptors: set}
		if _, err := (&readAvroFn{}).readerOptions(&ocf.Header{Metadata: meta}); err != nil {
			t.Fatal(err)
		}
	}
	if got := compiledTypes.bytesHeld(); got > maxCompiledBytes {
		t.Errorf("%d serialized bytes of compiled Types cached, want at most %d", got, maxCompiledBytes)
	}
}

// compiledTypeCount returns the number of compiled Types cached.
func compiledTypeCount() int { return compiledTypes.len() }

// TestTypePublicImportChain: a Type whose descriptors are a chain of
// 20,000 files each importing the one before publicly is refused with
// ErrType and protoload.ErrImportLimit, naming the file where the bound
// was passed, as are AnyTypes beyond the bound; the longest chain within the
// bound (1,025 files) compiles.
func TestTypePublicImportChain(t *testing.T) {
	set := func(files []*descriptorpb.FileDescriptorProto) []byte {
		b, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: files})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	within := set(testutil.ImportChain(1025, true))
	for _, c := range []struct {
		typ  Type
		file string
	}{
		{Type{Message: "chain.M", Descriptors: set(testutil.ImportChain(20_000, true))}, "f1025.proto"},
		// 513 files importing one that imports 1,024 publicly.
		{Type{Message: "chain.M", Descriptors: set(testutil.ImportChain(2, true)), AnyTypes: set(testutil.ImportHub(1024, 513, true))}, "m512.proto"},
	} {
		_, err := c.typ.build()
		if !errors.Is(err, ErrType) || !errors.Is(err, protoload.ErrImportLimit) || !strings.Contains(err.Error(), `at "`+c.file+`"`) {
			t.Errorf("error %v, want ErrType and ErrImportLimit at %s", err, c.file)
		}
	}
	c, err := Type{Message: "chain.M", Descriptors: within}.build()
	if err != nil {
		t.Fatal(err)
	}
	if got := c.md.ParentFile().Path(); got != "f1024.proto" {
		t.Errorf("message of %s, want f1024.proto", got)
	}
}

package protoavrobeam

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/protoavro/protoavro/beam/internal/beamtest"
	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// TestTypeAnyTypes: the Any values of the records resolve to the types that
// travel with the Type: a DoFn's codec built from a Type whose AnyTypes
// (WithAnyTypes) hold a message writes and reads an Any of it as JSON
// (EngineReady), and its JSON Lines reader reads one.
func TestTypeAnyTypes(t *testing.T) {
	md := (&kitchenpb.WellKnown{}).ProtoReflect().Descriptor()
	typ, err := TypeOf(md, protoavro.EngineReady())
	if err != nil {
		t.Fatal(err)
	}
	// The packed type: one whose file WellKnown's does not import, so
	// that only AnyTypes can hold it.
	packed := &avro2147pb.MessageWithLargeEnum{}
	typ, err = typ.WithAnyTypes(packed.ProtoReflect().Descriptor().ParentFile())
	if err != nil {
		t.Fatal(err)
	}
	c, err := typ.compile()
	if err != nil {
		t.Fatal(err)
	}
	a, err := anypb.New(packed)
	if err != nil {
		t.Fatal(err)
	}
	wire, err := proto.Marshal(&kitchenpb.WellKnown{Any: a})
	if err != nil {
		t.Fatal(err)
	}
	datum, err := c.codec.TranscodeToAvro(nil, wire)
	if err != nil {
		t.Fatalf("an Any of an AnyTypes message: %v", err)
	}
	back, err := c.codec.TranscodeToProto(nil, datum)
	if err != nil {
		t.Fatal(err)
	}
	got := &kitchenpb.WellKnown{}
	if err := proto.Unmarshal(back, got); err != nil || !proto.Equal(got, &kitchenpb.WellKnown{Any: a}) {
		t.Errorf("read back %v (%v)", got, err)
	}
	if _, err := c.resolver.FindMessageByURL(a.TypeUrl); err != nil {
		t.Errorf("the resolver lacks %s: %v", a.TypeUrl, err)
	}
	// Without AnyTypes, the type is unknown.
	typ.AnyTypes = nil
	if c, err = typ.compile(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.codec.TranscodeToAvro(nil, wire); !errors.Is(err, protoavro.ErrUnknownAnyType) {
		t.Errorf("without AnyTypes: %v, want ErrUnknownAnyType", err)
	}
}

// TestJSONLinesUnknownAnyHint: a JSON line whose Any packs a type that the
// Type does not hold fails the read with ErrInput and
// protoavro.ErrUnknownAnyType, naming the file, the record, its line and
// the type URL, and ending with the hint of protoavro encode's (the flags
// that load the type). An Any of a type of the AnyTypes reads, and a line
// with another error gets no such hint.
func TestJSONLinesUnknownAnyHint(t *testing.T) {
	const encodeHint = "load the .proto file that defines the type, with -I for its imports, or a --descriptor-set that holds it, made with protoc --include_imports"
	md := (&kitchenpb.WellKnown{}).ProtoReflect().Descriptor()
	plain, err := TypeOf(md, protoavro.Options{})
	if err != nil {
		t.Fatal(err)
	}
	withPacked, err := plain.WithAnyTypes((&avro2147pb.MessageWithLargeEnum{}).ProtoReflect().Descriptor().ParentFile())
	if err != nil {
		t.Fatal(err)
	}
	read := func(typ Type, lines string) (int, error) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "in.jsonl")
		if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
			t.Fatal(err)
		}
		fn := &readJSONLinesFn{typed: typed{Type: typ}, BatchSize: DefaultBatchSize}
		if err := fn.Setup(); err != nil {
			t.Fatal(err)
		}
		n := 0
		err := fn.ProcessElement(context.Background(), fileio.ReadableFile{Metadata: fileio.FileMetadata{Path: path, Size: int64(len(lines))}}, func(r Records) { n += int(r.Count) })
		return n, err
	}
	const packed = `{"any":{"@type":"type.googleapis.com/protoavro.avro2147.MessageWithLargeEnum"}}` + "\n"
	if n, err := read(withPacked, "{}\n"+packed); err != nil || n != 2 {
		t.Errorf("an Any of a type of the AnyTypes: %d records, %v; want 2", n, err)
	}
	for _, typ := range []Type{plain, withPacked} {
		_, err := read(typ, "{}\n"+`{"any":{"@type":"type.googleapis.com/acme.Missing","x":1}}`+"\n")
		if !errors.Is(err, ErrInput) || !errors.Is(err, protoavro.ErrUnknownAnyType) {
			t.Errorf("an Any of an unknown type: %v, want ErrInput and ErrUnknownAnyType", err)
			continue
		}
		msg := err.Error()
		for _, want := range []string{`in.jsonl": record 1 (line 2, input byte 3): `, `"type.googleapis.com/acme.Missing": "unknown google.protobuf.Any type" (` + encodeHint} {
			if !strings.Contains(msg, want) {
				t.Errorf("an Any of an unknown type: %q lacks %q", msg, want)
			}
		}
	}
	if _, err := read(plain, packed); !errors.Is(err, protoavro.ErrUnknownAnyType) || !strings.Contains(err.Error(), encodeHint) {
		t.Errorf("an Any of a type that only AnyTypes hold, without them: %v, want ErrUnknownAnyType with the hint", err)
	}
	if _, err := read(plain, `{"nofield":1}`+"\n"); !errors.Is(err, ErrInput) || errors.Is(err, protoavro.ErrUnknownAnyType) || strings.Contains(err.Error(), encodeHint) {
		t.Errorf("an unknown field: %v, want ErrInput without the Any hint", err)
	}
}

// embeddedAnyJSON are the records of testutil.EmbeddedAnyJSONL, one a
// string.
var embeddedAnyJSON = strings.Split(strings.TrimSuffix(testutil.EmbeddedAnyJSONL, "\n"), "\n")

// eventType compiles testutil.EmbeddedAnyProtos and returns its files, the
// descriptor of ev.Event and the Type of ev.Event with the files as its
// AnyTypes.
func eventType(t *testing.T) ([]protoreflect.FileDescriptor, protoreflect.MessageDescriptor, Type) {
	t.Helper()
	files := testcompile.Sources(t, testutil.EmbeddedAnyProtos(), "ev/event.proto", "ev/payload.proto")
	md := files[0].Messages().ByName("Event")
	typ, err := TypeOf(md, protoavro.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if typ, err = typ.WithAnyTypes(files...); err != nil {
		t.Fatal(err)
	}
	return files, md, typ
}

// eventBatches returns embeddedAnyJSON as messages of md, their Any values
// resolved by resolver: a batch of delimited records per record, and the
// records' deterministic wire bytes in the same order.
func eventBatches(t *testing.T, md protoreflect.MessageDescriptor, resolver *dynamicpb.Types) ([]Records, [][]byte) {
	t.Helper()
	var batches []Records
	var wires [][]byte
	for i, line := range embeddedAnyJSON {
		m := dynamicpb.NewMessage(md)
		if err := (protojson.UnmarshalOptions{Resolver: resolver}).Unmarshal([]byte(line), m); err != nil {
			t.Fatal(err)
		}
		wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		wires = append(wires, wire)
		batches = append(batches, delimitedRecords(fmt.Sprintf("in-%d.jsonl", i), [][]byte{wire}))
	}
	return batches, wires
}

// TestShardsEmbedAnyTypes: the shards of a message that reaches an Any embed
// the files of the Type's AnyTypes, as protoavro encode embeds the .proto
// files of its command line, whether a bundle's file is renamed to a shard
// or several are merged into one: protoavro's reader of the embedded type
// (protoavro decode) and ReadAvro without a Type resolve the packed types
// from the shard alone, and give the records back as JSON. A message that
// reaches no Any embeds its own files only.
func TestShardsEmbedAnyTypes(t *testing.T) {
	files, md, typ := eventType(t)
	c, err := typ.compile()
	if err != nil {
		t.Fatal(err)
	}
	batches, _ := eventBatches(t, md, c.resolver)
	for _, shards := range []int{0, 1} { // renamed, merged
		dir := t.TempDir()
		prefix := filepath.Join(dir, "ev")
		fn := &writeAvroFn{typed: typed{Type: typ}, Prefix: prefix, Codec: string(protoavro.CompressionDeflate), Run: randomID()}
		temps := writeBundles(t, fn, batches...)
		fin := &finalizeFn{Type: typ, Prefix: prefix, Shards: shards, Suffix: ".avro", Codec: fn.Codec, Avro: true, Run: fn.Run}
		var outs []string
		if err := fin.ProcessElement(context.Background(), nil, iterOf(temps...), func(s string) { outs = append(outs, s) }); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, name := range outs {
			cr := beamtest.Each(t, name, func(cr *protoavro.ContainerReader, m proto.Message) {
				j, err := protojson.MarshalOptions{Resolver: cr.AnyResolver()}.Marshal(m)
				if err != nil {
					t.Fatalf("shards %d: %s: %v", shards, filepath.Base(name), err)
				}
				got = append(got, string(j))
			})
			// ReadAvro without a Type compiles the embedded type, whose
			// resolver must know the packed type.
			ro, err := (&readAvroFn{}).readerOptions(&ocf.Header{Metadata: cr.Metadata()})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ro.Options.AnyResolver.FindMessageByURL("type.googleapis.com/ev.audit.AuditLog"); err != nil {
				t.Errorf("shards %d: ReadAvro of %s: %v", shards, filepath.Base(name), err)
			}
		}
		if !sameJSON(got, embeddedAnyJSON) {
			t.Errorf("shards %d: read back %q, want %q", shards, got, embeddedAnyJSON)
		}
	}

	// A message that reaches no Any: the AnyTypes are not embedded.
	foo, err := fooType(t).WithAnyTypes(files[1])
	if err != nil {
		t.Fatal(err)
	}
	fc, err := foo.compile()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fc.meta[protoavro.MetaDescriptors], fooType(t).Descriptors) {
		t.Error("the shards of Foo, which reaches no Any, embed more than its own files")
	}
}

// sameJSON reports whether got and want hold the same JSON values, in any
// order.
func sameJSON(got, want []string) bool {
	norm := func(lines []string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			var v any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				return nil
			}
			b, _ := json.Marshal(v)
			out[i] = string(b)
		}
		slices.Sort(out)
		return out
	}
	g, w := norm(got), norm(want)
	return g != nil && slices.Equal(g, w)
}

// warnings is a Beam logger that keeps the warnings logged through it.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) Log(_ context.Context, sev log.Severity, _ int, msg string) {
	if sev == log.SevWarn {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.msgs = append(w.msgs, msg)
	}
}

// TestAnyTypesOverHeaderLimitNotEmbedded: when the files of a Type's
// AnyTypes would make the container header larger than readers accept
// (ocf.DefaultMaxMetadataSize), the Type's build leaves them out of the
// header, alike for every worker: Check reports it, the writers log it
// once through Beam's logging (not once per DoFn instance or bundle), the
// bundles' files and the merged shard are written with the message's own
// files (the header TypeOf gives, which any reader opens) and hold every
// record, whose Any values still resolve against the AnyTypes while they
// are converted. The bound holds for the longest codec name: files that
// fit with "null" but not with "zstandard" are left out too, and a zstd
// write succeeds. A Type whose AnyTypes fit has no warning.
func TestAnyTypesOverHeaderLimitNotEmbedded(t *testing.T) {
	_, md, small := eventType(t)
	if w, err := small.Check(); err != nil || len(w) != 0 {
		t.Fatalf("AnyTypes that fit: warnings %q (%v), want none", w, err)
	}
	// withBig returns the Type with one more file in AnyTypes (set), a
	// message whose string field has a default of size bytes.
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(small.AnyTypes, &set); err != nil {
		t.Fatal(err)
	}
	n := len(set.File)
	withBig := func(size int) Type {
		t.Helper()
		set.File = append(set.File[:n], &descriptorpb.FileDescriptorProto{
			Name: proto.String("big/big.proto"), Package: proto.String("big"), Syntax: proto.String("proto2"),
			MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("Big"), Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("s"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(), DefaultValue: proto.String(strings.Repeat("x", size)),
			}}}},
		})
		typ := small
		var err error
		if typ.AnyTypes, err = proto.Marshal(&set); err != nil {
			t.Fatal(err)
		}
		return typ
	}
	// Evict the large Types from the cache of compiled Types after the
	// test (the next compilation goes over its byte bound).
	t.Cleanup(func() { _, _ = fooType(t).compile() })
	check := func(typ Type) string {
		t.Helper()
		want := fmt.Sprintf(`the container files of "ev.Event" do not embed the %d files of the Type's AnyTypes (protoavro: invalid options: the container header's metadata takes `, n+1)
		w, err := typ.Check()
		if err != nil || len(w) != 1 || !strings.HasPrefix(w[0], want) || !strings.Contains(w[0], fmt.Sprintf("more than the %d that readers accept", ocf.DefaultMaxMetadataSize)) ||
			!strings.Contains(w[0], "a reader of them needs these files again") {
			t.Fatalf("Check: warnings %q (%v), want one starting %q", w, err, want)
		}
		return w[0]
	}
	// nullHeaderSize returns the size of the header of ev.Event with the
	// files of set embedded and the codec null, as protoavro's
	// ContainerWriter counts it in its error.
	nullHeaderSize := func() int {
		t.Helper()
		files, err := protodesc.NewFiles(&set)
		if err != nil {
			t.Fatal(err)
		}
		d, err := files.FindDescriptorByName("ev.Event")
		if err != nil {
			t.Fatal(err)
		}
		var extra []protoreflect.FileDescriptor
		files.RangeFiles(func(f protoreflect.FileDescriptor) bool { extra = append(extra, f); return true })
		_, err = protoavro.ContainerHeader(d.(protoreflect.MessageDescriptor), protoavro.ContainerOptions{ExtraFiles: extra})
		var size int
		if err == nil {
			return 0
		}
		if _, serr := fmt.Sscanf(err.Error(), "protoavro: invalid options: the container header's metadata takes %d bytes", &size); serr != nil {
			t.Fatalf("no header size in %v", err)
		}
		return size
	}

	// A header within the bound with the codec name "null" but not with
	// "zstandard" (5 bytes longer): the files are left out for every
	// write, so that a write with zstd does not fail in each bundle.
	withBig(ocf.DefaultMaxMetadataSize) // into set, to measure it
	over := nullHeaderSize() - ocf.DefaultMaxMetadataSize
	edge := withBig(ocf.DefaultMaxMetadataSize - over - 2)
	if size := nullHeaderSize(); size != 0 {
		t.Fatalf("with the codec null, the header at the edge takes %d bytes, more than %d", size, ocf.DefaultMaxMetadataSize)
	}
	check(edge)
	fn := &writeAvroFn{typed: typed{Type: edge}, Prefix: filepath.Join(t.TempDir(), "edge"), Codec: string(protoavro.CompressionZstd), Run: randomID()}
	if temps := writeBundles(t, fn, delimitedRecords("edge.pb", [][]byte{{0x0a, 0x01, 'e'}})); len(temps) != 1 || temps[0].Records != 1 {
		t.Errorf("a zstd write of the Type at the edge committed %v, want 1 file of 1 record", temps)
	}

	typ := withBig(ocf.DefaultMaxMetadataSize)
	warning := check(typ)
	c, err := typ.compile()
	if err != nil {
		t.Fatal(err)
	}
	if c.extra != nil || !bytes.Equal(c.meta[protoavro.MetaDescriptors], small.Descriptors) {
		t.Errorf("the header embeds %d more files, %d bytes of descriptors; want the message's own files only (%d bytes)",
			len(c.extra), len(c.meta[protoavro.MetaDescriptors]), len(small.Descriptors))
	}

	batches, wires := eventBatches(t, md, c.resolver)
	var want []string // the records' wire bytes, twice
	for _, wire := range wires {
		want = append(want, string(wire), string(wire))
	}
	logged := &warnings{}
	log.SetLogger(logged)
	defer log.SetLogger(&log.Structural{})
	prefix := filepath.Join(t.TempDir(), "ev")
	run := randomID()
	var temps []tempFile
	for range 2 { // two DoFn instances, as a worker may run
		fn := &writeAvroFn{typed: typed{Type: typ}, Prefix: prefix, Codec: string(protoavro.CompressionZstd), Run: run}
		temps = append(temps, writeBundles(t, fn, batches...)...)
	}
	fin := &finalizeFn{Type: typ, Prefix: prefix, Shards: 1, Suffix: ".avro", Codec: string(protoavro.CompressionZstd), Avro: true, Run: run}
	var outs []string
	if err := fin.ProcessElement(context.Background(), nil, iterOf(temps...), func(s string) { outs = append(outs, s) }); err != nil {
		t.Fatal(err)
	}
	if len(logged.msgs) != 1 || logged.msgs[0] != "protoavrobeam: warning: "+warning {
		t.Errorf("logged warnings %q, want once %q", logged.msgs, "protoavrobeam: warning: "+warning)
	}
	if len(outs) != 1 {
		t.Fatalf("shards %q, want 1", outs)
	}
	var got []string
	cr := beamtest.Each(t, outs[0], func(_ *protoavro.ContainerReader, m proto.Message) {
		got = append(got, string(testutil.Wire(t, m)))
	})
	if _, err := cr.AnyResolver().FindMessageByURL("type.googleapis.com/ev.audit.AuditLog"); err == nil {
		t.Error("the merged shard embeds the AnyTypes")
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("read back %q, want %q", got, want)
	}
}

// TestBinaryUnknownAnyHint: a binary record whose google.protobuf.Any
// packs a type the Type does not hold, under options that carry Any as
// JSON (EngineReady), fails ToAvro and WriteAvro with ErrUnknownAnyType,
// naming the record and the type URL, and with the hint that JSON Lines
// get; under the default options it converts (the Any is carried as its
// type URL and bytes).
func TestBinaryUnknownAnyHint(t *testing.T) {
	const encodeHint = "load the .proto file that defines the type, with -I for its imports, or a --descriptor-set that holds it, made with protoc --include_imports"
	md := (&kitchenpb.WellKnown{}).ProtoReflect().Descriptor()
	a := &anypb.Any{TypeUrl: "type.googleapis.com/acme.Missing", Value: []byte{0x08, 0x01}}
	wire, err := proto.Marshal(&kitchenpb.WellKnown{Any: a})
	if err != nil {
		t.Fatal(err)
	}
	good, err := proto.Marshal(&kitchenpb.WellKnown{})
	if err != nil {
		t.Fatal(err)
	}
	r := delimitedRecords("in.delimited", [][]byte{good, wire})
	for _, c := range []struct {
		name string
		opts protoavro.Options
		fail bool
	}{{"default", protoavro.Options{}, false}, {"engine-ready", protoavro.EngineReady(), true}} {
		typ, err := TypeOf(md, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		conv := &toAvroFn{typed{Type: typ}}
		if err := conv.Setup(); err != nil {
			t.Fatal(err)
		}
		write := &writeAvroFn{typed: typed{Type: typ}, Prefix: filepath.Join(t.TempDir(), "out"), Codec: string(protoavro.CompressionNull), Run: randomID()}
		if err := write.Setup(context.Background()); err != nil {
			t.Fatal(err)
		}
		write.StartBundle(context.Background(), func(tempFile) {})
		for _, step := range []struct {
			name string
			run  func() error
		}{
			{"ToAvro", func() error { return conv.ProcessElement(r, func(Block) {}) }},
			{"WriteAvro", func() error {
				if err := write.ProcessElement(context.Background(), r, func(tempFile) {}); err != nil {
					return err
				}
				return write.FinishBundle(context.Background(), func(tempFile) {})
			}},
		} {
			err := step.run()
			if !c.fail {
				if err != nil {
					t.Errorf("%s, %s: %v", c.name, step.name, err)
				}
				continue
			}
			if !errors.Is(err, protoavro.ErrUnknownAnyType) {
				t.Errorf("%s, %s: %v, want ErrUnknownAnyType", c.name, step.name, err)
				continue
			}
			for _, want := range []string{"in.delimited", "record 1", "acme.Missing", encodeHint} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s, %s: %q lacks %q", c.name, step.name, err, want)
				}
			}
		}
	}
}

package protoavro

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"slices"
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/protoavro/ocf"
	"google.golang.org/protobuf/proto"
)

// TestContainerHeader: ContainerHeader gives the header NewContainerWriter
// writes, for each descriptor mode and codec, and a file started with it
// takes the blocks of a ContainerWriter's file and reads back whole.
func TestContainerHeader(t *testing.T) {
	md := (&kitchenpb.WellKnown{}).ProtoReflect().Descriptor()
	for _, opts := range []ContainerOptions{
		{},
		{Compression: CompressionZstd, Descriptors: DescriptorsMinimal, Metadata: map[string][]byte{"origin": []byte("test")}},
		{Options: Options{Timestamps: TimestampMillis}, Descriptors: DescriptorsNone},
		{Descriptors: DescriptorsFull, Compression: CompressionDeflate},
	} {
		h, err := ContainerHeader(md, opts)
		if err != nil {
			t.Fatal(err)
		}
		or, err := ocf.NewReader(bytes.NewReader(writeContainer(t, md, opts)), ocf.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := or.Header()
		meta := maps.Clone(h.Metadata)
		meta[ocf.MetaSchema], meta[ocf.MetaCodec] = h.Schema, []byte(h.Codec)
		if !bytes.Equal(h.Schema, want.Schema) || h.Codec != want.Codec || h.Sync != [16]byte{} ||
			!maps.EqualFunc(meta, want.Metadata, bytes.Equal) {
			t.Errorf("%+v: ContainerHeader gives schema %d bytes, codec %s, metadata keys %v; the writer wrote %d bytes, %s, %v",
				opts, len(h.Schema), h.Codec, slices.Sorted(maps.Keys(h.Metadata)), len(want.Schema), want.Codec, slices.Sorted(maps.Keys(want.Metadata)))
		}
	}

	// A file started with the header holds the blocks of a writer's file.
	amd := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	opts := ContainerOptions{Compression: CompressionSnappy, BlockSize: 1 << 10}
	msgs := sampleFoos(50)
	src := containerBytes(t, opts.Compression, opts.BlockSize, msgs)
	h, err := ContainerHeader(amd, opts)
	if err != nil {
		t.Fatal(err)
	}
	var merged bytes.Buffer
	ow, err := ocf.NewWriter(&merged, h)
	if err != nil {
		t.Fatal(err)
	}
	or, err := ocf.NewReader(bytes.NewReader(src), ocf.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	copyBlocks(t, or, ow)
	if ow.Blocks() < 2 {
		t.Fatalf("%d blocks copied, want several", ow.Blocks())
	}
	cr, err := NewContainerReader(&merged, ReaderOptions{Message: (&avro2147pb.Foo{}).ProtoReflect().Type()})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range msgs {
		got := &avro2147pb.Foo{}
		if err := cr.Read(got); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !proto.Equal(got, want) {
			t.Fatalf("record %d differs", i)
		}
	}
	if err := cr.Read(&avro2147pb.Foo{}); err != io.EOF {
		t.Errorf("after the records: %v, want io.EOF", err)
	}

	// Options the writer refuses, ContainerHeader refuses alike.
	for _, bad := range []ContainerOptions{
		{Metadata: map[string][]byte{"protoavro.x": nil}},
		{Descriptors: DescriptorsNone + 1},
		{Compression: "lzma"},
	} {
		_, herr := ContainerHeader(amd, bad)
		_, werr := NewContainerWriter(io.Discard, amd, bad)
		if herr == nil || werr == nil || herr.Error() != werr.Error() {
			t.Errorf("%+v: ContainerHeader %v, NewContainerWriter %v; want the same error", bad, herr, werr)
		}
	}
	if _, err := ContainerHeader(nil, ContainerOptions{}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("ContainerHeader(nil): %v, want ErrInvalidOptions", err)
	}
}

// copyBlocks copies the blocks of or, as stored, to ow, and closes ow.
func copyBlocks(t *testing.T, or *ocf.Reader, ow *ocf.Writer) {
	t.Helper()
	for {
		b, err := or.NextRaw()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if err := ow.WriteRawBlock(b.Count, b.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := ow.Close(); err != nil {
		t.Fatal(err)
	}
}

package protoavro

import (
	"bytes"
	"io"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testutil"
)

// TestContainerEmbedsMessageSet: a file written for a type that reaches a
// MessageSet (its descriptors embedded in each mode) is read without the
// message type, as the embedded descriptors give it, to the records that a
// reader given the type reads: the MessageSet's items (its extensions)
// are dropped either way, and the Avro schema is the same.
func TestContainerEmbedsMessageSet(t *testing.T) {
	md := compileMessage(t, testutil.MessageSetProto, "msset.M")
	tag := protowire.AppendTag
	item := testutil.MessageSetItem
	set := append(item(1000000000), item(100)...)
	var wire []byte
	wire = protowire.AppendBytes(tag(wire, 1, protowire.BytesType), set)
	wire = protowire.AppendVarint(tag(wire, 2, protowire.VarintType), 1)
	wire = protowire.AppendBytes(tag(wire, 3, protowire.BytesType), item(100))
	wire = protowire.AppendBytes(tag(wire, 3, protowire.BytesType), nil)
	if err := proto.Unmarshal(wire, dynamicpb.NewMessage(md)); err != nil {
		t.Fatal(err)
	}

	codec := mustCodecFor(t, Options{}, md)
	datum, err := codec.TranscodeToAvro(nil, wire)
	if err != nil {
		t.Fatal(err)
	}
	want, err := codec.TranscodeToProto(nil, datum)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []DescriptorMode{DescriptorsStripped, DescriptorsFull, DescriptorsMinimal} {
		file, _ := writeRecords(t, md, ContainerOptions{Descriptors: mode}, 1, func(w *ContainerWriter, _ int) error { return w.WriteWire(wire) })
		for name, opts := range map[string]ReaderOptions{"embedded": {}, "given": {Message: dynamicpb.NewMessageType(md)}} {
			cr, err := NewContainerReader(bytes.NewReader(file), opts)
			if err != nil {
				t.Errorf("%v, %s type: %v", mode, name, err)
				continue
			}
			got, err := cr.ReadWire(nil)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%v, %s type: read %x (%v), want %x", mode, name, got, err, want)
			}
			if _, err := cr.ReadWire(nil); err != io.EOF {
				t.Errorf("%v, %s type: after the record: %v", mode, name, err)
			}
			if cr.WriterSchema().Canonical() != cr.Codec().Schema().Canonical() {
				t.Errorf("%v, %s type: the reader's schema differs from the file's", mode, name)
			}
		}
	}
}

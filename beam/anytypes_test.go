package protoavrobeam

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/protoavro"
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

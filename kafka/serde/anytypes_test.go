package serde_test

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
)

// TestProtoInAnyFromReferences: with Any carried as JSON (EngineReady), a
// record whose Any packs a message of a referenced schema converts to Avro
// and back, the decoder resolving the type from the schema's references;
// an Any of a type neither holds is an ErrUnknownAnyType.
func TestProtoInAnyFromReferences(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	enc := serde.NewProtoEncoder(reg)
	const packed = `syntax = "proto3";
package acme.audit;
message Entry { string who = 1; int64 at = 2; }`
	const holder = `syntax = "proto3";
package acme;
import "google/protobuf/any.proto";
import "acme/audit.proto";
message Event { string id = 1; google.protobuf.Any payload = 2; acme.audit.Entry last = 3; }`
	if _, err := enc.Register(ctx, "acme/audit.proto", packed, nil); err != nil {
		t.Fatal(err)
	}
	id, err := enc.Register(ctx, "events-value", holder, []serde.Reference{{Name: "acme/audit.proto", Subject: "acme/audit.proto", Version: 1}})
	if err != nil {
		t.Fatal(err)
	}
	dec := serde.NewProtoDecoder(reg, protoavro.EngineReady())
	rec, err := dec.Decode(ctx, serde.AppendProtoHeader(nil, id, []int{0}))
	if err != nil {
		t.Fatal(err)
	}
	md := rec.Codec.Schema().Descriptor()
	entryMD := md.Fields().ByName("last").Message()
	entry := dynamicpb.NewMessage(entryMD)
	entry.Set(entryMD.Fields().ByName("who"), protoreflect.ValueOfString("ops"))
	value, err := proto.Marshal(entry)
	if err != nil {
		t.Fatal(err)
	}
	event := func(url string) []byte {
		m := dynamicpb.NewMessage(md)
		m.Set(md.Fields().ByName("id"), protoreflect.ValueOfString("e1"))
		m.Set(md.Fields().ByName("payload"), protoreflect.ValueOfMessage((&anypb.Any{TypeUrl: url, Value: value}).ProtoReflect()))
		wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return wire
	}
	wire := event("type.googleapis.com/acme.audit.Entry")
	datum, err := rec.Codec.TranscodeToAvro(nil, wire)
	if err != nil {
		t.Fatalf("an Any of a referenced type: %v", err)
	}
	back, err := rec.Codec.TranscodeToProto(nil, datum)
	if err != nil {
		t.Fatal(err)
	}
	got, want := dynamicpb.NewMessage(md), dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(back, got); err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(wire, want); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, want) {
		t.Errorf("read back %v, want %v", got, want)
	}
	if _, err := rec.Codec.TranscodeToAvro(nil, event("type.googleapis.com/acme.audit.Gone")); !errors.Is(err, protoavro.ErrUnknownAnyType) {
		t.Errorf("an Any of an unknown type: %v, want ErrUnknownAnyType", err)
	}
}

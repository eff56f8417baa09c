package protoavro

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
)

// badStruct is a google.protobuf.Struct whose map entry repeats its key
// field with another wire type: generated Structs skip the stray field,
// protobuf-go's dynamicpb path panics on it (v1.36.12). Fuzzing found it.
var badStruct = func() []byte {
	entry := []byte{0x0a, 0x01, 'a', 0x08, 0x01} // key "a", then key as a varint
	return lenField(nil, 1, entry)
}()

// lenField appends field num, of wire type bytes, holding v.
func lenField(dst []byte, num int, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(dst, protowire.Number(num), protowire.BytesType), v)
}

// TestDynamicpbPanicRefused checks that the paths that hand untrusted bytes
// to proto.Unmarshal with a dynamicpb message refuse this input with
// ErrMalformed instead of crashing: a Struct carried as JSON (DynamicAsJSON)
// and a oneof message member that a later member replaces.
func TestDynamicpbPanicRefused(t *testing.T) {
	md := (&kitchenpb.WellKnown{}).ProtoReflect().Descriptor()
	t.Run("premise", func(t *testing.T) {
		// unmarshalUntrusted's recover is there for protobuf-go's panic on
		// this input; the premise says whether it still panics.
		err := unmarshalUntrusted(badStruct, dynamicpb.NewMessage(md.Fields().ByName("struct").Message()))
		if err == nil {
			t.Skip("protobuf-go now parses this input")
		}
		t.Log(err)
	})
	for _, tc := range []struct {
		name string
		opts Options
		wire []byte
	}{
		{"Struct as JSON", EngineReady(), lenField(nil, 12, badStruct)},
		{"replaced oneof member", Options{}, lenField(lenField(nil, 72, badStruct), 73, nil)},
		{"replaced oneof member as JSON", EngineReady(), lenField(lenField(nil, 72, badStruct), 73, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			codec := mustCodecFor(t, tc.opts, md)
			_, err := codec.TranscodeToAvro(nil, tc.wire)
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("TranscodeToAvro: %v, want ErrMalformed", err)
			}
			t.Log(err)
		})
	}
}

package protoavro

import (
	"bytes"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
)

// TestUnmarshalDynamicEmpty: decoding into a dynamicpb message of a type
// with no fields once zeroed the dynamicpb struct itself (the direct reader
// took it for a generated struct), so its Descriptor became nil.
func TestUnmarshalDynamicEmpty(t *testing.T) {
	md := (&emptypb.Empty{}).ProtoReflect().Descriptor()
	c, err := Options{Cache: NewCache()}.Codec(md)
	if err != nil {
		t.Fatal(err)
	}
	m := dynamicpb.NewMessage(md)
	if err := c.Unmarshal(nil, m); err != nil {
		t.Fatal(err)
	}
	if m.Descriptor() != md {
		t.Fatalf("descriptor after Unmarshal is %v", m.Descriptor())
	}
	// The message is still usable: a second round trip works.
	out, err := c.Marshal(m)
	if err != nil || len(out) != 0 {
		t.Fatalf("Marshal after Unmarshal: %x, %v", out, err)
	}
	if err := c.Unmarshal(out, m); err != nil {
		t.Fatal(err)
	}
}

// TestMarshalTypedNil: Marshal of a typed nil message panicked; proto.Marshal
// treats it as the empty message, and so does the codec now.
func TestMarshalTypedNil(t *testing.T) {
	for _, m := range []proto.Message{(*kitchenpb.Scalars)(nil), (*timestamppb.Timestamp)(nil)} {
		md := m.ProtoReflect().Descriptor()
		c, err := Options{Cache: NewCache()}.Codec(md)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Marshal(m)
		if err != nil {
			t.Fatalf("%s: Marshal(nil): %v", md.FullName(), err)
		}
		want, err := c.Marshal(m.ProtoReflect().Type().New().Interface())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: Marshal(nil) = %x, Marshal(empty) = %x", md.FullName(), got, want)
		}
		if err := c.Unmarshal(want, m); !errors.Is(err, ErrWrongType) {
			t.Errorf("%s: Unmarshal into a typed nil: %v, want ErrWrongType", md.FullName(), err)
		}
		r, err := c.Resolve(c.Schema())
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Unmarshal(want, m); !errors.Is(err, ErrWrongType) {
			t.Errorf("%s: Resolver.Unmarshal into a typed nil: %v, want ErrWrongType", md.FullName(), err)
		}
	}
	if _, err := (&Codec{}).Resolve(nil); err == nil {
		t.Error("Resolve(nil) succeeded")
	}
}

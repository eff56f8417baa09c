package protoavro

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testutil"
	"google.golang.org/protobuf/proto"
)

func TestSingleObjectJavaReference(t *testing.T) {
	c := mustCodec(t, Options{Profile: JavaProfile}, &avro2147pb.Foo{})
	// java_fingerprint.txt: parsingFingerprint64_little_endian_bytes_hex.
	if got := hex.EncodeToString(c.AppendSingleObjectHeader(nil)); got != "c30128b7f599b78e591b" {
		t.Errorf("header %s, want c301 28b7f599b78e591b", got)
	}
	for _, d := range readJavaDatums(t) {
		msg := &avro2147pb.Foo{}
		if err := proto.Unmarshal(d.Proto, msg); err != nil {
			t.Fatal(err)
		}
		so, err := c.MarshalSingleObject(nil, msg)
		if err != nil {
			t.Fatal(err)
		}
		if want := "c30128b7f599b78e591b" + hex.EncodeToString(d.Avro); hex.EncodeToString(so) != want {
			t.Errorf("%s: got %x, want %s", d.Name, so, want)
		}
		back := &avro2147pb.Foo{}
		if err := c.UnmarshalSingleObject(so, back); err != nil {
			t.Fatal(err)
		}
		want := proto.Clone(msg)
		testutil.ClearDefaults(want.ProtoReflect())
		if !proto.Equal(back, want) {
			t.Errorf("%s: read back %v, want %v", d.Name, back, want)
		}
	}
}

func TestSingleObjectErrors(t *testing.T) {
	c := mustCodec(t, Options{}, &avro2147pb.Foo{})
	good, err := c.MarshalSingleObject(nil, &avro2147pb.Foo{Int32: proto.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	java := mustCodec(t, Options{Profile: JavaProfile}, &avro2147pb.Foo{})
	otherSchema, err := java.MarshalSingleObject(nil, &avro2147pb.Foo{Int32: proto.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	badMarker := append([]byte{0xc3, 0x02}, good[2:]...)
	for _, tc := range []struct {
		name string
		data []byte
		want error
		off  int
	}{
		{"short header", good[:5], ErrTruncated, 5},
		{"bad marker", badMarker, ErrMalformed, 0},
		{"other schema", otherSchema, ErrIncompatible, 2},
		{"truncated datum", good[:len(good)-1], ErrTruncated, -1},
	} {
		err := c.UnmarshalSingleObject(tc.data, &avro2147pb.Foo{})
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
			continue
		}
		var de *DataError
		if !errors.As(err, &de) {
			t.Errorf("%s: %v is not a *DataError", tc.name, err)
		} else if tc.off >= 0 && de.Offset != tc.off {
			t.Errorf("%s: offset %d, want %d", tc.name, de.Offset, tc.off)
		} else if tc.off < 0 && de.Offset < singleObjectHeaderLen {
			t.Errorf("%s: offset %d is inside the header", tc.name, de.Offset)
		}
	}
}

// A resolver reads single-object data written with its writer schema, as
// its Unmarshal reads the datum; data written with another schema is
// ErrIncompatible at the fingerprint, and errors in the datum name their
// offset in the whole input.
func TestResolverSingleObject(t *testing.T) {
	reader := mustCodec(t, Options{}, &avro2147pb.Foo{})
	writer := mustCodec(t, Options{Profile: JavaProfile}, &avro2147pb.Foo{})
	r, err := reader.Resolve(writer.Schema())
	if err != nil {
		t.Fatal(err)
	}
	msg := &avro2147pb.Foo{Int32: proto.Int32(7), String_: proto.String("seven")}
	so, err := writer.MarshalSingleObject(nil, msg)
	if err != nil {
		t.Fatal(err)
	}
	got, want := &avro2147pb.Foo{}, &avro2147pb.Foo{}
	if err := r.UnmarshalSingleObject(so, got); err != nil {
		t.Fatal(err)
	}
	if err := r.Unmarshal(so[singleObjectHeaderLen:], want); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, want) || got.GetString_() != "seven" {
		t.Errorf("UnmarshalSingleObject read %v, Unmarshal of the datum %v", got, want)
	}

	own, err := reader.MarshalSingleObject(nil, msg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
		off  int
	}{
		{"the reader's own schema", own, ErrIncompatible, 2},
		{"short header", so[:5], ErrTruncated, 5},
		{"truncated datum", so[:len(so)-1], ErrTruncated, -1},
	} {
		err := r.UnmarshalSingleObject(tc.data, &avro2147pb.Foo{})
		var de *DataError
		switch {
		case !errors.Is(err, tc.want) || !errors.As(err, &de):
			t.Errorf("%s: err = %v, want a DataError of %v", tc.name, err, tc.want)
		case tc.off >= 0 && de.Offset != tc.off:
			t.Errorf("%s: offset %d, want %d", tc.name, de.Offset, tc.off)
		case tc.off < 0 && (de.Offset < singleObjectHeaderLen || de.Offset > len(tc.data)):
			t.Errorf("%s: offset %d, want one in the datum (%d to %d)", tc.name, de.Offset, singleObjectHeaderLen, len(tc.data))
		}
	}
}

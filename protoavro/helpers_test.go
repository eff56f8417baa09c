package protoavro

import (
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// compileMessage compiles one in-memory file and returns the named message.
func compileMessage(t testing.TB, src string, name protoreflect.FullName) protoreflect.MessageDescriptor {
	t.Helper()
	fd := testcompile.Sources(t, map[string]string{"test.proto": src}, "test.proto")[0]
	md := testutil.FindMessage(fd, name)
	if md == nil {
		t.Fatalf("message %s not found", name)
	}
	return md
}

// mustCodec returns o's codec for m's message type.
func mustCodec(t testing.TB, o Options, m proto.Message) *Codec {
	t.Helper()
	return mustCodecFor(t, o, m.ProtoReflect().Descriptor())
}

// mustCodecFor returns o's codec for md.
func mustCodecFor(t testing.TB, o Options, md protoreflect.MessageDescriptor) *Codec {
	t.Helper()
	return mustFor(t, o.Codec, md)
}

// mustSchema returns o's schema for md.
func mustSchema(t testing.TB, o Options, md protoreflect.MessageDescriptor) *Schema {
	t.Helper()
	return mustFor(t, o.Schema, md)
}

// mustFor returns what get (an Options' Codec or Schema) gives for md, and
// fails the test on an error.
func mustFor[T any](t testing.TB, get func(protoreflect.MessageDescriptor) (T, error), md protoreflect.MessageDescriptor) T {
	t.Helper()
	v, err := get(md)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// codecRoundTrip marshals m with c and unmarshals the datum with c into a
// new message of m's type.
func codecRoundTrip(c *Codec, m proto.Message) (proto.Message, error) {
	data, err := c.Marshal(m)
	if err != nil {
		return nil, err
	}
	got := m.ProtoReflect().New().Interface()
	return got, c.Unmarshal(data, got)
}

// protoRoundTrip marshals m with c, converts the datum to the protobuf
// encoding with c's TranscodeToProto and unmarshals that into a new message
// of m's type.
func protoRoundTrip(c *Codec, m proto.Message) (proto.Message, error) {
	data, err := c.Marshal(m)
	if err != nil {
		return nil, err
	}
	wire, err := c.TranscodeToProto(nil, data)
	if err != nil {
		return nil, err
	}
	got := m.ProtoReflect().New().Interface()
	return got, proto.Unmarshal(wire, got)
}

// mustRoundTrip marshals m with c and unmarshals the datum with c into a
// new message of m's type, which must equal m; it returns the datum and
// that message.
func mustRoundTrip(t testing.TB, c *Codec, m proto.Message) (data []byte, got proto.Message) {
	t.Helper()
	data, err := c.Marshal(m)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	got = m.ProtoReflect().New().Interface()
	if err := c.Unmarshal(data, got); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if !proto.Equal(got, m) {
		t.Fatalf("Unmarshal gives %v, want %v", got, m)
	}
	return data, got
}

// unmarshalTranscoded converts the protobuf encoding wire to an Avro datum
// with c's TranscodeToAvro and decodes that into m with c's Unmarshal.
func unmarshalTranscoded(c *Codec, wire []byte, m proto.Message) error {
	data, err := c.TranscodeToAvro(nil, wire)
	if err != nil {
		return err
	}
	return c.Unmarshal(data, m)
}

// reparsed returns s as ParseSchema reads its JSON.
func reparsed(t testing.TB, s *Schema) *Schema {
	t.Helper()
	text, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := ParseSchema(text)
	if err != nil {
		t.Fatalf("ParseSchema of the schema's JSON: %v\n%s", err, text)
	}
	return parsed
}

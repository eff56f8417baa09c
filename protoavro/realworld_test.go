package protoavro

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/realworld"
	"github.com/protoavro/protoavro/protoavro/protoload"
)

// TestRealWorldRoundTrip: random messages of the real-world corpus
// (LogEntry holding AuditLog in Any, AuditLog, google.api.Service, the
// Kubernetes Pod, Deployment and Service), loaded at run time with
// protoload, round-trip through every path of the library: Marshal and
// Unmarshal, TranscodeToAvro and TranscodeToProto, and a container file
// written with Write and read with Read, under the default options and
// EngineReady, the loaded types resolving the Any values. Timestamps have
// any nanoseconds (microseconds under EngineReady, which keeps those).
func TestRealWorldRoundTrip(t *testing.T) {
	t.Parallel()
	realworld.Each(t, "..", func(t *testing.T, rt realworld.Type, md protoreflect.MessageDescriptor, types *protoload.Types) {
		for name, o := range map[string]Options{"default": {}, "engine": EngineReady()} {
			cfg := realworld.Config(name == "engine")
			var msgs []proto.Message
			for i := range 40 {
				msgs = append(msgs, realworld.Message(t, md, types.Resolver(), rt.AnyType, testutil.SeedKey("realworld/"+string(rt.Name)), i, cfg))
			}
			o.AnyResolver = types.Resolver()
			o.Cache = NewCache()
			c, err := o.Codec(md)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for i, m := range msgs {
				datum, err := c.Marshal(m)
				if err != nil {
					t.Fatalf("%s: message %d: Marshal: %v", name, i, err)
				}
				wire := testutil.Wire(t, m)
				viaWire, err := c.TranscodeToAvro(nil, wire)
				if err != nil || !bytes.Equal(viaWire, datum) {
					t.Fatalf("%s: message %d: TranscodeToAvro: %v (same datum: %v)", name, i, err, bytes.Equal(viaWire, datum))
				}
				back := dynamicpb.NewMessage(md)
				if err := c.Unmarshal(datum, back); err != nil {
					t.Fatalf("%s: message %d: Unmarshal: %v", name, i, err)
				}
				if !proto.Equal(back, m) {
					t.Fatalf("%s: message %d: Unmarshal gives another message", name, i)
				}
				wireBack, err := c.TranscodeToProto(nil, datum)
				if err != nil {
					t.Fatalf("%s: message %d: TranscodeToProto: %v", name, i, err)
				}
				back.Reset()
				if err := proto.Unmarshal(wireBack, back); err != nil || !proto.Equal(back, m) {
					t.Fatalf("%s: message %d: TranscodeToProto gives another message (%v)", name, i, err)
				}
			}
			file := writeContainer(t, md, ContainerOptions{Options: o}, msgs...)
			cr, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{Message: dynamicpb.NewMessageType(md), Options: o})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; ; i++ {
				m := cr.NewMessage()
				err := cr.Read(m)
				if errors.Is(err, io.EOF) {
					if i != len(msgs) {
						t.Errorf("%s: container: %d records, want %d", name, i, len(msgs))
					}
					break
				}
				if err != nil {
					t.Fatalf("%s: container record %d: %v", name, i, err)
				}
				if i >= len(msgs) || !proto.Equal(m, msgs[i]) {
					t.Fatalf("%s: container record %d differs", name, i)
				}
			}
		}
	})
}

package serde_test

import (
	"errors"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/typepb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
)

// runTimeAny returns mapping options that write google.protobuf.Any as
// JSON, resolving its types with the types of the evolution test's Person
// file, loaded at run time as docs/mapping.md says to, and a
// google.protobuf.Type whose option packs a Person in an Any: a record that
// only a codec with that resolver writes.
func runTimeAny(t testing.TB) (protoavro.Options, *typepb.Type) {
	t.Helper()
	md := kafkatest.Person(t, "v2")
	files := new(protoregistry.Files)
	if err := files.RegisterFile(md.ParentFile()); err != nil {
		t.Fatal(err)
	}
	packed, err := anypb.New(kafkatest.NewPerson(md, 3))
	if err != nil {
		t.Fatal(err)
	}
	m := &typepb.Type{Name: "shop.Order", Options: []*typepb.Option{{Name: "example", Value: packed}}}
	return protoavro.Options{DynamicAsJSON: true, AnyResolver: dynamicpb.NewTypes(files)}, m
}

// TestSerializerKeepsCodecWithAnyResolver: a Serializer whose options have
// an AnyResolver compiles one codec per message type and caches one schema
// ID per topic, however many records it writes (EncodeWire of codecs
// compiled apart too), and the records read back through that resolver.
func TestSerializerKeepsCodecWithAnyResolver(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	opts, m := runTimeAny(t)
	ser := serde.NewSerializer(reg, serde.SerializerOptions{Options: opts})
	md := m.ProtoReflect().Descriptor()
	de, err := serde.NewDeserializer(reg, md, opts)
	if err != nil {
		t.Fatal(err)
	}
	first, err := ser.Codec(md)
	if err != nil {
		t.Fatal(err)
	}
	wire := kafkatest.Wire(t, m)
	for i := range 100 {
		var b []byte
		if i%2 == 0 {
			b, err = ser.Encode(ctx, nil, "orders", m)
		} else {
			// A codec compiled apart, for the schema already registered.
			c, cerr := opts.Codec(md)
			if cerr != nil {
				t.Fatal(cerr)
			}
			b, err = ser.EncodeWire(ctx, nil, "orders", c, wire)
		}
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		got := new(typepb.Type)
		if err := de.Decode(ctx, b, got); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !equalWithAny(t, got, m) {
			t.Fatalf("record %d reads back as %v, want %v", i, got, m)
		}
	}
	if again, _ := ser.Codec(md); again != first {
		t.Error("Codec compiled the type's codec again")
	}
	if n := serde.CachedCodecs(ser); n != 1 {
		t.Errorf("%d codecs kept for one message type, want 1", n)
	}
	if n := serde.CachedIDs(ser); n != 1 {
		t.Errorf("%d schema IDs cached for one schema on one topic, want 1", n)
	}
}

// equalWithAny reports whether the google.protobuf.Type got, read back, is
// want: its name, and its option's Any holding the same message (whose
// fields may be marshalled in another order).
func equalWithAny(t *testing.T, got, want *typepb.Type) bool {
	t.Helper()
	if got.GetName() != want.GetName() || len(got.GetOptions()) != 1 || len(want.GetOptions()) != 1 {
		return false
	}
	g, w := got.Options[0].GetValue(), want.Options[0].GetValue()
	if g.GetTypeUrl() != w.GetTypeUrl() {
		return false
	}
	md := kafkatest.Person(t, "v2")
	gm, wm := dynamicpb.NewMessage(md), dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(g.GetValue(), gm); err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(w.GetValue(), wm); err != nil {
		t.Fatal(err)
	}
	return proto.Equal(gm, wm)
}

// wrapperAny returns a google.protobuf.Type whose option packs a
// google.protobuf.StringValue in an Any: a type compiled in, which the
// default resolver (protoregistry.GlobalTypes) resolves too.
func wrapperAny(t testing.TB) *typepb.Type {
	t.Helper()
	packed, err := anypb.New(wrapperspb.String("x"))
	if err != nil {
		t.Fatal(err)
	}
	return &typepb.Type{Name: "shop.Order", Options: []*typepb.Option{{Name: "example", Value: packed}}}
}

// TestSerializerAnyResolverAllocs: with an AnyResolver, Encode allocates as
// much per record as without one.
func TestSerializerAnyResolverAllocs(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	m := wrapperAny(t)
	allocs := func(o protoavro.Options) float64 {
		ser := serde.NewSerializer(reg, serde.SerializerOptions{Options: o})
		buf, err := ser.Encode(ctx, nil, "orders", m)
		if err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(200, func() {
			if buf, err = ser.Encode(ctx, buf[:0], "orders", m); err != nil {
				t.Fatal(err)
			}
		})
	}
	plain := allocs(protoavro.Options{DynamicAsJSON: true})
	withResolver := allocs(protoavro.Options{DynamicAsJSON: true, AnyResolver: protoregistry.GlobalTypes})
	// sync.Pool drops some of what it is given under the race detector.
	if withResolver > plain+2 {
		t.Errorf("Encode allocates %.0f times per record with an AnyResolver, %.0f without", withResolver, plain)
	}
}

// TestSerializerEncodeNil: a nil message is ErrWrongType, not a panic, and
// nothing is appended.
func TestSerializerEncodeNil(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	ser := serde.NewSerializer(reg, serde.SerializerOptions{})
	out, err := ser.Encode(ctx, []byte("x"), "orders", nil)
	if !errors.Is(err, protoavro.ErrWrongType) || string(out) != "x" {
		t.Errorf("Encode(nil): %q, %v; want ErrWrongType", out, err)
	}
}

// TestSerializerCodecsConcurrent: concurrent Encode and Codec calls of one
// type with an AnyResolver share one codec and one registration.
func TestSerializerCodecsConcurrent(t *testing.T) {
	fake, reg := kafkatest.Registry(t)
	calls := countRequests(fake)
	opts, m := runTimeAny(t)
	ser := serde.NewSerializer(reg, serde.SerializerOptions{Options: opts})
	md := m.ProtoReflect().Descriptor()
	var mu sync.Mutex
	seen := map[*protoavro.Codec]bool{}
	kafkatest.Parallel(t, 8, func(int) error {
		for range 25 {
			if _, err := ser.Encode(ctx, nil, "orders", m); err != nil {
				return err
			}
			c, err := ser.Codec(md)
			if err != nil {
				return err
			}
			mu.Lock()
			seen[c] = true
			mu.Unlock()
		}
		return nil
	})
	if len(seen) != 1 || serde.CachedCodecs(ser) != 1 || serde.CachedIDs(ser) != 1 {
		t.Errorf("%d codecs returned, %d kept, %d IDs cached; want 1 each", len(seen), serde.CachedCodecs(ser), serde.CachedIDs(ser))
	}
	if n := calls.Load(); n > 2 {
		t.Errorf("%d registry requests for one schema, want one registration (2 requests)", n)
	}
}

// TestSerializerCodecsBounded: the codecs a Serializer keeps are bounded;
// a type whose codec was let go is compiled again and its records keep
// their schema ID.
func TestSerializerCodecsBounded(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	opts, _ := runTimeAny(t)
	ser := serde.NewSerializer(reg, serde.SerializerOptions{Options: opts})
	serde.SetSerializerCodecLimit(ser, 2)
	msgs := []proto.Message{&typepb.Type{Name: "t"}, &typepb.Field{Name: "f"}, &typepb.Enum{Name: "e"}}
	ids := map[protoreflect.FullName]uint32{}
	for round := range 3 {
		for _, m := range msgs {
			b, err := ser.Encode(ctx, nil, "types", m)
			if err != nil {
				t.Fatal(err)
			}
			id, _, err := serde.ParseHeader(b)
			if err != nil {
				t.Fatal(err)
			}
			name := m.ProtoReflect().Descriptor().FullName()
			if prev, ok := ids[name]; ok && prev != id {
				t.Errorf("round %d: %s written with schema %d, then %d", round, name, prev, id)
			}
			ids[name] = id
		}
		if n := serde.CachedCodecs(ser); n != 2 {
			t.Errorf("round %d: %d codecs kept, want the bound, 2", round, n)
		}
	}
	if n := serde.CachedIDs(ser); n != len(msgs) {
		t.Errorf("%d schema IDs cached for %d schemas on one topic", n, len(msgs))
	}
}

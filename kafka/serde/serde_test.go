package serde_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
)

var ctx = context.Background()

func TestHeaderErrors(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want error
	}{
		{nil, serde.ErrTruncatedHeader},
		{[]byte{0, 0, 1}, serde.ErrTruncatedHeader},
		{[]byte{1, 0, 0, 0, 1}, serde.ErrBadMagic},
		{[]byte("{\"json\":1}"), serde.ErrBadMagic},
	} {
		if _, _, err := serde.ParseHeader(tc.in); !errors.Is(err, tc.want) || !errors.Is(err, dataClass(tc.want)) {
			t.Errorf("ParseHeader(%x) = %v, want %v (and %v)", tc.in, err, tc.want, dataClass(tc.want))
		}
	}
	id, rest, err := serde.ParseHeader(serde.AppendHeader(nil, 0x01020304))
	if err != nil || id != 0x01020304 || len(rest) != 0 {
		t.Errorf("ParseHeader(AppendHeader) = %d, %x, %v", id, rest, err)
	}
	for _, tc := range []struct {
		in   []byte
		want error
	}{
		{nil, serde.ErrTruncatedHeader},
		{[]byte{4, 2}, serde.ErrTruncatedHeader},  // 2 indexes, 1 given
		{[]byte{1}, serde.ErrBadIndexes},          // count -1
		{[]byte{0xfe, 0x03}, serde.ErrBadIndexes}, // count 255 > MaxIndexes
		{[]byte{2, 3}, serde.ErrBadIndexes},       // index -2
		{[]byte{0x80, 0x80, 0x80}, serde.ErrTruncatedHeader},
	} {
		if _, _, err := serde.ParseIndexes(tc.in); !errors.Is(err, tc.want) || !errors.Is(err, dataClass(tc.want)) {
			t.Errorf("ParseIndexes(%x) = %v, want %v (and %v)", tc.in, err, tc.want, dataClass(tc.want))
		}
	}
	if errors.Is(serde.ErrBadMagic, serde.ErrTruncatedHeader) || errors.Is(serde.ErrBadIndexes, serde.ErrBadMagic) {
		t.Error("the header classes are told apart")
	}
}

// dataClass returns the protoavro data class a header error class is too.
func dataClass(class error) error {
	if class == serde.ErrTruncatedHeader {
		return protoavro.ErrTruncated
	}
	return protoavro.ErrMalformed
}

func FuzzParseHeader(f *testing.F) {
	f.Add(serde.AppendProtoHeader(nil, 7, []int{0}))
	f.Add(serde.AppendProtoHeader(nil, 1<<31, []int{3, 1, 4}))
	f.Add([]byte{0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		id, rest, err := serde.ParseHeader(b)
		if err != nil {
			return
		}
		idx, msg, err := serde.ParseIndexes(rest)
		if err != nil {
			return
		}
		if len(idx) == 0 || len(idx) > serde.MaxIndexes {
			t.Fatalf("%d indexes", len(idx))
		}
		// Re-framing gives the same indexes and message.
		again := append(serde.AppendProtoHeader(nil, id, idx), msg...)
		id2, rest2, _ := serde.ParseHeader(again)
		idx2, msg2, err := serde.ParseIndexes(rest2)
		if err != nil || id2 != id || !slices.Equal(idx, idx2) || !bytes.Equal(msg, msg2) {
			t.Fatalf("re-framed %x: %d %v %x %v", again, id2, idx2, msg2, err)
		}
	})
}

// countRequests counts the registry's HTTP requests.
func countRequests(fake *srfake.Registry) *atomic.Int64 {
	var n atomic.Int64
	fake.Intercept(func(http.ResponseWriter, *http.Request) bool { n.Add(1); return false })
	return &n
}

func TestAvroOutIn(t *testing.T) {
	fake, reg := kafkatest.Registry(t)
	calls := countRequests(fake)
	md := kafkatest.Person(t, "v2")
	ser := serde.NewSerializer(reg, serde.SerializerOptions{})
	de, err := serde.NewDeserializer(reg, md, protoavro.Options{})
	if err != nil {
		t.Fatal(err)
	}
	codec, _ := ser.Codec(md)
	var framed [][]byte
	for i := range 200 {
		m := kafkatest.NewPerson(md, i)
		var b []byte
		if i%2 == 0 {
			b, err = ser.Encode(ctx, nil, "people", m)
		} else {
			b, err = ser.EncodeWire(ctx, nil, "people", codec, kafkatest.Wire(t, m))
		}
		if err != nil {
			t.Fatal(err)
		}
		framed = append(framed, b)
	}
	if !fake.SubjectExists("people-value") {
		t.Fatal("subject people-value not registered")
	}
	for i, b := range framed {
		got := dynamicpb.NewMessage(md)
		if err := de.Decode(ctx, b, got); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if want := kafkatest.NewPerson(md, i); !proto.Equal(got, want) {
			t.Fatalf("record %d: got %v, want %v", i, got, want)
		}
		wire, id, err := de.DecodeWire(ctx, nil, b)
		if err != nil || id != 1 {
			t.Fatalf("DecodeWire %d: id %d, %v", i, id, err)
		}
		m2 := dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(wire, m2); err != nil || !proto.Equal(m2, got) {
			t.Fatalf("DecodeWire %d: %v", i, err)
		}
	}
	// The registration (and its ID) are requests made once: another 200
	// records each way make none.
	n := calls.Load()
	if n > 3 {
		t.Errorf("%d registry requests for 200 records out and in", n)
	}
	for i := range 200 {
		b, err := ser.Encode(ctx, nil, "people", kafkatest.NewPerson(md, i))
		if err != nil {
			t.Fatal(err)
		}
		if err := de.Decode(ctx, b, dynamicpb.NewMessage(md)); err != nil {
			t.Fatal(err)
		}
	}
	if n2 := calls.Load(); n2 != n {
		t.Errorf("%d more registry requests for 200 more records", n2-n)
	}

	// Unknown ID.
	bad := append(serde.AppendHeader(nil, 999), framed[0][5:]...)
	if err := de.Decode(ctx, bad, dynamicpb.NewMessage(md)); !errors.Is(err, serde.ErrUnknownID) || !strings.Contains(err.Error(), "999") {
		t.Errorf("unknown ID: %v", err)
	}
	// A truncated datum is a data error, not a wrong value.
	if err := de.Decode(ctx, framed[5][:len(framed[5])-3], dynamicpb.NewMessage(md)); !errors.Is(err, protoavro.ErrTruncated) {
		t.Errorf("truncated datum: %v", err)
	}
}

func TestStrategies(t *testing.T) {
	fake, reg := kafkatest.Registry(t)
	md := kafkatest.Person(t, "v2")
	codec, _ := protoavro.Options{}.Codec(md)
	full := codec.Schema().FullName()
	for _, tc := range []struct {
		s    serde.Strategy
		key  bool
		want string
	}{
		{serde.TopicName, false, "orders-value"},
		{serde.TopicName, true, "orders-key"},
		{serde.RecordName, false, full},
		{serde.TopicRecordName, false, "orders-" + full},
	} {
		ser := serde.NewSerializer(reg, serde.SerializerOptions{Strategy: tc.s, Key: tc.key})
		if _, err := ser.ID(ctx, "orders", codec); err != nil {
			t.Fatal(err)
		}
		if !fake.SubjectExists(tc.want) {
			t.Errorf("%v key=%v: subject %s not registered", tc.s, tc.key, tc.want)
		}
		if got := tc.s.Subject("orders", full, tc.key); got != tc.want {
			t.Errorf("Subject = %s, want %s", got, tc.want)
		}
		s2, err := serde.ParseStrategy(tc.s.String())
		if err != nil || s2 != tc.s {
			t.Errorf("ParseStrategy(%s) = %v, %v", tc.s, s2, err)
		}
	}
	// LookupOnly fails for a subject that holds no such schema.
	ser := serde.NewSerializer(reg, serde.SerializerOptions{LookupOnly: true})
	if _, err := ser.ID(ctx, "missing", codec); !errors.Is(err, serde.ErrUnknownSubject) && !errors.Is(err, serde.ErrUnknownID) {
		t.Errorf("LookupOnly of an unregistered schema: %v", err)
	}
}

func TestRegistryDown(t *testing.T) {
	addr := kafkatest.DeadAddr(t)
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, "http://"+addr)
	if err != nil {
		t.Fatal(err)
	}
	md := kafkatest.Person(t, "v2")
	de, _ := serde.NewDeserializer(reg, md, protoavro.Options{})
	err = de.Decode(ctx, serde.AppendHeader(nil, 1), dynamicpb.NewMessage(md))
	var re *serde.RegistryError
	if !errors.Is(err, serde.ErrRegistryUnavailable) || !errors.As(err, &re) || !re.Temporary() {
		t.Fatalf("registry down: %v, want a temporary ErrRegistryUnavailable", err)
	}

	// A registry answering 503 for a while: retryable, and once it is back
	// the right schema is read (nothing wrong was cached).
	fake, reg := kafkatest.Registry(t)
	ser := serde.NewSerializer(reg, serde.SerializerOptions{})
	framed, err := ser.Encode(ctx, nil, "t", kafkatest.NewPerson(md, 1))
	if err != nil {
		t.Fatal(err)
	}
	fake.Intercept(kafkatest.Unavailable)
	reg2, _ := serde.NewRegistry(serde.RegistryOptions{}, fake.URL())
	de2, _ := serde.NewDeserializer(reg2, md, protoavro.Options{})
	got := dynamicpb.NewMessage(md)
	if err := de2.Decode(ctx, framed, got); !errors.Is(err, serde.ErrRegistryUnavailable) {
		t.Fatalf("503: %v, want ErrRegistryUnavailable", err)
	}
	fake.ClearInterceptors()
	if err := de2.Decode(ctx, framed, got); err != nil || !proto.Equal(got, kafkatest.NewPerson(md, 1)) {
		t.Fatalf("after the registry is back: %v", err)
	}
}

func TestWrongSchemaType(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	id := kafkatest.RegisterPerson(t, reg, "p-value", "v2")
	md := kafkatest.Person(t, "v2")
	de, _ := serde.NewDeserializer(reg, md, protoavro.Options{})
	if err := de.Decode(ctx, serde.AppendHeader(nil, id), dynamicpb.NewMessage(md)); !errors.Is(err, serde.ErrWrongSchemaType) {
		t.Errorf("Avro read of a PROTOBUF schema: %v", err)
	}
}

// TestAvroInReferences: a writer schema that takes a named type from
// another subject (a schema reference, as Confluent's Avro serializers
// register shared types) is read: the Deserializer fetches the references,
// dependencies first, and parses the schema with them. It was ErrBadSchema
// ("unknown type").
func TestAvroInReferences(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	md := kafkatest.Person(t, "v2")
	codec, err := protoavro.Options{}.Codec(md)
	if err != nil {
		t.Fatal(err)
	}
	id := registerSplit(t, reg, codec.Schema(), "people-value")
	de, err := serde.NewDeserializer(reg, md, protoavro.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		m := kafkatest.NewPerson(md, i)
		datum, err := codec.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got := dynamicpb.NewMessage(md)
		if err := de.Decode(ctx, append(serde.AppendHeader(nil, uint32(id)), datum...), got); err != nil {
			t.Fatalf("Decode: %v", err)
		}
		if !proto.Equal(got, m) {
			t.Fatalf("read %v, want %v", got, m)
		}
	}
}

// registerSplit registers the schema of a Person split in two: Person.Address
// under subject person-address, and under subject the Person that names it
// through a schema reference. It returns the Person's ID.
func registerSplit(t *testing.T, reg *serde.Registry, s *protoavro.Schema, subject string) int {
	t.Helper()
	text, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var person map[string]any
	if err := json.Unmarshal(text, &person); err != nil {
		t.Fatal(err)
	}
	const name = "protoavro.test.evolution.Person.Address"
	var address any
	for _, f := range person["fields"].([]any) {
		if f := f.(map[string]any); f["name"] == "address" {
			union := f["type"].([]any)
			address, union[1] = union[1], name
		}
	}
	addressText, _ := json.Marshal(address)
	personText, _ := json.Marshal(person)
	if _, err := protoavro.ParseSchema(personText); err == nil {
		t.Fatal("the split schema parses alone: the test checks nothing")
	}
	_, v, err := reg.Register(ctx, "person-address", serde.Schema{Type: serde.TypeAvro, Text: string(addressText)})
	if err != nil {
		t.Fatal(err)
	}
	ref := serde.Reference{Name: name, Subject: "person-address", Version: v}
	id, _, err := reg.Register(ctx, subject, serde.Schema{Type: serde.TypeAvro, Text: string(personText), References: []serde.Reference{ref}})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestUnknownIDCached: records of a schema ID the registry does not know
// make one registry request per UnknownIDTTL, not one each (Avro and
// protobuf in, one caller or many at once); a registry that is down is
// asked every time (never remembered as a miss); an ID registered after a
// miss is found at once; the IDs remembered are bounded.
func TestUnknownIDCached(t *testing.T) {
	fake, _ := kafkatest.Registry(t)
	calls := countRequests(fake)
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	var now atomic.Int64 // nanoseconds
	serde.SetClock(reg, func() time.Time { return time.Unix(0, now.Load()) })
	md := kafkatest.Person(t, "v2")
	de, _ := serde.NewDeserializer(reg, md, protoavro.Options{})
	pd := serde.NewProtoDecoder(reg, protoavro.Options{})
	decodeUnknown := func(id uint32) {
		t.Helper()
		if err := de.Decode(ctx, serde.AppendHeader(nil, id), dynamicpb.NewMessage(md)); !errors.Is(err, serde.ErrUnknownID) {
			t.Fatalf("Avro in, ID %d: %v, want ErrUnknownID", id, err)
		}
		if _, err := pd.Decode(ctx, serde.AppendProtoHeader(nil, id, []int{0})); !errors.Is(err, serde.ErrUnknownID) {
			t.Fatalf("protobuf in, ID %d: %v, want ErrUnknownID", id, err)
		}
	}
	for range 100 {
		decodeUnknown(4242)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d registry requests for 200 records of one unknown ID, want 1", n)
	}
	kafkatest.Parallel(t, 8, func(int) error {
		for range 50 {
			if _, err := reg.SchemaByID(ctx, 4343); !errors.Is(err, serde.ErrUnknownID) {
				return err
			}
		}
		return nil
	})
	if n := calls.Load(); n != 2 {
		t.Errorf("%d registry requests after 400 concurrent asks of a second unknown ID, want 2", n)
	}
	// The TTL passes: asked once more.
	now.Add(int64(serde.DefaultUnknownIDTTL))
	decodeUnknown(4242)
	decodeUnknown(4242)
	if n := calls.Load(); n != 3 {
		t.Errorf("%d registry requests after the TTL, want 3", n)
	}

	// A registry that is down is no miss: every ask is a request, and once
	// it is back the ID is unknown (or known) by its answer.
	down := kafkatest.RegistryDown(fake)
	for i := range 5 {
		before := calls.Load()
		if _, err := reg.SchemaByID(ctx, 5555); !errors.Is(err, serde.ErrRegistryUnavailable) {
			t.Fatalf("registry down: %v", err)
		}
		if calls.Load() == before {
			t.Fatalf("ask %d while the registry is down made no request", i)
		}
	}
	down.Store(false)
	if _, err := reg.SchemaByID(ctx, 5555); !errors.Is(err, serde.ErrUnknownID) {
		t.Fatalf("registry back: %v", err)
	}

	// An ID registered after it was a miss is found without waiting.
	id, _, err := reg.Register(ctx, "a-value", serde.Schema{Text: `{"type":"record","name":"A","fields":[]}`})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.SchemaByID(ctx, id+1); !errors.Is(err, serde.ErrUnknownID) {
		t.Fatalf("ID %d before it is registered: %v", id+1, err)
	}
	other, err := serde.NewRegistry(serde.RegistryOptions{}, fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	id2, _, err := other.Register(ctx, "b-value", serde.Schema{Text: `{"type":"record","name":"B","fields":[]}`})
	if err != nil || id2 != id+1 {
		t.Fatalf("registered ID %d (%v), want %d", id2, err, id+1)
	}
	// Registered by another client: this one answers from its cache until
	// the TTL passes, then finds it.
	if _, err := reg.SchemaByID(ctx, id2); !errors.Is(err, serde.ErrUnknownID) {
		t.Fatalf("ID %d within the TTL: %v", id2, err)
	}
	now.Add(int64(serde.DefaultUnknownIDTTL))
	if s, err := reg.SchemaByID(ctx, id2); err != nil || !strings.Contains(s.Text, `"B"`) {
		t.Fatalf("ID %d after the TTL: %v", id2, err)
	}
	// Registered by this client: found at once.
	if _, err := reg.SchemaByID(ctx, id2+1); !errors.Is(err, serde.ErrUnknownID) {
		t.Fatal(err)
	}
	id3, _, err := reg.Register(ctx, "c-value", serde.Schema{Text: `{"type":"record","name":"C","fields":[]}`})
	if err != nil || id3 != id2+1 {
		t.Fatalf("registered ID %d (%v), want %d", id3, err, id2+1)
	}
	if _, err := reg.SchemaByID(ctx, id3); err != nil {
		t.Fatalf("ID %d registered by this client after a miss: %v", id3, err)
	}

	// Bounded: 1100 unknown IDs, at most 1024 remembered.
	for i := range 1100 {
		if _, err := reg.SchemaByID(ctx, 100_000+i); !errors.Is(err, serde.ErrUnknownID) {
			t.Fatal(err)
		}
	}
	if n := serde.UnknownIDs(reg); n > 1024 || n < 1000 {
		t.Errorf("%d unknown IDs remembered, want at most 1024 (and most of them)", n)
	}

	// A negative TTL asks every time.
	always, _ := serde.NewRegistry(serde.RegistryOptions{UnknownIDTTL: -1}, fake.URL())
	before := calls.Load()
	for range 3 {
		always.SchemaByID(ctx, 4242) //nolint:errcheck // counted
	}
	if n := calls.Load() - before; n != 3 {
		t.Errorf("UnknownIDTTL -1: %d requests for 3 asks", n)
	}
}

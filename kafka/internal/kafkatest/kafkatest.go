// Package kafkatest starts the real components the kafka module's tests run
// against, on 127.0.0.1: franz-go's in-process Kafka cluster (kfake) and
// schema registry (srfake), and builds the evolution test messages of the
// repository's testdata.
package kafkatest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Cluster starts a kfake cluster on a loopback port with the given topics
// and partitions, closed when the test ends.
func Cluster(t testing.TB, partitions int32, topics ...string) (*kfake.Cluster, []string) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topics...),
		kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(int(partitions)),
		kfake.GroupMinSessionTimeout(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, c.ListenAddrs()
}

// Registry starts an srfake registry on a loopback port and returns it and
// a serde client of it.
func Registry(t testing.TB) (*srfake.Registry, *serde.Registry) {
	t.Helper()
	r := srfake.New()
	t.Cleanup(r.Close)
	cl, err := serde.NewRegistry(serde.RegistryOptions{}, r.URL())
	if err != nil {
		t.Fatal(err)
	}
	return r, cl
}

// RepoRoot returns the main repository's root directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// EvolutionSource returns the text of testdata/proto/evolution/VERSION/person.proto.
func EvolutionSource(t testing.TB, version string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(RepoRoot(), "testdata", "proto", "evolution", version, "person.proto"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Person compiles the evolution Person message of version ("v1" or "v2").
func Person(t testing.TB, version string) protoreflect.MessageDescriptor {
	t.Helper()
	return PersonFrom(t, EvolutionSource(t, version))
}

// PersonFrom compiles a person.proto text and returns its Person message.
func PersonFrom(t testing.TB, text string) protoreflect.MessageDescriptor {
	t.Helper()
	fd, err := serde.Compile(context.Background(), "person.proto", map[string]string{"person.proto": text})
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("Person")
}

// AvroSchema returns the Avro schema JSON protoavro derives, under the
// default options, from the Person of a person.proto text.
func AvroSchema(t testing.TB, text string) string {
	t.Helper()
	sch, err := protoavro.Options{}.Schema(PersonFrom(t, text))
	if err != nil {
		t.Fatal(err)
	}
	j, err := sch.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(j)
}

// NewPerson returns the i-th test Person of md (either version): every field
// set from i, so that records can be compared one by one.
func NewPerson(md protoreflect.MessageDescriptor, i int) *dynamicpb.Message {
	m := dynamicpb.NewMessage(md)
	set := func(name string, v protoreflect.Value) {
		if f := md.Fields().ByName(protoreflect.Name(name)); f != nil {
			m.Set(f, v)
		}
	}
	set("name", protoreflect.ValueOfString(fmt.Sprintf("person-%d", i)))
	if f := md.Fields().ByName("age"); f.Kind() == protoreflect.Int32Kind {
		m.Set(f, protoreflect.ValueOfInt32(int32(i%120)))
	} else {
		m.Set(f, protoreflect.ValueOfInt64(int64(i)*1000003))
	}
	if f := md.Fields().ByName("score"); f.Kind() == protoreflect.FloatKind {
		m.Set(f, protoreflect.ValueOfFloat32(float32(i)/4))
	} else {
		m.Set(f, protoreflect.ValueOfFloat64(float64(i)/3))
	}
	set("nickname", protoreflect.ValueOfString(fmt.Sprintf("nick%d", i)))
	role := md.Fields().ByName("role")
	m.Set(role, protoreflect.ValueOfEnum(protoreflect.EnumNumber(i%role.Enum().Values().Len())))
	af := md.Fields().ByName("address")
	addr := m.Mutable(af).Message()
	addr.Set(af.Message().Fields().ByName("street"), protoreflect.ValueOfString(fmt.Sprintf("%d Main St", i)))
	addr.Set(af.Message().Fields().ByName("city"), protoreflect.ValueOfString("Springfield"))
	if f := af.Message().Fields().ByName("postal_code"); f != nil {
		addr.Set(f, protoreflect.ValueOfString(fmt.Sprintf("%05d", i%100000)))
	}
	emails := m.Mutable(md.Fields().ByName("emails")).List()
	for j := range i % 3 {
		emails.Append(protoreflect.ValueOfString(fmt.Sprintf("p%d-%d@example.com", i, j)))
	}
	set("phone", protoreflect.ValueOfString(fmt.Sprintf("+1-555-%04d", i%10000)))
	if i%2 == 0 {
		set("verified", protoreflect.ValueOfBool(i%4 == 0))
	}
	if f := md.Fields().ByName("tags"); f != nil {
		tags := m.Mutable(f).List()
		for j := range i % 4 {
			tags.Append(protoreflect.ValueOfString(fmt.Sprintf("t%d", j)))
		}
	}
	return m
}

// Wire returns the deterministic protobuf encoding of m.
func Wire(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Client returns a kgo client of the cluster, closed when the test ends.
func Client(t testing.TB, brokers []string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// ConsumeAll reads topic from the start until n records were read or the
// timeout passes, reading committed data only, and returns what it read.
func ConsumeAll(t testing.TB, brokers []string, topic string, n int, timeout time.Duration) []*kgo.Record {
	t.Helper()
	cl := Client(t, brokers, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var out []*kgo.Record
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			break
		}
		for _, e := range fs.Errors() {
			t.Fatalf("consuming %s: %v", topic, e.Err)
		}
		out = append(out, fs.Records()...)
	}
	return out
}

// Produce produces the records synchronously.
func Produce(t testing.TB, cl *kgo.Client, recs []*kgo.Record) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i := 0; i < len(recs); i += 5000 {
		if err := cl.ProduceSync(ctx, recs[i:min(i+5000, len(recs))]...).FirstErr(); err != nil {
			t.Fatalf("producing: %v", err)
		}
	}
}

// Package kafkatest starts the real components the kafka module's tests run
// against, on 127.0.0.1: franz-go's in-process Kafka cluster (kfake) and
// schema registry (srfake), and builds the evolution test messages of the
// repository's testdata.
package kafkatest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/encoding/protowire"
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

// Unavailable answers a registry request as a registry whose store is down
// (503, error code 50003), for srfake's Intercept.
func Unavailable(w http.ResponseWriter, _ *http.Request) bool {
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write([]byte(`{"error_code":50003,"message":"store unavailable"}`))
	return true
}

// RegistryDown makes fake answer every request with [Unavailable] while the
// switch it returns is on; it starts on.
func RegistryDown(fake *srfake.Registry) *atomic.Bool {
	var down atomic.Bool
	down.Store(true)
	fake.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
		return down.Load() && Unavailable(w, r)
	})
	return &down
}

// DeadAddr returns a loopback address (host:port) that nothing listens
// on: a port the system gave and this process freed again.
func DeadAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// Scrape reads the Prometheus text-format page at url, as Prometheus
// would: the value of each series, by name and labels as the text format
// writes them (`name{label="value"}`). It fails the test unless the page
// answers 200 with series that parse.
func Scrape(t testing.TB, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s: %d %s", url, resp.StatusCode, body)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("%s line %q: %v", url, line, err)
		}
		out[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return out
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

// RegisterPerson registers the evolution test proto of version ("v1" or
// "v2") under subject in reg and returns its schema ID.
func RegisterPerson(t testing.TB, reg *serde.Registry, subject, version string) uint32 {
	t.Helper()
	id, err := serde.NewProtoEncoder(reg).Register(context.Background(), subject, EvolutionSource(t, version), nil)
	if err != nil {
		t.Fatal(err)
	}
	return id
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
	fillPerson(messageSink{m}, md, i)
	return m
}

// personWire returns the deterministic protobuf encoding of NewPerson(md,
// i), encoded directly (proto.Marshal of a dynamic message is slow, under
// -race most of all). PersonWires checks it against proto.Marshal.
func personWire(md protoreflect.MessageDescriptor, i int) []byte {
	w := newWireSink(md)
	fillPerson(w, md, i)
	return w.appendTo(nil)
}

// sink receives the fields of a test message.
type sink interface {
	set(fd protoreflect.FieldDescriptor, v protoreflect.Value)
	add(fd protoreflect.FieldDescriptor, v protoreflect.Value) // a list element
	message(fd protoreflect.FieldDescriptor) sink
}

// fillPerson sets the fields of the i-th test Person of md (either version).
func fillPerson(m sink, md protoreflect.MessageDescriptor, i int) {
	set := func(name string, v protoreflect.Value) {
		if f := md.Fields().ByName(protoreflect.Name(name)); f != nil {
			m.set(f, v)
		}
	}
	set("name", protoreflect.ValueOfString(fmt.Sprintf("person-%d", i)))
	if f := md.Fields().ByName("age"); f.Kind() == protoreflect.Int32Kind {
		m.set(f, protoreflect.ValueOfInt32(int32(i%120)))
	} else {
		m.set(f, protoreflect.ValueOfInt64(int64(i)*1000003))
	}
	if f := md.Fields().ByName("score"); f.Kind() == protoreflect.FloatKind {
		m.set(f, protoreflect.ValueOfFloat32(float32(i)/4))
	} else {
		m.set(f, protoreflect.ValueOfFloat64(float64(i)/3))
	}
	set("nickname", protoreflect.ValueOfString(fmt.Sprintf("nick%d", i)))
	role := md.Fields().ByName("role")
	m.set(role, protoreflect.ValueOfEnum(protoreflect.EnumNumber(i%role.Enum().Values().Len())))
	af := md.Fields().ByName("address")
	addr := m.message(af)
	addr.set(af.Message().Fields().ByName("street"), protoreflect.ValueOfString(fmt.Sprintf("%d Main St", i)))
	addr.set(af.Message().Fields().ByName("city"), protoreflect.ValueOfString("Springfield"))
	if f := af.Message().Fields().ByName("postal_code"); f != nil {
		addr.set(f, protoreflect.ValueOfString(fmt.Sprintf("%05d", i%100000)))
	}
	emails := md.Fields().ByName("emails")
	for j := range i % 3 {
		m.add(emails, protoreflect.ValueOfString(fmt.Sprintf("p%d-%d@example.com", i, j)))
	}
	set("phone", protoreflect.ValueOfString(fmt.Sprintf("+1-555-%04d", i%10000)))
	if i%2 == 0 {
		set("verified", protoreflect.ValueOfBool(i%4 == 0))
	}
	if f := md.Fields().ByName("tags"); f != nil {
		for j := range i % 4 {
			m.add(f, protoreflect.ValueOfString(fmt.Sprintf("t%d", j)))
		}
	}
}

// messageSink fills a dynamic message.
type messageSink struct{ m *dynamicpb.Message }

func (s messageSink) set(fd protoreflect.FieldDescriptor, v protoreflect.Value) { s.m.Set(fd, v) }
func (s messageSink) add(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	s.m.Mutable(fd).List().Append(v)
}
func (s messageSink) message(fd protoreflect.FieldDescriptor) sink {
	return messageSink{s.m.Mutable(fd).Message().Interface().(*dynamicpb.Message)}
}

// wireSink encodes the fields it gets as proto.Marshal does with
// Deterministic set for these messages: fields in declaration order, scalars
// without presence left out when zero, repeated strings one record each.
type wireSink struct {
	md   protoreflect.MessageDescriptor
	vals [][]protoreflect.Value // by field index
	kids []*wireSink
}

func newWireSink(md protoreflect.MessageDescriptor) *wireSink {
	n := md.Fields().Len()
	return &wireSink{md: md, vals: make([][]protoreflect.Value, n), kids: make([]*wireSink, n)}
}

func (w *wireSink) set(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	w.vals[fd.Index()] = []protoreflect.Value{v}
	if !fd.HasPresence() && isZero(v) {
		w.vals[fd.Index()] = nil
	}
}
func (w *wireSink) add(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	w.vals[fd.Index()] = append(w.vals[fd.Index()], v)
}
func (w *wireSink) message(fd protoreflect.FieldDescriptor) sink {
	w.kids[fd.Index()] = newWireSink(fd.Message())
	return w.kids[fd.Index()]
}

func isZero(v protoreflect.Value) bool {
	switch x := v.Interface().(type) {
	case string:
		return x == ""
	case int32:
		return x == 0
	case int64:
		return x == 0
	case float32:
		return math.Float32bits(x) == 0
	case float64:
		return math.Float64bits(x) == 0
	case bool:
		return !x
	case protoreflect.EnumNumber:
		return x == 0
	}
	return false
}

func (w *wireSink) appendTo(b []byte) []byte {
	fields := w.md.Fields()
	for k := range fields.Len() {
		fd := fields.Get(k)
		if kid := w.kids[k]; kid != nil {
			b = protowire.AppendTag(b, fd.Number(), protowire.BytesType)
			b = protowire.AppendBytes(b, kid.appendTo(nil))
			continue
		}
		for _, v := range w.vals[k] {
			// By the Go type of the value: string, int32/int64 (int32 and
			// int64 fields; PersonWires checks against proto.Marshal that
			// no other integer kind occurs), enum, bool, float, double.
			switch x := v.Interface().(type) {
			case string:
				b = protowire.AppendTag(b, fd.Number(), protowire.BytesType)
				b = protowire.AppendString(b, x)
			case int32, int64:
				b = protowire.AppendTag(b, fd.Number(), protowire.VarintType)
				b = protowire.AppendVarint(b, uint64(v.Int()))
			case protoreflect.EnumNumber:
				b = protowire.AppendTag(b, fd.Number(), protowire.VarintType)
				b = protowire.AppendVarint(b, uint64(x))
			case bool:
				b = protowire.AppendTag(b, fd.Number(), protowire.VarintType)
				b = protowire.AppendVarint(b, protowire.EncodeBool(x))
			case float32:
				b = protowire.AppendTag(b, fd.Number(), protowire.Fixed32Type)
				b = protowire.AppendFixed32(b, math.Float32bits(x))
			case float64:
				b = protowire.AppendTag(b, fd.Number(), protowire.Fixed64Type)
				b = protowire.AppendFixed64(b, math.Float64bits(x))
			default:
				panic(fmt.Sprintf("kafkatest: no encoding of %v", fd.Kind()))
			}
		}
	}
	return b
}

// BothSemantics runs test as two subtests: "at-least-once" (eos false)
// and "exactly-once" (eos true, transactions and read-committed output).
func BothSemantics(t *testing.T, test func(t *testing.T, eos bool)) {
	for _, eos := range []bool{false, true} {
		name := "at-least-once"
		if eos {
			name = "exactly-once"
		}
		t.Run(name, func(t *testing.T) { test(t, eos) })
	}
}

// Parallel calls fn(i) for every i in [0, n) on GOMAXPROCS goroutines and
// fails the test with the errors fn returned.
func Parallel(t testing.TB, n int, fn func(i int) error) {
	t.Helper()
	workers := runtime.GOMAXPROCS(0)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				if err := fn(i); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// PersonWires returns the deterministic protobuf encodings of
// NewPerson(md, from) to NewPerson(md, from+n-1), built in parallel and
// checked against proto.Marshal on a sample.
func PersonWires(t testing.TB, md protoreflect.MessageDescriptor, from, n int) [][]byte {
	t.Helper()
	wires := make([][]byte, n)
	Parallel(t, n, func(k int) error {
		wires[k] = personWire(md, from+k)
		if k%97 != 0 && k >= 16 {
			return nil
		}
		// The direct encoding is proto.Marshal's, checked on a sample.
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(NewPerson(md, from+k))
		if err == nil && !bytes.Equal(wires[k], want) {
			err = fmt.Errorf("person %d: encoded %x, proto.Marshal gives %x", from+k, wires[k], want)
		}
		return err
	})
	return wires
}

// CheckPerson checks the framed Avro record value against the i-th test
// Person of md, whose deterministic protobuf encoding is want: the record's
// datum, transcoded back to protobuf, must be those bytes exactly (a field by
// field equality: equal messages, and only they, have equal deterministic
// encodings). When full is set, the record is also decoded into a message
// compared with proto.Equal, as a consumer would read it.
func CheckPerson(ctx context.Context, de *serde.Deserializer, md protoreflect.MessageDescriptor, value []byte, i int, want []byte, full bool) error {
	got, _, err := de.DecodeWire(ctx, nil, value)
	if err != nil {
		return fmt.Errorf("record %d: %w", i, err)
	}
	if !full && bytes.Equal(got, want) {
		return nil
	}
	m := dynamicpb.NewMessage(md)
	if err := de.Decode(ctx, value, m); err != nil {
		return fmt.Errorf("record %d: %w", i, err)
	}
	if w := NewPerson(md, i); !proto.Equal(m, w) || !bytes.Equal(got, want) {
		return fmt.Errorf("record %d: got %v\nwant %v", i, m, w)
	}
	return nil
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

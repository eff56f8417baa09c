package bridge_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// inputs returns n framed protobuf Person records (version ver, schema id)
// with keys, headers and timestamps derived from their index.
func inputs(t testing.TB, topic string, md protoreflect.MessageDescriptor, id uint32, from, n int) []*kgo.Record {
	wires := kafkatest.PersonWires(t, md, from, n)
	recs := make([]*kgo.Record, n)
	for k := range n {
		i := from + k
		recs[k] = &kgo.Record{
			Topic:     topic,
			Key:       []byte("key-" + strconv.Itoa(i)),
			Value:     append(serde.AppendProtoHeader(nil, id, serde.MessageIndexes(md)), wires[k]...),
			Headers:   []kgo.RecordHeader{{Key: "index", Value: []byte(strconv.Itoa(i))}, {Key: "trace", Value: []byte("t" + strconv.Itoa(i*7))}},
			Timestamp: time.UnixMilli(1_700_000_000_000 + int64(i)),
		}
	}
	return recs
}

// index returns the record's index from its key.
func index(t testing.TB, r *kgo.Record) int {
	i, err := strconv.Atoi(strings.TrimPrefix(string(r.Key), "key-"))
	if err != nil {
		t.Fatalf("key %q", r.Key)
	}
	return i
}

// verify checks out records field by field against the inputs in (record
// i at in[i], as inputs made them), with headers and timestamps, and that
// every input is there once. Every record's datum must transcode back to
// its input's protobuf bytes; every 97th is also decoded into a message.
func verify(t testing.TB, de *serde.Deserializer, md protoreflect.MessageDescriptor, in, out []*kgo.Record) {
	t.Helper()
	n := len(in)
	if len(out) != n {
		t.Fatalf("%d records out, want %d", len(out), n)
	}
	seen := make([]bool, n)
	idx := make([]int, len(out))
	for k, r := range out {
		i := index(t, r)
		idx[k] = i
		if i < 0 || i >= n || seen[i] {
			t.Fatalf("record %d: unexpected or duplicated", i)
		}
		seen[i] = true
		if len(r.Headers) != 2 || string(r.Headers[0].Value) != strconv.Itoa(i) || string(r.Headers[1].Value) != "t"+strconv.Itoa(i*7) {
			t.Fatalf("record %d: headers %v", i, r.Headers)
		}
		if r.Timestamp.UnixMilli() != 1_700_000_000_000+int64(i) {
			t.Fatalf("record %d: timestamp %v", i, r.Timestamp)
		}
	}
	kafkatest.Parallel(t, n, func(k int) error {
		i := idx[k]
		_, rest, _ := serde.ParseHeader(in[i].Value)
		_, want, _ := serde.ParseIndexes(rest)
		return kafkatest.CheckPerson(context.Background(), de, md, out[k].Value, i, want, k%97 == 0)
	})
}

func setup(t testing.TB, partitions int32) ([]string, *kgo.Client, *serde.Registry, protoreflect.MessageDescriptor, uint32) {
	_, brokers := kafkatest.Cluster(t, partitions, "in", "out", "dlq")
	_, reg := kafkatest.Registry(t)
	id := kafkatest.RegisterPerson(t, reg, "in-value", "v2")
	return brokers, kafkatest.Client(t, brokers), reg, kafkatest.Person(t, "v2"), id
}

func TestEndToEnd(t *testing.T) {
	const n = 100_000
	brokers, cl, reg, md, id := setup(t, 4)
	recs := inputs(t, "in", md, id, 0, n)
	// Three bad records among them: not framed, an unknown ID, bad protobuf.
	bad := []*kgo.Record{
		{Topic: "in", Key: []byte("bad-0"), Value: []byte("plain text")},
		{Topic: "in", Key: []byte("bad-1"), Value: serde.AppendProtoHeader(nil, 777, []int{0})},
		{Topic: "in", Key: []byte("bad-2"), Value: append(serde.AppendProtoHeader(nil, id, []int{0}), 0x0a, 0x50)},
	}
	kafkatest.Produce(t, cl, append(recs[:n/2:n/2], bad...))
	kafkatest.Produce(t, cl, recs[n/2:])

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var progress strings.Builder
	sum, err := bridge.Run(ctx, bridge.Config{
		Brokers: brokers, Group: "g", Inputs: []string{"in"}, Output: "out", DeadLetter: "dlq",
		Registry: reg, MaxRecords: n + 3, Progress: &syncWriter{w: &progress}, ProgressEvery: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Records != n+3 || sum.DeadLettered != 3 || sum.Lag != 0 || sum.Rate() <= 0 {
		t.Errorf("summary %v", sum)
	}
	t.Logf("bridge: %v", sum)
	de, _ := serde.NewDeserializer(reg, md, protoavro.Options{})
	verify(t, de, md, recs, kafkatest.ConsumeAll(t, brokers, "out", n, time.Minute))

	dead := kafkatest.ConsumeAll(t, brokers, "dlq", 3, time.Minute)
	classes := map[string]string{}
	for _, r := range dead {
		h := map[string]string{}
		for _, kv := range r.Headers {
			h[kv.Key] = string(kv.Value)
		}
		classes[string(r.Key)] = h[bridge.HeaderClass]
		if h[bridge.HeaderError] == "" || h[bridge.HeaderTopic] != "in" || h[bridge.HeaderOffset] == "" {
			t.Errorf("dead letter %s: headers %v", r.Key, h)
		}
	}
	if want := map[string]string{"bad-0": "bad-header", "bad-1": "unknown-id", "bad-2": "bad-data"}; fmt.Sprint(classes) != fmt.Sprint(want) {
		t.Errorf("dead-letter classes %v, want %v", classes, want)
	}
}

// textLogger returns a logger writing slog's text format to w.
func textLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func TestTwoInstances(t *testing.T) { kafkatest.BothSemantics(t, twoInstances) }

// twoInstances runs two bridges in one group; with eos each has its own
// transactional ID by default (a shared one would let the second fence the
// first), and the output is read committed.
func twoInstances(t *testing.T, eos bool) {
	const n = 20_000
	brokers, cl, reg, md, id := setup(t, 6)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	sums := make([]bridge.Summary, 2)
	errs := make([]error, 2)
	for k := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[k], errs[k] = bridge.Run(ctx, bridge.Config{
				Brokers: brokers, Group: "shared", Inputs: []string{"in"}, Output: "out", Registry: reg,
				BatchSize: 500, SessionTimeout: 3 * time.Second,
				ExactlyOnce: eos,
			})
		}()
	}
	// Produce once both have joined and have partitions, so that both
	// convert records.
	waitAssigned(t, cl, "shared", 2)
	in := inputs(t, "in", md, id, 0, n)
	kafkatest.Produce(t, cl, in)
	out := kafkatest.ConsumeAll(t, brokers, "out", n, 2*time.Minute)
	cancel()
	wg.Wait()
	for k := range 2 {
		if errs[k] != nil {
			t.Errorf("instance %d: %v", k, errs[k])
		}
		t.Logf("instance %d: %v", k, sums[k])
		if sums[k].Records == 0 {
			t.Errorf("instance %d converted nothing: the partitions were not shared", k)
		}
	}
	if sums[0].Records+sums[1].Records != n {
		t.Errorf("instances committed %d + %d records, want %d", sums[0].Records, sums[1].Records, n)
	}
	de, _ := serde.NewDeserializer(reg, md, protoavro.Options{})
	verify(t, de, md, in, out)
}

// TestEvolution runs v1 records, then records of a v2 that keeps v1's field
// types, then v2 records through the bridge (with the gate on, BACKWARD), and reads the Avro topic with
// consumers of v1 and of v2.
func TestEvolution(t *testing.T) {
	const n = 300
	_, brokers := kafkatest.Cluster(t, 2, "in", "out")
	_, reg := kafkatest.Registry(t)
	cl := kafkatest.Client(t, brokers)
	enc := serde.NewProtoEncoder(reg)
	v2src := kafkatest.EvolutionSource(t, "v2")
	v2compat := strings.NewReplacer("int64 age = 2;", "int32 age = 2;", "double score = 3;", "float score = 3;").Replace(v2src)
	srcs := []string{kafkatest.EvolutionSource(t, "v1"), v2compat, v2src}
	mds := make([]protoreflect.MessageDescriptor, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// One version after the other: each phase's records are produced and
	// bridged before the next version is registered.
	for k, src := range srcs {
		id, err := enc.Register(ctx, "in-value", src, nil)
		if err != nil {
			t.Fatal(err)
		}
		mds[k] = kafkatest.PersonFrom(t, src)
		kafkatest.Produce(t, cl, inputs(t, "in", mds[k], id, k*n, n))
		if _, err := bridge.Run(ctx, bridge.Config{Brokers: brokers, Group: "g", Inputs: []string{"in"}, Output: "out", Registry: reg, Check: true, MaxRecords: n}); err != nil {
			t.Fatalf("phase %d: %v", k, err)
		}
	}
	out := kafkatest.ConsumeAll(t, brokers, "out", 3*n, time.Minute)
	if len(out) != 3*n {
		t.Fatalf("%d records out", len(out))
	}
	v1, v2 := mds[0], mds[2]
	de1, _ := serde.NewDeserializer(reg, v1, protoavro.Options{})
	de2, _ := serde.NewDeserializer(reg, v2, protoavro.Options{})
	ids := map[uint32]bool{}
	for _, r := range out {
		i := index(t, r)
		ver := i / n
		id, _, _ := serde.ParseHeader(r.Value)
		ids[id] = true
		// v2 reads everything: v1's age and score promoted, nickname
		// dropped, new fields at their defaults.
		got2 := dynamicpb.NewMessage(v2)
		if err := de2.Decode(ctx, r.Value, got2); err != nil {
			t.Fatalf("v2 reader, record %d (written with %d): %v", i, ver, err)
		}
		want2 := kafkatest.NewPerson(v2, i)
		if ver != 2 {
			src := kafkatest.NewPerson(mds[ver], i)
			f := func(md protoreflect.MessageDescriptor, name string) protoreflect.FieldDescriptor {
				return md.Fields().ByName(protoreflect.Name(name))
			}
			want2.Set(f(v2, "age"), protoreflect.ValueOfInt64(src.Get(f(mds[ver], "age")).Int()))
			want2.Set(f(v2, "score"), protoreflect.ValueOfFloat64(src.Get(f(mds[ver], "score")).Float()))
			want2.Set(f(v2, "role"), protoreflect.ValueOfEnum(src.Get(f(mds[ver], "role")).Enum()))
			if ver == 0 {
				for _, name := range []string{"phone", "verified", "tags"} {
					want2.Clear(f(v2, name))
				}
				want2.Mutable(f(v2, "address")).Message().Clear(f(v2, "address").Message().Fields().ByName("postal_code"))
			}
		}
		if !proto.Equal(got2, want2) {
			t.Fatalf("v2 reader, record %d (written with %d):\ngot  %v\nwant %v", i, ver, got2, want2)
		}
		// v1 reads v1 and the compatible v2; v2's long age cannot be read as
		// v1's int by Avro's rules, and says so.
		got1 := dynamicpb.NewMessage(v1)
		err := de1.Decode(ctx, r.Value, got1)
		if ver == 2 {
			if !errors.Is(err, serde.ErrIncompatible) || !strings.Contains(err.Error(), "age") {
				t.Fatalf("v1 reader, v2 record %d: %v, want ErrIncompatible naming age", i, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("v1 reader, record %d (written with %d): %v", i, ver, err)
		}
		want1 := kafkatest.NewPerson(v1, i)
		if ver == 1 {
			want1.Clear(v1.Fields().ByName("nickname"))
			role := v1.Fields().ByName("role")
			// v2's roles 3 and 4 are unknown to v1 and read as its default, the first.
			if k := protoreflect.EnumNumber(i % 5); k > 2 {
				want1.Set(role, protoreflect.ValueOfEnum(0))
			} else {
				want1.Set(role, protoreflect.ValueOfEnum(k))
			}
		}
		if !proto.Equal(got1, want1) {
			t.Fatalf("v1 reader, record %d (written with %d):\ngot  %v\nwant %v", i, ver, got1, want1)
		}
	}
	if len(ids) != 3 {
		t.Errorf("%d Avro schema IDs on the topic, want 3", len(ids))
	}
}

// TestStopWithoutDeadLetter: without a dead-letter topic a bad record stops
// the bridge with an error naming it, and its batch is not committed (the
// chunks before it may have been produced: at-least-once); a rerun of the
// group with a dead-letter topic starts from the same offsets and delivers
// every record.
func TestStopWithoutDeadLetter(t *testing.T) {
	const n = 3000
	brokers, cl, reg, md, id := setup(t, 1)
	recs := inputs(t, "in", md, id, 0, n)
	bad := &kgo.Record{Topic: "in", Key: []byte("bad"), Value: []byte("plain text")}
	kafkatest.Produce(t, cl, append(append(recs[:1500:1500], bad), recs[1500:]...))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := bridge.Config{Brokers: brokers, Group: "g", Inputs: []string{"in"}, Output: "out", Registry: reg, MaxRecords: n + 1}
	sum, err := bridge.Run(ctx, cfg)
	if !errors.Is(err, serde.ErrBadMagic) || !strings.Contains(err.Error(), "in[0] offset 1500 (no dead-letter topic)") {
		t.Fatalf("run without a dead-letter topic: %v", err)
	}
	if sum.Records != 0 {
		t.Fatalf("%d records committed from the failed batch", sum.Records)
	}
	cfg.DeadLetter = "dlq"
	if sum, err = bridge.Run(ctx, cfg); err != nil || sum.Records != n+1 || sum.DeadLettered != 1 {
		t.Fatalf("rerun: %v, %v", sum, err)
	}
	out := kafkatest.ConsumeAll(t, brokers, "out", n, time.Minute)
	// Wait for anything more: records produced by the failed run, before
	// the bad record, come again.
	if more := kafkatest.ConsumeAll(t, brokers, "out", 2*n, 2*time.Second); len(more) > len(out) {
		out = append(out, more[len(out):]...)
	}
	first := map[int]*kgo.Record{}
	for _, r := range out {
		if i := index(t, r); first[i] == nil {
			first[i] = r
		} else if i >= 1500 {
			t.Fatalf("record %d, after the bad one, was produced twice", i)
		}
	}
	uniq := make([]*kgo.Record, 0, n)
	for _, r := range first {
		uniq = append(uniq, r)
	}
	de, _ := serde.NewDeserializer(reg, md, protoavro.Options{})
	verify(t, de, md, recs, uniq)
	t.Logf("%d records out for %d in: %d produced by the failed run", len(out), n, len(out)-n)
}

// registryFixture is a cluster (topics in, out and dlq) and an srfake
// registry of the given options holding the v2 Person under in-value. It
// produces recs(md, id) to in and returns them, the brokers, the registry,
// a client of it (made with admin) and md.
type registryFixture struct {
	brokers []string
	fake    *srfake.Registry
	reg     *serde.Registry
	md      protoreflect.MessageDescriptor
	recs    []*kgo.Record
}

func newRegistryFixture(t *testing.T, admin serde.RegistryOptions, recs func(md protoreflect.MessageDescriptor, id uint32) []*kgo.Record, opts ...srfake.Option) *registryFixture {
	t.Helper()
	f := &registryFixture{fake: srfake.New(opts...), md: kafkatest.Person(t, "v2")}
	_, f.brokers = kafkatest.Cluster(t, 1, "in", "out", "dlq")
	t.Cleanup(f.fake.Close)
	f.reg = f.client(t, admin)
	id := kafkatest.RegisterPerson(t, f.reg, "in-value", "v2")
	f.recs = recs(f.md, id)
	kafkatest.Produce(t, kafkatest.Client(t, f.brokers), f.recs)
	return f
}

// client returns a new client of the registry, whose caches are empty: the
// bridge's first record needs the registry.
func (f *registryFixture) client(t *testing.T, opts serde.RegistryOptions) *serde.Registry {
	t.Helper()
	reg, err := serde.NewRegistry(opts, f.fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// run runs the bridge from in to out (dead letters to dlq if given) with reg
// until n records are committed, an error, or a minute.
func (f *registryFixture) run(reg *serde.Registry, dlq string, n int) (ctx context.Context, sum bridge.Summary, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sum, err = bridge.Run(ctx, bridge.Config{Brokers: f.brokers, Group: "g", Inputs: []string{"in"}, Output: "out", DeadLetter: dlq,
		Registry: reg, MaxRecords: int64(n)})
	return ctx, sum, err
}

// TestRegistryOutage: a registry that answers 503 for longer than the bound
// on finishing a batch after a stop is retried until it is back; the bridge
// neither stops nor dead-letters, and every record comes out once.
func TestRegistryOutage(t *testing.T) {
	defer bridge.SetBatchTimeout(time.Second)()
	const n = 200
	f := newRegistryFixture(t, serde.RegistryOptions{}, func(md protoreflect.MessageDescriptor, id uint32) []*kgo.Record {
		return inputs(t, "in", md, id, 0, n)
	})
	var refused atomic.Int64
	f.fake.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
		refused.Add(1)
		return kafkatest.Unavailable(w, r)
	})
	go func() {
		// The outage lasts from the first refusal (however long the
		// bridge takes to ask), longer than the batch timeout.
		for wait := time.Now().Add(2 * time.Minute); refused.Load() == 0 && time.Now().Before(wait); {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(3500 * time.Millisecond)
		f.fake.ClearInterceptors()
	}()
	if _, sum, err := f.run(f.client(t, serde.RegistryOptions{}), "dlq", n); err != nil || sum.Records != n || sum.DeadLettered != 0 {
		t.Fatalf("run through a registry outage: %v, %v", sum, err)
	}
	if refused.Load() == 0 {
		t.Fatal("the registry was never asked during the outage")
	}
	de, _ := serde.NewDeserializer(f.reg, f.md, protoavro.Options{})
	verify(t, de, f.md, f.recs, kafkatest.ConsumeAll(t, f.brokers, "out", n, time.Minute))
}

// TestRegistryRefusesAccess: a registry that refuses the bridge's
// credentials is no fault of the records: the bridge stops with an error
// saying so instead of dead-lettering every record, and commits nothing.
func TestRegistryRefusesAccess(t *testing.T) {
	const n = 50
	admin := serde.RegistryOptions{Username: "bridge", Password: "secret"}
	f := newRegistryFixture(t, admin, func(md protoreflect.MessageDescriptor, id uint32) []*kgo.Record {
		return inputs(t, "in", md, id, 0, n)
	}, srfake.WithAuth("Basic "+base64.StdEncoding.EncodeToString([]byte("bridge:secret"))))
	for _, opts := range []serde.RegistryOptions{{}, {Username: "bridge", Password: "wrong"}} {
		_, sum, err := f.run(f.client(t, opts), "dlq", n)
		if !errors.Is(err, serde.ErrRegistryAccess) || !errors.Is(err, serde.ErrRegistry) || sum.Records != 0 || sum.DeadLettered != 0 {
			t.Fatalf("password %q: %v, %v; want a stop with ErrRegistryAccess, nothing committed", opts.Password, sum, err)
		}
		if !strings.Contains(err.Error(), "in[0] offset 0") {
			t.Errorf("error does not say where: %v", err)
		}
	}
}

// TestStopDuringOutage: a bad record (no dead-letter topic) stops the bridge
// at once even while another worker is retrying a registry that is down:
// the retries of the abandoned batch end with it.
func TestStopDuringOutage(t *testing.T) {
	// Workers for several chunks at once.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(4, runtime.GOMAXPROCS(0))))
	const n = 2000
	f := newRegistryFixture(t, serde.RegistryOptions{}, func(md protoreflect.MessageDescriptor, id uint32) []*kgo.Record {
		bad := &kgo.Record{Topic: "in", Value: []byte("plain text")}
		return append([]*kgo.Record{bad}, inputs(t, "in", md, id, 0, n)...)
	})
	f.fake.Intercept(kafkatest.Unavailable)
	ctx, _, err := f.run(f.client(t, serde.RegistryOptions{}), "", n+1)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("the bridge returned only when its context ended: %v", err)
	}
	if !errors.Is(err, serde.ErrBadMagic) || !strings.Contains(err.Error(), "in[0] offset 0") {
		t.Fatalf("run: %v, want the bad record at offset 0", err)
	}
}

// TestLagAfterRebalance: the lag is over the instance's partitions. An
// instance that had lag on partitions when a second one joined and took
// them reports none of it once everything is converted: both instances'
// lag ends at 0.
func TestLagAfterRebalance(t *testing.T) {
	const n = 8000
	brokers, cl, reg, md, id := setup(t, 4)
	kafkatest.Produce(t, cl, inputs(t, "in", md, id, 0, n))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var (
		wg      sync.WaitGroup
		total   [2]atomic.Int64
		sums    [2]bridge.Summary
		errs    [2]error
		started = make(chan struct{})
		once    sync.Once
	)
	run := func(k int) {
		defer wg.Done()
		sums[k], errs[k] = bridge.Run(ctx, bridge.Config{
			Brokers: brokers, Group: "g", Inputs: []string{"in"}, Output: "out", Registry: reg,
			BatchSize: 50, SessionTimeout: 3 * time.Second,
			OnCommit: func(s bridge.Summary) {
				total[k].Store(s.Records)
				if s.Records >= 1000 && s.Lag > 0 {
					once.Do(func() { close(started) })
				}
				// Without the race detector the first instance could
				// convert everything before the second joins: it slows
				// down until the second has committed a batch (a
				// rebalance reaches the first within a heartbeat, 3 s,
				// and 160 batches at 50 ms take 8 s).
				if k == 0 && s.Records >= 1000 && total[1].Load() == 0 {
					time.Sleep(50 * time.Millisecond)
				}
				if total[0].Load()+total[1].Load() >= n {
					cancel()
				}
			},
		})
	}
	wg.Add(1)
	go run(0)
	select {
	case <-started: // the first instance has lag on its partitions
	case <-ctx.Done():
		t.Fatal("the first instance committed nothing")
	}
	wg.Add(1)
	go run(1)
	wg.Wait()
	for k := range 2 {
		if errs[k] != nil && ctx.Err() == nil {
			t.Errorf("instance %d: %v", k, errs[k])
		}
		t.Logf("instance %d: %v", k, sums[k])
	}
	if sums[0].Records+sums[1].Records != n {
		t.Fatalf("instances committed %d + %d records, want %d", sums[0].Records, sums[1].Records, n)
	}
	if sums[1].Records == 0 {
		t.Fatal("the second instance converted nothing: no rebalance took partitions")
	}
	if sums[0].Lag != 0 || sums[1].Lag != 0 {
		t.Errorf("lag %d and %d once everything is converted, want 0", sums[0].Lag, sums[1].Lag)
	}
}

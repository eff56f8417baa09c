package bridge_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// TestRegistryOutage: a registry that answers 503 for longer than the bound
// on finishing a batch after a stop is retried until it is back; the bridge
// neither stops nor dead-letters, and every record comes out once.
func TestRegistryOutage(t *testing.T) {
	defer bridge.SetBatchTimeout(time.Second)()
	const n = 200
	_, brokers := kafkatest.Cluster(t, 1, "in", "out", "dlq")
	fake := srfake.New()
	t.Cleanup(fake.Close)
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	id, err := serde.NewProtoEncoder(reg).Register(context.Background(), "in-value", kafkatest.EvolutionSource(t, "v2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	md := kafkatest.Person(t, "v2")
	recs := inputs(t, "in", md, id, 0, n)
	kafkatest.Produce(t, kafkatest.Client(t, brokers), recs)

	// The bridge's own client, whose caches are empty: its first record
	// needs the registry.
	breg, err := serde.NewRegistry(serde.RegistryOptions{}, fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	var refused atomic.Int64
	fake.Intercept(func(w http.ResponseWriter, _ *http.Request) bool {
		refused.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error_code":50003,"message":"store unavailable"}`))
		return true
	})
	go func() {
		time.Sleep(3500 * time.Millisecond) // longer than the batch timeout
		fake.ClearInterceptors()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sum, err := bridge.Run(ctx, bridge.Config{Brokers: brokers, Group: "g", Input: "in", Output: "out", DeadLetter: "dlq",
		Registry: breg, MaxRecords: n})
	if err != nil || sum.Records != n || sum.DeadLettered != 0 {
		t.Fatalf("run through a registry outage: %v, %v", sum, err)
	}
	if refused.Load() == 0 {
		t.Fatal("the registry was never asked during the outage")
	}
	de, _ := serde.NewDeserializer(reg, md, protoavro.Options{})
	verify(t, de, md, recs, kafkatest.ConsumeAll(t, brokers, "out", n, time.Minute))
}

// TestRegistryRefusesAccess: a registry that refuses the bridge's
// credentials is no fault of the records: the bridge stops with an error
// saying so instead of dead-lettering every record, and commits nothing.
func TestRegistryRefusesAccess(t *testing.T) {
	const n = 50
	_, brokers := kafkatest.Cluster(t, 1, "in", "out", "dlq")
	fake := srfake.New(srfake.WithAuth("Basic " + base64.StdEncoding.EncodeToString([]byte("bridge:secret"))))
	t.Cleanup(fake.Close)
	reg, err := serde.NewRegistry(serde.RegistryOptions{Username: "bridge", Password: "secret"}, fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	id, err := serde.NewProtoEncoder(reg).Register(context.Background(), "in-value", kafkatest.EvolutionSource(t, "v2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	md := kafkatest.Person(t, "v2")
	kafkatest.Produce(t, kafkatest.Client(t, brokers), inputs(t, "in", md, id, 0, n))
	for _, opts := range []serde.RegistryOptions{{}, {Username: "bridge", Password: "wrong"}} {
		breg, err := serde.NewRegistry(opts, fake.URL())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		sum, err := bridge.Run(ctx, bridge.Config{Brokers: brokers, Group: "g", Input: "in", Output: "out", DeadLetter: "dlq",
			Registry: breg, MaxRecords: n})
		cancel()
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
	_, brokers := kafkatest.Cluster(t, 1, "in", "out")
	fake := srfake.New()
	t.Cleanup(fake.Close)
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	id, err := serde.NewProtoEncoder(reg).Register(context.Background(), "in-value", kafkatest.EvolutionSource(t, "v2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	md := kafkatest.Person(t, "v2")
	bad := &kgo.Record{Topic: "in", Value: []byte("plain text")}
	kafkatest.Produce(t, kafkatest.Client(t, brokers), append([]*kgo.Record{bad}, inputs(t, "in", md, id, 0, n)...))
	breg, err := serde.NewRegistry(serde.RegistryOptions{}, fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	fake.Intercept(func(w http.ResponseWriter, _ *http.Request) bool {
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = bridge.Run(ctx, bridge.Config{Brokers: brokers, Group: "g", Input: "in", Output: "out", Registry: breg, MaxRecords: n + 1})
	if ctx.Err() != nil {
		t.Fatalf("the bridge returned only when its context ended: %v", err)
	}
	if !errors.Is(err, serde.ErrBadMagic) || !strings.Contains(err.Error(), "in[0] offset 0") {
		t.Fatalf("run: %v, want the bad record at offset 0", err)
	}
}

package serde_test

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
)

// TestGateConcurrent: two schemas new to a subject, registered at once
// (records of v1 and v2 in one batch of the bridge, on two workers), are
// checked against each other: under FULL one of them is refused. The
// registry holds the first two requests for the subject's versions until
// both have come, so that both checks would run before either registration
// if nothing ordered them.
func TestGateConcurrent(t *testing.T) {
	fake, reg := kafkatest.Registry(t)
	if err := reg.SetCompatibility(ctx, "people-value", serde.LevelFull); err != nil {
		t.Fatal(err)
	}
	// The first two requests for the subject's version list wait for each
	// other (at most a second).
	var arrived sync.WaitGroup
	arrived.Add(2)
	var listed atomic.Int64
	fake.Intercept(func(_ http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodGet && r.URL.Path == "/subjects/people-value/versions" && listed.Add(1) <= 2 {
			arrived.Done()
			done := make(chan struct{})
			go func() { arrived.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(time.Second):
			}
		}
		return false
	})
	ser := serde.NewSerializer(reg, serde.SerializerOptions{Check: true})
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, v := range []string{"v1", "v2"} {
		c, err := ser.Codec(kafkatest.Person(t, v))
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { _, errs[i] = ser.ID(ctx, "people", c) })
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("v1: %v; v2: %v; want exactly one refused", errs[0], errs[1])
	}
	err := errors.Join(errs...)
	if !errors.Is(err, serde.ErrIncompatible) || !strings.Contains(err.Error(), "Person.age") {
		t.Fatalf("refusal: %v", err)
	}
	if vs, err := reg.Versions(ctx, "people-value"); err != nil || len(vs) != 1 {
		t.Fatalf("versions: %v, %v; want one", vs, err)
	}
}

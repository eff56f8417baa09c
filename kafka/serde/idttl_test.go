package serde_test

import (
	"errors"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/sr"
)

// deleteVersions soft- then hard-deletes every version of subject in the
// registry (Confluent's registry takes a hard delete only after a soft one).
func deleteVersions(t *testing.T, url, subject string) {
	t.Helper()
	cl, err := sr.NewClient(sr.URLs(url))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := cl.SubjectVersions(ctx, subject)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		for _, how := range []sr.DeleteHow{sr.SoftDelete, sr.HardDelete} {
			if err := cl.DeleteSchema(ctx, subject, v, how); err != nil {
				t.Fatalf("delete %s version %d: %v", subject, v, err)
			}
		}
	}
}

// subjectIDs returns the schema IDs of subject's versions in the registry
// (none when it has none).
func subjectIDs(t *testing.T, reg *serde.Registry, subject string) []int {
	t.Helper()
	vs, err := reg.Versions(ctx, subject)
	if err != nil && !errors.Is(err, serde.ErrUnknownSubject) && !errors.Is(err, serde.ErrUnknownID) {
		t.Fatal(err)
	}
	var ids []int
	for _, v := range vs {
		ids = append(ids, v.Schema.ID)
	}
	return ids
}

// TestSerializerDeletedVersion: the version a serializer registered is
// deleted (soft, then hard) from the registry while it runs. By default it
// goes on writing the cached ID for its whole life, as Confluent's Java
// client does: on Confluent's registry, a hard-deleted ID no longer resolves
// for consumers (srfake still resolves it; the test checks the subject). With
// IDTTL, the first record after the TTL registers the schema again, so the
// subject holds the ID written again; with LookupOnly such records
// fail instead; and a registry that is down when the TTL expires keeps the
// ID for another TTL.
func TestSerializerDeletedVersion(t *testing.T) {
	md := kafkatest.Person(t, "v2")
	const ttl = time.Minute
	var now atomic.Int64
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	encode := func(t *testing.T, ser *serde.Serializer, topic string) (uint32, error) {
		t.Helper()
		b, err := ser.Encode(ctx, nil, topic, kafkatest.NewPerson(md, 1))
		if err != nil {
			return 0, err
		}
		id, _, err := serde.ParseHeader(b)
		if err != nil {
			t.Fatal(err)
		}
		return id, nil
	}
	mustEncode := func(t *testing.T, ser *serde.Serializer, topic string) uint32 {
		t.Helper()
		id, err := encode(t, ser, topic)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}

	for _, check := range []bool{false, true} {
		name := "register"
		if check {
			name = "check and register"
		}
		t.Run(name, func(t *testing.T) {
			fake, reg := kafkatest.Registry(t)
			calls := countRequests(fake)
			forever := serde.NewSerializer(reg, serde.SerializerOptions{Check: check})
			serde.SetSerializerClock(forever, clock)
			ttlSer := serde.NewSerializer(reg, serde.SerializerOptions{Check: check, IDTTL: ttl})
			serde.SetSerializerClock(ttlSer, clock)
			id := mustEncode(t, forever, "people")
			if got := mustEncode(t, ttlSer, "people"); got != id {
				t.Fatalf("two serializers of one schema: IDs %d and %d", id, got)
			}
			deleteVersions(t, fake.URL(), "people-value")
			if ids := subjectIDs(t, reg, "people-value"); len(ids) != 0 {
				t.Fatalf("after the delete the subject holds %v", ids)
			}
			// Before the TTL (and forever without one): the cached ID, no
			// request.
			before := calls.Load()
			now.Add(int64(ttl - time.Second))
			for _, ser := range []*serde.Serializer{forever, ttlSer} {
				if got := mustEncode(t, ser, "people"); got != id {
					t.Fatalf("before the TTL: ID %d, want the cached %d", got, id)
				}
			}
			if n := calls.Load() - before; n != 0 {
				t.Errorf("%d registry requests before the TTL", n)
			}
			now.Add(int64(time.Hour))
			if got := mustEncode(t, forever, "people"); got != id || calls.Load() != before {
				t.Fatalf("without IDTTL, an hour later: ID %d (want %d), %d requests (want 0)", got, id, calls.Load()-before)
			}
			if ids := subjectIDs(t, reg, "people-value"); len(ids) != 0 {
				t.Fatalf("without IDTTL the subject holds %v", ids)
			}
			// After it: registered again (srfake gives the schema its old
			// ID back; Confluent's registry, after a hard delete, a new
			// one), then cached again.
			again := mustEncode(t, ttlSer, "people")
			if ids := subjectIDs(t, reg, "people-value"); !slices.Equal(ids, []int{int(again)}) {
				t.Fatalf("after the TTL the subject holds %v, want [%d], the ID written", ids, again)
			}
			before = calls.Load()
			for range 50 {
				if got := mustEncode(t, ttlSer, "people"); got != again {
					t.Fatalf("after the refresh: ID %d, want %d", got, again)
				}
			}
			if n := calls.Load() - before; n != 0 {
				t.Errorf("%d registry requests for 50 records after the refresh", n)
			}
		})
	}

	t.Run("concurrent refresh", func(t *testing.T) {
		fake, reg := kafkatest.Registry(t)
		var registers atomic.Int64
		fake.Intercept(func(_ http.ResponseWriter, r *http.Request) bool {
			if r.Method == http.MethodPost && r.URL.Path == "/subjects/people-value/versions" {
				registers.Add(1)
			}
			return false
		})
		ser := serde.NewSerializer(reg, serde.SerializerOptions{IDTTL: ttl})
		serde.SetSerializerClock(ser, clock)
		mustEncode(t, ser, "people")
		deleteVersions(t, fake.URL(), "people-value")
		now.Add(int64(ttl))
		var ids sync.Map
		kafkatest.Parallel(t, 8, func(int) error {
			for range 50 {
				got, err := encode(t, ser, "people")
				if err != nil {
					return err
				}
				ids.Store(got, true)
			}
			return nil
		})
		n := 0
		ids.Range(func(any, any) bool { n++; return true })
		if n != 1 {
			t.Errorf("400 concurrent records after the TTL were written with %d IDs, want 1", n)
		}
		if n := registers.Load(); n != 2 {
			t.Errorf("%d registrations (the first and after the TTL by 400 concurrent records), want 2", n)
		}
	})

	t.Run("lookup only", func(t *testing.T) {
		fake, reg := kafkatest.Registry(t)
		mustEncode(t, serde.NewSerializer(reg, serde.SerializerOptions{}), "people")
		lookup := serde.NewSerializer(reg, serde.SerializerOptions{LookupOnly: true, IDTTL: ttl})
		serde.SetSerializerClock(lookup, clock)
		id := mustEncode(t, lookup, "people")
		deleteVersions(t, fake.URL(), "people-value")
		if got := mustEncode(t, lookup, "people"); got != id {
			t.Fatalf("before the TTL: ID %d, want %d", got, id)
		}
		now.Add(int64(ttl))
		for range 2 {
			_, err := encode(t, lookup, "people")
			if !errors.Is(err, serde.ErrUnknownID) && !errors.Is(err, serde.ErrUnknownSubject) {
				t.Fatalf("after the TTL: %v, want ErrUnknownID or ErrUnknownSubject", err)
			}
		}
		if ids := subjectIDs(t, reg, "people-value"); len(ids) != 0 {
			t.Fatalf("a lookup-only serializer registered %v", ids)
		}
	})

	t.Run("registry down at the TTL", func(t *testing.T) {
		fake, reg := kafkatest.Registry(t)
		calls := countRequests(fake)
		ser := serde.NewSerializer(reg, serde.SerializerOptions{IDTTL: ttl})
		serde.SetSerializerClock(ser, clock)
		id := mustEncode(t, ser, "people")
		down := kafkatest.RegistryDown(fake)
		now.Add(int64(ttl))
		before := calls.Load()
		if got := mustEncode(t, ser, "people"); got != id {
			t.Fatalf("registry down at the TTL: ID %d, want the kept %d", got, id)
		}
		if calls.Load() == before {
			t.Fatal("the TTL passed, and the registry was not asked")
		}
		before = calls.Load()
		for range 20 {
			mustEncode(t, ser, "people")
		}
		if n := calls.Load() - before; n != 0 {
			t.Errorf("%d requests to a registry that is down within the next TTL, want 0", n)
		}
		down.Store(false)
		deleteVersions(t, fake.URL(), "people-value")
		now.Add(int64(ttl))
		again := mustEncode(t, ser, "people")
		if ids := subjectIDs(t, reg, "people-value"); !slices.Equal(ids, []int{int(again)}) {
			t.Fatalf("registry back: the subject holds %v, want [%d], the ID written", ids, again)
		}
	})
}

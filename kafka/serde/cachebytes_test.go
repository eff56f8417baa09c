package serde_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/protoavro/protoavro/kafka/serde"
)

// TestRegistryCacheBytes: the schemas a Registry caches are bounded by
// their size too, not only by their number: past the bound, those not read
// lately are evicted (and fetched again when asked for), and a schema
// larger than the whole bound is not cached.
func TestRegistryCacheBytes(t *testing.T) {
	const size = 100 << 10
	var requests [8]atomic.Int64 // by ID
	url := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/schemas/ids/"))
		requests[id].Add(1)
		n := size
		if id == 7 {
			n = 4 * size
		}
		fmt.Fprintf(w, `{"schema":"%s"}`, strings.Repeat("x", n))
	})
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, url)
	if err != nil {
		t.Fatal(err)
	}
	const budget = 3*size + size/2
	serde.SetCacheBytes(reg, budget)
	fetch := func(ids ...int) {
		t.Helper()
		for _, id := range ids {
			if _, err := reg.SchemaByID(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	// ID 1 is read all along: it stays, and the others take turns.
	for id := 2; id <= 6; id++ {
		fetch(1, id)
	}
	if n, b := serde.CachedSchemas(reg), serde.CachedSchemaBytes(reg); n != 3 || b > budget {
		t.Errorf("6 schemas of %d bytes under a bound of %d: %d cached, %d bytes; want 3", size, budget, n, b)
	}
	for id := 1; id <= 6; id++ {
		if n := requests[id].Load(); n != 1 {
			t.Errorf("schema %d fetched %d times, want once", id, n)
		}
	}
	fetch(1)
	if n := requests[1].Load(); n != 1 {
		t.Errorf("schema 1, read all along, fetched %d times, want once", n)
	}

	// A schema larger than the bound is not cached, and evicts nothing.
	before := serde.CachedSchemas(reg)
	fetch(7, 7)
	if n := requests[7].Load(); n != 2 {
		t.Errorf("a schema larger than the bound: fetched %d times for 2 reads, want 2", n)
	}
	if n, b := serde.CachedSchemas(reg), serde.CachedSchemaBytes(reg); n != before || b > budget {
		t.Errorf("after a schema larger than the bound: %d cached (%d before), %d bytes", n, before, b)
	}
}

// TestProtoDecoderCacheBytes: a ProtoDecoder's compiled files are bounded
// by the size of the schema texts they were compiled from (with their
// references').
func TestProtoDecoderCacheBytes(t *testing.T) {
	const size = 100 << 10
	dec := protoIDsDecoder(t, strings.Repeat("x", size))
	const budget = 3*size + size/2
	serde.SetDecoderCacheBytes(dec, budget)
	for id := 1; id <= 6; id++ {
		rec := append(serde.AppendProtoHeader(nil, uint32(id), []int{0}), 0x08, 0x01)
		if _, err := dec.Decode(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	if n, b := serde.CachedFiles(dec); n != 3 || b > budget {
		t.Errorf("6 files of %d bytes under a bound of %d: %d cached, %d bytes; want 3", size, budget, n, b)
	}
}

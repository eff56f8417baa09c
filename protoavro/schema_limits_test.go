package protoavro

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/testutil"
)

func hostileMessage(t testing.TB, shape testutil.HostileShape, n int) protoreflect.MessageDescriptor {
	t.Helper()
	md, err := testutil.HostileMessage(shape, n)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// TestSchemaLimitsRefuse derives the schemas of hostile descriptors under
// the default limits: each is refused with ErrSchemaLimit, naming the limit
// and the path of types, within a budget of allocation linear in the limits
// (not in the descriptors).
func TestSchemaLimitsRefuse(t *testing.T) {
	cases := []struct {
		name  string
		shape testutil.HostileShape
		n     int
		opts  Options
		limit string
		path  string
	}{
		{"chain of 200,000", testutil.Chain, 200_000, Options{}, "Limits.MaxDepth",
			"hostile.M0 > hostile.M1 > hostile.M2 > (58 more) > hostile.M61 > hostile.M62 > hostile.M63"},
		{"ring of 20,000", testutil.Ring, 20_000, Options{}, "Limits.MaxDepth", "(58 more) > hostile.M61 > hostile.M62 > hostile.M63"},
		{"ring of 20,000, java", testutil.Ring, 20_000, Options{Profile: JavaProfile}, "Limits.MaxDepth", "hostile.M62"},
		{"1,000 mutually recursive", testutil.Mesh, 1_000, Options{}, "Limits.MaxDepth", "hostile.M62"},
		{"map chain", testutil.MapChain, 1_000, Options{}, "Limits.MaxDepth", "hostile.M62"},
		{"map chain as entries", testutil.MapChain, 1_000, Options{MapKeys: MapAsEntryArray}, "Limits.MaxDepth", "hostile.M30.NextEntry > hostile.M31"},
		{"map chain, java", testutil.MapChain, 1_000, Options{Profile: JavaProfile}, "Limits.MaxDepth", "hostile.M30.NextEntry > hostile.M31"},
		{"200,000 fields", testutil.Wide, 200_000, Options{}, "Limits.MaxFields", "hostile.M0"},
		{"more types than allowed", testutil.Chain, 60, Options{Limits: SchemaLimits{MaxTypes: 10}}, "Limits.MaxTypes", "hostile.M10"},
		{"more fields than allowed", testutil.Mesh, 100, Options{Limits: SchemaLimits{MaxFields: 30, MaxDepth: 1000}}, "Limits.MaxFields", "hostile.M10"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			md := hostileMessage(t, c.shape, c.n)
			c.opts.Cache = NewCache()
			var err error
			alloc := testutil.Allocated(func() { _, err = c.opts.Schema(md) })
			t.Logf("%s: %.2f MiB allocated: %v", c.name, float64(alloc)/(1<<20), err)
			if !errors.Is(err, ErrSchemaLimit) {
				t.Fatalf("err = %v, want ErrSchemaLimit", err)
			}
			if msg := err.Error(); !strings.Contains(msg, c.limit) || !strings.Contains(msg, c.path) || len(msg) > 1000 {
				t.Errorf("error %q does not name %s and %s in short", msg, c.limit, c.path)
			}
			if alloc > 64<<20 {
				t.Errorf("refusal allocated %d bytes, want at most 64 MiB", alloc)
			}
		})
	}
}

// TestSchemaLimitsRaised derives hostile descriptors with the limits
// raised, or shapes the defaults accept: the work is linear in the
// descriptors (a chain of 20,000 messages and 1,000 mutually recursive
// ones within budgets of allocation proportional to their records), and a
// schema too deep to indent is written compact.
func TestSchemaLimitsRaised(t *testing.T) {
	raised := SchemaLimits{MaxDepth: 1 << 20, MaxTypes: 1 << 20, MaxFields: 1 << 22}
	cases := []struct {
		name     string
		shape    testutil.HostileShape
		n        int
		opts     Options
		records  int    // records the schema spells out
		budget   uint64 // allocation budget
		indented bool
	}{
		{"chain of 20,000", testutil.Chain, 20_000, Options{Limits: raised}, 20_000, 20_000 * 8 << 10, false},
		{"ring of 20,000", testutil.Ring, 20_000, Options{Limits: raised}, 20_000, 20_000 * 8 << 10, false},
		{"1,000 mutually recursive", testutil.Mesh, 1_000, Options{Limits: raised}, 1_000, 1_000 * 8 << 10, false},
		// Finding the cycles is linear in the descriptors, not in the schema.
		{"ring of 20,000, recursion bounded", testutil.Ring, 20_000, Options{RecursionDepth: 1}, 1, 20_000 * 1 << 10, true},
		{"1,000 mutually recursive, recursion bounded", testutil.Mesh, 1_000, Options{RecursionDepth: 2}, 4, 1 << 20, true},
		{"1,000 mutually recursive, engine-ready", testutil.Mesh, 1_000, EngineReady(), 1, 1 << 20, true},
		{"100,000 fields", testutil.Wide, 100_000, Options{}, 1, 100_000 * 2 << 10, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			md := hostileMessage(t, c.shape, c.n)
			c.opts.Cache = NewCache()
			var s *Schema
			var js []byte
			var err error
			alloc := testutil.Allocated(func() {
				if s, err = c.opts.Schema(md); err == nil {
					js, err = s.JSON()
				}
			})
			t.Logf("%s: %.2f MiB allocated, %d bytes of JSON", c.name, float64(alloc)/(1<<20), len(js))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(s.Canonical(), `"type":"record"`); n != c.records {
				t.Errorf("%d records, want %d", n, c.records)
			}
			if alloc > c.budget {
				t.Errorf("allocated %d bytes, want at most %d", alloc, c.budget)
			}
			if indented := strings.Contains(string(js), "\n  "); indented != c.indented {
				t.Errorf("JSON indented: %v, want %v", indented, c.indented)
			}
		})
	}
}

// TestSchemaDepthReadsBack derives the deepest schemas of each kind of
// nesting the default MaxDepth accepts and parses their JSON back: what
// is derived within the limits can be read from a container header or a
// registry. One level deeper is refused.
func TestSchemaDepthReadsBack(t *testing.T) {
	for _, c := range []struct {
		name  string
		shape testutil.HostileShape
		n     int // messages of the deepest accepted
		opts  Options
	}{
		{"nullable", testutil.Chain, DefaultSchemaDepth, Options{}},
		{"java", testutil.Chain, DefaultSchemaDepth, Options{Profile: JavaProfile}},
		{"map", testutil.MapChain, DefaultSchemaDepth, Options{}},
		// An entry record counts as a level.
		{"entries", testutil.MapChain, (DefaultSchemaDepth + 1) / 2, Options{MapKeys: MapAsEntryArray}},
		{"java entries", testutil.MapChain, (DefaultSchemaDepth + 1) / 2, Options{Profile: JavaProfile}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Cache = NewCache()
			s, err := c.opts.Schema(hostileMessage(t, c.shape, c.n))
			if err != nil {
				t.Fatalf("deepest accepted: %v", err)
			}
			js, err := s.JSON()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ParseSchema(js); err != nil {
				t.Errorf("schema at the depth limit does not parse back: %v", err)
			}
			if _, err := c.opts.Schema(hostileMessage(t, c.shape, c.n+1)); !errors.Is(err, ErrSchemaLimit) {
				t.Errorf("one message deeper: err = %v, want ErrSchemaLimit", err)
			}
		})
	}
}

// TestSchemaContextCancelled derives a large schema with a context that is
// done: the derivation stops with the context's error.
func TestSchemaContextCancelled(t *testing.T) {
	md := hostileMessage(t, testutil.Chain, 5_000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := Options{Cache: NewCache(), Limits: SchemaLimits{MaxDepth: 1 << 20}}
	_, err := o.SchemaContext(ctx, md)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if o.Cache.Len() != 0 {
		t.Error("a cancelled derivation left a cache entry")
	}
	if _, err := o.SchemaContext(context.Background(), md); err != nil {
		t.Fatalf("derivation after the cancelled one: %v", err)
	}
}

// TestSchemaGiantName derives a message nesting one whose name is 1 MiB:
// it succeeds in memory linear in the name, and a limit error about it
// names it cut short.
func TestSchemaGiantName(t *testing.T) {
	fd, err := protodesc.NewFile(testutil.GiantNameFile(1<<20), nil)
	if err != nil {
		t.Fatal(err)
	}
	md := fd.Messages().ByName("M0")
	o := Options{Cache: NewCache()}
	var s *Schema
	alloc := testutil.Allocated(func() { s, err = o.Schema(md) })
	t.Logf("1 MiB name: %.1f MiB allocated", float64(alloc)/(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Canonical()) < 1<<20 || alloc > 64<<20 {
		t.Errorf("canonical form of %d bytes, %d bytes allocated", len(s.Canonical()), alloc)
	}
	o.Limits.MaxTypes = 1
	o.Cache = NewCache()
	_, err = o.Schema(md)
	if !errors.Is(err, ErrSchemaLimit) || len(err.Error()) > 1000 {
		t.Errorf("err = %.2000v, want a short ErrSchemaLimit", err)
	}
}

// TestSchemaLimitsInvalid: negative limits are invalid options.
func TestSchemaLimitsInvalid(t *testing.T) {
	md := hostileMessage(t, testutil.Chain, 2)
	for _, l := range []SchemaLimits{{MaxDepth: -1}, {MaxTypes: -1}, {MaxFields: -1}} {
		if _, err := (Options{Limits: l}).Schema(md); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%+v: err = %v, want ErrInvalidOptions", l, err)
		}
	}
}

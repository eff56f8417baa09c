package serde

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// maxCacheEntries bounds the values each onceCache holds: the registry's
// schemas by ID and by (subject, version), a ProtoDecoder's compiled files
// and codecs, a Deserializer's resolvers, a Serializer's codecs and IDs.
// Records may carry any number of schema IDs (a producer that registers
// its schemas makes new ones), so a cache that kept every one would grow
// without end; Confluent's clients bound theirs the same way (the Java
// client's max.schemas.per.subject, 1000 by default). A value evicted is
// fetched or built again when next asked for.
const maxCacheEntries = 10_000

// maxCacheBytes bounds the schema text behind the values of each cache
// that holds schemas or what is made of them (the registry's schemas, a
// ProtoDecoder's files and codecs, a Deserializer's resolvers): 256 MiB.
// A value is counted by the size of the schema text it was made from (with
// the texts of the schemas its references name, which a compiled file or a
// resolver holds too), so that 10,000 schemas of up to MaxRegistryResponse
// each cannot hold 80 GiB. When adding a value would pass the bound, values
// are evicted as for maxCacheEntries until it fits; a value larger than the
// whole bound is not cached (it is fetched or built again each time).
const maxCacheBytes = 256 << 20

// onceCache memoizes the successful results of a function per key. Callers
// asking for one key at the same time share one call, and every one of them
// gets its result, success or failure; failures are not cached, so a
// registry that was down is asked again by the next call. A call that ended
// because its own caller's context did is no answer for the others: they
// make one new call. Cached values are read without locking (peek, on the
// per-record path) from a sync.Map; adding one costs O(1) amortized. It
// holds at most maxCacheEntries values (limit, when set, for tests) and
// values of at most maxCacheBytes bytes together (maxBytes, when set, for
// tests; values stored without a size count 0): when full, adding one
// evicts others, by second chance (a value read since the last sweep is
// passed over once), so values in use stay and those read once go.
type onceCache[K comparable, V any] struct {
	ready sync.Map // K → *cached[V]

	mu       sync.Mutex
	pending  map[K]*onceEntry[V] // the calls under way
	n        int                 // the values in ready
	bytes    int64               // their sizes
	limit    int                 // 0: maxCacheEntries
	maxBytes int64               // 0: maxCacheBytes
}

type cached[V any] struct {
	v    V
	size int64
	used atomic.Bool // read since the last sweep
}

type onceEntry[V any] struct {
	done chan struct{}
	v    V
	err  error
	// cut reports a call that failed because its caller's context ended
	// (or that panicked): its error is not the answer for the others.
	cut bool
	// waiters counts the callers waiting for the call (c.mu held).
	waiters int
}

// get returns the cached value of k, or calls fn once for all concurrent
// callers and caches its result if it succeeded, without a size.
func (c *onceCache[K, V]) get(ctx context.Context, k K, fn func() (V, error)) (V, error) {
	return c.getSized(ctx, k, func() (V, int64, error) {
		v, err := fn()
		return v, 0, err
	})
}

// getSized is get for a function that returns the size of its value too,
// which counts against maxBytes.
func (c *onceCache[K, V]) getSized(ctx context.Context, k K, fn func() (V, int64, error)) (V, error) {
	for {
		if v, ok := c.peek(k); ok {
			return v, nil
		}
		c.mu.Lock()
		if e, ok := c.ready.Load(k); ok { // a call that finished meanwhile
			c.mu.Unlock()
			return e.(*cached[V]).v, nil
		}
		e, ok := c.pending[k]
		if !ok {
			if c.pending == nil {
				c.pending = make(map[K]*onceEntry[V])
			}
			e = &onceEntry[V]{done: make(chan struct{})}
			c.pending[k] = e
			c.mu.Unlock()
			return c.call(ctx, k, e, fn)
		}
		e.waiters++
		c.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			c.mu.Lock()
			e.waiters--
			c.mu.Unlock()
			var zero V
			return zero, ctx.Err()
		}
		if !e.cut {
			return e.v, e.err
		}
		// The call ended with its caller's context: call again, once
		// for all the callers still waiting.
	}
}

// call runs fn as the call e of k, stores a success, and gives its result
// to the callers waiting for it. A panic of fn is passed on once the call
// is marked cut, so that the callers waiting call again rather than wait
// for ever.
func (c *onceCache[K, V]) call(ctx context.Context, k K, e *onceEntry[V], fn func() (V, int64, error)) (V, error) {
	var size int64
	finished := false
	defer func() {
		if !finished {
			e.cut = true
			e.err = errors.New("serde: the call for a cached value panicked")
		}
		c.mu.Lock()
		delete(c.pending, k)
		if e.err == nil {
			c.store(k, e.v, size)
		}
		c.mu.Unlock()
		close(e.done)
	}()
	e.v, size, e.err = fn()
	e.cut = e.err != nil && ctx.Err() != nil
	finished = true
	return e.v, e.err
}

// store caches v, of the given size, as k's value, evicting others when
// full; a value larger than maxBytes is not cached. c.mu is held.
func (c *onceCache[K, V]) store(k K, v V, size int64) {
	limit, maxBytes := c.limit, c.maxBytes
	if limit <= 0 {
		limit = maxCacheEntries
	}
	if maxBytes <= 0 {
		maxBytes = maxCacheBytes
	}
	if old, ok := c.ready.LoadAndDelete(k); ok {
		c.n--
		c.bytes -= old.(*cached[V]).size
	}
	if size > maxBytes {
		return
	}
	for c.n > 0 && (c.n >= limit || c.bytes+size > maxBytes) {
		if !c.evict() {
			break
		}
	}
	c.ready.Store(k, &cached[V]{v: v, size: size})
	c.n++
	c.bytes += size
}

// evict removes one value: the first of a sweep not read since the last
// sweep, clearing the mark of those that were, and reports whether it
// removed one. c.mu is held. Each mark cleared was set by a read, so the
// sweeps cost O(1) amortized per read and insertion.
func (c *onceCache[K, V]) evict() bool {
	for range 2 { // a second sweep finds every mark cleared
		done := false
		c.ready.Range(func(k, e any) bool {
			x := e.(*cached[V])
			if x.used.Load() {
				x.used.Store(false)
				return true
			}
			c.ready.Delete(k)
			c.n--
			c.bytes -= x.size
			done = true
			return false
		})
		if done {
			return true
		}
	}
	return false
}

// peek returns the cached value of k without calling anything, locking or
// allocating.
func (c *onceCache[K, V]) peek(k K) (V, bool) {
	e, ok := c.ready.Load(k)
	if !ok {
		var zero V
		return zero, false
	}
	x := e.(*cached[V])
	if !x.used.Load() { // written once per sweep, not per read
		x.used.Store(true)
	}
	return x.v, true
}

// len returns the number of values cached and the sum of their sizes.
func (c *onceCache[K, V]) len() (n int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n, c.bytes
}

// waiting returns the number of callers waiting for the call under way for
// k, besides the one that makes it.
func (c *onceCache[K, V]) waiting(k K) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.pending[k]; ok {
		return e.waiters
	}
	return 0
}

// drop removes k's cached value if stale reports it stale, so the next get
// calls its function again. A value another caller has just put in its place
// is kept, and a call under way is not disturbed: concurrent callers that
// found one stale value make one new call.
func (c *onceCache[K, V]) drop(k K, stale func(V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.ready.Load(k)
	if !ok || !stale(e.(*cached[V]).v) {
		return
	}
	c.ready.Delete(k)
	c.n--
	c.bytes -= e.(*cached[V]).size
}

package serde

import (
	"context"
	"sync"
	"sync/atomic"
)

// maxCacheEntries bounds the values each onceCache holds: the registry's
// schemas by ID and by (subject, version), a ProtoDecoder's compiled files
// and codecs, a Deserializer's resolvers, a Serializer's IDs. Records may
// carry any number of schema IDs (a producer that registers its schemas
// makes new ones), so a cache that kept every one would grow without end;
// Confluent's clients bound theirs the same way (the Java client's
// max.schemas.per.subject, 1000 by default). A value evicted is fetched or
// built again when next asked for.
const maxCacheEntries = 10_000

// onceCache memoizes the successful results of a function per key. Callers
// asking for one key at the same time share one call; failures are not
// cached, so a registry that was down is asked again next time. Cached
// values are read without locking (peek, on the per-record path) from a
// sync.Map; adding one costs O(1) amortized. It holds at most
// maxCacheEntries values (limit, when set, for tests): when full, adding
// one evicts another, by second chance (a value read since the last sweep
// is passed over once), so values in use stay and those read once go.
type onceCache[K comparable, V any] struct {
	ready sync.Map // K → *cached[V]

	mu      sync.Mutex
	pending map[K]*onceEntry[V] // the calls under way
	n       int                 // the values in ready
	limit   int                 // 0: maxCacheEntries
}

type cached[V any] struct {
	v    V
	used atomic.Bool // read since the last sweep
}

type onceEntry[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// get returns the cached value of k, or calls fn once for all concurrent
// callers and caches its result if it succeeded.
func (c *onceCache[K, V]) get(ctx context.Context, k K, fn func() (V, error)) (V, error) {
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
		e.v, e.err = fn()
		c.mu.Lock()
		delete(c.pending, k)
		if e.err == nil {
			c.store(k, e.v)
		}
		c.mu.Unlock()
		close(e.done)
		return e.v, e.err
	}
	c.mu.Unlock()
	select {
	case <-e.done:
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
	if e.err != nil { // the shared call failed: try on our own
		return c.get(ctx, k, fn)
	}
	return e.v, nil
}

// store caches v as k's value, evicting another when full. c.mu is held.
func (c *onceCache[K, V]) store(k K, v V) {
	limit := c.limit
	if limit <= 0 {
		limit = maxCacheEntries
	}
	if c.n >= limit {
		c.evict()
	}
	if _, had := c.ready.Swap(k, &cached[V]{v: v}); !had {
		c.n++
	}
}

// evict removes one value: the first of a sweep not read since the last
// sweep, clearing the mark of those that were. c.mu is held. Each mark
// cleared was set by a read, so the sweeps cost O(1) amortized per read
// and insertion.
func (c *onceCache[K, V]) evict() {
	for range 2 { // a second sweep finds every mark cleared
		done := false
		c.ready.Range(func(k, e any) bool {
			if x := e.(*cached[V]); x.used.Load() {
				x.used.Store(false)
				return true
			}
			c.ready.Delete(k)
			c.n--
			done = true
			return false
		})
		if done {
			return
		}
	}
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

// len returns the number of values cached.
func (c *onceCache[K, V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
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
}

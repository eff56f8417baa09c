package serde

import (
	"context"
	"maps"
	"sync"
	"sync/atomic"
)

// onceCache memoizes the successful results of a function per key. Callers
// asking for one key at the same time share one call; failures are not
// cached, so a registry that was down is asked again next time. Cached
// values are read without locking (peek), from a copy-on-write map: the keys
// are schema IDs and subjects, few and added rarely.
type onceCache[K comparable, V any] struct {
	mu    sync.Mutex
	m     map[K]*onceEntry[V]
	ready atomic.Pointer[map[K]V]
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
	if c.m == nil {
		c.m = make(map[K]*onceEntry[V])
	}
	e, ok := c.m[k]
	if !ok {
		e = &onceEntry[V]{done: make(chan struct{})}
		c.m[k] = e
		c.mu.Unlock()
		e.v, e.err = fn()
		c.mu.Lock()
		if e.err != nil {
			delete(c.m, k)
		} else {
			next := make(map[K]V, len(c.m))
			if old := c.ready.Load(); old != nil {
				maps.Copy(next, *old)
			}
			next[k] = e.v
			c.ready.Store(&next)
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

// peek returns the cached value of k without calling anything or locking.
func (c *onceCache[K, V]) peek(k K) (V, bool) {
	if m := c.ready.Load(); m != nil {
		v, ok := (*m)[k]
		return v, ok
	}
	var zero V
	return zero, false
}

// drop removes k's cached value if stale reports it stale, so the next get
// calls its function again. A value another caller has just put in its place
// is kept, and a call under way is not disturbed: concurrent callers that
// found one stale value make one new call.
func (c *onceCache[K, V]) drop(k K, stale func(V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.ready.Load()
	if old == nil {
		return
	}
	v, ok := (*old)[k]
	if !ok || !stale(v) {
		return
	}
	// A value in ready is a finished call's, still in m (get deletes only
	// failed ones): drop both.
	delete(c.m, k)
	next := make(map[K]V, len(*old))
	maps.Copy(next, *old)
	delete(next, k)
	c.ready.Store(&next)
}

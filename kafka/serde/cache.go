package serde

import (
	"context"
	"sync"
)

// onceCache memoizes the successful results of a function per key. Callers
// asking for one key at the same time share one call; failures are not
// cached, so a registry that was down is asked again next time.
type onceCache[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]*onceEntry[V]
}

type onceEntry[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// get returns the cached value of k, or calls fn once for all concurrent
// callers and caches its result if it succeeded.
func (c *onceCache[K, V]) get(ctx context.Context, k K, fn func() (V, error)) (V, error) {
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
		if e.err != nil {
			c.mu.Lock()
			delete(c.m, k)
			c.mu.Unlock()
		}
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

// peek returns the cached value of k without calling anything.
func (c *onceCache[K, V]) peek(k K) (V, bool) {
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	var zero V
	if !ok {
		return zero, false
	}
	select {
	case <-e.done:
		if e.err != nil {
			return zero, false
		}
		return e.v, true
	default:
		return zero, false
	}
}

package serde

import (
	"sync"
	"time"
)

// Defaults of the cache of unknown schema IDs.
const (
	// DefaultUnknownIDTTL is how long an ID the registry answered it does
	// not know is answered so without asking again.
	DefaultUnknownIDTTL = 5 * time.Second
	// maxMisses bounds the number of unknown IDs remembered.
	maxMisses = 1024
)

// missCache remembers, for a short while, the IDs the registry answered it
// does not know, with that answer, so a stream of records of an unknown ID
// makes one registry request per TTL rather than one per record. Only
// ErrUnknownID answers are kept: a registry that was down or refused access
// is asked again next time. It holds at most maxMisses IDs; when full,
// expired ones are dropped first, then the oldest. It is safe for concurrent
// use.
type missCache struct {
	ttl time.Duration // <= 0: nothing is kept
	now func() time.Time

	mu sync.Mutex
	m  map[int]miss
}

type miss struct {
	err     error
	expires time.Time
}

// get returns the remembered error of id, if it has not expired.
func (c *missCache) get(id int) (error, bool) {
	if c.ttl <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[id]
	if !ok {
		return nil, false
	}
	if !c.now().Before(e.expires) {
		delete(c.m, id)
		return nil, false
	}
	return e.err, true
}

// put remembers err for id.
func (c *missCache) put(id int, err error) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.m == nil {
		c.m = make(map[int]miss)
	}
	if _, ok := c.m[id]; !ok && len(c.m) >= maxMisses {
		oldest, first := 0, true
		for k, e := range c.m {
			if !now.Before(e.expires) {
				delete(c.m, k)
				continue
			}
			if first || e.expires.Before(c.m[oldest].expires) {
				oldest, first = k, false
			}
		}
		if len(c.m) >= maxMisses {
			delete(c.m, oldest)
		}
	}
	c.m[id] = miss{err: err, expires: now.Add(c.ttl)}
}

// forget drops id (it was just registered).
func (c *missCache) forget(id int) {
	c.mu.Lock()
	delete(c.m, id)
	c.mu.Unlock()
}

// len returns the number of IDs remembered.
func (c *missCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

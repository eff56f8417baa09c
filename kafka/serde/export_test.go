package serde

import "time"

// SetClock makes r's cache of unknown IDs read the time from now.
func SetClock(r *Registry, now func() time.Time) { r.misses.now = now }

// UnknownIDs returns the number of unknown IDs r remembers.
func UnknownIDs(r *Registry) int { return r.misses.len() }

// SetSerializerClock makes s's ID cache read the time from now.
func SetSerializerClock(s *Serializer, now func() time.Time) { s.now = now }

// SetCacheLimit makes r's caches of schemas by ID and by (subject, version)
// hold at most n values each.
func SetCacheLimit(r *Registry, n int) { r.byID.limit, r.refs.limit = n, n }

// CachedSchemas returns the number of schemas r caches by ID.
func CachedSchemas(r *Registry) int { return r.byID.len() }

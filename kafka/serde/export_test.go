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

// SetCacheBytes makes r's caches of schemas by ID and by (subject, version)
// hold schemas of at most n bytes together, each.
func SetCacheBytes(r *Registry, n int64) { r.byID.maxBytes, r.refs.maxBytes = n, n }

// SetDecoderCacheBytes makes p's caches of files and codecs hold values of
// at most n bytes together, each.
func SetDecoderCacheBytes(p *ProtoDecoder, n int64) { p.files.maxBytes, p.codecs.maxBytes = n, n }

// CachedSchemas returns the number of schemas r caches by ID.
func CachedSchemas(r *Registry) int { n, _ := r.byID.len(); return n }

// CachedSchemaBytes returns the size of the schemas r caches by ID.
func CachedSchemaBytes(r *Registry) int64 { _, b := r.byID.len(); return b }

// CachedFiles returns the number and size of the files p caches.
func CachedFiles(p *ProtoDecoder) (int, int64) { return p.files.len() }

// SchemaByIDWaiters returns the number of callers waiting for the fetch of
// schema id under way, besides the one that makes it.
func SchemaByIDWaiters(r *Registry, id int) int { return r.byID.waiting(id) }

// SetFetchTimeout sets the deadline of the fetch of one schema with its
// references.
func SetFetchTimeout(r *Registry, d time.Duration) { r.fetchTimeout = d }

// CachedCodecs returns the number of codecs s keeps.
func CachedCodecs(s *Serializer) int { n, _ := s.codecs.len(); return n }

// CachedIDs returns the number of (topic, schema) pairs whose ID s caches.
func CachedIDs(s *Serializer) int { n, _ := s.byTopic.len(); return n }

// SetSerializerCodecLimit makes s keep at most n codecs.
func SetSerializerCodecLimit(s *Serializer, n int) { s.codecs.limit = n }

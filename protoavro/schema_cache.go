package protoavro

import (
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/avroschema"
)

// Cache memoizes derived schemas per message descriptor and mapping options,
// with every nested record and enum, so that each is derived once. It is safe
// for concurrent use; lookups of derived schemas take no lock and do not
// allocate.
//
// Entries are keyed by descriptor identity, not by name: two descriptors with
// the same full name but different shapes (two versions of one .proto loaded
// at run time) get separate schemas. A Cache keeps its descriptors reachable;
// programs that create descriptors at run time can hold a private Cache
// (through [Options.Cache]) and drop it to release them.
//
// The zero Cache is ready to use. A Cache must not be copied after first use.
type Cache struct {
	messages sync.Map // protoreflect.MessageDescriptor -> *cacheEntry
	enums    sync.Map // enumKey -> *avroschema.Node
}

// cacheEntry holds the schemas of one message descriptor, one slot per
// plain mapping variant (see Options.variant), read without a lock, and a
// map for the variants with a recursion bound or JSON values.
type cacheEntry struct {
	schemas [variantCount]atomic.Pointer[Schema]
	mu      sync.RWMutex
	more    map[uint64]*Schema
}

// load returns the schema of variant v, or nil.
func (e *cacheEntry) load(v uint64) *Schema {
	if v < variantCount {
		return e.schemas[v].Load()
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.more[v]
}

// store publishes s as the schema of variant v unless one is there already,
// and returns the one that is.
func (e *cacheEntry) store(v uint64, s *Schema) *Schema {
	if v < variantCount {
		if e.schemas[v].CompareAndSwap(nil, s) {
			return s
		}
		return e.schemas[v].Load()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if prev := e.more[v]; prev != nil {
		return prev
	}
	if e.more == nil {
		e.more = map[uint64]*Schema{}
	}
	e.more[v] = s
	return s
}

// enumKey identifies one enum schema: the enum, the mapping variant and the
// index of its default symbol (the Java profile sets it from field defaults).
type enumKey struct {
	desc    protoreflect.EnumDescriptor
	variant uint64
	def     int
}

// defaultCache serves Options with a nil Cache.
var defaultCache = new(Cache)

// NewCache returns an empty cache, for use in [Options.Cache].
func NewCache() *Cache { return new(Cache) }

// load returns the cached schema of md under o, or nil.
func (c *Cache) load(md protoreflect.MessageDescriptor, o Options) *Schema {
	e, ok := c.messages.Load(md)
	if !ok {
		return nil
	}
	return e.(*cacheEntry).load(o.variant())
}

// schema returns the cached schema of md under o, deriving it on a miss.
func (c *Cache) schema(md protoreflect.MessageDescriptor, o Options) (*Schema, error) {
	if s := c.load(md, o); s != nil {
		return s, nil
	}
	return c.derive(md, o, nil)
}

// derive builds the schema of md under o and publishes it. When two
// goroutines derive the same schema at once, both get the first one published.
func (c *Cache) derive(md protoreflect.MessageDescriptor, o Options, stack *derivation) (*Schema, error) {
	s, err := derive(md, o, c, stack)
	if err != nil {
		return nil, err
	}
	e, ok := c.messages.Load(md)
	if !ok {
		e, _ = c.messages.LoadOrStore(md, new(cacheEntry))
	}
	return e.(*cacheEntry).store(o.variant(), s), nil
}

// enum returns the enum schema of t with default symbol def, building it
// on first use.
func (c *Cache) enum(t *enumTable, o Options, def int, doc string) *avroschema.Node {
	k := enumKey{desc: t.desc, variant: o.variant(), def: def}
	if n, ok := c.enums.Load(k); ok {
		return n.(*avroschema.Node)
	}
	actual, _ := c.enums.LoadOrStore(k, newEnumNode(t, def, doc))
	return actual.(*avroschema.Node)
}

// Len returns the number of message descriptors with at least one cached schema.
func (c *Cache) Len() int {
	n := 0
	c.messages.Range(func(any, any) bool { n++; return true })
	return n
}

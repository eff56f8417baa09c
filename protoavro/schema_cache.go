package protoavro

import (
	"context"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protoavro/protoavro/internal/avroschema"
)

// Cache memoizes derived schemas per message descriptor and mapping options,
// and enum schemas, so that each is derived once. A message type of
// generated code whose schema the cache holds is reused, as the same
// records, by the schemas derived later that nest it; other nested
// messages are built in place. It is safe for concurrent use; lookups of derived schemas of registered types take no
// lock and do not allocate.
//
// Entries are keyed by descriptor identity, not by name: two descriptors with
// the same full name but different shapes (two versions of one .proto loaded
// at run time) get separate schemas.
//
// A Cache never keeps alive a descriptor that is not in
// protoregistry.GlobalFiles: the schemas of descriptors built at run time
// (the types embedded in container files, descriptors from registries or
// protodesc) are held through weak references, and are released, entry and
// all, once neither the descriptor nor the schema and its codecs are used;
// a later use derives them again. Descriptors of generated code, which live
// as long as the program, are held strongly.
//
// The zero Cache is ready to use. A Cache must not be copied after first use.
type Cache struct {
	messages sync.Map // registered protoreflect.MessageDescriptor -> *cacheEntry
	enums    sync.Map // enumKey of a registered enum -> *avroschema.Node
	// The weak side, for descriptors built at run time.
	weakMessages sync.Map // weakKey -> *weakEntry
	weakEnums    sync.Map // weakEnumKey -> weak.Pointer[avroschema.Node]
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

// weakEntry is a cacheEntry whose schemas the cache does not keep alive
// (each schema holds its descriptor).
type weakEntry struct {
	mu      sync.Mutex
	schemas map[uint64]weak.Pointer[Schema]
}

// weakKey identifies a descriptor without keeping it reachable: a weak
// pointer to the object behind the interface.
type weakKey = weak.Pointer[byte]

// enumKey identifies one enum schema: the enum, the mapping variant and the
// index of its default symbol (the Java profile sets it from field defaults).
type enumKey struct {
	desc    protoreflect.EnumDescriptor
	variant uint64
	def     int
}

type weakEnumKey struct {
	desc    weakKey
	variant uint64
	def     int
}

// defaultCache serves Options with a nil Cache.
var defaultCache = new(Cache)

// NewCache returns an empty cache, for use in [Options.Cache].
func NewCache() *Cache { return new(Cache) }

// registered reports whether d is the descriptor protoregistry.GlobalFiles
// holds under its name: one that lives as long as the program.
func registered(d protoreflect.Descriptor) bool {
	g, err := protoregistry.GlobalFiles.FindDescriptorByName(d.FullName())
	return err == nil && g == d
}

// pointerOf returns the pointer behind a descriptor interface, or nil when
// it is not a pointer (such descriptors are then cached strongly).
func pointerOf(d protoreflect.Descriptor) *byte {
	v := reflect.ValueOf(d)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return nil
	}
	return (*byte)(v.UnsafePointer())
}

// load returns the cached schema of md under o, or nil.
func (c *Cache) load(md protoreflect.MessageDescriptor, o Options) *Schema {
	if e, ok := c.messages.Load(md); ok {
		return e.(*cacheEntry).load(o.variant())
	}
	p := pointerOf(md)
	if p == nil {
		return nil
	}
	e, ok := c.weakMessages.Load(weak.Make(p))
	if !ok {
		return nil
	}
	we := e.(*weakEntry)
	we.mu.Lock()
	wp, ok := we.schemas[o.variant()]
	we.mu.Unlock()
	if !ok {
		return nil
	}
	s := wp.Value()
	if s != nil && s.desc != md {
		return nil // the weak pointer outlived md: another descriptor at its place
	}
	return s
}

// loadRegistered is load for the descriptors the cache holds strongly,
// those of generated code: nil for the others.
func (c *Cache) loadRegistered(md protoreflect.MessageDescriptor, o Options) *Schema {
	if e, ok := c.messages.Load(md); ok {
		return e.(*cacheEntry).load(o.variant())
	}
	return nil
}

// schema returns the cached schema of md under o, deriving it on a miss;
// ctx (nil for none) cancels the derivation.
func (c *Cache) schema(ctx context.Context, md protoreflect.MessageDescriptor, o Options) (*Schema, error) {
	if s := c.load(md, o); s != nil {
		return s, nil
	}
	return c.derive(ctx, md, o)
}

// derive builds the schema of md under o and publishes it. When two
// goroutines derive the same schema at once, both get the first one published.
func (c *Cache) derive(ctx context.Context, md protoreflect.MessageDescriptor, o Options) (*Schema, error) {
	s, err := derive(ctx, md, o, c)
	if err != nil {
		return nil, err
	}
	p := pointerOf(md)
	if p == nil || registered(md) {
		e, ok := c.messages.Load(md)
		if !ok {
			e, _ = c.messages.LoadOrStore(md, new(cacheEntry))
		}
		return e.(*cacheEntry).store(o.variant(), s), nil
	}
	k := weak.Make(p)
	e, ok := c.weakMessages.Load(k)
	if !ok {
		var loaded bool
		if e, loaded = c.weakMessages.LoadOrStore(k, new(weakEntry)); !loaded {
			// The entry goes when the descriptor does.
			runtime.AddCleanup(p, func(k weakKey) { c.weakMessages.Delete(k) }, k)
		}
	}
	we := e.(*weakEntry)
	we.mu.Lock()
	defer we.mu.Unlock()
	if wp, ok := we.schemas[o.variant()]; ok {
		if cur := wp.Value(); cur != nil {
			return cur, nil
		}
	}
	if we.schemas == nil {
		we.schemas = map[uint64]weak.Pointer[Schema]{}
	}
	we.schemas[o.variant()] = weak.Make(s)
	return s, nil
}

// enum returns the enum schema of t with default symbol def, building it
// on first use.
func (c *Cache) enum(t *enumTable, o Options, def int, doc string) *avroschema.Node {
	p := pointerOf(t.desc)
	if p == nil || registered(t.desc) {
		k := enumKey{desc: t.desc, variant: o.variant(), def: def}
		if n, ok := c.enums.Load(k); ok {
			return n.(*avroschema.Node)
		}
		actual, _ := c.enums.LoadOrStore(k, newEnumNode(t, def, doc))
		return actual.(*avroschema.Node)
	}
	k := weakEnumKey{desc: weak.Make(p), variant: o.variant(), def: def}
	for {
		v, ok := c.weakEnums.Load(k)
		if ok {
			if n := v.(weak.Pointer[avroschema.Node]).Value(); n != nil {
				return n
			}
		}
		n := newEnumNode(t, def, doc)
		if !ok {
			if _, loaded := c.weakEnums.LoadOrStore(k, weak.Make(n)); loaded {
				continue
			}
			runtime.AddCleanup(p, func(k weakEnumKey) { c.weakEnums.Delete(k) }, k)
			return n
		}
		if c.weakEnums.CompareAndSwap(k, v, weak.Make(n)) {
			return n
		}
	}
}

// Len returns the number of message descriptors with at least one cached
// schema: registered ones, and those built at run time whose entries have
// not been released yet.
func (c *Cache) Len() int {
	n := 0
	c.messages.Range(func(any, any) bool { n++; return true })
	c.weakMessages.Range(func(any, any) bool { n++; return true })
	return n
}

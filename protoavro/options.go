package protoavro

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Profile selects the overall protobuf-to-Avro mapping.
type Profile uint8

const (
	// DefaultProfile is protoavro's own mapping: lossless, with field
	// presence carried by ["null", T] unions. docs/mapping.md describes it.
	DefaultProfile Profile = iota
	// JavaProfile reproduces the mapping of Apache Avro Java's ProtobufData
	// (1.12), so that Go programs produce what existing Java consumers of
	// protobuf-derived Avro expect. It carries no field presence.
	JavaProfile
)

// String returns the profile name used on the command line: "default" or "java".
func (p Profile) String() string {
	switch p {
	case DefaultProfile:
		return "default"
	case JavaProfile:
		return "java"
	}
	return fmt.Sprintf("Profile(%d)", uint8(p))
}

// ParseProfile parses a profile name as printed by [Profile.String].
func ParseProfile(s string) (Profile, error) {
	switch s {
	case "default", "":
		return DefaultProfile, nil
	case "java":
		return JavaProfile, nil
	}
	return 0, fmt.Errorf("%w: unknown profile %q (want default or java)", ErrInvalidOptions, s)
}

// TimestampPrecision selects the Avro logical type of google.protobuf.Timestamp
// fields under the default profile.
type TimestampPrecision uint8

const (
	// TimestampMicros maps Timestamp to long timestamp-micros. Nanoseconds
	// below a microsecond are truncated toward negative infinity.
	TimestampMicros TimestampPrecision = iota
	// TimestampMillis maps Timestamp to long timestamp-millis.
	TimestampMillis
	// TimestampNanos maps Timestamp to long timestamp-nanos (Avro 1.12). It is
	// exact, but only instants between the years 1678 and 2262 fit in a long.
	TimestampNanos
)

// String returns "micros", "millis" or "nanos".
func (p TimestampPrecision) String() string {
	switch p {
	case TimestampMicros:
		return "micros"
	case TimestampMillis:
		return "millis"
	case TimestampNanos:
		return "nanos"
	}
	return fmt.Sprintf("TimestampPrecision(%d)", uint8(p))
}

// Uint64Mapping selects how uint64 and fixed64 fields are carried under the
// default profile.
type Uint64Mapping uint8

const (
	// Uint64AsLong writes the same 64 bits as an Avro long. Protobuf values
	// round-trip exactly, but readers other than protoavro see values of 2^63
	// and above as negative numbers.
	Uint64AsLong Uint64Mapping = iota
	// Uint64AsDecimal writes bytes with logical type decimal(20,0): a lossless
	// numeric form that every Avro reader interprets correctly.
	Uint64AsDecimal
)

// String returns "long" or "decimal".
func (m Uint64Mapping) String() string {
	switch m {
	case Uint64AsLong:
		return "long"
	case Uint64AsDecimal:
		return "decimal"
	}
	return fmt.Sprintf("Uint64Mapping(%d)", uint8(m))
}

// MapKeyMapping selects how protobuf maps whose keys are not strings are
// carried under the default profile. Maps with string keys are always Avro maps.
type MapKeyMapping uint8

const (
	// MapKeysAsText writes an Avro map whose keys are the canonical text form
	// of the protobuf keys ("-12", "true"); readers parse them back.
	MapKeysAsText MapKeyMapping = iota
	// MapAsEntryArray writes an array of key/value records, the map's entry
	// message, so keys keep their numeric or boolean type.
	MapAsEntryArray
)

// String returns "text" or "entries".
func (m MapKeyMapping) String() string {
	switch m {
	case MapKeysAsText:
		return "text"
	case MapAsEntryArray:
		return "entries"
	}
	return fmt.Sprintf("MapKeyMapping(%d)", uint8(m))
}

// Options configure the mapping between protobuf and Avro. The zero value is
// the default profile with its default choices, using the package-wide cache.
//
// Options are small values: copy them freely. Two Options that differ only in
// Cache derive identical schemas.
type Options struct {
	// Profile selects the overall mapping. The remaining mapping options
	// apply to the default profile only; the Java profile ignores them.
	Profile Profile

	// Timestamps is the precision of google.protobuf.Timestamp fields.
	Timestamps TimestampPrecision

	// Uint64 selects how uint64 and fixed64 fields are carried.
	Uint64 Uint64Mapping

	// MapKeys selects how maps with non-string keys are carried.
	MapKeys MapKeyMapping

	// UnknownEnums says what the codecs do with enum numbers that have no
	// symbol. It does not change the schema.
	UnknownEnums UnknownEnumPolicy

	// Cache holds derived schemas. Nil means the package-wide cache, which
	// lives as long as the program. Use a private [Cache] for descriptors
	// created at run time that should be released together.
	Cache *Cache
}

// variantCount is the number of distinct mapping variants; variant returns an
// index below it for valid options.
const variantCount = 1 + 3*2*2

// variant returns a dense index for the mapping-relevant part of o, used to
// key the cache without allocating. The Java profile ignores the other
// options, so all its variants collapse to index 0.
func (o Options) variant() int {
	if o.Profile == JavaProfile {
		return 0
	}
	return 1 + int(o.Timestamps) + 3*int(o.Uint64) + 6*int(o.MapKeys)
}

// validate reports options outside the defined constants.
func (o Options) validate() error {
	switch {
	case o.Profile > JavaProfile:
		return fmt.Errorf("%w: %v", ErrInvalidOptions, o.Profile)
	case o.Timestamps > TimestampNanos:
		return fmt.Errorf("%w: %v", ErrInvalidOptions, o.Timestamps)
	case o.Uint64 > Uint64AsDecimal:
		return fmt.Errorf("%w: %v", ErrInvalidOptions, o.Uint64)
	case o.MapKeys > MapAsEntryArray:
		return fmt.Errorf("%w: %v", ErrInvalidOptions, o.MapKeys)
	case o.UnknownEnums > UnknownEnumDefault:
		return fmt.Errorf("%w: %v", ErrInvalidOptions, o.UnknownEnums)
	}
	return nil
}

// cache returns the cache these options use.
func (o Options) cache() *Cache {
	if o.Cache != nil {
		return o.Cache
	}
	return defaultCache
}

// Schema returns the Avro schema of messages described by md, deriving it on
// first use and memoizing it, with every nested record and enum, in the
// options' cache. Later calls with the same descriptor and mapping options
// return the same *Schema without allocating.
func (o Options) Schema(md protoreflect.MessageDescriptor) (*Schema, error) {
	if md == nil {
		return nil, fmt.Errorf("%w: nil message descriptor", ErrInvalidOptions)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	return o.cache().schema(md, o)
}

// SchemaOf is shorthand for Options{}.Schema(md): the default profile and the
// package-wide cache.
func SchemaOf(md protoreflect.MessageDescriptor) (*Schema, error) {
	return Options{}.Schema(md)
}

package protoavro

import (
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
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

// Carrier selects how a value the schema does not spell out as records is
// carried: the subtrees of recursive messages below [Options.RecursionDepth].
type Carrier uint8

const (
	// CarrierBytes carries a message as its protobuf wire encoding (Avro
	// bytes): exact, compact, opaque to engines.
	CarrierBytes Carrier = iota
	// CarrierJSON carries a message as its protojson text (Avro string,
	// annotated as JSON for BigQuery): readable by engines' JSON functions.
	CarrierJSON
)

// The names of each choice, indexed by its value: what String returns and
// what the Parse functions and ParseOptions accept.
var (
	profileNames   = []string{"default", "java"}
	timestampNames = []string{"micros", "millis", "nanos"}
	uint64Names    = []string{"long", "decimal"}
	mapKeyNames    = []string{"text", "entries"}
	enumNames      = []string{"error", "default"}
	carrierNames   = []string{"bytes", "json"}
)

// choiceName returns the name of choice v, or Type(v) for a value outside
// the defined constants.
func choiceName[T ~uint8](v T, names []string, typ string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, uint8(v))
}

// parseChoice parses the name of a choice for option key.
func parseChoice[T ~uint8](key, s string, names []string) (T, error) {
	for i, n := range names {
		if s == n {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown %s %q (want %s)", ErrInvalidOptions, key, s, strings.Join(names, ", "))
}

// String returns the profile name used on the command line: "default" or "java".
func (p Profile) String() string { return choiceName(p, profileNames, "Profile") }

// String returns "micros", "millis" or "nanos".
func (p TimestampPrecision) String() string {
	return choiceName(p, timestampNames, "TimestampPrecision")
}

// String returns "long" or "decimal".
func (m Uint64Mapping) String() string { return choiceName(m, uint64Names, "Uint64Mapping") }

// String returns "text" or "entries".
func (m MapKeyMapping) String() string { return choiceName(m, mapKeyNames, "MapKeyMapping") }

// String returns "error" or "default".
func (p UnknownEnumPolicy) String() string { return choiceName(p, enumNames, "UnknownEnumPolicy") }

// String returns "bytes" or "json".
func (c Carrier) String() string { return choiceName(c, carrierNames, "Carrier") }

// ParseProfile parses a profile name as printed by [Profile.String]; the
// empty string is the default profile.
func ParseProfile(s string) (Profile, error) {
	if s == "" {
		return DefaultProfile, nil
	}
	return parseChoice[Profile]("profile", s, profileNames)
}

// Options configure the mapping between protobuf and Avro. The zero value is
// the default profile with its default choices, using the package-wide cache.
//
// Options are small values: copy them freely. Two Options that differ only in
// Cache, UnknownEnums or AnyResolver derive identical schemas.
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

	// RecursionDepth bounds recursive message types: the records of a
	// recursive type (one taking part in a cycle of message fields) are
	// spelled out this many levels deep, a record per level, and whatever
	// lies deeper is carried whole, as RecursionCarrier says, so nothing is
	// lost. 0 keeps recursion as named references, which Avro allows but
	// engines such as Spark and BigQuery do not load. At most
	// MaxRecursionDepth.
	RecursionDepth int

	// RecursionCarrier says how subtrees below RecursionDepth are carried.
	RecursionCarrier Carrier

	// DynamicAsJSON maps google.protobuf.Struct, Value, ListValue and Any to
	// their protojson text, an Avro string annotated {"sqlType": "JSON"} so
	// that BigQuery loads it as its JSON type, instead of records. Any needs
	// its packed message's type: see AnyResolver.
	DynamicAsJSON bool

	// UnknownEnums says what the codecs do with enum numbers that have no
	// symbol. It does not change the schema.
	UnknownEnums UnknownEnumPolicy

	// AnyResolver finds the message types packed in google.protobuf.Any
	// values carried as JSON (DynamicAsJSON, or a JSON carrier). Nil means
	// protoregistry.GlobalTypes, which holds only the types compiled into
	// the program: for types loaded at run time, use the
	// Resolver of the files loaded by package
	// protoavro/protoload (Types.Resolver, a *dynamicpb.Types; its
	// NewTypes builds one from a FileDescriptorSet). An Any
	// whose type it does not know is an [ErrUnknownAnyType]. It does not
	// change the schema; codecs built with a resolver are not cached (hold
	// on to them).
	AnyResolver AnyResolver

	// Cache holds derived schemas. Nil means the package-wide cache, which
	// lives as long as the program. Use a private [Cache] for descriptors
	// created at run time that should be released together.
	Cache *Cache
}

// AnyResolver resolves the type URLs of google.protobuf.Any messages; a
// *protoregistry.Types and a *dynamicpb.Types (the types of files loaded at
// run time, as package protoavro/protoload loads them) are ones.
type AnyResolver interface {
	protoregistry.ExtensionTypeResolver
	protoregistry.MessageTypeResolver
}

// MaxRecursionDepth is the largest Options.RecursionDepth.
const MaxRecursionDepth = 32

// EngineReady returns the mapping options whose schemas the mainstream
// engines load — BigQuery, Spark (spark-avro), Hive, Parquet converters and
// Apache Arrow: finite schemas (the first record of each recursive type
// spelled out, deeper subtrees as JSON text), nullable unions only of the form
// ["null", T], timestamp-micros, uint64 as decimal(20,0), every map as an
// Avro map (non-string keys as their canonical text), and Struct, Value,
// ListValue and Any as JSON. docs/mapping.md says what each engine makes of
// each field kind.
func EngineReady() Options {
	return Options{
		Timestamps:       TimestampMicros,
		Uint64:           Uint64AsDecimal,
		MapKeys:          MapKeysAsText,
		RecursionDepth:   1,
		RecursionCarrier: CarrierJSON,
		DynamicAsJSON:    true,
	}
}

// variantCount is the number of distinct plain mapping variants (no
// recursion bound, no JSON): index returns one below it for them.
const variantCount = 1 + 3*2*2

// variant returns the cache key of the mapping-relevant part of o: a dense
// index below variantCount for the plain variants, which the cache keeps in
// an array, and a larger packed value for the others. The Java profile
// ignores the other options, so all its variants collapse to 0.
func (o Options) variant() uint64 {
	if o.Profile == JavaProfile {
		return 0
	}
	v := uint64(1 + int(o.Timestamps) + 3*int(o.Uint64) + 6*int(o.MapKeys))
	if o.RecursionDepth == 0 && !o.DynamicAsJSON {
		return v
	}
	v |= uint64(o.RecursionDepth) << 8
	if o.RecursionDepth > 0 {
		v |= uint64(o.RecursionCarrier) << 16
	}
	if o.DynamicAsJSON {
		v |= 1 << 24
	}
	return v
}

// validate reports options outside the defined constants.
func (o Options) validate() error {
	for _, c := range [...]struct {
		v, max uint8
		s      fmt.Stringer
	}{{uint8(o.Profile), uint8(JavaProfile), o.Profile}, {uint8(o.Timestamps), uint8(TimestampNanos), o.Timestamps},
		{uint8(o.Uint64), uint8(Uint64AsDecimal), o.Uint64}, {uint8(o.MapKeys), uint8(MapAsEntryArray), o.MapKeys},
		{uint8(o.UnknownEnums), uint8(UnknownEnumDefault), o.UnknownEnums}, {uint8(o.RecursionCarrier), uint8(CarrierJSON), o.RecursionCarrier}} {
		if c.v > c.max {
			return fmt.Errorf("%w: %v", ErrInvalidOptions, c.s)
		}
	}
	if o.RecursionDepth < 0 || o.RecursionDepth > MaxRecursionDepth {
		return fmt.Errorf("%w: recursion depth %d outside [0, %d]", ErrInvalidOptions, o.RecursionDepth, MaxRecursionDepth)
	}
	return nil
}

// mapping returns o reduced to what the schema depends on: no cache, no
// unknown-enum policy, no resolver, and the Java profile's ignored options
// cleared.
func (o Options) mapping() Options {
	if o.Profile == JavaProfile {
		return Options{Profile: JavaProfile}
	}
	o.Cache, o.UnknownEnums, o.AnyResolver = nil, 0, nil
	if o.RecursionDepth == 0 {
		o.RecursionCarrier = 0
	}
	return o
}

// String returns the mapping options in the form MetaOptions holds and
// [ParseOptions] reads: "profile=default timestamps=micros uint64=long
// mapkeys=text", followed by "recursion=N carrier=C dynamic=json
// enums=default" for the options set away from their zero value.
func (o Options) String() string {
	var sb strings.Builder
	sb.WriteString("profile=" + o.Profile.String() + " timestamps=" + o.Timestamps.String() +
		" uint64=" + o.Uint64.String() + " mapkeys=" + o.MapKeys.String())
	if o.RecursionDepth != 0 {
		sb.WriteString(" recursion=" + strconv.Itoa(o.RecursionDepth) + " carrier=" + o.RecursionCarrier.String())
	}
	if o.DynamicAsJSON {
		sb.WriteString(" dynamic=json")
	}
	if o.UnknownEnums != UnknownEnumError {
		sb.WriteString(" enums=" + o.UnknownEnums.String())
	}
	return sb.String()
}

// ParseOptions reads mapping options in the form [Options.String] writes
// and MetaOptions holds ("profile=java timestamps=micros uint64=long
// mapkeys=text recursion=3 carrier=json dynamic=json enums=default"); keys
// that are absent keep their defaults. "preset=engine" starts from
// [EngineReady]; later keys override it.
func ParseOptions(s string) (Options, error) {
	var o Options
	for _, kv := range strings.Fields(s) {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "preset":
			if v != "engine" {
				err = fmt.Errorf("%w: unknown preset %q (want engine)", ErrInvalidOptions, v)
			}
			o = EngineReady()
		case "profile":
			o.Profile, err = ParseProfile(v)
		case "timestamps":
			o.Timestamps, err = parseChoice[TimestampPrecision](k, v, timestampNames)
		case "uint64":
			o.Uint64, err = parseChoice[Uint64Mapping](k, v, uint64Names)
		case "mapkeys":
			o.MapKeys, err = parseChoice[MapKeyMapping](k, v, mapKeyNames)
		case "carrier":
			o.RecursionCarrier, err = parseChoice[Carrier](k, v, carrierNames)
		case "enums":
			o.UnknownEnums, err = parseChoice[UnknownEnumPolicy](k, v, enumNames)
		case "dynamic":
			var d uint8
			d, err = parseChoice[uint8](k, v, []string{"record", "json"})
			o.DynamicAsJSON = d == 1
		case "recursion":
			if o.RecursionDepth, err = strconv.Atoi(v); err != nil || o.RecursionDepth < 0 || o.RecursionDepth > MaxRecursionDepth {
				err = fmt.Errorf("%w: recursion=%s (want 0 to %d)", ErrInvalidOptions, v, MaxRecursionDepth)
			}
		default:
			err = fmt.Errorf("%w: unknown option %q", ErrInvalidOptions, kv)
		}
		if err != nil {
			return o, err
		}
	}
	return o, nil
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

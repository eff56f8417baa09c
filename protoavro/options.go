package protoavro

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protoavro/protoavro/internal/safetext"
)

// Profile selects the overall protobuf-to-Avro mapping.
type Profile uint8

const (
	// DefaultProfile is protoavro's own mapping: lossless, with field
	// presence carried by ["null", T] unions. docs/mapping.md describes it.
	DefaultProfile Profile = iota
	// JavaProfile reproduces the mapping of Apache Avro Java's ProtobufData
	// (its output as captured from Avro Java 1.13.0-SNAPSHOT, docs/mapping.md
	// section 8), so that Go programs produce what existing Java consumers
	// of protobuf-derived Avro expect. It carries no field presence.
	JavaProfile
)

// TimestampPrecision selects the Avro type of google.protobuf.Timestamp
// fields under the default profile.
type TimestampPrecision uint8

const (
	// TimestampNanos, the default, maps Timestamp to long timestamp-nanos
	// (Avro 1.12): every nanosecond is kept. Only instants from
	// 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z fit
	// in a long; a Timestamp outside is a [*DataError] naming the field
	// (TimestampRecord holds every Timestamp).
	TimestampNanos TimestampPrecision = iota
	// TimestampMicros maps Timestamp to long timestamp-micros, which
	// engines load as their timestamp type. It is lossy: nanoseconds below
	// a microsecond are rounded toward negative infinity (so the long
	// orders like the instant), and counted ([ContainerWriter.Rounded]).
	TimestampMicros
	// TimestampMillis maps Timestamp to long timestamp-millis, rounding
	// below the millisecond as TimestampMicros does below the microsecond.
	TimestampMillis
	// TimestampRecord maps Timestamp to a record of its seconds (long) and
	// nanos (int), as any message: exact over the whole Timestamp range,
	// but no timestamp logical type for readers.
	TimestampRecord
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
	timestampNames = []string{"nanos", "micros", "millis", "record"}
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
	return 0, fmt.Errorf("%w: unknown %s %s (want %s)", ErrInvalidOptions, key, safetext.Quote(s, maxOptionText), strings.Join(names, ", "))
}

// String returns the profile name used on the command line: "default" or "java".
func (p Profile) String() string { return choiceName(p, profileNames, "Profile") }

// String returns "nanos", "micros", "millis" or "record".
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
// Cache, UnknownEnums, AnyResolver or Limits derive identical schemas.
type Options struct {
	// Profile selects the overall mapping. The remaining mapping options
	// (all but UnknownEnums, AnyResolver, Cache and Limits) apply to the
	// default profile only; the Java profile ignores them ([ParseOptions]
	// refuses them with profile=java).
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

	// EmptyPlaceholder gives the record of every message without fields
	// (google.protobuf.Empty, a message whose fields are all reserved) one
	// field, which Parquet and BigQuery need of a record:
	// "__dummy_field_in_empty_struct" of type ["null", "string"], always
	// null — the column Spark's protobuf reader adds with
	// retain.empty.message.types. Readers skip it: the record reads back as
	// the empty message.
	EmptyPlaceholder bool

	// GoogleTypes maps google.type.Date to the Avro logical type date (int),
	// google.type.TimeOfDay to time-micros (long) and google.type.Decimal
	// to its decimal string; the other google.type messages stay records.
	// A partial Date (year, month or day 0), an invalid date or time, a
	// TimeOfDay of 24:00:00 or a leap second is a [*DataError] naming the
	// field; a TimeOfDay's nanoseconds below a microsecond are rounded down
	// and counted, as timestamp-micros rounds them. docs/mapping.md says why.
	GoogleTypes bool

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

	// Limits bound the work of deriving a schema from descriptors, which
	// may be untrusted. It does not change the schema: a descriptor within
	// the limits gets the same schema whatever they are, and one beyond
	// them none.
	Limits SchemaLimits
}

// SchemaLimits bound the derivation of a schema (by [Options.Schema] and
// everything that derives one: codecs, container readers and writers,
// the Kafka serde, the command-line tools), so that a hostile descriptor
// (from a container file's header, a schema registry, a code generator's
// request, a .proto file) is refused with an error wrapping
// [ErrSchemaLimit], in time and memory linear in the limits, rather than
// exhausting the stack or memory. A zero field takes its default; a
// schema the cache already holds is returned whatever the limits.
// docs/limits.md gives the cost of the defaults.
type SchemaLimits struct {
	// MaxDepth bounds the nesting of records (map entries included), the
	// top-level record being at depth 1. Zero means [DefaultSchemaDepth].
	MaxDepth int
	// MaxTypes bounds the records and enums the schema defines (a record
	// per level of a recursive type under RecursionDepth). Zero means
	// [DefaultSchemaTypes].
	MaxTypes int
	// MaxFields bounds the fields of all those records together. Zero
	// means [DefaultSchemaFields].
	MaxFields int
}

// The default [SchemaLimits]. DefaultSchemaDepth is the deepest nesting
// whose schema JSON stays within the 256 levels [ParseSchema] accepts,
// so that a schema derived within it can be read back from a container
// file or a registry.
const (
	DefaultSchemaDepth  = 63
	DefaultSchemaTypes  = 10_000
	DefaultSchemaFields = 100_000
)

// resolved returns l with each zero field set to its default.
func (l SchemaLimits) resolved() SchemaLimits {
	if l.MaxDepth == 0 {
		l.MaxDepth = DefaultSchemaDepth
	}
	if l.MaxTypes == 0 {
		l.MaxTypes = DefaultSchemaTypes
	}
	if l.MaxFields == 0 {
		l.MaxFields = DefaultSchemaFields
	}
	return l
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
// Avro map (non-string keys as their canonical text), Struct, Value,
// ListValue and Any as JSON, a placeholder field in the records of messages
// without fields, and google.type.Date and TimeOfDay as the date and
// time-micros logical types. Timestamps below the microsecond are rounded
// (and counted: [ContainerWriter.Rounded]); everything else round-trips.
// docs/mapping.md says what each engine makes of each field kind.
func EngineReady() Options {
	return Options{
		Timestamps:       TimestampMicros,
		Uint64:           Uint64AsDecimal,
		MapKeys:          MapKeysAsText,
		RecursionDepth:   1,
		RecursionCarrier: CarrierJSON,
		DynamicAsJSON:    true,
		EmptyPlaceholder: true,
		GoogleTypes:      true,
	}
}

// variantCount is the number of distinct plain mapping variants (no
// recursion bound, no JSON): index returns one below it for them.
const variantCount = 1 + 4*2*2

// variant returns the cache key of the mapping-relevant part of o: a dense
// index below variantCount for the plain variants, which the cache keeps in
// an array, and a larger packed value for the others. The Java profile
// ignores the other options, so all its variants collapse to 0.
func (o Options) variant() uint64 {
	if o.Profile == JavaProfile {
		return 0
	}
	v := uint64(1 + int(o.Timestamps) + 4*int(o.Uint64) + 8*int(o.MapKeys))
	if o.RecursionDepth == 0 && !o.DynamicAsJSON && !o.EmptyPlaceholder && !o.GoogleTypes {
		return v
	}
	v |= uint64(o.RecursionDepth) << 8
	if o.RecursionDepth > 0 {
		v |= uint64(o.RecursionCarrier) << 16
	}
	if o.DynamicAsJSON {
		v |= 1 << 24
	}
	if o.EmptyPlaceholder {
		v |= 1 << 25
	}
	if o.GoogleTypes {
		v |= 1 << 26
	}
	return v
}

// validate reports options outside the defined constants.
func (o Options) validate() error {
	for _, c := range [...]struct {
		v, max uint8
		s      fmt.Stringer
	}{{uint8(o.Profile), uint8(JavaProfile), o.Profile}, {uint8(o.Timestamps), uint8(TimestampRecord), o.Timestamps},
		{uint8(o.Uint64), uint8(Uint64AsDecimal), o.Uint64}, {uint8(o.MapKeys), uint8(MapAsEntryArray), o.MapKeys},
		{uint8(o.UnknownEnums), uint8(UnknownEnumDefault), o.UnknownEnums}, {uint8(o.RecursionCarrier), uint8(CarrierJSON), o.RecursionCarrier}} {
		if c.v > c.max {
			return fmt.Errorf("%w: %v", ErrInvalidOptions, c.s)
		}
	}
	if o.RecursionDepth < 0 || o.RecursionDepth > MaxRecursionDepth {
		return fmt.Errorf("%w: recursion depth %d outside [0, %d]", ErrInvalidOptions, o.RecursionDepth, MaxRecursionDepth)
	}
	if l := o.Limits; l.MaxDepth < 0 || l.MaxTypes < 0 || l.MaxFields < 0 {
		return fmt.Errorf("%w: negative schema limits %+v", ErrInvalidOptions, l)
	}
	return nil
}

// mapping returns o reduced to what the schema depends on: no cache, no
// unknown-enum policy, no resolver, no limits, and the Java profile's ignored options
// cleared.
func (o Options) mapping() Options {
	if o.Profile == JavaProfile {
		return Options{Profile: JavaProfile}
	}
	o.Cache, o.UnknownEnums, o.AnyResolver, o.Limits = nil, 0, nil, SchemaLimits{}
	if o.RecursionDepth == 0 {
		o.RecursionCarrier = 0
	}
	return o
}

// String returns the mapping options in the form MetaOptions holds and
// [ParseOptions] reads: "profile=default timestamps=nanos uint64=long
// mapkeys=text", followed by "recursion=N carrier=C dynamic=json
// empty=placeholder googletypes=logical enums=default" for the options set
// away from their zero value. Under the Java profile it is "profile=java"
// alone, followed by "enums=default" when set: the options the Java profile
// ignores are left out.
func (o Options) String() string {
	if o.Profile == JavaProfile {
		if o.UnknownEnums != UnknownEnumError {
			return "profile=java enums=" + o.UnknownEnums.String()
		}
		return "profile=java"
	}
	var sb strings.Builder
	sb.WriteString("profile=" + o.Profile.String() + " timestamps=" + o.Timestamps.String() +
		" uint64=" + o.Uint64.String() + " mapkeys=" + o.MapKeys.String())
	if o.RecursionDepth != 0 {
		sb.WriteString(" recursion=" + strconv.Itoa(o.RecursionDepth) + " carrier=" + o.RecursionCarrier.String())
	}
	if o.DynamicAsJSON {
		sb.WriteString(" dynamic=json")
	}
	if o.EmptyPlaceholder {
		sb.WriteString(" empty=placeholder")
	}
	if o.GoogleTypes {
		sb.WriteString(" googletypes=logical")
	}
	if o.UnknownEnums != UnknownEnumError {
		sb.WriteString(" enums=" + o.UnknownEnums.String())
	}
	return sb.String()
}

// maxOptionText bounds the text of an option that an error of ParseOptions
// quotes (escaped): options come from files and registries too.
const maxOptionText = 100

// ParseOptions reads mapping options in the form [Options.String] writes
// and MetaOptions holds, space-separated key=value pairs ("profile=default
// timestamps=micros uint64=long mapkeys=text recursion=3 carrier=json
// dynamic=json empty=placeholder googletypes=logical enums=default"); keys
// that are absent keep their defaults. "preset=engine" starts from
// [EngineReady], wherever it stands: every other key applies over it. A key
// given twice is refused, and so is, with profile=java, every key but
// profile and enums: the options that apply to the default profile only,
// which the Java profile would ignore. Every error wraps
// [ErrInvalidOptions].
func ParseOptions(s string) (Options, error) {
	return parseOptions(s, false)
}

// parseOptions is [ParseOptions]; with javaIgnores, the options the Java
// profile ignores are ignored under profile=java rather than refused, as a
// container file's MetaOptions is read (a file holds what its writer's
// Options.String gave, and the Options struct ignores them alike).
func parseOptions(s string, javaIgnores bool) (Options, error) {
	fields := strings.Fields(s)
	var o Options
	seen := make(map[string]bool, len(fields))
	for _, kv := range fields {
		k, v, _ := strings.Cut(kv, "=")
		if seen[k] {
			return Options{}, fmt.Errorf("%w: option %s given twice", ErrInvalidOptions, safetext.Quote(k, maxOptionText))
		}
		seen[k] = true
		if k == "preset" {
			if v != "engine" {
				return Options{}, fmt.Errorf("%w: unknown preset %s (want engine)", ErrInvalidOptions, safetext.Quote(v, maxOptionText))
			}
			o = EngineReady()
		}
	}
	for _, kv := range fields {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "preset": // applied first, above
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
		case "empty":
			var d uint8
			d, err = parseChoice[uint8](k, v, []string{"record", "placeholder"})
			o.EmptyPlaceholder = d == 1
		case "googletypes":
			var d uint8
			d, err = parseChoice[uint8](k, v, []string{"record", "logical"})
			o.GoogleTypes = d == 1
		case "recursion":
			if o.RecursionDepth, err = strconv.Atoi(v); err != nil || o.RecursionDepth < 0 || o.RecursionDepth > MaxRecursionDepth {
				err = fmt.Errorf("%w: recursion=%s (want 0 to %d)", ErrInvalidOptions, safetext.Quote(v, maxOptionText), MaxRecursionDepth)
			}
		default:
			err = fmt.Errorf("%w: unknown option %s", ErrInvalidOptions, safetext.Quote(kv, maxOptionText))
		}
		if err != nil {
			return Options{}, err
		}
	}
	if o.Profile == JavaProfile && !javaIgnores {
		for _, kv := range fields {
			if k, _, _ := strings.Cut(kv, "="); k != "profile" && k != "enums" {
				return Options{}, fmt.Errorf("%w: %s applies to the default profile only; profile=java ignores it",
					ErrInvalidOptions, safetext.Quote(kv, maxOptionText))
			}
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
// first use and memoizing it in the options' cache. Later calls with the
// same descriptor and mapping options return the same *Schema without
// allocating. A descriptor beyond o.Limits is refused with an error
// wrapping [ErrSchemaLimit].
func (o Options) Schema(md protoreflect.MessageDescriptor) (*Schema, error) {
	return o.SchemaContext(context.Background(), md)
}

// SchemaContext is [Options.Schema] with a context: a derivation in
// progress stops soon after ctx is done, with an error wrapping ctx.Err().
func (o Options) SchemaContext(ctx context.Context, md protoreflect.MessageDescriptor) (*Schema, error) {
	if md == nil {
		return nil, fmt.Errorf("%w: nil message descriptor", ErrInvalidOptions)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	return o.cache().schema(ctx, md, o)
}

// SchemaOf is shorthand for Options{}.Schema(md): the default profile and the
// package-wide cache.
func SchemaOf(md protoreflect.MessageDescriptor) (*Schema, error) {
	return Options{}.Schema(md)
}

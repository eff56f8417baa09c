package main

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/protoavro/protoavro/internal/usage"
	"github.com/protoavro/protoavro/protoavro"
)

// mappingFlagsUsage documents the mapping flags of schema, encode and decode.
const mappingFlagsUsage = `  --profile NAME         Mapping profile: "default" (protoavro's lossless
                         mapping) or "java" (Apache Avro Java's ProtobufData).
                         The flags below, except --unknown-enums and
                         --schema-limits, apply to the default profile only;
                         with --profile java they are refused.
  --preset engine        The engine-ready options (BigQuery, Spark, Arrow):
                         --timestamps micros --uint64 decimal --map-keys text
                         --recursion-depth 1 --recursion-carrier json
                         --dynamic json --empty-messages placeholder
                         --google-types logical. Other mapping flags override
                         it, in any order. Timestamps lose their nanoseconds
                         below the microsecond (the summary counts them).
  --timestamps UNIT      google.protobuf.Timestamp as timestamp-nanos ("nanos",
                         the default: every nanosecond kept, instants of the
                         years 1677 to 2262, others refused), "micros" or
                         "millis" (rounded down below the unit, counted in the
                         summary), or "record" (seconds and nanos: exact over
                         the whole Timestamp range).
  --empty-messages M     Messages without fields as records without fields
                         ("record", the default) or with one always-null field
                         __dummy_field_in_empty_struct ("placeholder"), which
                         Parquet and BigQuery need.
  --google-types M       google.type.Date and TimeOfDay as records ("record",
                         the default) or as the date and time-micros logical
                         types, and Decimal as its string ("logical").
  --uint64 MAPPING       uint64/fixed64 as "long" (same 64 bits; the default) or
                         "decimal" (decimal(20,0), read right by every engine).
  --map-keys MAPPING     Maps with non-string keys as Avro maps with text keys
                         ("text", the default) or arrays of key/value records
                         ("entries").
  --recursion-depth N    Spell out recursive message types N levels deep and
                         carry what lies deeper whole (0, the default: named
                         references, which engines cannot load; at most 32).
  --recursion-carrier C  How subtrees below the depth are carried: "bytes"
                         (protobuf wire bytes; the default) or "json" (protojson).
  --dynamic MAPPING      google.protobuf.Struct, Value, ListValue and Any as
                         records ("record", the default) or JSON text ("json").
  --unknown-enums POLICY Enum numbers with no symbol: "error" (the default) or
                         "default" (write the first symbol instead).
  --schema-limits L      Raise the bounds on deriving a schema from
                         descriptors, "depth=N,types=N,fields=N" (any of
                         them): records nested (default 63), records and
                         enums (10000), fields (100000). docs/limits.md.
`

// mappingFlags are the flags that choose protoavro.Options. Each flag is a
// key of protoavro.ParseOptions; only the flags given are applied, over the
// preset when there is one.
type mappingFlags struct {
	set map[string]string // option key -> value, in ParseOptions' form
	// limits are --schema-limits: not a mapping option (they change no
	// schema), and so not counted by given.
	limits protoavro.SchemaLimits
}

// mappingFlagNames maps each flag to the ParseOptions key it sets, with
// what it takes.
var mappingFlagNames = []struct{ flag, key, want string }{
	{"profile", "profile", "default or java"},
	{"preset", "preset", "engine"},
	{"timestamps", "timestamps", "nanos, micros, millis or record"},
	{"empty-messages", "empty", "record or placeholder"},
	{"google-types", "googletypes", "record or logical"},
	{"uint64", "uint64", "long or decimal"},
	{"map-keys", "mapkeys", "text or entries"},
	{"recursion-depth", "recursion", "an integer from 0 to 32"},
	{"recursion-carrier", "carrier", "bytes or json"},
	{"dynamic", "dynamic", "record or json"},
	{"unknown-enums", "enums", "error or default"},
}

// register adds the mapping flags to fs.
func (m *mappingFlags) register(fs *flag.FlagSet) {
	m.set = map[string]string{}
	for _, f := range mappingFlagNames {
		fs.Func(f.flag, "mapping: "+f.want, func(v string) error {
			if _, err := protoavro.ParseOptions(f.key + "=" + v); err != nil || v == "" {
				return fmt.Errorf("want %s", f.want)
			}
			m.set[f.key] = v
			return nil
		})
	}
	fs.Func("schema-limits", "schema limits: depth=N,types=N,fields=N", func(v string) (err error) {
		m.limits, err = parseSchemaLimits(v)
		return err
	})
}

// parseSchemaLimits parses --schema-limits: comma-separated depth=N,
// types=N and fields=N, each a positive integer.
func parseSchemaLimits(v string) (protoavro.SchemaLimits, error) {
	var l protoavro.SchemaLimits
	for _, kv := range strings.Split(v, ",") {
		k, num, _ := strings.Cut(strings.TrimSpace(kv), "=")
		n, err := strconv.Atoi(num)
		if err != nil || n <= 0 {
			return l, fmt.Errorf("want depth=N,types=N,fields=N with positive integers, not %q", kv)
		}
		switch k {
		case "depth":
			l.MaxDepth = n
		case "types":
			l.MaxTypes = n
		case "fields":
			l.MaxFields = n
		default:
			return l, fmt.Errorf("want depth=N,types=N,fields=N, not %q", kv)
		}
	}
	return l, nil
}

// given reports whether any mapping flag was given.
func (m *mappingFlags) given() bool { return len(m.set) > 0 }

// options returns the options the flags choose over base (options in
// ParseOptions' form, "" for the defaults), with a private cache. A flag
// replaces the key of base that it sets; the preset applies first, wherever
// it comes from, and every other key over it. With the Java profile, a
// flag (or key of base) that applies to the default profile only is a
// usage error naming both.
func (m *mappingFlags) options(base string) (protoavro.Options, error) {
	vals := map[string]string{}  // option key -> value
	given := map[string]string{} // option key -> how it was given, for errors
	for _, kv := range strings.Fields(base) {
		k, v, _ := strings.Cut(kv, "=")
		vals[k], given[k] = v, "--options "+kv
	}
	for _, f := range mappingFlagNames {
		if v, ok := m.set[f.key]; ok {
			vals[f.key], given[f.key] = v, "--"+f.flag+" "+v
		}
	}
	if vals["profile"] == "java" {
		for _, f := range mappingFlagNames {
			v, ok := vals[f.key]
			if !ok || f.key == "profile" {
				continue
			}
			// The library knows which options the Java profile takes.
			if _, err := protoavro.ParseOptions("profile=java " + f.key + "=" + v); err != nil {
				return protoavro.Options{}, usage.Errorf("%s applies to the default profile only; %s ignores it", given[f.key], given["profile"])
			}
		}
	}
	parts := make([]string, 0, len(vals))
	for _, k := range slices.Sorted(maps.Keys(vals)) {
		parts = append(parts, k+"="+vals[k])
	}
	o, err := protoavro.ParseOptions(strings.Join(parts, " "))
	if err != nil {
		return o, usage.Errorf("%v", err)
	}
	o.Cache = protoavro.NewCache()
	o.Limits = m.limits
	return o, nil
}

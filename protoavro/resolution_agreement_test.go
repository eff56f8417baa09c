package protoavro

// The two implementations of Avro's resolution rules decide alike: the
// reader compiler (Codec.Resolve, and the reads of data it defers) and
// CheckResolution (the Kafka module's compatibility gate), over writer
// schemas against readers derived from protobuf message types.

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// agreementProto holds the reader types of TestCheckResolutionAgreesWithResolve.
const agreementProto = `syntax = "proto3";
package p;
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";
import "google/type/date.proto";
import "google/type/timeofday.proto";
message R {
  enum Color { COLOR_UNSPECIFIED = 0; RED = 1; GREEN = 2; }
  message Inner { string s = 1; int32 n = 2; }
  int32 i32 = 1;
  int64 i64 = 2;
  float f = 3;
  double d = 4;
  string s = 5;
  bytes b = 6;
  bool ok = 7;
  Color color = 8;
  Inner inner = 9;
  optional int32 oi = 10;
  repeated int64 longs = 11;
  map<string, Inner> inners = 12;
  google.protobuf.Timestamp ts = 13;
  google.protobuf.Int64Value wl = 14;
  uint64 u64 = 15;
  repeated Color colors = 16;
  map<string, int32> counts = 17;
  google.type.Date day = 18;
  google.type.TimeOfDay tod = 19;
  map<int32, string> by_id = 20;
  google.protobuf.UInt64Value wu = 21;
}
message Node { string name = 1; Node next = 2; repeated Node kids = 3; }
message A { int32 n = 1; B b = 2; }
message E { Empty e = 1; repeated Empty es = 2; }
message Empty {}
message B { string s = 1; A a = 2; }
`

// agreementProto2 holds a reader type with a required field.
const agreementProto2 = `syntax = "proto2";
package p;
message Req { required int32 id = 1; optional int32 x = 2; }
`

// agreementReaders returns the reader codecs of the test by name: a type
// of agreementProto, agreementProto2 or testdata/proto/evolution under
// some options.
func agreementReaders(t *testing.T) map[string]*Codec {
	t.Helper()
	src := map[string]string{"agreement.proto": agreementProto, "agreement2.proto": agreementProto2}
	for _, f := range []string{"date", "timeofday"} {
		name := "google/type/" + f + ".proto"
		b, err := os.ReadFile(filepath.Join("..", "third_party", "googleapis", filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		src[name] = string(b)
	}
	files := testcompile.Sources(t, src, "agreement.proto", "agreement2.proto")
	msg := func(i int, name protoreflect.Name) protoreflect.MessageDescriptor {
		md := files[i].Messages().ByName(name)
		if md == nil {
			t.Fatalf("no message %s", name)
		}
		return md
	}
	logical := Options{Uint64: Uint64AsDecimal, GoogleTypes: true, MapKeys: MapAsEntryArray, Timestamps: TimestampMillis}
	java := Options{Profile: JavaProfile}
	v1, v2 := loadPerson(t, "v1"), loadPerson(t, "v2")
	return map[string]*Codec{
		"R":              evolutionCodec(t, Options{}, msg(0, "R")),
		"R/logical":      evolutionCodec(t, logical, msg(0, "R")),
		"Node":           evolutionCodec(t, Options{}, msg(0, "Node")),
		"Node/depth2":    evolutionCodec(t, Options{RecursionDepth: 2}, msg(0, "Node")),
		"A":              evolutionCodec(t, Options{}, msg(0, "A")),
		"E/placeholder":  evolutionCodec(t, Options{EmptyPlaceholder: true}, msg(0, "E")),
		"Req":            evolutionCodec(t, Options{}, msg(1, "Req")),
		"Person/v1":      evolutionCodec(t, Options{}, v1),
		"Person/v2":      evolutionCodec(t, Options{}, v2),
		"Person/v1/java": evolutionCodec(t, java, v1),
		"Person/v2/java": evolutionCodec(t, java, v2),
	}
}

// outcome is what resolving a writer schema against a reader comes to.
type outcome uint8

const (
	// reads: Resolve succeeds and every datum of the writer schema reads;
	// the gate accepts the pair.
	reads outcome = iota
	// refusedAtResolve: Resolve fails with ErrIncompatible; the gate
	// refuses the pair.
	refusedAtResolve
	// refusedByData: Resolve succeeds, but some datum the writer schema
	// allows fails with ErrIncompatible when it is read (a union branch
	// the reader cannot take, a null where the reader has none); the gate
	// refuses the pair.
	refusedByData
	// readBeyondSpec: Resolve succeeds and every datum reads, by a rule
	// of docs/mapping.md beyond the specification (a writer's null read
	// as an empty list or map; the placeholder column of an empty message,
	// which the reader skips whatever its type); the gate, which follows
	// the specification there, as other Avro readers of the data do,
	// refuses it.
	readBeyondSpec
)

var outcomeNames = [...]string{"reads", "refused at Resolve", "refused by data", "read beyond the specification"}

func (o outcome) String() string { return outcomeNames[o] }

// rec is the JSON of a writer record named name with the given fields.
func rec(name string, fields ...string) string {
	return `{"type":"record","name":"` + name + `","fields":[` + strings.Join(fields, ",") + `]}`
}

// fld is the JSON of a record field.
func fld(name, typ string) string { return `{"name":"` + name + `","type":` + typ + `}` }

// Writer types used by several rows.
const (
	innerW  = `{"type":"record","name":"Inner","namespace":"p.R","fields":[{"name":"s","type":"string"},{"name":"n","type":"int"}]}`
	colorW  = `{"type":"enum","name":"Color","namespace":"p.R","symbols":["COLOR_UNSPECIFIED","RED","GREEN","BLUE"]}`
	nodeW   = `{"type":"record","name":"p.Node","fields":[{"name":"name","type":"string"},{"name":"next","type":["null","p.Node"]},{"name":"kids","type":{"type":"array","items":"p.Node"}}]}`
	timeMs  = `{"type":"int","logicalType":"time-millis"}`
	timeUs  = `{"type":"long","logicalType":"time-micros"}`
	dateW   = `{"type":"int","logicalType":"date"}`
	tsMs    = `{"type":"long","logicalType":"timestamp-millis"}`
	tsUs    = `{"type":"long","logicalType":"timestamp-micros"}`
	localUs = `{"type":"long","logicalType":"local-timestamp-micros"}`
)

// decimalW is the JSON of a bytes decimal.
func decimalW(precision, scale string) string {
	return `{"type":"bytes","logicalType":"decimal","precision":` + precision + `,"scale":` + scale + `}`
}

// agreementCases are the writer/reader pairs: the reader by name (see
// agreementReaders), the writer as JSON or, after "@", the name of a
// reader whose own schema is the writer's.
var agreementCases = []struct {
	name, reader, writer string
	want                 outcome
}{
	// Promotions.
	{"int into long", "R", rec("p.R", fld("i64", `"int"`)), reads},
	{"int into float", "R", rec("p.R", fld("f", `"int"`)), reads},
	{"int into double", "R", rec("p.R", fld("d", `"int"`)), reads},
	{"long into float", "R", rec("p.R", fld("f", `"long"`)), reads},
	{"long into double", "R", rec("p.R", fld("d", `"long"`)), reads},
	{"float into double", "R", rec("p.R", fld("d", `"float"`)), reads},
	{"string into bytes", "R", rec("p.R", fld("b", `"string"`)), reads},
	{"bytes into string", "R", rec("p.R", fld("s", `"bytes"`)), reads},
	{"long not into int", "R", rec("p.R", fld("i32", `"long"`)), refusedAtResolve},
	{"double not into float", "R", rec("p.R", fld("f", `"double"`)), refusedAtResolve},
	{"float not into long", "R", rec("p.R", fld("i64", `"float"`)), refusedAtResolve},
	{"boolean not into int", "R", rec("p.R", fld("i32", `"boolean"`)), refusedAtResolve},
	{"int items into long items", "R", rec("p.R", fld("longs", `{"type":"array","items":"int"}`)), reads},
	{"int into a wrapper's long", "R", rec("p.R", fld("wl", `"int"`)), reads},
	{"int and long branches into a wrapper's long", "R", rec("p.R", fld("wl", `["null","int","long"]`)), reads},
	{"long branch not into an optional int", "R", rec("p.R", fld("oi", `["null","long"]`)), refusedByData},
	{"long map values not into int values", "R", rec("p.R", fld("counts", `{"type":"map","values":"long"}`)), refusedAtResolve},

	// Names, namespaces and aliases. Derived readers have no aliases; a
	// writer's aliases do not count (the specification matches a reader's
	// aliases against the writer's name).
	{"root record in another namespace", "R", rec("other.R", fld("i32", `"int"`)), reads},
	{"root record of another name", "R", rec("p.S", fld("i32", `"int"`)), refusedAtResolve},
	{"root record renamed with a writer alias", "R", `{"type":"record","name":"p.S","aliases":["p.R"],"fields":[]}`, refusedAtResolve},
	{"nested record in another namespace", "R", rec("p.R", fld("inner", `["null",{"type":"record","name":"q.Inner","fields":[{"name":"s","type":"string"}]}]`)), reads},
	{"nested record renamed with a writer alias", "R", rec("p.R", fld("inner", `{"type":"record","name":"Inner2","aliases":["p.R.Inner"],"fields":[]}`)), refusedAtResolve},
	{"nested record renamed, in a writer union", "R", rec("p.R", fld("inner", `["null",{"type":"record","name":"Inner2","aliases":["p.R.Inner"],"fields":[]}]`)), refusedByData},
	{"enum in another namespace", "R", rec("p.R", fld("color", `{"type":"enum","name":"q.Color","symbols":["RED"]}`)), reads},
	{"enum renamed with a writer alias", "R", rec("p.R", fld("color", `{"type":"enum","name":"Colour","aliases":["p.R.Color"],"symbols":["RED"]}`)), refusedAtResolve},
	{"field renamed with a writer field alias is another field", "R", rec("p.R", `{"name":"count32","aliases":["i32"],"type":"string"}`), reads},
	{"fixed with an alias not into bytes", "R", rec("p.R", fld("b", `{"type":"fixed","name":"F","aliases":["G"],"size":4}`)), refusedAtResolve},

	// Fixed.
	{"fixed not into bytes", "R", rec("p.R", fld("b", `{"type":"fixed","name":"F","size":4}`)), refusedAtResolve},
	{"fixed decimal not into a bytes decimal", "R/logical", rec("p.R", fld("u64", `{"type":"fixed","name":"D","size":9,"logicalType":"decimal","precision":20}`)), refusedAtResolve},
	{"fixed branch of a writer union", "R", rec("p.R", fld("wl", `["null","long",{"type":"fixed","name":"F","size":8}]`)), refusedByData},

	// Enums: a derived reader enum always has a default, which a writer
	// symbol it lacks reads as.
	{"writer symbol missing from the reader enum", "R", rec("p.R", fld("color", colorW)), reads},
	{"writer enum with a default, symbol missing from the reader", "R", rec("p.R", fld("color", `{"type":"enum","name":"Color","symbols":["RED","BLUE"],"default":"BLUE"}`)), reads},
	{"enum items with a symbol missing from the reader", "R", rec("p.R", fld("colors", `{"type":"array","items":`+colorW+`}`)), reads},
	{"enum not into string", "R", rec("p.R", fld("s", colorW)), refusedAtResolve},
	{"string not into enum", "R", rec("p.R", fld("color", `"string"`)), refusedAtResolve},

	// Unions.
	{"writer union into a reader union", "R", rec("p.R", fld("oi", `["null","int"]`)), reads},
	{"writer union, null last, into a reader union", "R", rec("p.R", fld("oi", `["int","null"]`)), reads},
	{"writer union with a branch the reader union lacks", "R", rec("p.R", fld("oi", `["null","int","string"]`)), refusedByData},
	{"writer union with null into a value without null", "R", rec("p.R", fld("i32", `["null","int"]`)), refusedByData},
	{"writer union into a value, every branch promoting", "R", rec("p.R", fld("i64", `["int","long"]`)), reads},
	{"writer union of one branch", "R", rec("p.R", fld("s", `["string"]`)), reads},
	{"writer value into a reader union", "R", rec("p.R", fld("oi", `"int"`)), reads},
	{"writer null into a reader union", "R", rec("p.R", fld("oi", `"null"`)), reads},
	{"writer null into a value without null", "R", rec("p.R", fld("i32", `"null"`)), refusedAtResolve},
	{"writer union of two records into a nullable record, branch by name", "R", rec("p.R", fld("inner", `["null",{"type":"record","name":"Other","fields":[]},`+innerW+`]`)), refusedByData},
	{"writer union of items with null", "R", rec("p.R", fld("longs", `{"type":"array","items":["null","long"]}`)), refusedByData},
	{"writer union of map values with null", "R", rec("p.R", fld("counts", `{"type":"map","values":["int","null"]}`)), refusedByData},
	{"writer union of the reader's record in two namespaces", "R", rec("p.R", fld("inner", `["null",{"type":"record","name":"a.Inner","fields":[]},{"type":"record","name":"b.Inner","fields":[{"name":"n","type":"int"}]}]`)), reads},
	{"writer null not into a repeated field", "R", rec("p.R", fld("longs", `"null"`)), refusedAtResolve},
	{"writer optional array into a repeated field", "R", rec("p.R", fld("longs", `["null",{"type":"array","items":"long"}]`)), readBeyondSpec},
	{"writer optional map into a map field", "R", rec("p.R", fld("counts", `["null",{"type":"map","values":"int"}]`)), readBeyondSpec},
	{"writer union at the top", "R", `[` + rec("p.R", fld("i32", `"int"`)) + `]`, refusedAtResolve},

	// Records.
	{"reader fields with defaults missing from the writer", "R", rec("p.R"), reads},
	{"writer field the reader lacks", "R", rec("p.R", fld("gone", `"string"`), fld("more", innerW)), reads},
	{"fields reordered", "R", rec("p.R", fld("s", `"string"`), fld("inner", `["null",`+innerW+`]`), fld("i32", `"int"`)), reads},
	{"required field missing from the writer", "Req", rec("p.Req", fld("x", `["null","int"]`)), refusedAtResolve},
	{"required field written as a union with null", "Req", rec("p.Req", fld("id", `["null","int"]`)), refusedByData},
	{"required field written", "Req", rec("p.Req", fld("id", `"int"`)), reads},
	{"nested record with a field narrowed", "R", rec("p.R", fld("inner", `{"type":"record","name":"Inner","fields":[{"name":"n","type":"long"}]}`)), refusedAtResolve},
	{"nested record with a field narrowed, in a union", "R", rec("p.R", fld("inner", `["null",{"type":"record","name":"Inner","fields":[{"name":"n","type":"long"}]}]`)), refusedByData},
	{"record not into string", "R", rec("p.R", fld("s", innerW)), refusedAtResolve},
	{"map entry record missing its value (no default)", "R/logical", rec("p.R", fld("by_id", `{"type":"array","items":{"type":"record","name":"ByIdEntry","fields":[{"name":"key","type":"int"}]}}`)), refusedAtResolve},
	{"map entry records", "R/logical", rec("p.R", fld("by_id", `{"type":"array","items":{"type":"record","name":"ByIdEntry","fields":[{"name":"key","type":"int"},{"name":"value","type":"string"}]}}`)), reads},
	{"map entry records of another name", "R/logical", rec("p.R", fld("by_id", `{"type":"array","items":{"type":"record","name":"Entry","fields":[{"name":"key","type":"int"},{"name":"value","type":"string"}]}}`)), refusedAtResolve},
	{"Avro map not into map entry records", "R/logical", rec("p.R", fld("by_id", `{"type":"map","values":"string"}`)), refusedAtResolve},
	{"empty message's placeholder column written", "E/placeholder", rec("p.E", fld("e", `["null",{"type":"record","name":"Empty","fields":[{"name":"__dummy_field_in_empty_struct","type":["null","string"]}]}]`)), reads},
	{"empty message's placeholder column written as an int", "E/placeholder", rec("p.E", fld("e", `["null",{"type":"record","name":"Empty","fields":[{"name":"__dummy_field_in_empty_struct","type":"int"}]}]`)), readBeyondSpec},
	{"empty message written without its placeholder column", "E/placeholder", rec("p.E", fld("es", `{"type":"array","items":{"type":"record","name":"Empty","fields":[]}}`)), reads},
	{"person v1 into v2", "Person/v2", "@Person/v1", reads},
	{"person v2 into v1 (long into int)", "Person/v1", "@Person/v2", refusedAtResolve},
	{"person v1 into v2, Java profile", "Person/v2/java", "@Person/v1/java", reads},
	{"Java profile: writer union with null into a field without null", "Person/v1/java", rec("Person", fld("name", `["null","string"]`)), refusedByData},

	// Arrays and maps.
	{"map of records with a field added by the writer", "R", rec("p.R", fld("inners", `{"type":"map","values":{"type":"record","name":"Inner","fields":[{"name":"s","type":"string"},{"name":"x","type":"int"}]}}`)), reads},
	{"map values of another record", "R", rec("p.R", fld("inners", `{"type":"map","values":{"type":"record","name":"Other","fields":[]}}`)), refusedAtResolve},
	{"map of int keys, written as text", "R", rec("p.R", fld("by_id", `{"type":"map","values":"string"}`)), reads},
	{"array not into map", "R", rec("p.R", fld("counts", `{"type":"array","items":"int"}`)), refusedAtResolve},
	{"map not into array", "R", rec("p.R", fld("longs", `{"type":"map","values":"long"}`)), refusedAtResolve},
	{"array of strings not into repeated enum", "R", rec("p.R", fld("colors", `{"type":"array","items":"string"}`)), refusedAtResolve},
	{"array of arrays not into repeated long", "R", rec("p.R", fld("longs", `{"type":"array","items":{"type":"array","items":"long"}}`)), refusedAtResolve},

	// Logical types.
	{"timestamp-millis into a nanos Timestamp", "R", rec("p.R", fld("ts", `["null",`+tsMs+`]`)), reads},
	{"timestamp-micros into a millis Timestamp", "R/logical", rec("p.R", fld("ts", tsUs)), reads},
	{"local-timestamp-micros into a Timestamp", "R", rec("p.R", fld("ts", localUs)), reads},
	{"plain long into a Timestamp", "R", rec("p.R", fld("ts", `"long"`)), reads},
	{"plain int into a Timestamp", "R", rec("p.R", fld("ts", `"int"`)), reads},
	{"date into a Timestamp", "R", rec("p.R", fld("ts", dateW)), reads},
	{"time-millis not into a Timestamp", "R", rec("p.R", fld("ts", timeMs)), refusedAtResolve},
	{"time-micros not into a Timestamp", "R/logical", rec("p.R", fld("ts", timeUs)), refusedAtResolve},
	{"time-micros branch not into a Timestamp", "R", rec("p.R", fld("ts", `["null",`+timeUs+`]`)), refusedByData},
	{"long with a logical type invalid for it (date) into a Timestamp", "R", rec("p.R", fld("ts", `{"type":"long","logicalType":"date"}`)), reads},
	{"decimal(20,0) into uint64", "R/logical", rec("p.R", fld("u64", decimalW("20", "0"))), reads},
	{"decimal of another scale not into uint64", "R/logical", rec("p.R", fld("u64", decimalW("20", "2"))), refusedAtResolve},
	{"decimal of another scale, in a union, not into a wrapper", "R/logical", rec("p.R", fld("wu", `["null",`+decimalW("20", "2")+`]`)), refusedByData},
	{"decimal of another precision into uint64", "R/logical", rec("p.R", fld("u64", decimalW("10", "0"))), reads},
	{"plain bytes into a decimal", "R/logical", rec("p.R", fld("u64", `"bytes"`)), reads},
	{"decimal into plain bytes", "R", rec("p.R", fld("b", decimalW("10", "2"))), reads},
	{"date into a Date", "R/logical", rec("p.R", fld("day", `["null",`+dateW+`]`)), reads},
	{"plain int into a Date", "R/logical", rec("p.R", fld("day", `"int"`)), reads},
	{"int of an unknown logical type into a Date", "R/logical", rec("p.R", fld("day", `{"type":"int","logicalType":"x-days"}`)), reads},
	{"time-millis not into a Date", "R/logical", rec("p.R", fld("day", timeMs)), refusedAtResolve},
	{"long not into a Date", "R/logical", rec("p.R", fld("day", `"long"`)), refusedAtResolve},
	{"time-millis into a TimeOfDay", "R/logical", rec("p.R", fld("tod", timeMs)), reads},
	{"time-micros into a TimeOfDay", "R/logical", rec("p.R", fld("tod", `["null",`+timeUs+`]`)), reads},
	{"plain long into a TimeOfDay", "R/logical", rec("p.R", fld("tod", `"long"`)), reads},
	{"plain int not into a TimeOfDay", "R/logical", rec("p.R", fld("tod", `"int"`)), refusedAtResolve},
	{"date not into a TimeOfDay", "R/logical", rec("p.R", fld("tod", dateW)), refusedAtResolve},
	{"timestamp-micros not into a TimeOfDay", "R/logical", rec("p.R", fld("tod", tsUs)), refusedAtResolve},
	{"timestamp-millis branch not into a TimeOfDay", "R/logical", rec("p.R", fld("tod", `["null",`+tsMs+`]`)), refusedByData},

	// Recursive types.
	{"recursive record of the same shape", "Node", nodeW, reads},
	{"recursive record with a field added by the writer", "Node", `{"type":"record","name":"p.Node","fields":[{"name":"extra","type":["null","p.Node"]},{"name":"next","type":["null","p.Node"]}]}`, reads},
	{"recursive record with a field narrowed", "Node", `{"type":"record","name":"p.Node","fields":[{"name":"next","type":["null","p.Node"]},{"name":"name","type":"int"}]}`, refusedAtResolve},
	{"unbounded recursive writer into a bounded reader", "Node/depth2", nodeW, refusedAtResolve},
	{"unbounded recursive writer into a bounded reader, through a union", "Node/depth2", `{"type":"record","name":"p.Node","fields":[{"name":"next","type":["null","p.Node"]}]}`, refusedByData},
	{"bounded writer into a reader bounded alike", "Node/depth2", "@Node/depth2", reads},
	{"bounded writer into an unbounded reader", "Node", "@Node/depth2", refusedAtResolve},
	{"mutually recursive records", "A", `{"type":"record","name":"p.A","fields":[{"name":"n","type":"int"},{"name":"b","type":["null",{"type":"record","name":"p.B","fields":[{"name":"s","type":"string"},{"name":"a","type":["null","p.A"]}]}]}]}`, reads},
	{"mutually recursive records, the inner one renamed", "A", `{"type":"record","name":"p.A","fields":[{"name":"b","type":["null",{"type":"record","name":"p.C","fields":[{"name":"a","type":["null","p.A"]}]}]}]}`, refusedByData},
}

// TestCheckResolutionAgreesWithResolve checks that the compatibility gate
// (CheckResolution) accepts a writer schema for a reader derived from a
// protobuf type exactly when the reader compiler resolves it and reads
// every datum the writer schema allows (datums that take every union branch
// and every enum symbol, and nest recursive types deeper than any bound);
// but for the reads beyond the specification that docs/mapping.md lists,
// which the gate refuses.
func TestCheckResolutionAgreesWithResolve(t *testing.T) {
	readers := agreementReaders(t)
	for _, tc := range agreementCases {
		t.Run(tc.name, func(t *testing.T) {
			codec := readers[tc.reader]
			if codec == nil {
				t.Fatalf("no reader %q", tc.reader)
			}
			// The writer as the reader and the gate parse it: derived, or
			// by ParseSchema, and by ParseSchemaExact (the gate's parser of
			// a new schema).
			var writers []*Schema
			text := []byte(tc.writer)
			if name, ok := strings.CutPrefix(tc.writer, "@"); ok {
				w := readers[name]
				if w == nil {
					t.Fatalf("no writer %q", name)
				}
				writers = append(writers, w.Schema())
				text = w.Schema().root.JSON()
			}
			w, err := ParseSchema(text)
			if err != nil {
				t.Fatalf("ParseSchema: %v", err)
			}
			exact, err := ParseSchemaExact(text)
			if err != nil {
				t.Fatalf("ParseSchemaExact: %v", err)
			}
			writers = append(writers, w, exact)

			want := tc.want
			var got outcome
			var detail string
			for _, w := range writers {
				got, detail = readOutcome(t, codec, w)
				if got != want && !(want == readBeyondSpec && got == reads) {
					t.Errorf("reader: %v (%s), want %v", got, detail, want)
				}
			}
			for _, r := range []*Schema{codec.Schema(), reparsed(t, codec.Schema())} {
				for _, w := range writers {
					ps := CheckResolution(r, w)
					if accepted := len(ps) == 0; accepted != (want == reads) {
						t.Errorf("gate: problems %v; the reader: %v (%s)", ps, got, detail)
					}
				}
			}
		})
	}
}

// readOutcome resolves writer with codec and reads datums of writer that
// take every union branch and every enum symbol: reads, refusedAtResolve
// or refusedByData, and the error that refused it.
func readOutcome(t *testing.T, codec *Codec, writer *Schema) (outcome, string) {
	t.Helper()
	r, err := codec.Resolve(writer)
	if err != nil {
		if !errors.Is(err, ErrIncompatible) {
			t.Fatalf("Resolve: %v, want nil or ErrIncompatible", err)
		}
		return refusedAtResolve, err.Error()
	}
	md := codec.Schema().Descriptor()
	for i, datum := range writerData(writer.root) {
		if err := r.Unmarshal(datum, dynamicpb.NewMessage(md)); err != nil {
			if !errors.Is(err, ErrIncompatible) {
				t.Fatalf("datum %d (%x): %v, want nil or ErrIncompatible", i, datum, err)
			}
			return refusedByData, err.Error()
		}
	}
	return reads, ""
}

// writerData returns datums of the writer schema w which between them take
// every branch of every union and every enum symbol: datum v takes branch v
// mod n of a union of n branches and symbol v mod n of an enum of n symbols,
// writes one item in each array and one entry in each map, and nests
// records up to dataDepth deep before it takes the union branches and empty
// arrays that end recursive types.
func writerData(w *avroschema.Node) [][]byte {
	n := 1
	seen := map[*avroschema.Node]bool{}
	var widest func(*avroschema.Node)
	widest = func(s *avroschema.Node) {
		s = s.Deref()
		if seen[s] {
			return
		}
		seen[s] = true
		n = max(n, len(s.Branches), len(s.Symbols))
		for _, b := range s.Branches {
			widest(b)
		}
		for i := range s.Fields {
			widest(s.Fields[i].Type)
		}
		if s.Items != nil {
			widest(s.Items)
		}
		if s.Values != nil {
			widest(s.Values)
		}
	}
	widest(w)
	out := make([][]byte, n)
	for v := range out {
		out[v] = appendDatum(nil, w, v, 0)
	}
	return out
}

// dataDepth is how deep writerData nests records: deeper than any
// recursion bound of the readers.
const dataDepth = 6

// appendDatum appends variant v of a datum of s at a depth of depth records.
func appendDatum(b []byte, s *avroschema.Node, v, depth int) []byte {
	s = s.Deref()
	switch s.Type {
	case avroschema.Boolean:
		return append(b, 1)
	case avroschema.Int, avroschema.Long:
		return appendLong(b, 1)
	case avroschema.Float:
		return append(b, 0, 0, 0, 0)
	case avroschema.Double:
		return append(b, 0, 0, 0, 0, 0, 0, 0, 0)
	case avroschema.Bytes, avroschema.String:
		return appendLong(b, 0)
	case avroschema.Fixed:
		return append(b, make([]byte, s.Size)...)
	case avroschema.Enum:
		return appendLong(b, int64(v%len(s.Symbols)))
	case avroschema.Record:
		for i := range s.Fields {
			b = appendDatum(b, s.Fields[i].Type, v, depth+1)
		}
		return b
	case avroschema.Array, avroschema.Map:
		if depth >= dataDepth {
			return appendLong(b, 0)
		}
		b = appendLong(b, 1)
		if s.Type == avroschema.Map {
			b = append(appendLong(b, 1), '1') // a key that every map key type parses
			return appendLong(appendDatum(b, s.Values, v, depth), 0)
		}
		return appendLong(appendDatum(b, s.Items, v, depth), 0)
	case avroschema.Union:
		i := v % len(s.Branches)
		if depth >= dataDepth {
			for j, bt := range s.Branches {
				if t := bt.Deref().Type; t != avroschema.Record && t != avroschema.Union {
					i = j
					break
				}
			}
		}
		return appendDatum(appendLong(b, int64(i)), s.Branches[i], v, depth)
	}
	return b // null
}

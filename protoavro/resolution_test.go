package protoavro

import (
	"strings"
	"testing"
)

// TestCheckResolution checks writer/reader pairs by the specification's
// resolution rules: promotions, names and aliases, enum symbols, field
// defaults and union branches.
func TestCheckResolution(t *testing.T) {
	for _, tc := range []struct {
		name, reader, writer string
		want                 string // a substring of the one problem, "" for none
	}{
		{"int promotes to long", `"long"`, `"int"`, ""},
		{"long does not narrow to int", `"int"`, `"long"`, "long"},
		{"string reads bytes", `"string"`, `"bytes"`, ""},
		{"field with default added",
			`{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int","default":0}]}`,
			`{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`, ""},
		{"field without default added",
			`{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]}`,
			`{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`, "b"},
		{"record renamed with an alias",
			`{"type":"record","name":"S","aliases":["R"],"fields":[]}`,
			`{"type":"record","name":"R","fields":[]}`, ""},
		{"record renamed without an alias",
			`{"type":"record","name":"S","fields":[]}`,
			`{"type":"record","name":"R","fields":[]}`, "R"},
		{"enum symbol missing",
			`{"type":"enum","name":"E","symbols":["A"]}`,
			`{"type":"enum","name":"E","symbols":["A","B"]}`, "B"},
		{"enum symbol missing, reader default",
			`{"type":"enum","name":"E","symbols":["A"],"default":"A"}`,
			`{"type":"enum","name":"E","symbols":["A","B"]}`, ""},
		{"union branch into union", `["null","long"]`, `["null","int"]`, ""},
		{"union branch missing", `["null","int"]`, `["null","string"]`, "string"},
		// The rules shared with the reader compiler: logical types, and a
		// record reader of a writer union.
		{"time of day not a timestamp", `{"type":"long","logicalType":"timestamp-millis"}`, `{"type":"int","logicalType":"time-millis"}`, "time of day"},
		{"date as a timestamp", `{"type":"long","logicalType":"timestamp-micros"}`, `{"type":"int","logicalType":"date"}`, ""},
		{"timestamp not a time of day", `{"type":"long","logicalType":"time-micros"}`, `{"type":"long","logicalType":"timestamp-micros"}`, "time of day"},
		{"plain int not a time-micros", `{"type":"long","logicalType":"time-micros"}`, `"int"`, "unit"},
		{"time of day not a date", `{"type":"int","logicalType":"date"}`, `{"type":"int","logicalType":"time-millis"}`, "date"},
		{"unknown logical type read as its type", `{"type":"int","logicalType":"date"}`, `{"type":"int","logicalType":"x-days"}`, ""},
		{"decimal of another scale",
			`{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}`,
			`{"type":"bytes","logicalType":"decimal","precision":10,"scale":3}`, "scale"},
		{"decimal of another precision",
			`{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}`,
			`{"type":"bytes","logicalType":"decimal","precision":20,"scale":2}`, ""},
		{"fixed decimal of another scale",
			`{"type":"fixed","name":"D","size":8,"logicalType":"decimal","precision":10,"scale":2}`,
			`{"type":"fixed","name":"D","size":8,"logicalType":"decimal","precision":10,"scale":0}`, "scale"},
		{"union branch chosen by promotion, logical type checked",
			`["null",{"type":"long","logicalType":"timestamp-millis"}]`,
			`["null",{"type":"int","logicalType":"time-millis"}]`, "time of day"},
		{"writer union at the top of a record reader",
			`{"type":"record","name":"R","fields":[]}`,
			`[{"type":"record","name":"R","fields":[]}]`, "union"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseSchema([]byte(tc.reader))
			if err != nil {
				t.Fatal(err)
			}
			w, err := ParseSchema([]byte(tc.writer))
			if err != nil {
				t.Fatal(err)
			}
			ps := CheckResolution(r, w)
			switch {
			case tc.want == "" && len(ps) != 0:
				t.Errorf("problems %v, want none", ps)
			case tc.want != "" && (len(ps) != 1 || !strings.Contains(ps[0].String(), tc.want)):
				t.Errorf("problems %v, want one naming %q", ps, tc.want)
			}
		})
	}
}

// TestParseSchemaExact: a default that does not match its field's type is
// refused by ParseSchemaExact and dropped by ParseSchema.
func TestParseSchemaExact(t *testing.T) {
	text := []byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]}`)
	if _, err := ParseSchemaExact(text); err == nil {
		t.Error("ParseSchemaExact accepted a string default of an int field")
	}
	if _, err := ParseSchema(text); err != nil {
		t.Errorf("ParseSchema: %v", err)
	}
}

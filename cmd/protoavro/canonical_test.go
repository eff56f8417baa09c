package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/twmb/avro"
)

// TestCanonicalSchema compares inspect's canonical form and fingerprint
// with those of twmb/avro, on the golden schemas and on schemas that use
// what they do not: namespaces, references, fixed, unnamed top levels.
func TestCanonicalSchema(t *testing.T) {
	t.Parallel()
	golden, err := filepath.Glob("../../protoavro/testdata/golden/*/*.avsc")
	if err != nil || len(golden) == 0 {
		t.Fatalf("no golden schemas: %v", err)
	}
	schemas := map[string]string{
		"namespaces": `{"type":"record","name":"R","namespace":"a.b","doc":"x","fields":[
			{"name":"f","type":{"type":"fixed","name":"F","size":2},"default":"xy"},
			{"name":"g","type":"F"},
			{"name":"h","type":{"type":"enum","name":"c.E","symbols":["A","B"]}},
			{"name":"i","type":["null",{"type":"record","name":"S","namespace":"","fields":[{"name":"s","type":"S2"}]}]},
			{"name":"j","type":{"type":"array","items":{"type":"long","logicalType":"timestamp-micros"}}},
			{"name":"k","type":{"type":"map","values":"c.E"}}]}`,
		"primitive":        `"long"`,
		"primitive object": `{"type":"string","avro.java.string":"String"}`,
		"union":            `["null","int"]`,
		"array":            `{"type":"array","items":{"type":"record","name":"x.Y","fields":[]}}`,
	}
	// S2 is unknown in "namespaces"; define it first.
	schemas["namespaces"] = `[{"type":"record","name":"S2","fields":[]},` + schemas["namespaces"] + `]`
	for _, path := range golden {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		schemas[path] = string(data)
	}
	for name, schema := range schemas {
		want, err := avro.Parse(schema)
		if err != nil {
			t.Fatalf("%s: twmb/avro: %v", name, err)
		}
		_, got, err := canonicalSchema([]byte(schema))
		if err != nil || got != string(want.Canonical()) {
			t.Errorf("%s: canonical form\n got %s, %v\nwant %s", name, got, err, want.Canonical())
			continue
		}
		h := avro.NewRabin()
		h.Write(want.Canonical())
		if fp := crc64Avro(got); fp != h.Sum64() {
			t.Errorf("%s: fingerprint %016x, want %016x", name, fp, h.Sum64())
		}
	}
	for _, bad := range []string{`{"type":"record","fields":[]}`, `"Nope"`, `{"type":"fixed","name":"F"}`, `{}`, `[`, `"long" "int"`} {
		if _, _, err := canonicalSchema([]byte(bad)); err == nil {
			t.Errorf("canonicalSchema(%s) accepted it", bad)
		}
	}
}

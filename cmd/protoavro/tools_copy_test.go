package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sameSchemaBase is the schema of the first file of each pair in
// TestCopySchemasCompared; each case changes one attribute of it.
const sameSchemaBase = `{"type":"record","name":"t.Foo","fields":[
 {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
 {"name":"fx","type":{"type":"fixed","name":"F4","size":4}},
 {"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},
 {"name":"n","type":"int","default":7}
]}`

// sameSchemaRecord is a record of sameSchemaBase and of every variant
// (fixedValue is replaced for other fixed sizes).
const sameSchemaRecord = `{"ts":1700000000000,"dec":"\u0001\u0000","fx":"abcd","e":"RED","n":1}`

// writeSchemaFile writes the record with fromjson to dir/name under schema.
func writeSchemaFile(t *testing.T, dir, name, schema, record string) string {
	t.Helper()
	avsc := filepath.Join(dir, name+".avsc")
	if err := os.WriteFile(avsc, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if r := runIO(t, []byte(record+"\n"), "fromjson", "--schema", avsc, "--out", path); r.code != 0 {
		t.Fatalf("fromjson %s: %d %s", name, r.code, r.stderr)
	}
	return path
}

// TestCopySchemasCompared: cat and concat refuse files whose schemas have
// the same Parsing Canonical Form but differ in an attribute that changes
// what the values mean (logical type, decimal precision and scale) or that
// avro-tools compares (names, fixed size, enum symbols, defaults, field
// order), naming the attribute, its path and both files; identical
// schemas, and schemas that differ only in docs, still concatenate.
func TestCopySchemasCompared(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		old, new string // replaced in sameSchemaBase
		record   [2]string
		want     string
	}{
		{name: "logical type", old: "timestamp-millis", new: "timestamp-micros",
			want: "t.Foo.ts: logicalType timestamp-millis vs timestamp-micros"},
		{name: "logical type removed", old: `{"type":"long","logicalType":"timestamp-millis"}`, new: `"long"`,
			want: "t.Foo.ts: logicalType timestamp-millis vs none"},
		{name: "precision", old: `"precision":10`, new: `"precision":12`,
			want: "t.Foo.dec: precision 10 vs 12"},
		{name: "scale", old: `"scale":2`, new: `"scale":6`,
			want: "t.Foo.dec: scale 2 vs 6"},
		{name: "fixed size", old: `"size":4`, new: `"size":8`, record: [2]string{`"abcd"`, `"abcdefgh"`},
			want: "t.Foo.fx: size 4 vs 8"},
		{name: "record name", old: `"name":"t.Foo"`, new: `"name":"t.Bar"`,
			want: "t.Foo: name t.Foo vs t.Bar"},
		{name: "namespace", old: `"name":"t.Foo"`, new: `"name":"u.Foo"`,
			want: "t.Foo: name t.Foo vs u.Foo"},
		{name: "fixed name", old: `"name":"F4"`, new: `"name":"G4"`,
			want: "t.Foo.fx: name t.F4 vs t.G4"},
		{name: "field name", old: `{"name":"n",`, new: `{"name":"m",`, record: [2]string{`"n":1`, `"m":1`},
			want: "t.Foo: field 4 n vs m"},
		{name: "enum symbols", old: `["RED","GREEN"]`, new: `["RED","BLUE"]`,
			want: "t.Foo.e: symbol 1 GREEN vs BLUE"},
		{name: "enum symbol added", old: `["RED","GREEN"]`, new: `["RED","GREEN","BLUE"]`,
			want: "t.Foo.e: symbols 2 vs 3"},
		{name: "enum default", old: `"symbols":["RED","GREEN"]`, new: `"symbols":["RED","GREEN"],"default":"RED"`,
			want: `t.Foo.e: default none vs "RED"`},
		{name: "field default", old: `"default":7`, new: `"default":8`,
			want: "t.Foo.n: default 7 vs 8"},
		{name: "field default removed", old: `,"default":7`, new: ``,
			want: "t.Foo.n: default 7 vs none"},
		{name: "field sort order", old: `"default":7`, new: `"default":7,"order":"descending"`,
			want: "t.Foo.n: order ascending vs descending"},
		{name: "attribute", old: `"size":4`, new: `"size":4,"x.unit":"m"`,
			want: `t.Foo.fx: attribute "x.unit" none vs "m"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if !strings.Contains(sameSchemaBase, tc.old) {
				t.Fatalf("%q is not in the schema", tc.old)
			}
			other := strings.Replace(sameSchemaBase, tc.old, tc.new, 1)
			recA, recB := sameSchemaRecord, sameSchemaRecord
			if tc.record[0] != "" {
				recB = strings.Replace(recB, tc.record[0], tc.record[1], 1)
			}
			a := writeSchemaFile(t, dir, "a.avro", sameSchemaBase, recA)
			b := writeSchemaFile(t, dir, "b.avro", other, recB)
			out := filepath.Join(dir, "out.avro")
			for _, cmd := range [][]string{{"concat"}, {"cat"}, {"cat", "--offset", "1"}} {
				r := runCmd(t, append(cmd, "--out", out, a, b)...)
				want := b + ": its schema differs from the schema of " + a + " at " + tc.want + " (" + a + " vs " + b + ")"
				if r.code != exitData || !strings.Contains(r.stderr, want) {
					t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", cmd, r.code, r.stderr, exitData, want)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("%s left an output: %v", cmd, err)
				}
			}
		})
	}

	// The same schema, written by two runs, and a schema that differs only
	// in its docs (which avro-tools does not compare either), concatenate.
	t.Run("same", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		a := writeSchemaFile(t, dir, "a.avro", sameSchemaBase, sameSchemaRecord)
		b := writeSchemaFile(t, dir, "b.avro", sameSchemaBase, sameSchemaRecord)
		c := writeSchemaFile(t, dir, "c.avro", strings.Replace(sameSchemaBase, `"name":"t.Foo",`, `"name":"t.Foo","doc":"other words",`, 1), sameSchemaRecord)
		out := filepath.Join(dir, "out.avro")
		if n := copyRun(t, "concat", "--out", out, a, b, c); n[0] != 3 {
			t.Errorf("concat of one schema: %v", n)
		}
		if got := jsonLines(t, out); len(got) != 3 || got[0] != got[2] {
			t.Errorf("concat: %q", got)
		}
		if n := copyRun(t, "cat", "--offset", "1", "--out", out, a, b, c); n[0] != 2 {
			t.Errorf("cat of one schema: %v", n)
		}
	})
}

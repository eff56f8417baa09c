package interop

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/avroschema"
)

// schemaEqualBase is the first schema of each pair TestJavaSchemaEquality
// compares; each case changes it in one place.
const schemaEqualBase = `{"type":"record","name":"t.Foo","doc":"a record","aliases":["Old"],"fields":[
 {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
 {"name":"fx","type":{"type":"fixed","name":"F4","size":4}},
 {"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},
 {"name":"a","type":{"type":"array","items":{"type":"map","values":["null","string"]}}},
 {"name":"n","type":"int","default":7,"doc":"a field"}
]}`

// TestJavaSchemaEquality: avroschema.Diff in its Full mode, which cat and
// concat use, finds a difference exactly where Java Avro's Schema.equals
// (avro-tools cat and concat) does: logical types, decimal precision and
// scale, names and namespaces, fixed sizes, enum symbols, defaults, field
// names, order and attributes; not docs or aliases.
func TestJavaSchemaEquality(t *testing.T) {
	t.Parallel()
	j := needBuilt(t, javaTools(), javaReason)
	cases := []struct{ old, new string }{
		{`"name":"t.Foo"`, `"name":"t.Foo"`}, // the same
		{`"doc":"a record",`, ``},
		{`"aliases":["Old"],`, `"aliases":["New"],`},
		{`,"doc":"a field"`, `,"doc":"other words"`},
		{"timestamp-millis", "timestamp-micros"},
		{`{"type":"long","logicalType":"timestamp-millis"}`, `"long"`},
		{`"precision":10`, `"precision":12`},
		{`"scale":2`, `"scale":6`},
		{`"size":4`, `"size":8`},
		{`"name":"t.Foo"`, `"name":"u.Foo"`},
		{`"name":"t.Foo"`, `"name":"t.Bar"`},
		{`"name":"F4"`, `"name":"G4"`},
		{`["RED","GREEN"]`, `["RED","BLUE"]`},
		{`["RED","GREEN"]`, `["RED","GREEN","BLUE"]`},
		{`"default":7`, `"default":8`},
		{`,"default":7`, ``},
		{`"default":7`, `"default":7,"order":"descending"`},
		{`{"name":"n",`, `{"name":"m",`},
		{`"size":4`, `"size":4,"x.unit":"m"`},
		{`"default":7`, `"default":7,"x.unit":"m"`},
		{`["null","string"]`, `["string","null"]`},
		{`{"type":"map","values":["null","string"]}`, `{"type":"map","values":["null","string"],"x":1}`},
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "base.avsc")
	if err := os.WriteFile(base, []byte(schemaEqualBase), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := avroschema.Parse([]byte(schemaEqualBase))
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	var ours []*avroschema.Difference
	for i, c := range cases {
		if !strings.Contains(schemaEqualBase, c.old) {
			t.Fatalf("%q is not in the schema", c.old)
		}
		text := strings.Replace(schemaEqualBase, c.old, c.new, 1)
		path := filepath.Join(dir, strconv.Itoa(i)+".avsc")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := avroschema.Parse([]byte(text))
		if err != nil {
			t.Fatalf("%q → %q: %v", c.old, c.new, err)
		}
		args = append(args, base, path)
		ours = append(ours, avroschema.Diff(a, b, avroschema.Full))
	}
	lines := strings.Split(strings.TrimSpace(string(j.run(t, append([]string{"equal"}, args...)...))), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("Java answered %d pairs of %d: %q", len(lines), len(cases), lines)
	}
	differ := 0
	for i, c := range cases {
		javaEqual := lines[i] == "true"
		if javaEqual != (ours[i] == nil) {
			t.Errorf("%q → %q: Java's Schema.equals %s, avroschema.Diff %v", c.old, c.new, lines[i], ours[i])
		}
		if !javaEqual {
			differ++
		}
	}
	t.Logf("interop summary: Java Avro %s and avroschema.Diff agree on %d pairs of schemas (%d different)", j.version, len(cases), differ)
}

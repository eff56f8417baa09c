package avroschema

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/safetext"

	twmb "github.com/twmb/avro"
)

// foreign are schemas protoavro does not derive: namespaces inherited and
// escaped, references by short and full name, recursion, fixed, logical
// types, aliases and custom attributes.
var foreign = []string{
	`"int"`,
	`{"type":"string","logicalType":"uuid"}`,
	`["null","long",{"type":"array","items":"string"}]`,
	`{"type":"record","name":"R","namespace":"a.b","doc":"d","fields":[
		{"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y"],"default":"Y"},"default":"X"},
		{"name":"e2","type":"E"},
		{"name":"e3","type":"a.b.E"},
		{"name":"self","type":["null","R"],"default":null},
		{"name":"f","type":{"type":"fixed","name":"F","namespace":"z","size":16,"logicalType":"decimal","precision":30,"scale":2}},
		{"name":"f2","type":"z.F"},
		{"name":"t","type":{"type":"long","logicalType":"timestamp-nanos"}},
		{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":20},"default":"\u0000\u00ff"},
		{"name":"m","type":{"type":"map","values":{"type":"record","name":"Inner","fields":[{"name":"x","type":"double","default":1.5}]}}},
		{"name":"big","type":"long","default":9007199254740993},
		{"name":"custom","type":{"type":"int","com.example.tag":{"k":[1,2]}}}
	]}`,
	`{"type":"record","name":"Outer","fields":[{"name":"in","type":{"type":"record","name":"Inner","namespace":"","fields":[{"name":"o","type":["null","Outer"]}]}}]}`,
	// A null-namespace type inside a namespaced one (the JSON must escape
	// it with "namespace":""), and a bare reference to it, which resolves
	// in the null namespace as a.Inner does not exist.
	`{"type":"record","name":"a.Outer","fields":[{"name":"in","type":{"type":"record","name":"Inner","namespace":"","fields":[{"name":"x","type":"int"}]}},{"name":"again","type":"Inner"}]}`,
	aliased,
}

// aliased has aliases of records, enums, fixed and fields: short (in the
// namespace of the aliased name, not the enclosing one), dotted, and the
// leading-dot escape to the null namespace.
const aliased = `{"type":"record","name":"R","namespace":"a.b","aliases":["Old","x.Older",".Root"],"fields":[
	{"name":"n","aliases":["name","nom"],"doc":"d","type":{"type":"record","name":"N","namespace":"c","aliases":["M"],"fields":[
		{"name":"e","type":{"type":"enum","name":"E","aliases":["F"],"symbols":["X"]}}]}},
	{"name":"f","type":{"type":"fixed","name":"d.Fx","aliases":["Gx","e.Hx"],"size":4}},
	{"name":"plain","type":"int"}
]}`

func TestParseAgreesWithTwmb(t *testing.T) {
	for _, text := range foreign {
		n, err := Parse([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		ref, err := twmb.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := n.Canonical(), string(ref.Canonical()); got != want {
			t.Errorf("canonical form\n got %s\nwant %s", got, want)
		}
		// The JSON we write parses again to the same schema.
		again, err := Parse(n.JSON())
		if err != nil {
			t.Fatalf("reparse of %s: %v", n.JSON(), err)
		}
		if again.Canonical() != n.Canonical() || string(again.JSON()) != string(n.JSON()) {
			t.Errorf("JSON does not round-trip:\n%s\n%s", n.JSON(), again.JSON())
		}
		h := twmb.NewRabin()
		h.Write(ref.Canonical())
		if got, want := Fingerprint64(n.Canonical()), binary.BigEndian.Uint64(h.Sum(nil)); got != want {
			t.Errorf("fingerprint %016x, twmb's Rabin %016x", got, want)
		}
	}
}

func TestParseModel(t *testing.T) {
	n, err := Parse([]byte(foreign[3]))
	if err != nil {
		t.Fatal(err)
	}
	if n.Type != Record || n.Name != "a.b.R" || n.Doc != "d" {
		t.Fatalf("root %v %q %q", n.Type, n.Name, n.Doc)
	}
	f := func(name string) *Field {
		for i := range n.Fields {
			if n.Fields[i].Name == name {
				return &n.Fields[i]
			}
		}
		t.Fatalf("no field %s", name)
		return nil
	}
	e := f("e").Type
	if e.Type != Enum || e.Name != "a.b.E" || !e.HasEnumDefault || e.EnumDefault != "Y" || string(f("e").Default) != `"X"` {
		t.Errorf("enum %+v default %s", e, f("e").Default)
	}
	for _, name := range []string{"e2", "e3"} {
		if r := f(name).Type; !r.IsRef() || r.Def != e || r.Deref() != e {
			t.Errorf("%s is not a reference to E", name)
		}
	}
	self := f("self").Type.Branches[1]
	if !self.IsRef() || self.Def != n {
		t.Error("recursive reference does not point at the record")
	}
	if fx := f("f").Type; fx.Type != Fixed || fx.Name != "z.F" || fx.Size != 16 || fx.Logical != "decimal" || fx.Precision != 30 || fx.Scale != 2 {
		t.Errorf("fixed %+v", fx)
	}
	if f("f2").Type.Def != f("f").Type {
		t.Error("z.F reference")
	}
	if lt := f("t").Type; lt.Type != Long || lt.Logical != "timestamp-nanos" {
		t.Errorf("timestamp-nanos %+v", lt)
	}
	if d := f("d"); d.Type.Logical != "decimal" || d.Type.Precision != 20 || string(d.Default) != `"\u0000ÿ"` {
		t.Errorf("decimal %+v default %s", d.Type, d.Default)
	}
	if m := f("m").Type; m.Type != Map || m.Values.Name != "a.b.Inner" {
		t.Errorf("map values %+v", m.Values)
	}
	if d := f("big").Default; string(d) != "9007199254740993" {
		t.Errorf("long default %s, want it exact", d)
	}
	if c := f("custom").Type; string(c.Prop("com.example.tag")) != `{"k":[1,2]}` {
		t.Errorf("custom attribute %s", c.Prop("com.example.tag"))
	}
	out, err := Parse([]byte(foreign[4]))
	if err != nil {
		t.Fatal(err)
	}
	if in := out.Fields[0].Type; in.Name != "Inner" || in.Fields[0].Type.Branches[1].Def != out {
		t.Errorf("null-namespace Inner: %q", in.Name)
	}
}

func TestParseAliases(t *testing.T) {
	n, err := Parse([]byte(aliased))
	if err != nil {
		t.Fatal(err)
	}
	nested := n.Fields[0].Type
	tests := []struct {
		what string
		got  []string
		want string
	}{
		{"record R", n.Aliases, "a.b.Old x.Older Root"},
		{"field n", n.Fields[0].Aliases, "name nom"},
		{"record c.N", nested.Aliases, "c.M"},
		{"enum c.E (namespace inherited from c.N)", nested.Fields[0].Type.Aliases, "c.F"},
		{"fixed d.Fx (namespace of its dotted name)", n.Fields[1].Type.Aliases, "d.Gx e.Hx"},
		{"field plain", n.Fields[2].Aliases, ""},
		{"int", n.Fields[2].Type.Aliases, ""},
	}
	for _, tc := range tests {
		if got := strings.Join(tc.got, " "); got != tc.want {
			t.Errorf("%s: aliases %q, want %q", tc.what, got, tc.want)
		}
	}
	if n.Fields[2].Aliases != nil {
		t.Error("a field without aliases has a non-nil slice")
	}
	// Aliases are written as full names that parse back to the same names
	// (the null-namespace alias Root with the leading dot), and are not part
	// of the canonical form.
	js := string(n.JSON())
	for _, want := range []string{
		`"name":"a.b.R","aliases":["a.b.Old","x.Older",".Root"]`,
		`{"name":"n","doc":"d","aliases":["name","nom"],"type":`,
		`"name":"d.Fx","aliases":["d.Gx","e.Hx"]`,
	} {
		if !strings.Contains(js, want) {
			t.Errorf("JSON %s\nlacks %s", js, want)
		}
	}
	if c := n.Canonical(); strings.Contains(c, "aliases") || strings.Contains(c, "Old") {
		t.Errorf("canonical form has aliases: %s", c)
	}
	again, err := Parse(n.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(again.Aliases, " ") != "a.b.Old x.Older Root" || strings.Join(again.Fields[0].Aliases, " ") != "name nom" {
		t.Errorf("aliases after a round trip: %q, field %q", again.Aliases, again.Fields[0].Aliases)
	}
	// Aliases of a type in the null namespace stay short.
	top, err := Parse([]byte(`{"type":"enum","name":"T","aliases":["U","v.W"],"symbols":["A"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(top.Aliases, " "); got != "U v.W" || !strings.Contains(string(top.JSON()), `"aliases":["U","v.W"]`) {
		t.Errorf("null-namespace aliases %q, JSON %s", got, top.JSON())
	}
}

func TestPromotes(t *testing.T) {
	var got []string
	for w := Null; w <= Fixed; w++ {
		for r := Null; r <= Fixed; r++ {
			if Promotes(w, r) {
				got = append(got, w.String()+">"+r.String())
			}
		}
	}
	if want := "int>long int>float int>double long>float long>double float>double bytes>string string>bytes"; strings.Join(got, " ") != want {
		t.Errorf("promotions %s, want %s", strings.Join(got, " "), want)
	}
}

func TestParseLimits(t *testing.T) {
	deep := strings.Repeat(`{"type":"array","items":`, 300) + `"int"` + strings.Repeat("}", 300)
	garbage := "\x1b[31m" + strings.Repeat("x", 10000)
	tests := []struct {
		name string
		l    Limits
		text string
		want string
	}{
		{"too large", Limits{MaxSize: 100, MaxDepth: 10}, `{"type":"record","name":"R","fields":[` + strings.Repeat(" ", 200) + `]}`, "exceed the limit of 100"},
		{"too deep", DefaultLimits, deep, "nested more than 256 levels"},
		{"not JSON", DefaultLimits, garbage, "invalid Avro schema"},
		{"unknown name", DefaultLimits, `{"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]}`, "invalid Avro schema"},
		{"bad name", DefaultLimits, `{"type":"record","name":"1R","fields":[]}`, "invalid Avro schema"},
		{"empty", DefaultLimits, ``, "invalid Avro schema"},
	}
	for _, tc := range tests {
		_, err := tc.l.Parse([]byte(tc.text))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrInvalid with %q", tc.name, err, tc.want)
			continue
		}
		if len(err.Error()) > 400 {
			t.Errorf("%s: error message of %d bytes", tc.name, len(err.Error()))
		}
	}
	if _, err := DefaultLimits.Parse([]byte(strings.Repeat(`{"type":"array","items":`, 200) + `"int"` + strings.Repeat("}", 200))); err != nil {
		t.Errorf("200 levels: %v", err)
	}
}

// TestParseInvalidDefaults: a schema valid but for a field default (avsc
// writes a long default of -2^63 rounded, out of range) parses, without
// that field's defaults; anything else invalid still fails.
func TestParseInvalidDefaults(t *testing.T) {
	text := `{"type":"record","name":"R","fields":[{"name":"a","type":"long","default":-9223372036854776000},{"name":"b","type":"int","default":1}]}`
	if _, err := twmb.Parse(text); err == nil {
		t.Fatal("twmb/avro accepts the out-of-range default; the test needs another case")
	}
	n, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if n.Fields[0].Default != nil || n.Canonical() != `{"name":"R","type":"record","fields":[{"name":"a","type":"long"},{"name":"b","type":"int"}]}` {
		t.Errorf("parsed %s", n.JSON())
	}
	if _, err := Parse([]byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"nope","default":1}]}`)); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown type with a default: %v", err)
	}
	// ParseExact keeps every default, so it refuses the invalid one.
	if _, err := ParseExact([]byte(text)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "default") {
		t.Errorf("ParseExact of an invalid default: %v", err)
	}
	if n, err := ParseExact([]byte(foreign[3])); err != nil || n.Canonical() != mustParse(t, foreign[3]).Canonical() {
		t.Errorf("ParseExact of a valid schema: %v", err)
	}
}

func mustParse(t *testing.T, text string) *Node {
	t.Helper()
	n, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTruncate(t *testing.T) {
	if got := Truncate("héllo", 2); got != "h… (6 bytes)" {
		t.Errorf("Truncate = %q", got)
	}
	if got := Truncate("short", 10); got != "short" {
		t.Errorf("Truncate = %q", got)
	}
}

// FuzzParse parses arbitrary text: never a panic, and whatever parses writes
// JSON that parses to the same canonical form.
func FuzzParse(f *testing.F) {
	addParseSeeds(f)
	f.Fuzz(func(t *testing.T, text []byte) {
		n, err := Parse(text)
		checkParse(t, n, err)
	})
}

// addParseSeeds adds the seed corpus of the fuzz targets of Parse.
func addParseSeeds(f *testing.F) {
	for _, s := range foreign {
		f.Add([]byte(s))
	}
	golden, _ := filepath.Glob("../../protoavro/testdata/golden/*/*.avsc")
	for _, p := range golden[:min(len(golden), 20)] {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"type":"record","name":"R","fields":[{"name":"a","type":["null","R"]}]}`))
	f.Add([]byte(`[[[[["int"]]]]]`))
	f.Add([]byte(nestedDefaults(30))) // 3^30 paths through the defaults
	f.Add([]byte(`{"type":"record","name":"a.R","fields":[{"name":"f","type":{"type":"fixed","name":"D","size":8,"logicalType":"decimal","precision":18,"scale":2},"order":"descending","x.f":[1,{"k":null}],"logicalType":"uuid"},{"name":"g","type":"int","default":1,"order":"ignore"}]}`))
}

// checkParse checks the result of parsing untrusted text: an error wraps
// ErrInvalid and is short and safe to print; a schema's JSON parses alone
// to the same canonical form, and to the same schema whole (Diff).
func checkParse(t *testing.T, n *Node, err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("error does not wrap ErrInvalid: %v", err)
		}
		if msg := err.Error(); len(msg) > 1024 || !safetext.Safe(msg) {
			t.Fatalf("error message of %d bytes is not short and safe: %.300q", len(msg), msg)
		}
		return
	}
	again, err := Parse(n.JSON())
	if err != nil {
		t.Fatalf("our JSON of a parsed schema does not parse alone: %v\n%s", err, n.JSON())
	}
	if again.Canonical() != n.Canonical() {
		t.Fatalf("canonical form changed: %s vs %s", n.Canonical(), again.Canonical())
	}
	if d := Diff(n, again, Full); d != nil {
		t.Fatalf("our JSON of a parsed schema parses to another schema: %s\n%s", d, n.JSON())
	}
}

// TestDefaultsExpansionRefused: records nested 30 deep whose record fields
// default to {} (a schema of 6 KB) make the parser's check of the defaults
// take 3^30 steps, for ever to a reader of a container header. Such
// defaults are treated as invalid ones: Parse drops them, ParseExact
// refuses the schema; a schema whose defaults expand a little parses with
// them.
func TestDefaultsExpansionRefused(t *testing.T) {
	text := []byte(nestedDefaults(30))
	n, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if f := n.Fields[1]; f.Default != nil {
		t.Errorf("Parse kept the default %s of a field whose check does not end", f.Default)
	}
	if _, err := ParseExact(text); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "expand") {
		t.Errorf("ParseExact: %v, want ErrInvalid", err)
	}
	// 3^5 records: the defaults are checked, and kept.
	n, err = ParseExact([]byte(nestedDefaults(5)))
	if err != nil {
		t.Fatalf("ParseExact of 5 levels: %v", err)
	}
	if f := n.Fields[1]; string(f.Default) != "{}" {
		t.Errorf("default of a: %s, want {}", f.Default)
	}
	// A record default that leaves out a field whose default is that
	// record default again has no finite encoding (the parser too refuses
	// it, having recursed 1,000 deep): invalid.
	loop := []byte(`{"type":"record","name":"L","fields":[{"name":"x","type":"int"},{"name":"next","type":["L","null"],"default":{"x":1}}]}`)
	if _, err := ParseExact(loop); !errors.Is(err, ErrInvalid) {
		t.Errorf("ParseExact of a default that reaches itself: %v, want ErrInvalid", err)
	}
	if n, err := Parse(loop); err != nil || n.Fields[1].Default != nil {
		t.Errorf("Parse of a default that reaches itself: %v, want the schema without it", err)
	}
}

// nestedDefaults returns records nested depth deep, each with an int and
// three fields of the next record type that default to {}.
func nestedDefaults(depth int) string {
	schema := fmt.Sprintf(`{"type":"record","name":"R%d","fields":[{"name":"x","type":"int","default":7}]}`, depth)
	for i := depth - 1; i >= 0; i-- {
		schema = fmt.Sprintf(`{"type":"record","name":"R%d","fields":[{"name":"x","type":"int","default":7},{"name":"a","type":%s,"default":{}},{"name":"b","type":"R%d","default":{}},{"name":"c","type":"R%d","default":{}}]}`, i, schema, i+1, i+1)
	}
	return schema
}

// TestParseWith: a schema whose named types are defined in other schemas
// (a registry's references), parsed after them in dependency order, holds
// their definitions; without them it does not parse. The limits count the
// texts together.
func TestParseWith(t *testing.T) {
	money := []byte(`{"type":"fixed","name":"Cents","namespace":"shop","size":8}`)
	address := []byte(`{"type":"record","name":"Address","namespace":"shop","fields":[{"name":"street","type":"string"},{"name":"deposit","type":"Cents"}]}`)
	person := []byte(`{"type":"record","name":"Person","namespace":"crm","fields":[{"name":"home","type":"shop.Address"},{"name":"work","type":["null","shop.Address"],"default":null}]}`)
	n, err := DefaultLimits.ParseWith([][]byte{money, address}, person)
	if err != nil {
		t.Fatal(err)
	}
	home := n.Fields[0].Type.Deref()
	if home.Type != Record || home.Name != "shop.Address" || home.Fields[1].Type.Deref().Name != "shop.Cents" || home.Fields[1].Type.Deref().Size != 8 {
		t.Fatalf("home: %+v", home)
	}
	if n.Fields[1].Type.Branches[1].Deref() != home {
		t.Error("the second use of shop.Address is not a reference to the first")
	}
	// The tree stands alone: its JSON parses without the references.
	again, err := Parse(n.JSON())
	if err != nil || again.Canonical() != n.Canonical() {
		t.Fatalf("JSON of the tree: %v\n%s", err, n.JSON())
	}
	for _, c := range []struct {
		name string
		deps [][]byte
		want string
	}{
		{"no references", nil, "shop.Address"},
		{"out of order", [][]byte{address, money}, "reference 1 of 2"},
		{"a bad reference", [][]byte{money, []byte(`{"type":"record"}`)}, "reference 2 of 2"},
	} {
		if _, err := DefaultLimits.ParseWith(c.deps, person); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrInvalid naming %q", c.name, err, c.want)
		}
	}
	small := Limits{MaxSize: len(person) + len(money) + len(address) - 1, MaxDepth: 10}
	if _, err := small.ParseWith([][]byte{money, address}, person); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "exceed the limit") {
		t.Errorf("over the size limit together: %v", err)
	}
}

// FuzzParseWith parses a schema with one reference: errors are ErrInvalid,
// short and safe, and a schema that parses stands alone (its JSON parses
// without the reference, to the same canonical form).
func FuzzParseWith(f *testing.F) {
	f.Add([]byte(`{"type":"fixed","name":"Cents","namespace":"shop","size":8}`), []byte(`{"type":"record","name":"A","namespace":"shop","fields":[{"name":"c","type":"Cents"}]}`))
	f.Add([]byte(`{"type":"record","name":"P","fields":[{"name":"x","type":"long","default":1}]}`), []byte(`["null","P"]`))
	f.Add([]byte(nestedDefaults(12)), []byte(`{"type":"record","name":"U","fields":[{"name":"r","type":"R0","default":{}},{"name":"s","type":"R0","default":{}}]}`))
	f.Add([]byte(`"int"`), []byte(`{"type":"record","name":"R","fields":[]}`))
	f.Fuzz(func(t *testing.T, dep, text []byte) {
		n, err := DefaultLimits.ParseWith([][]byte{dep}, text)
		checkParse(t, n, err)
	})
}

// TestMayExpand: only defaults that are objects or non-empty arrays can
// expand; a key spelled with escapes is not missed.
func TestMayExpand(t *testing.T) {
	for text, want := range map[string]bool{
		`{"fields":[{"name":"a","type":"long","default":1},{"name":"b","type":["null","R"],"default" : null}]}`: false,
		`{"fields":[{"name":"a","type":{"type":"array","items":"R"},"default": [ ]}]}`:                          false,
		`{"fields":[{"name":"a","type":"R","default":{}}]}`:                                                     true,
		`{"fields":[{"name":"a","type":{"type":"array","items":"R"},"default":[{}]}]}`:                          true,
		`{"fields":[{"name":"a","type":"R","def\u0061ult":{}}]}`:                                                true,
		`{"doc":"\"default\": {}","fields":[]}`:                                                                 false,
	} {
		if got := mayExpand([]byte(text)); got != want {
			t.Errorf("mayExpand(%s) = %v, want %v", text, got, want)
		}
	}
	// The escaped key is the key the parser reads: the bound sees it.
	escaped := strings.ReplaceAll(nestedDefaults(30), `"default"`, `"def\u0061ult"`)
	if _, err := ParseExact([]byte(escaped)); !errors.Is(err, ErrInvalid) {
		t.Errorf("ParseExact of escaped defaults: %v, want ErrInvalid", err)
	}
}

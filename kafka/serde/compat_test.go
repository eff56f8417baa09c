package serde_test

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
)

func paths(rep *serde.Report) string {
	var ps []string
	for _, p := range rep.Problems {
		ps = append(ps, p.Direction+" "+p.Path)
	}
	return strings.Join(ps, "; ")
}

func TestGateEvolution(t *testing.T) {
	v1 := kafkatest.AvroSchema(t, kafkatest.EvolutionSource(t, "v1"))
	v2 := kafkatest.AvroSchema(t, kafkatest.EvolutionSource(t, "v2"))
	check := func(l serde.Level, nw string, prev ...string) *serde.Report {
		t.Helper()
		rep, err := serde.CheckCompatibility(l, nw, prev)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	// v2 reads v1 (int → long, float → double, removed and added fields
	// with defaults, more enum symbols).
	if rep := check(serde.LevelBackward, v2, v1); !rep.Compatible() {
		t.Errorf("BACKWARD v1 → v2: %v", rep.Err())
	}
	// v1 cannot read v2: long → int and double → float do not promote.
	rep := check(serde.LevelForward, v2, v1)
	if got := paths(rep); !strings.Contains(got, "old reads new Person.age") || !strings.Contains(got, "old reads new Person.score") {
		t.Errorf("FORWARD v1 → v2 problems: %s", got)
	}
	if err := rep.Err(); !errors.Is(err, serde.ErrIncompatible) || !errors.Is(err, protoavro.ErrIncompatible) {
		t.Errorf("Err: %v", err)
	}
	if rep := check(serde.LevelFull, v2, v1); len(rep.Problems) != 2 {
		t.Errorf("FULL: %d problems (%s), want age and score", len(rep.Problems), paths(rep))
	}
	// Transitive levels check every version, plain ones the latest.
	if rep := check(serde.LevelForward, v2, v1, v2); !rep.Compatible() {
		t.Errorf("FORWARD against [v1 v2]: %v", rep.Err())
	}
	rep = check(serde.LevelForwardTransitive, v2, v1, v2)
	if rep.Compatible() || rep.Problems[0].Version != 1 || len(rep.Versions) != 2 {
		t.Errorf("FORWARD_TRANSITIVE against [v1 v2]: %+v", rep)
	}
	if rep := check(serde.LevelNone, v2, v1); !rep.Compatible() {
		t.Error("NONE found problems")
	}

	// An incompatible change: name string → int64, and a new enum that drops
	// a symbol the old data uses.
	v3 := strings.Replace(kafkatest.EvolutionSource(t, "v2"), "string name = 1;", "int64 name = 1;", 1)
	rep = check(serde.LevelBackward, kafkatest.AvroSchema(t, v3), v2)
	if got := paths(rep); got != "new reads old Person.name" {
		t.Errorf("BACKWARD v2 → v3 problems: %s", got)
	}
	if err := rep.Err(); err == nil || !strings.Contains(err.Error(), "Person.name") {
		t.Errorf("Err does not name the field: %v", err)
	}

	// A record field without default that the writer lacks, in a nested
	// record, and a changed fixed size.
	old := `{"type":"record","name":"R","namespace":"x","fields":[
	  {"name":"a","type":{"type":"record","name":"A","fields":[{"name":"p","type":"int"}]}},
	  {"name":"f","type":{"type":"fixed","name":"F","size":4}},
	  {"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y"]}},
	  {"name":"u","type":["null","string"]}]}`
	nw := `{"type":"record","name":"R","namespace":"x","fields":[
	  {"name":"a","type":{"type":"record","name":"A","fields":[{"name":"p","type":"long"},{"name":"q","type":"string"}]}},
	  {"name":"f","type":{"type":"fixed","name":"F","size":8}},
	  {"name":"e","type":{"type":"enum","name":"E","symbols":["X"]}},
	  {"name":"u","type":["null","int"]}]}`
	rep = check(serde.LevelBackward, nw, old)
	want := []string{"R.a.q", "R.f", "R.e", "R.u"}
	if len(rep.Problems) != len(want) {
		t.Fatalf("problems: %s", paths(rep))
	}
	for i, w := range want {
		if rep.Problems[i].Path != w {
			t.Errorf("problem %d at %s, want %s (%s)", i, rep.Problems[i].Path, w, rep.Problems[i].Detail)
		}
	}
	if _, err := serde.CheckCompatibility(serde.LevelBackward, "{", []string{old}); err == nil {
		t.Error("a bad schema was checked")
	}
}

// TestGateReferences: a registered version that takes a named type from
// another subject (a schema reference) is checked with it: the new schema
// is compared with the whole type. It was ErrBadSchema ("unknown type").
func TestGateReferences(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	v2, err := protoavro.Options{}.Schema(kafkatest.Person(t, "v2"))
	if err != nil {
		t.Fatal(err)
	}
	registerSplit(t, reg, v2, "split-value")
	whole := kafkatest.AvroSchema(t, kafkatest.EvolutionSource(t, "v2"))
	rep, err := reg.CheckAt(ctx, "split-value", serde.LevelFullTransitive, whole)
	if err != nil || !rep.Compatible() || len(rep.Versions) != 1 {
		t.Fatalf("v2 against the split v2: %+v, %v", rep, err)
	}
	// A v1 reader cannot read the registered v2's data: its age is a long.
	rep, err = reg.CheckAt(ctx, "split-value", serde.LevelBackward, kafkatest.AvroSchema(t, kafkatest.EvolutionSource(t, "v1")))
	if err != nil || rep.Compatible() || !strings.Contains(rep.Err().Error(), "Person.age") {
		t.Fatalf("v1 against the split v2 under BACKWARD: %+v, %v", rep, err)
	}
}

func TestGateRegistry(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	v1 := kafkatest.Person(t, "v1")
	v2 := kafkatest.Person(t, "v2")
	ser := serde.NewSerializer(reg, serde.SerializerOptions{Check: true})
	if _, err := ser.Encode(ctx, nil, "people", kafkatest.NewPerson(v1, 1)); err != nil {
		t.Fatal(err)
	}
	// srfake's global level is BACKWARD: v2 passes.
	if lvl, err := reg.Compatibility(ctx, "people-value"); err != nil || lvl != serde.LevelBackward {
		t.Fatalf("level %v, %v", lvl, err)
	}
	if _, err := ser.Encode(ctx, nil, "people", kafkatest.NewPerson(v2, 1)); err != nil {
		t.Fatalf("v2 under BACKWARD: %v", err)
	}
	// Under FULL_TRANSITIVE a v2 on a new subject after v1 is refused,
	// naming the fields; srfake itself would have accepted it.
	if err := reg.SetCompatibility(ctx, "strict-value", serde.LevelFullTransitive); err != nil {
		t.Fatal(err)
	}
	ser2 := serde.NewSerializer(reg, serde.SerializerOptions{Check: true})
	if _, err := ser2.Encode(ctx, nil, "strict", kafkatest.NewPerson(v1, 1)); err != nil {
		t.Fatal(err)
	}
	_, err := ser2.Encode(ctx, nil, "strict", kafkatest.NewPerson(v2, 1))
	if !errors.Is(err, serde.ErrIncompatible) || !strings.Contains(err.Error(), "Person.age") || !strings.Contains(err.Error(), "Person.score") {
		t.Fatalf("v2 under FULL_TRANSITIVE: %v", err)
	}
	rep, err := reg.Check(ctx, "strict-value", kafkatest.AvroSchema(t, kafkatest.EvolutionSource(t, "v2")))
	if err != nil || rep.Level != serde.LevelFullTransitive || len(rep.Versions) != 1 || rep.Versions[0] != 1 {
		t.Fatalf("Check: %+v, %v", rep, err)
	}
	// A subject that does not exist is compatible.
	if rep, err := reg.Check(ctx, "new-value", kafkatest.AvroSchema(t, kafkatest.EvolutionSource(t, "v2"))); err != nil || !rep.Compatible() {
		t.Fatalf("new subject: %+v, %v", rep, err)
	}
}

// TestGateResolution checks the resolution rules one by one, the reader (new
// schema, BACKWARD) against the writer (previous): each case lists the paths
// of the problems it must report, and a word of the first one's detail.
func TestGateResolution(t *testing.T) {
	rec := func(name string, fields ...string) string {
		return `{"type":"record","name":"` + name + `","fields":[` + strings.Join(fields, ",") + `]}`
	}
	list := func(extra string) string {
		return `{"type":"record","name":"x.List","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","List"],"default":null}` + extra + `]}`
	}
	mutual := func(t string) string {
		return `{"type":"record","name":"A","fields":[{"name":"b","type":["null",{"type":"record","name":"B","fields":[` +
			`{"name":"n","type":"` + t + `"},{"name":"a","type":["null","A"]},{"name":"bs","type":{"type":"array","items":"B"}}]}]}]}`
	}
	tests := []struct {
		name, writer, reader string
		want                 []string // problem paths
		detail               string   // in the first problem's detail
	}{
		// Records renamed: a reader alias (resolved in the reader's
		// namespace) matches the writer's name, at the top and nested.
		{"renamed record", rec("x.Old", `{"name":"a","type":"int"}`), rec("x.New", `{"name":"a","type":"int"}`), []string{"New"}, "record name x.New does not match writer's x.Old"},
		{"renamed record, alias", rec("x.Old", `{"name":"a","type":"int"}`),
			`{"type":"record","name":"x.New","aliases":["Old"],"fields":[{"name":"a","type":"int"}]}`, nil, ""},
		{"renamed record, full alias", rec("x.Old", `{"name":"a","type":"int"}`),
			`{"type":"record","name":"y.New","aliases":["x.Old"],"fields":[{"name":"a","type":"int"}]}`, nil, ""},
		// A short alias is a name in the reader's namespace: it does not
		// match a writer's record of that short name in another namespace
		// (Java's SchemaCompatibility compares aliases by full name).
		{"renamed record, alias in another namespace", rec("y.Old", `{"name":"a","type":"int"}`),
			`{"type":"record","name":"x.New","aliases":["Old"],"fields":[{"name":"a","type":"int"}]}`, []string{"New"}, "record name x.New does not match writer's y.Old"},
		// The same unqualified name matches across namespaces, as in Java.
		{"same name, other namespace", rec("y.R", `{"name":"a","type":"int"}`), rec("x.R", `{"name":"a","type":"long"}`), nil, ""},
		{"renamed nested record, alias", rec("R", `{"name":"p","type":`+rec("a.P", `{"name":"q","type":"int"}`)+`}`),
			rec("R", `{"name":"p","type":{"type":"record","name":"a.P2","aliases":["P"],"fields":[{"name":"q","type":"long"}]}}`), nil, ""},
		{"renamed nested record", rec("R", `{"name":"p","type":`+rec("a.P", `{"name":"q","type":"int"}`)+`}`),
			rec("R", `{"name":"p","type":`+rec("a.P2", `{"name":"q","type":"long"}`)+`}`), []string{"R.p"}, "record name a.P2"},
		// Fields renamed: a reader field alias names the writer's field, and
		// its type is then checked under the reader's name.
		{"renamed field", rec("R", `{"name":"fullname","type":"string"}`), rec("R", `{"name":"name","type":"string"}`), []string{"R.name"}, "no default"},
		{"renamed field, alias", rec("R", `{"name":"fullname","type":"string"}`), rec("R", `{"name":"name","aliases":["fullname"],"type":"string"}`), nil, ""},
		{"renamed field, alias, wrong type", rec("R", `{"name":"fullname","type":"string"}`), rec("R", `{"name":"name","aliases":["nom","fullname"],"type":"int"}`), []string{"R.name"}, "writer string cannot be read as reader int"},
		{"added field with default", rec("R"), rec("R", `{"name":"n","type":"long","default":0}`), nil, ""},
		// Enums: a symbol the reader lacks is fine only with a reader default;
		// a renamed enum needs an alias.
		{"enum symbol dropped, default", rec("R", `{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}}`),
			rec("R", `{"name":"e","type":{"type":"enum","name":"E","symbols":["A","U"],"default":"U"}}`), nil, ""},
		{"enum symbols dropped", rec("R", `{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}}`),
			rec("R", `{"name":"e","type":{"type":"enum","name":"E","symbols":["A"]}}`), []string{"R.e"}, "B, C missing"},
		{"renamed enum", rec("R", `{"name":"e","type":{"type":"enum","name":"E","symbols":["A"]}}`),
			rec("R", `{"name":"e","type":{"type":"enum","name":"E2","symbols":["A"]}}`), []string{"R.e"}, "enum name E2"},
		{"renamed enum, alias", rec("R", `{"name":"e","type":{"type":"enum","name":"E","symbols":["A"]}}`),
			rec("R", `{"name":"e","type":{"type":"enum","name":"E2","aliases":["E"],"symbols":["A"]}}`), nil, ""},
		// Fixed: name (or alias) and size.
		{"fixed size", rec("R", `{"name":"f","type":{"type":"fixed","name":"F","size":16}}`),
			rec("R", `{"name":"f","type":{"type":"fixed","name":"F","size":12}}`), []string{"R.f"}, "fixed F(12) does not match writer's F(16)"},
		{"renamed fixed", rec("R", `{"name":"f","type":{"type":"fixed","name":"F","size":16}}`),
			rec("R", `{"name":"f","type":{"type":"fixed","name":"G","size":16}}`), []string{"R.f"}, "fixed G(16)"},
		{"renamed fixed, alias", rec("R", `{"name":"f","type":{"type":"fixed","name":"F","size":16}}`),
			rec("R", `{"name":"f","type":{"type":"fixed","name":"G","aliases":["F"],"size":16}}`), nil, ""},
		// Recursive schemas end (through unions, arrays, mutually), and a
		// problem inside the recursion is reported once.
		{"recursive, same", list(""), list(""), nil, ""},
		{"mutually recursive", mutual("int"), mutual("long"), nil, ""},
		{"mutually recursive, not promoted", mutual("long"), mutual("int"), []string{"A.b.n"}, "writer long cannot be read as reader int"},
		{"recursive", list(""), list(`,{"name":"w","type":"double","default":0}`), nil, ""},
		{"recursive, field without default", list(""), list(`,{"name":"w","type":"double"}`), []string{"List.w"}, "no default"},
		{"recursive, promoted", list(""), strings.Replace(list(""), `"type":"int"`, `"type":"long"`, 1), nil, ""},
		{"recursive, not promoted", strings.Replace(list(""), `"type":"int"`, `"type":"long"`, 1), list(""), []string{"List.v"}, "writer long cannot be read as reader int"},
		// A type defined once and referenced again is checked through the
		// reference.
		{"reference", rec("R", `{"name":"a","type":`+rec("A", `{"name":"p","type":"string"}`)+`}`, `{"name":"b","type":["null","A"]}`),
			rec("R", `{"name":"a","type":`+rec("A", `{"name":"p","type":"bytes"}`)+`}`, `{"name":"b","type":["null","A"]}`), nil, ""},
		{"reference, incompatible", rec("R", `{"name":"b","type":["null",`+rec("A", `{"name":"p","type":"string"}`)+`]}`, `{"name":"a","type":"A"}`),
			rec("R", `{"name":"b","type":["null",`+rec("A", `{"name":"p","type":"int"}`)+`]}`, `{"name":"a","type":"A"}`), []string{"R.b.p"}, "writer string"},
		// Unions, branch by branch.
		{"writer branch missing from reader", rec("R", `{"name":"u","type":["null","int","string"]}`), rec("R", `{"name":"u","type":["null","long"]}`),
			[]string{"R.u"}, "writer union branch 2 (string) matches no reader branch of union [null, long]"},
		{"writer branches missing", rec("R", `{"name":"u","type":["null","int","string","float"]}`), rec("R", `{"name":"u","type":["string"]}`),
			[]string{"R.u", "R.u", "R.u"}, "branch 0 (null)"},
		{"writer union, reader not", rec("R", `{"name":"u","type":["null","int"]}`), rec("R", `{"name":"u","type":"long"}`), []string{"R.u"}, "writer null cannot be read as reader long"},
		{"writer union, reader not, all promote", rec("R", `{"name":"u","type":["int","long"]}`), rec("R", `{"name":"u","type":"double"}`), nil, ""},
		{"reader union, writer promoted", rec("R", `{"name":"u","type":"int"}`), rec("R", `{"name":"u","type":["null","double"]}`), nil, ""},
		{"reader union, writer not in it", rec("R", `{"name":"u","type":"string"}`), rec("R", `{"name":"u","type":["null","int"]}`), []string{"R.u"}, "writer string matches no branch of reader union [null, int]"},
		{"reader union, record branch by name", rec("R", `{"name":"u","type":`+rec("B", `{"name":"p","type":"int"}`)+`}`),
			rec("R", `{"name":"u","type":["null",`+rec("A", `{"name":"q","type":"int"}`)+`,`+rec("B", `{"name":"p","type":"long"}`)+`]}`), nil, ""},
		{"reader union, record branch by alias", rec("R", `{"name":"u","type":["null",`+rec("Old", `{"name":"p","type":"int"}`)+`]}`),
			rec("R", `{"name":"u","type":["null",{"type":"record","name":"New","aliases":["Old"],"fields":[{"name":"p","type":"int"}]}]}`), nil, ""},
		{"reader union, record branch by full name", rec("R", `{"name":"u","type":["null",`+rec("x.S", `{"name":"p","type":"int"}`)+`,`+rec("y.S", `{"name":"q","type":"string"}`)+`]}`),
			rec("R", `{"name":"u","type":["null",`+rec("x.S", `{"name":"p","type":"int"}`)+`,`+rec("y.S", `{"name":"q","type":"string"}`)+`]}`), nil, ""},
		{"reader union, record branch by full name before alias", rec("R", `{"name":"u","type":`+rec("Old", `{"name":"p","type":"int"}`)+`}`),
			rec("R", `{"name":"u","type":[{"type":"record","name":"New","aliases":["Old"],"fields":[{"name":"q","type":"int"}]},`+rec("Old", `{"name":"p","type":"int"}`)+`]}`), nil, ""},
		{"reader union, record branch problem", rec("R", `{"name":"u","type":`+rec("B", `{"name":"p","type":"long"}`)+`}`),
			rec("R", `{"name":"u","type":["null",`+rec("B", `{"name":"p","type":"int"}`)+`]}`), []string{"R.u.p"}, "writer long"},
		// Containers.
		{"array items", rec("R", `{"name":"a","type":{"type":"array","items":"long"}}`), rec("R", `{"name":"a","type":{"type":"array","items":"int"}}`), []string{"R.a[]"}, "writer long"},
		{"map values", rec("R", `{"name":"m","type":{"type":"map","values":"string"}}`), rec("R", `{"name":"m","type":{"type":"map","values":"bytes"}}`), nil, ""},
		{"map values, not promoted", rec("R", `{"name":"m","type":{"type":"map","values":"bytes"}}`), rec("R", `{"name":"m","type":{"type":"map","values":"int"}}`), []string{"R.m{}"}, "writer bytes"},
		{"array read as map", rec("R", `{"name":"m","type":{"type":"array","items":"int"}}`), rec("R", `{"name":"m","type":{"type":"map","values":"int"}}`), []string{"R.m"}, "writer array cannot be read as reader map"},
		// A primitive top-level schema, with a logical type.
		{"primitive", `{"type":"int","logicalType":"date"}`, `"long"`, nil, ""},
		{"primitive, not promoted", `"double"`, `{"type":"long","logicalType":"timestamp-millis"}`, []string{"long"}, "writer double cannot be read as reader long"},
	}
	for _, tc := range tests {
		rep, err := serde.CheckCompatibility(serde.LevelBackward, tc.reader, []string{tc.writer})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var got []string
		for _, p := range rep.Problems {
			got = append(got, p.Path)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: problems at %q, want %q: %v", tc.name, got, tc.want, rep.Err())
			continue
		}
		if tc.detail != "" && !strings.Contains(rep.Problems[0].Detail, tc.detail) {
			t.Errorf("%s: detail %q, want it to contain %q", tc.name, rep.Problems[0].Detail, tc.detail)
		}
	}
}

// TestGateBadSchema: a schema that does not parse, or exceeds ParseSchema's
// bounds, is an error of class ErrBadSchema (and protoavro's
// ErrInvalidSchema) that says which schema.
func TestGateBadSchema(t *testing.T) {
	good := `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`
	deep := strings.Repeat(`{"type":"array","items":`, 300) + `"int"` + strings.Repeat("}", 300)
	tests := []struct {
		name, nw string
		prev     []string
		want     string
	}{
		{"new not JSON", "{", []string{good}, "new schema"},
		{"new unknown type", `{"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]}`, []string{good}, "new schema"},
		{"new too deep", deep, []string{good}, "nested more than 256 levels"},
		{"previous bad", good, []string{`{"type":"enum","name":"E"}`}, "previous schema 1"},
		{"transitive, older bad", good, []string{`"nope"`, good}, "previous schema 1"},
		// An invalid default is refused, not dropped: defaults decide the
		// check (ParseSchema, for reading data, drops them instead).
		{"new invalid default", `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int","default":"x"}]}`,
			[]string{good}, "new schema"},
	}
	// A registered version's invalid default is dropped, not refused: the
	// new schema reads it (BACKWARD), and under FORWARD the field counts as
	// having no default.
	avsc := `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"l","type":"long","default":-9223372036854776000}]}`
	if rep, err := serde.CheckCompatibility(serde.LevelBackward, good, []string{avsc}); err != nil || !rep.Compatible() {
		t.Errorf("BACKWARD against a version with an invalid default: %+v, %v", rep, err)
	}
	if rep, err := serde.CheckCompatibility(serde.LevelForward, good, []string{avsc}); err != nil || rep.Compatible() ||
		len(rep.Problems) != 1 || rep.Problems[0].Path != "R.l" {
		t.Errorf("FORWARD against a version with an invalid default: %+v, %v", rep, err)
	}
	for _, tc := range tests {
		lvl := serde.LevelFull
		if strings.HasPrefix(tc.name, "transitive") {
			lvl = serde.LevelFullTransitive
		}
		_, err := serde.CheckCompatibility(lvl, tc.nw, tc.prev)
		if !errors.Is(err, serde.ErrBadSchema) || !errors.Is(err, protoavro.ErrInvalidSchema) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrBadSchema and ErrInvalidSchema saying %q", tc.name, err, tc.want)
		}
	}
	// Not transitive: only the latest previous schema is parsed.
	if rep, err := serde.CheckCompatibility(serde.LevelFull, good, []string{`"nope"`, good}); err != nil || !rep.Compatible() {
		t.Errorf("FULL with a bad older version: %+v, %v", rep, err)
	}
}

// FuzzCheckCompatibility checks arbitrary schema text from a registry: never
// a panic or a hang, a schema that does not parse is ErrBadSchema with a
// short message, and a schema that parses is FULL compatible with itself.
func FuzzCheckCompatibility(f *testing.F) {
	f.Add(kafkatest.AvroSchema(f, kafkatest.EvolutionSource(f, "v1")), kafkatest.AvroSchema(f, kafkatest.EvolutionSource(f, "v2")))
	list := `{"type":"record","name":"x.List","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","List"],"default":null}]}`
	f.Add(list, strings.Replace(list, `"int"`, `"long"`, 1))
	f.Add(`{"type":"record","name":"A","fields":[{"name":"b","type":["null",{"type":"record","name":"B","fields":[{"name":"a","type":["null","A"]},{"name":"bs","type":{"type":"map","values":"B"}}]}]}]}`,
		`{"type":"record","name":"A","aliases":["Z"],"fields":[{"name":"c","aliases":["b"],"type":["null","string"]}]}`)
	f.Add(`["null",{"type":"record","name":"x.S","fields":[]},{"type":"record","name":"y.S","fields":[{"name":"e","type":{"type":"enum","name":"E","symbols":["A"],"default":"A"}}]}]`,
		`{"type":"fixed","name":"F","aliases":["G"],"size":4}`)
	f.Add(`{"type":"array","items":{"type":"long","logicalType":"timestamp-millis"}}`, `{`)
	f.Fuzz(func(t *testing.T, a, b string) {
		rep, err := serde.CheckCompatibility(serde.LevelFull, a, []string{b})
		if err != nil {
			if !errors.Is(err, serde.ErrBadSchema) || !errors.Is(err, protoavro.ErrInvalidSchema) || len(err.Error()) > 1024 {
				t.Fatalf("error %.300q: not ErrBadSchema or too long", err)
			}
		} else if rep.Compatible() != (rep.Err() == nil) {
			t.Fatalf("Compatible %v but Err %v", rep.Compatible(), rep.Err())
		}
		for _, s := range []string{a, b} {
			rep, err := serde.CheckCompatibility(serde.LevelFull, s, []string{s})
			if err == nil && !rep.Compatible() {
				t.Fatalf("schema not compatible with itself: %v\n%s", rep.Err(), s)
			}
		}
	})
}

// TestGateConcurrent: two schemas new to a subject, registered at once
// (records of v1 and v2 in one batch of the bridge, on two workers), are
// checked against each other: under FULL one of them is refused. The
// registry holds the first two requests for the subject's versions until
// both have come, so that both checks would run before either registration
// if nothing ordered them.
func TestGateConcurrent(t *testing.T) {
	fake, reg := kafkatest.Registry(t)
	if err := reg.SetCompatibility(ctx, "people-value", serde.LevelFull); err != nil {
		t.Fatal(err)
	}
	// The first two requests for the subject's version list wait for each
	// other (at most a second).
	var arrived sync.WaitGroup
	arrived.Add(2)
	var listed atomic.Int64
	fake.Intercept(func(_ http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodGet && r.URL.Path == "/subjects/people-value/versions" && listed.Add(1) <= 2 {
			arrived.Done()
			done := make(chan struct{})
			go func() { arrived.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(time.Second):
			}
		}
		return false
	})
	ser := serde.NewSerializer(reg, serde.SerializerOptions{Check: true})
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, v := range []string{"v1", "v2"} {
		c, err := ser.Codec(kafkatest.Person(t, v))
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { _, errs[i] = ser.ID(ctx, "people", c) })
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("v1: %v; v2: %v; want exactly one refused", errs[0], errs[1])
	}
	err := errors.Join(errs...)
	if !errors.Is(err, serde.ErrIncompatible) || !strings.Contains(err.Error(), "Person.age") {
		t.Fatalf("refusal: %v", err)
	}
	if vs, err := reg.Versions(ctx, "people-value"); err != nil || len(vs) != 1 {
		t.Fatalf("versions: %v, %v; want one", vs, err)
	}
}

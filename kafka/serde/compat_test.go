package serde_test

import (
	"errors"
	"strings"
	"testing"

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

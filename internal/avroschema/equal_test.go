package avroschema

import (
	"strings"
	"testing"
)

// TestDiff compares schemas in both modes: what each finds, the path and
// values it names, and that recursive schemas end.
func TestDiff(t *testing.T) {
	const base = `{"type":"record","name":"a.R","doc":"d","aliases":["Old"],"fields":[
	 {"name":"next","type":["null","R"],"default":null},
	 {"name":"tags","type":{"type":"array","items":{"type":"fixed","name":"D","size":8,"logicalType":"decimal","precision":18,"scale":2}}},
	 {"name":"m","type":{"type":"map","values":{"type":"int","x":1}}},
	 {"name":"n","type":"long","default":1,"x.f":[1,2]}
	]}`
	parse := func(text string) *Node {
		t.Helper()
		n, err := Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	a := parse(base)
	for _, mode := range []Comparison{Full, Encoding} {
		if d := Diff(a, parse(base), mode); d != nil {
			t.Errorf("mode %d: a schema differs from itself: %s", mode, d)
		}
		// Its own JSON parses back to the same schema.
		if d := Diff(a, parse(string(a.JSON())), mode); d != nil {
			t.Errorf("mode %d: the schema's JSON differs from it: %s (%s)", mode, d, a.JSON())
		}
	}
	for _, tc := range []struct {
		old, new string
		full     string // the difference in Full mode
		encoding string // in Encoding mode; "" for none
	}{
		{`"scale":2`, `"scale":3`, "a.R.tags[]: scale 2 vs 3", "a.R.tags[]: scale 2 vs 3"},
		{`"logicalType":"decimal","precision":18,"scale":2`, `"x":0`, "a.R.tags[]: logicalType decimal vs none", "a.R.tags[]: logicalType decimal vs none"},
		{`"size":8`, `"size":9`, "a.R.tags[]: size 8 vs 9", "a.R.tags[]: size 8 vs 9"},
		{`,"default":null`, ``, "a.R.next: default null vs none", ""},
		{`"x":1`, `"x":2`, `a.R.m{}: attribute "x" 1 vs 2`, ""},
		{`"x.f":[1,2]`, `"x.f":[1,3]`, `a.R.n: field attribute "x.f" [1,2] vs [1,3]`, ""},
		{`"default":1,`, `"default":1,"order":"ignore",`, "a.R.n: order ascending vs ignore", ""},
		{`["null","R"]`, `["R","null"]`, "a.R.next<branch 0>: type null vs record", "a.R.next<branch 0>: type null vs record"},
		{`"type":"long"`, `"type":"int"`, "a.R.n: type long vs int", "a.R.n: type long vs int"},
		{`"doc":"d","aliases":["Old"],`, ``, "", ""},
	} {
		if !strings.Contains(base, tc.old) {
			t.Fatalf("%q is not in the schema", tc.old)
		}
		b := parse(strings.Replace(base, tc.old, tc.new, 1))
		for mode, want := range map[Comparison]string{Full: tc.full, Encoding: tc.encoding} {
			got := ""
			if d := Diff(a, b, mode); d != nil {
				got = d.String()
			}
			if got != want {
				t.Errorf("%q → %q, mode %d: %q, want %q", tc.old, tc.new, mode, got, want)
			}
		}
	}
}

// TestDiffEscapes: names and values from untrusted schemas are escaped and
// shortened in a Difference.
func TestDiffEscapes(t *testing.T) {
	a, err := Parse([]byte(`{"type":"enum","name":"E","symbols":["A"],"x\u001b[2J":"` + strings.Repeat("v", 1000) + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse([]byte(`{"type":"enum","name":"E","symbols":["A"]}`))
	if err != nil {
		t.Fatal(err)
	}
	d := Diff(a, b, Full)
	if d == nil {
		t.Fatal("no difference")
	}
	if s := d.String(); strings.ContainsRune(s, 0x1b) || len(s) > 400 {
		t.Errorf("difference %q", s)
	}
}

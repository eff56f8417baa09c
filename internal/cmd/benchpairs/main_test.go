package main

import (
	"strings"
	"testing"
)

// Two rounds, each a separate run of the test binary, as the package doc
// says to make them.
const twoRounds = `goos: linux
goarch: amd64
pkg: github.com/protoavro/protoavro
BenchmarkAVRO2147/ProtoMarshal-2         	 2405102	       600.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkAVRO2147/Marshal-2              	 2336888	       300.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkAVRO2147/Unmarshal-2            	 1000000	      1000 ns/op	     488 B/op	       9 allocs/op
BenchmarkAVRO2147/ProtoUnmarshal-2       	 1000000	      2000 ns/op	     488 B/op	      22 allocs/op
PASS
goos: linux
BenchmarkAVRO2147/ProtoMarshal-2         	 2405102	       400.0 ns/op
BenchmarkAVRO2147/Marshal-2              	 2336888	       320.0 ns/op
BenchmarkAVRO2147/Unmarshal-2            	 1000000	      1500 ns/op
BenchmarkAVRO2147/ProtoUnmarshal-2       	 1000000	      1500 ns/op
BenchmarkOther-2                         	 1000000	      1.5 ns/op
PASS
`

func TestTable(t *testing.T) {
	runs, err := parse(strings.NewReader(twoRounds))
	if err != nil {
		t.Fatal(err)
	}
	if got := runs["Marshal"]; len(got) != 2 || got[0] != 300 || got[1] != 320 {
		t.Errorf("Marshal runs %v", got)
	}
	if got := runs["BenchmarkOther"]; len(got) != 1 || got[0] != 1.5 {
		t.Errorf("a benchmark without sub-benchmarks: %v", got)
	}
	var out strings.Builder
	if err := table(&out, runs, pairList{{"Marshal", "ProtoMarshal"}, {"Unmarshal", "ProtoUnmarshal"}}); err != nil {
		t.Fatal(err)
	}
	want := `| ratio | per round | median |
|---|---|---|
| Marshal / ProtoMarshal | 0.50, 0.80 | **0.65** |
| Unmarshal / ProtoUnmarshal | 0.50, 1.00 | **0.75** |
`
	if out.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestTableErrors(t *testing.T) {
	runs, err := parse(strings.NewReader(twoRounds))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pair [2]string
		want string
	}{
		{[2]string{"Marshal", "Nope"}, "no ns/op lines of Nope"},
		{[2]string{"Nope", "Marshal"}, "no ns/op lines of Nope"},
		{[2]string{"Marshal", "BenchmarkOther"}, "2 rounds of Marshal but 1 of BenchmarkOther"},
	} {
		err := table(new(strings.Builder), runs, pairList{c.pair})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.pair, err, c.want)
		}
	}
	var p pairList
	for _, bad := range []string{"Marshal", "/B", "A/"} {
		if p.Set(bad) == nil {
			t.Errorf("-pair %q accepted", bad)
		}
	}
}

func TestMedian(t *testing.T) {
	xs := []float64{3, 1, 2}
	if m := median(xs); m != 2 || xs[0] != 3 {
		t.Errorf("median %v, xs %v", m, xs)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median of four: %v", m)
	}
}

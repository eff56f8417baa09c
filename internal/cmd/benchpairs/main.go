// Command benchpairs prints the ratios of pairs of benchmarks round by
// round, from the output of `go test -bench` on standard input.
//
// A round is one run of each benchmark: the k-th line of a benchmark is in
// round k. With `-count N`, Go runs each sub-benchmark N times in a row
// before the next one, so the k-th lines of two sub-benchmarks can be many
// seconds apart; on a noisy machine, run the test binary N times with
// `-test.count 1` instead, so that each run is one round in which the
// benchmarks follow each other:
//
//	go test -c -o root.test .
//	for i in $(seq 10); do ./root.test -test.run '^$' -test.bench 'AVRO2147$' -test.benchmem -test.count 1; done > avro2147.txt
//	go run ./internal/cmd/benchpairs -pair Marshal/ProtoMarshal -pair Unmarshal/ProtoUnmarshal < avro2147.txt
//
// Each -pair A/B names two benchmarks by the last element of their name
// (the sub-benchmark, without the -GOMAXPROCS suffix). The output is a
// Markdown table: the ratio of A's to B's ns/op in each round, and their
// median.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

type pairList [][2]string

func (p *pairList) String() string { return fmt.Sprint(*p) }

func (p *pairList) Set(v string) error {
	a, b, ok := strings.Cut(v, "/")
	if !ok || a == "" || b == "" {
		return fmt.Errorf("want A/B, got %q", v)
	}
	*p = append(*p, [2]string{a, b})
	return nil
}

func main() {
	var pairs pairList
	flag.Var(&pairs, "pair", "`A/B`: the ratio of benchmark A to benchmark B (may repeat)")
	flag.Parse()
	if len(pairs) == 0 {
		fmt.Fprintln(os.Stderr, "benchpairs: give at least one -pair A/B")
		os.Exit(2)
	}
	runs, err := parse(os.Stdin)
	if err == nil {
		err = table(os.Stdout, runs, pairs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchpairs:", err)
		os.Exit(1)
	}
}

// parse returns the ns/op of every benchmark line of r, by the last
// element of the benchmark's name, in the order of the lines.
func parse(r io.Reader) (map[string][]float64, error) {
	runs := map[string][]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0][strings.LastIndexByte(f[0], '/')+1:]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		for i := 2; i+1 < len(f); i++ {
			if f[i+1] == "ns/op" {
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					return nil, fmt.Errorf("line %d: ns/op %q: %w", line, f[i], err)
				}
				runs[name] = append(runs[name], v)
				break
			}
		}
	}
	return runs, sc.Err()
}

// table writes the per-round ratios of pairs as a Markdown table.
func table(w io.Writer, runs map[string][]float64, pairs pairList) error {
	fmt.Fprintln(w, "| ratio | per round | median |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, p := range pairs {
		a, b := runs[p[0]], runs[p[1]]
		if len(a) == 0 || len(b) == 0 {
			missing := p[0]
			if len(a) != 0 {
				missing = p[1]
			}
			return fmt.Errorf("-pair %s/%s: no ns/op lines of %s", p[0], p[1], missing)
		}
		if len(a) != len(b) {
			return fmt.Errorf("-pair %s/%s: %d rounds of %s but %d of %s", p[0], p[1], len(a), p[0], len(b), p[1])
		}
		ratios := make([]float64, len(a))
		texts := make([]string, len(a))
		for i := range a {
			if b[i] == 0 {
				return errors.New("a baseline of 0 ns/op")
			}
			ratios[i] = a[i] / b[i]
			texts[i] = strconv.FormatFloat(ratios[i], 'f', 2, 64)
		}
		fmt.Fprintf(w, "| %s / %s | %s | **%.2f** |\n", p[0], p[1], strings.Join(texts, ", "), median(ratios))
	}
	return nil
}

// median returns the median of xs (the mean of the middle two for an even
// count); xs is not changed.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

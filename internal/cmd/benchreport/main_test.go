package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReport writes a report from two rounds of a section and checks the
// medians, the per-round ratios and the goal verdicts.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("meta.txt", "date: 2026-01-02 03:04 UTC\ncommit: `abc1234`\ncmd.encode: go test -bench EncodeParts\n")
	write("encode.txt", `goos: linux
BenchmarkEncodeParts/Command-2   	      10	 120000000 ns/op	 1 B/op	 2 allocs/op
BenchmarkEncodeParts/Parts-2     	      10	 100000000 ns/op	 0 B/op	 0 allocs/op
BenchmarkEncodeParts/Command-2   	      10	 200000000 ns/op	 1 B/op	 2 allocs/op
BenchmarkEncodeParts/Parts-2     	      10	 100000000 ns/op	 0 B/op	 0 allocs/op
PASS
`)
	var out strings.Builder
	if err := report(&out, dir); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"| commit | `abc1234` |",
		"go test -bench EncodeParts",
		"| EncodeParts/Command | 160.00 ms (−25% +25%) | 1 | 2 |",
		"| command / parts | 1.20, 2.00 | **1.60** | ≤ 1.50 **not met** |",
		"Not measured in this run (no avro2147.txt).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}

// TestReportMismatchedRounds refuses a ratio whose two benchmarks ran a
// different number of times: their rounds cannot be paired.
func TestReportMismatchedRounds(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "meta.txt"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "encode.txt"), []byte(
		"BenchmarkEncodeParts/Command-2 1 2 ns/op\nBenchmarkEncodeParts/Command-2 1 2 ns/op\nBenchmarkEncodeParts/Parts-2 1 1 ns/op\n"), 0o644)
	var out strings.Builder
	err := report(&out, dir)
	if err == nil || !strings.Contains(err.Error(), "2 rounds of EncodeParts/Command but 1 of EncodeParts/Parts") {
		t.Fatalf("err = %v", err)
	}
}

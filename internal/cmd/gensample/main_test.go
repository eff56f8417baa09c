package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSampleUpToDate checks that the committed sample is what the
// generator writes.
func TestSampleUpToDate(t *testing.T) {
	want, err := Generate(1000)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "..", filepath.FromSlash(File)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go run ./internal/cmd/gensample", File)
	}
	if again, _ := Generate(1000); !bytes.Equal(again, want) {
		t.Errorf("Generate is not deterministic")
	}
}

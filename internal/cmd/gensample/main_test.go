package main

import (
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
)

// TestSampleUpToDate checks that the committed sample is what the
// generator writes.
func TestSampleUpToDate(t *testing.T) {
	testutil.CheckGenerated(t, File, "go run ./internal/cmd/gensample", func() ([]byte, error) { return Generate(1000) })
}

package main

import (
	"strings"
	"testing"
)

// TestRewriteImports: a copy imports the nested module's copies of the
// library's internal packages; an internal package with no copy there is
// refused, but in a test file, which may use the library's test helpers.
func TestRewriteImports(t *testing.T) {
	src := "package p\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/protoavro/protoavro/internal/mapkeys\"\n\tsafe \"github.com/protoavro/protoavro/internal/safetext\"\n)\n"
	got, err := rewriteImports([]byte(src), "beam/internal/otlpid", false)
	want := strings.NewReplacer("protoavro/internal/mapkeys", "protoavro/beam/internal/mapkeys", "protoavro/internal/safetext", "protoavro/beam/internal/safetext").Replace(src)
	if err != nil || string(got) != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	helper := "package p\n\nimport \"github.com/protoavro/protoavro/internal/testutil\"\n"
	if _, err := rewriteImports([]byte(helper), "beam/internal/otlpid", false); err == nil || !strings.Contains(err.Error(), "internal/testutil, which has no copy in beam") {
		t.Errorf("a non-test file importing a package with no copy: %v", err)
	}
	if got, err := rewriteImports([]byte(helper), "beam/internal/otlpid", true); err != nil || string(got) != helper {
		t.Errorf("a test file using the library's test helpers: %q, %v", got, err)
	}
	// kafka has a copy of safetext but none of mapkeys.
	if _, err := rewriteImports([]byte(src), "kafka/internal/x", false); err == nil || !strings.Contains(err.Error(), "internal/mapkeys, which has no copy in kafka") {
		t.Errorf("kafka: %v", err)
	}
}

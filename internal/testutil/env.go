package testutil

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// RequireEnv is the environment variable that, set to "require" (as .ci/run
// sets it), turns a missing external implementation or tool into a test
// failure instead of a skip.
const RequireEnv = "PROTOAVRO_INTEROP"

// Need returns if ok. Otherwise it skips the test with reason, or fails it
// when RequireEnv is "require", so that CI cannot pass by skipping.
func Need(t testing.TB, ok bool, reason string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv(RequireEnv) == "require" {
		t.Fatalf("%s (%s=require)", reason, RequireEnv)
	}
	t.Skip(reason)
}

// DirNames returns the names of the entries of dir, sorted.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// DirNamesWithPrefix returns the names of the entries of dir that start
// with one of prefixes, sorted.
func DirNamesWithPrefix(t testing.TB, dir string, prefixes ...string) []string {
	t.Helper()
	var names []string
	for _, name := range DirNames(t, dir) {
		if slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			names = append(names, name)
		}
	}
	return names
}

// CheckGenerated fails the test unless the committed file at rel (slash
// separated, relative to the repository root) is what generate writes, and
// generate writes the same bytes twice; command is what regenerates it. It
// returns the committed bytes.
func CheckGenerated(t testing.TB, rel, command string, generate func() ([]byte, error)) []byte {
	t.Helper()
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(RepoPath(filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run %s", rel, command)
	}
	if again, err := generate(); err != nil || !bytes.Equal(again, want) {
		t.Errorf("%s: the generator is not deterministic (%v)", rel, err)
	}
	return got
}

package protoavrobeam

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func iterOf[T any](xs ...T) func(*T) bool {
	return func(p *T) bool {
		if len(xs) == 0 {
			return false
		}
		*p, xs = xs[0], xs[1:]
		return true
	}
}

// A runner that drops a failed shard write and drains the pipeline (prism
// does) runs the finalizing step without that shard's file: it must fail
// and rename nothing, not publish the shard empty beside the others.
func TestFinalizeRefusesUncommittedShard(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "out")
	fn := &finalizeFn{Prefix: prefix, Shards: 3, Suffix: ".delimited"}
	committed := tempName(prefix, 1, 3, ".delimited")
	if err := os.WriteFile(committed, []byte{1, 7}, 0o644); err != nil {
		t.Fatal(err)
	}
	var emitted []string
	// Shards 0 and 1 received elements; only shard 1 was committed.
	err := fn.ProcessElement(context.Background(), nil, iterOf(committed), iterOf([]byte{1, 1, 0}), func(s string) { emitted = append(emitted, s) })
	if err == nil || !strings.Contains(err.Error(), "shard 0") || !strings.Contains(err.Error(), "no write of it was committed") {
		t.Fatalf("err = %v, want shard 0 reported as not committed", err)
	}
	if len(emitted) != 0 {
		t.Errorf("emitted %v", emitted)
	}
	if got := dirFiles(t, dir); len(got) != 1 || filepath.Join(dir, got[0]) != committed {
		t.Errorf("files after the refused finalization: %v, want only %s", got, committed)
	}

	// With shard 0 unused, the same input finalizes: shard 1 renamed, shards
	// 0 and 2 written empty.
	err = fn.ProcessElement(context.Background(), nil, iterOf(committed), iterOf([]byte{0, 1, 0}), func(s string) { emitted = append(emitted, s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(emitted) != 3 {
		t.Fatalf("emitted %v, want 3 shards", emitted)
	}
	// Marks that are missing (their combine's bundle dropped) fail too.
	for _, marks := range [][][]byte{nil, {{0, 1, 0}, {0, 1, 0}}} {
		err := fn.ProcessElement(context.Background(), nil, iterOf[string](), iterOf(marks...), func(string) { t.Error("emitted a shard") })
		if err == nil || !strings.Contains(err.Error(), "values of the shard marks") {
			t.Errorf("%d marks: err = %v, want the marks reported", len(marks), err)
		}
	}
	for i, name := range emitted {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 2, false: 0}[i == 1]; len(b) != want {
			t.Errorf("shard %d has %d bytes, want %d", i, len(b), want)
		}
	}
}

// An output prefix is a name, not a pattern: under a directory whose name
// holds glob metacharacters, finalization removes its own stray temporary
// file and not that of another output the pattern would match.
func TestFinalizePrefixWithMetacharacters(t *testing.T) {
	root := t.TempDir()
	dir, twin := filepath.Join(root, "run[1]"), filepath.Join(root, "run1")
	for _, d := range []string{dir, twin} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	prefix := filepath.Join(dir, "out")
	stray := tempName(prefix, 0, 1, ".delimited")
	other := tempName(filepath.Join(twin, "out"), 0, 1, ".delimited")
	for _, f := range []string{stray, other} {
		if err := os.WriteFile(f, []byte{1, 7}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fn := &finalizeFn{Prefix: prefix, Shards: 1, Suffix: ".delimited"}
	if err := fn.ProcessElement(context.Background(), nil, iterOf[string](), iterOf([]byte{0}), func(string) {}); err != nil {
		t.Fatal(err)
	}
	if got := dirFiles(t, dir); len(got) != 1 || got[0] != "out-00000-of-00001.delimited" {
		t.Errorf("%s holds %q, want only the final shard", dir, got)
	}
	if got := dirFiles(t, twin); len(got) != 1 || filepath.Join(twin, got[0]) != other {
		t.Errorf("%s holds %q, want the other output's file kept", twin, got)
	}
}

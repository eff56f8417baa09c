package interop

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
)

// TestPythonParsesEngineGolden: every golden schema of the engine preset
// (protoavro/testdata/golden/engine) parses with Python avro, an Avro
// implementation independent of the Go ones the golden test uses, and
// Python gives back the record it was given.
func TestPythonParsesEngineGolden(t *testing.T) {
	py := python()
	testutil.Need(t, py != nil, pythonReason)
	files, err := filepath.Glob(testutil.RepoPath("protoavro", "testdata", "golden", "engine", "*.avsc"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < len(testutil.Messages()) {
		t.Fatalf("%d golden schemas of the engine preset, want one per test message (%d)", len(files), len(testutil.Messages()))
	}
	// One process for all files: it prints each schema's full name.
	const script = `import sys, avro.schema
for p in sys.argv[1:]:
    with open(p, encoding="utf-8") as f:
        s = avro.schema.parse(f.read())
    print(s.type, s.fullname)`
	out, err := exec.Command(py.exe, append([]string{"-c", script}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s rejects a schema: %v\n%s", py, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(files) {
		t.Fatalf("%d lines for %d schemas:\n%s", len(lines), len(files), out)
	}
	for i, f := range files {
		want := "record " + strings.TrimSuffix(filepath.Base(f), ".avsc")
		if lines[i] != want {
			t.Errorf("%s: Python says %q, want %q", f, lines[i], want)
		}
	}
}

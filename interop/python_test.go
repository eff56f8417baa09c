package interop

import (
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro"
)

// Python's avro library (Debian python3-avro). Debian installs it for
// Debian's own interpreter, which need not be the first python3 on PATH.

type pythonInfo struct {
	exe     string
	version string
	codecs  map[string]bool // the block codecs the library has modules for
}

var python = sync.OnceValue(func() *pythonInfo {
	probe := `import avro, avro.codecs as c
print(avro.__version__)
print("null deflate" + (" snappy" if c.has_snappy else "") + (" zstandard" if c.has_zstandard else ""))`
	for _, exe := range []string{"python3", "/usr/bin/python3"} {
		out, err := exec.Command(exe, "-c", probe).Output()
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 2 {
			continue
		}
		info := &pythonInfo{exe: exe, version: lines[0], codecs: map[string]bool{}}
		for _, c := range strings.Fields(lines[1]) {
			info.codecs[c] = true
		}
		return info
	}
	return nil
})

func (p *pythonInfo) String() string { return "Python avro " + p.version + " (" + p.exe + ")" }

const pythonReason = "python3-avro not installed: apt-get install python3-avro python3-snappy python3-zstandard"

// pythonCodecs returns the codecs to test: those the library has modules
// for. A missing one is logged, or fails the test under
// PROTOAVRO_INTEROP=require.
func pythonCodecs(t *testing.T) (*pythonInfo, []protoavro.Compression) {
	py := python()
	testutil.Need(t, py != nil, pythonReason)
	var codecs []protoavro.Compression
	for _, c := range allCodecs {
		if py.codecs[string(c)] {
			codecs = append(codecs, c)
		} else {
			missing(t, "python3-avro has no "+string(c)+" codec: apt-get install python3-snappy python3-zstandard")
		}
	}
	return py, codecs
}

func TestPythonReads(t *testing.T) {
	t.Parallel()
	py, codecs := pythonCodecs(t)
	oursToTheirs(t, readTest{impl: py.String(), codecs: codecs, read: func(files []string) []byte {
		return run(t, py.exe, append([]string{repoDir("py", "read.py")}, files...)...)
	}})
}

func TestPythonWrites(t *testing.T) {
	t.Parallel()
	py, codecs := pythonCodecs(t)
	theirsToOurs(t, writeTest{impl: py.String(), codecs: codecs, write: func(jobs string) []byte {
		return run(t, py.exe, repoDir("py", "write.py"), jobs)
	}})
}

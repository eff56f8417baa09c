package interop

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
)

// avsc, Avro for JavaScript (npm), with snappyjs and zstd-codec for the
// snappy and zstandard codecs, pinned in js/package.json and installed by
// `npm ci --prefix interop/js`.

type nodeInfo struct {
	exe, node, avsc string
}

var nodeJS = sync.OnceValue(func() *nodeInfo {
	exe, err := exec.LookPath("node")
	if err != nil {
		return nil
	}
	var pkg struct{ Version string }
	b, err := os.ReadFile(repoDir("js", "node_modules", "avsc", "package.json"))
	if err != nil || json.Unmarshal(b, &pkg) != nil {
		return nil
	}
	for _, dep := range []string{"snappyjs", "zstd-codec"} {
		if _, err := os.Stat(repoDir("js", "node_modules", dep, "package.json")); err != nil {
			return nil
		}
	}
	v, err := exec.Command(exe, "--version").Output()
	if err != nil {
		return nil
	}
	return &nodeInfo{exe: exe, node: strings.TrimSpace(string(v)), avsc: pkg.Version}
})

func (n *nodeInfo) String() string { return "avsc " + n.avsc + " (node " + n.node + ")" }

const nodeReason = "avsc not installed: npm ci --prefix interop/js (needs node and npm)"

func TestJavaScriptReads(t *testing.T) {
	t.Parallel()
	js := nodeJS()
	testutil.Need(t, js != nil, nodeReason)
	oursToTheirs(t, readTest{impl: js.String(), codecs: allCodecs, read: func(files []string) []byte {
		return run(t, js.exe, append([]string{repoDir("js", "read.js")}, files...)...)
	}})
}

func TestJavaScriptWrites(t *testing.T) {
	t.Parallel()
	js := nodeJS()
	testutil.Need(t, js != nil, nodeReason)
	theirsToOurs(t, writeTest{impl: js.String(), codecs: allCodecs, write: func(jobs string) []byte {
		return run(t, js.exe, repoDir("js", "write.js"), jobs)
	}})
}

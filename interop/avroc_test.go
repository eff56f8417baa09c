package interop

import (
	"bytes"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/protoavro/protoavro/protoavro"
)

// Avro C 1.11 (Debian): avrocat from avro-bin reads files and prints Avro
// C's own JSON; c/avroc.c, which the tests build with cc against
// libavro-dev and jansson, reads files through the generic value API (all
// values exactly, which avrocat cannot print) and writes them. Avro C reads
// and writes the null, deflate, snappy and lzma (xz) codecs; it has no
// zstandard and no logical types.

var avroCCodecs = []protoavro.Compression{protoavro.CompressionNull, protoavro.CompressionDeflate, protoavro.CompressionSnappy}

const avroCReason = "libavro-dev not installed: apt-get install libavro-dev libjansson-dev gcc"

// Two limitations of Avro C shape its tests (docs/interop.md):
//
//   - Its map API takes and returns keys as NUL-terminated C strings, so a
//     map key holding a NUL is cut short (and may collide with another key).
//     The messages given to Avro C have no such keys.
//   - It parses schemas with jansson without JSON_ALLOW_NUL, so it rejects a
//     schema whose JSON holds \u0000: a bytes default with a zero byte, as
//     protoavro writes for a Uint64AsDecimal field's zero default ("\u0000")
//     and for explicit proto2 bytes defaults in the Java profile
//     (Defaults.bytes_default). It cannot read or write files with such a
//     schema; the tests expect exactly these failures.

// nulInSchema reports the known failure of schemas holding \u0000.
func nulInSchema(c *testCase) string {
	if bytes.Contains(c.avsc, []byte(`\u0000`)) {
		return `Avro C rejects a schema whose JSON holds \u0000 (a bytes default with a zero byte)`
	}
	return ""
}

type avroCInfo struct {
	exe   string // the compiled c/avroc.c
	impl  string // its name and version in test messages
	built        // building it
}

var avroC = sync.OnceValue(func() *avroCInfo {
	cc, err := exec.LookPath("cc")
	if err != nil {
		return nil
	}
	for _, h := range []string{"/usr/include/avro.h", "/usr/include/jansson.h"} {
		if _, err := os.Stat(h); err != nil {
			return nil
		}
	}
	info := &avroCInfo{exe: workDir + "/avroc"}
	out, err := exec.Command(cc, "-O1", "-o", info.exe, repoDir("c", "avroc.c"), "-lavro", "-ljansson", "-lm").CombinedOutput()
	if err != nil {
		info.err = &cmdError{"cc", err, string(out)}
	}
	info.impl = "Avro C " + debianVersion("libavro23") + " (libavro through c/avroc.c)"
	return info
})

// debianVersion returns the installed version of a Debian package.
func debianVersion(pkg string) string {
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", pkg).Output()
	if err != nil {
		return "unknown"
	}
	return string(out)
}

func TestAvroCReads(t *testing.T) {
	t.Parallel()
	c := needBuilt(t, avroC(), avroCReason)
	oursToTheirs(t, readTest{impl: c.impl, codecs: avroCCodecs,
		read: func(files []string) []byte {
			return run(t, c.exe, append([]string{"read"}, files...)...)
		},
		parse:        jsonDialect{decimalAsBytes: true}.parse,
		noNULMapKeys: true,
		knownFailure: nulInSchema,
	})
}

func TestAvroCWrites(t *testing.T) {
	t.Parallel()
	c := needBuilt(t, avroC(), avroCReason)
	theirsToOurs(t, writeTest{impl: c.impl, codecs: avroCCodecs,
		write: func(jobs string) []byte {
			return run(t, c.exe, "write", jobs)
		},
		decimalAsBytes:    true,
		noNULMapKeys:      true,
		knownFailure:      nulInSchema,
		dropsLogicalTypes: true,
	})
}

package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
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

const (
	avrocatReason = "avro-bin not installed: apt-get install avro-bin"
	avroCReason   = "libavro-dev not installed: apt-get install libavro-dev libjansson-dev gcc"
)

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
	exe     string // the compiled c/avroc.c
	version string
	err     error // building it
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
	info.version = debianVersion("libavro23")
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

func needAvroC(t *testing.T) *avroCInfo {
	t.Helper()
	c := avroC()
	need(t, c != nil, avroCReason)
	if c.err != nil {
		t.Fatal(c.err)
	}
	return c
}

func TestAvroCReads(t *testing.T) {
	t.Parallel()
	c := needAvroC(t)
	oursToTheirs(t, readTest{
		impl:   "Avro C " + c.version + " (libavro through c/avroc.c)",
		codecs: avroCCodecs,
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
	c := needAvroC(t)
	theirsToOurs(t, writeTest{
		impl:   "Avro C " + c.version + " (libavro through c/avroc.c)",
		codecs: avroCCodecs,
		write: func(jobs string) []byte {
			return run(t, c.exe, "write", jobs)
		},
		decimalAsBytes:    true,
		noNULMapKeys:      true,
		knownFailure:      nulInSchema,
		dropsLogicalTypes: true,
	})
}

// TestAvrocatReads reads the files with avrocat, the command-line reader of
// Avro C. avrocat prints through jansson, which has no NaN or infinity and
// takes NUL-terminated strings: a record holding a non-finite float is
// left out of its output (with an error on stderr, and exit status 0), and
// a string or bytes value holding a NUL is cut at the NUL. The test expects
// exactly that.
func TestAvrocatReads(t *testing.T) {
	t.Parallel()
	avrocat, err := exec.LookPath("avrocat")
	need(t, err == nil, avrocatReason)
	oursToTheirs(t, readTest{
		impl:   "avrocat (Avro C, avro-bin " + debianVersion("avro-bin") + ")",
		codecs: avroCCodecs,
		read: func(files []string) []byte {
			// avrocat reads one file and prints a record per line.
			var out bytes.Buffer
			for _, f := range files {
				ro := readerOutput{File: f}
				var stdout, stderr bytes.Buffer
				cmd := exec.Command(avrocat, f)
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					ro.Error = fmt.Sprintf("%v: %s", err, strings.TrimSpace(stderr.String()))
				}
				for _, r := range bytes.Split(stdout.Bytes(), []byte("\n")) {
					if len(r) > 0 {
						ro.Records = append(ro.Records, json.RawMessage(r))
					}
				}
				b, err := json.Marshal(ro)
				if err != nil {
					t.Fatal(err)
				}
				out.Write(b)
				out.WriteByte('\n')
			}
			return out.Bytes()
		},
		parse: jsonDialect{avroC: true}.parse,
		skip: func(want record) (string, bool) {
			if hasNonFinite(want) {
				return "a NaN or infinity: avrocat cannot print it (jansson has no NaN or infinity) and leaves the record out", true
			}
			return "", false
		},
		want:         func(want record) any { return truncateAtNUL(decimalsToBytes(want)) },
		noNULMapKeys: true,
		knownFailure: nulInSchema,
	})
}

package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
)

// avrocat is the command-line reader of Avro C (avroc_test.go), packaged
// apart from the library.

const avrocatReason = "avro-bin not installed: apt-get install avro-bin"

// TestAvrocatReads reads the files with avrocat, the command-line reader of
// Avro C. avrocat prints through jansson, which has no NaN or infinity and
// takes NUL-terminated strings: a record holding a non-finite float is
// left out of its output (with an error on stderr, and exit status 0), and
// a string or bytes value holding a NUL is cut at the NUL. The test expects
// exactly that.
func TestAvrocatReads(t *testing.T) {
	t.Parallel()
	avrocat, err := exec.LookPath("avrocat")
	testutil.Need(t, err == nil, avrocatReason)
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

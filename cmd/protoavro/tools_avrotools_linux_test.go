package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestAvroToolsOnPseudoTerminal: on a real terminal, the avro-tools
// command line "concat a.avro b.avro out.avro" is refused with the note on
// --out, fromjson refuses to write its container file there, and tojson
// refuses to read "-" from it; nothing reaches the terminal.
func TestAvroToolsOnPseudoTerminal(t *testing.T) {
	t.Parallel()
	ptmx, pts := openPTY(t)
	// Ends of file typed on the terminal (Ctrl-D, one per read), so that
	// a command that reads it fails rather than waits.
	if _, err := ptmx.Write(bytes.Repeat([]byte{4}, 64)); err != nil {
		t.Skipf("write to the pseudo-terminal: %v", err)
	}
	dir := t.TempDir()
	a := writeToolFile(t, dir, "a.avro", "null")
	b := writeToolFile(t, dir, "b.avro", "null")
	for _, c := range []struct {
		args []string
		in   *os.File // nil: an empty reader
		want string
	}{
		{[]string{"concat", a, b, b}, nil, "protoavro: refusing to write binary Avro data to a terminal: give --out FILE or redirect standard output " + copyHint("concat") + "\n"},
		{[]string{"fromjson", "--schema-file", dir + "/all.avsc", "/dev/null"}, nil, "protoavro: refusing to write binary Avro data to a terminal: give --out FILE or redirect standard output\n"},
		{[]string{"tojson", "-"}, pts, "protoavro: -: refusing to read binary Avro data from a terminal: give the file, or redirect standard input\n"},
	} {
		var stderr bytes.Buffer
		var code int
		if c.in != nil {
			var stdout bytes.Buffer
			code = run(c.args, c.in, &stdout, &stderr)
		} else {
			code = run(c.args, strings.NewReader(""), pts, &stderr)
		}
		if code != exitUsage || stderr.String() != c.want {
			t.Errorf("%q: exit code %d, stderr %q; want 2, %q", c.args, code, stderr.String(), c.want)
		}
	}
}

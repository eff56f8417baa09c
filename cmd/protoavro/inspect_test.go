package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/protoavro/ocf"
)

// TestInspectDamagedHeader: a header whose schema does not parse (an
// invalid name, text that is not JSON) or whose codec protoavro does not
// read is a damaged file: inspect still describes it, and exits 1 with the
// error, in the text and the JSON output.
func TestInspectDamagedHeader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, c := range map[string]struct {
		meta map[string]string
		want string
	}{
		"badname.avro":  {map[string]string{"avro.schema": `{"type":"record","name":"1R","fields":[]}`}, `avro.schema: invalid Avro schema: schema: invalid record name "1R"`},
		"notjson.avro":  {map[string]string{"avro.schema": `{nope`}, "avro.schema: invalid Avro schema: not JSON"},
		"badcodec.avro": {map[string]string{"avro.schema": `"long"`, "avro.codec": "lzma"}, `avro.codec: unsupported codec "lzma" (protoavro reads null, deflate, snappy and zstandard)`},
	} {
		path := writeHeaderOnly(t, filepath.Join(dir, name), c.meta)
		r := runCmd(t, "inspect", path)
		wantRun(t, r, exitData, path+": "+c.want)
		if !strings.Contains(r.stdout, "file:        "+path) || !strings.Contains(r.stdout, "records:     0") {
			t.Errorf("inspect %s: stdout %q", name, r.stdout)
		}
		r = runCmd(t, "inspect", "--json", path)
		wantRun(t, r, exitData, path+": "+c.want)
		var j inspectJSON
		if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || !strings.Contains(j.Error, c.want) || j.File != path {
			t.Errorf("inspect --json %s: %q (%v)", name, r.stdout, err)
		}
	}
	good := writeHeaderOnly(t, filepath.Join(dir, "good.avro"), map[string]string{"avro.schema": `"long"`, "avro.codec": "zstandard"})
	if r := runCmd(t, "inspect", good); r.code != 0 || r.stderr != "" {
		t.Errorf("inspect good.avro: %d %q", r.code, r.stderr)
	}
}

// TestInspectEscapes: inspect prints the file name, metadata keys and the
// schema with control characters, C1 controls and bidirectional overrides
// escaped; the JSON output is still JSON, with the same values.
func TestInspectEscapes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := strings.NewReplacer("\x1b", `\u001b`, "\x07", `\u0007`).Replace(hostileText)
	schema := `{"type":"record","name":"R","doc":"` + doc + `","fields":[]}`
	path := writeContainer(t, filepath.Join(dir, "f"+hostileText+".avro"), schema, ocf.Null,
		map[string][]byte{"k" + hostileText: []byte("v"), "m": []byte("x\u202ey")}, testBlock{count: 1})
	r := runCmd(t, "inspect", "--schema", path)
	if r.code != 0 {
		t.Fatalf("inspect: %d %s", r.code, r.stderr)
	}
	wantEscaped(t, "inspect --schema", r.stdout, `\x1b[2J`, `\a`, `\u009b`, `\u202e`, `\u001b[2J`, `\u0007`)
	r = runCmd(t, "inspect", "--json", "--schema", path)
	if r.code != 0 {
		t.Fatalf("inspect --json: %d %s", r.code, r.stderr)
	}
	wantEscaped(t, "inspect --json", r.stdout, `\u001b[2J`, `\u0007`, `\u009b`, `\u202e`)
	var j struct {
		File     string
		Metadata map[string]struct{ Size int }
		Schema   struct{ Doc string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil {
		t.Fatalf("inspect --json: %q: %v", r.stdout, err)
	}
	if _, ok := j.Metadata["k"+hostileText]; j.File != path || !ok || j.Schema.Doc != hostileText {
		t.Errorf("inspect --json: %+v; want the file's name, keys and schema as they are", j)
	}
}

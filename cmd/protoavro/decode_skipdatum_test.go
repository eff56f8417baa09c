package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// personArgs are the type flags of Person, version 2 (testdata/proto).
var personArgs = []string{"-I", "../../testdata/proto/evolution/v2", "-m", "protoavro.test.evolution.Person", "person.proto"}

// nullablePersonSchema is Person's name and age as Spark and avsc write
// them: every column a union with null.
const nullablePersonSchema = `{"type":"record","name":"Person","fields":[
  {"name":"name","type":["null","string"],"default":null},
  {"name":"age","type":"long"}]}`

// nullablePersonDatum is a datum of nullablePersonSchema; a nil name is null.
func nullablePersonDatum(name []byte, age int64) []byte {
	var b []byte
	if name == nil {
		b = binary.AppendVarint(b, 0)
	} else {
		b = append(binary.AppendVarint(binary.AppendVarint(b, 1), int64(len(name))), name...)
	}
	return binary.AppendVarint(b, age)
}

// personLine is a Person of nullablePersonSchema as decode writes it in JSON
// Lines (an age of 0 is left out).
var personLine = regexp.MustCompile(`^\{"name":"([^"]*)"(?:,"age":"\d+")?\}\n$`)

// decodedNames returns the names of the JSON Lines records out, in order.
func decodedNames(t *testing.T, out string) []string {
	t.Helper()
	var names []string
	for line := range strings.Lines(out) {
		m := personLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("unexpected line %q", line)
		}
		names = append(names, m[1])
	}
	return names
}

// TestDecodeSkipBadSkipsDatumAlone decodes a file of nullable columns, as
// Spark writes them, into a proto3 Person whose name cannot be null, with
// --skip-bad: each record holding a null name, or a name of invalid UTF-8,
// is skipped alone (at the start, the middle and the end of blocks), every
// other record is decoded, and the rejects file holds the bad datums as
// they are in the file, with 1 and 3 workers, as JSON Lines and
// length-delimited.
func TestDecodeSkipBadSkipsDatumAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := map[int][]byte{
		0:   nullablePersonDatum(nil, 0),
		10:  nullablePersonDatum(nil, 10),
		199: nullablePersonDatum([]byte("p\xff"), 199),
		200: nullablePersonDatum(nil, 200),
		599: nullablePersonDatum(nil, 599),
	}
	var wantNames []string
	var wantRejects []byte
	var blocks []testBlock
	for b := range 3 {
		var data []byte
		for i := b * 200; i < b*200+200; i++ {
			if d, ok := bad[i]; ok {
				data = append(data, d...)
				wantRejects = append(wantRejects, d...)
				continue
			}
			data = append(data, nullablePersonDatum(fmt.Appendf(nil, "p%d", i), int64(i))...)
			wantNames = append(wantNames, fmt.Sprintf("p%d", i))
		}
		blocks = append(blocks, testBlock{count: 200, data: data})
	}
	in := writeContainer(t, filepath.Join(dir, "spark.avro"), nullablePersonSchema, ocf.Deflate, nil, blocks...)
	st, err := os.Stat(in)
	if err != nil {
		t.Fatal(err)
	}
	summary := fmt.Sprintf("decoded 595 records (%s in, ", formatBytes(st.Size()))
	skipped := fmt.Sprintf("; 5 records, 0 damaged blocks and %d B skipped (written to ", len(wantRejects))
	var delimited string
	for _, format := range []string{"jsonl", "delimited"} {
		for _, workers := range []string{"1", "3"} {
			rejects := filepath.Join(dir, "rejects-"+format+"-"+workers)
			args := append(slices.Clone(personArgs), in, "--skip-bad", "--rejects", rejects, "--format", format, "--workers", workers)
			r := runIO(t, nil, append([]string{"decode"}, args...)...)
			if r.code != 0 || !strings.Contains(r.stderr, summary) || !strings.Contains(r.stderr, skipped) ||
				!strings.Contains(r.stderr, "; first: "+in+": record 0: block 0 at byte ") {
				t.Errorf("%s, --workers %s: exit code %d, stderr %q; want %q and %q", format, workers, r.code, r.stderr, summary, skipped)
			}
			if got, err := os.ReadFile(rejects); err != nil || !bytes.Equal(got, wantRejects) {
				t.Errorf("%s, --workers %s: rejects %x (%v), want the bad datums %x", format, workers, got, err, wantRejects)
			}
			switch {
			case format == "jsonl":
				if got := decodedNames(t, r.stdout); !slices.Equal(got, wantNames) {
					t.Errorf("--workers %s: decoded %d records, want %d: %q", workers, len(got), len(wantNames), got)
				}
			case delimited == "":
				if n := len(splitDelimited(t, []byte(r.stdout))); n != len(wantNames) {
					t.Errorf("delimited: %d records, want %d", n, len(wantNames))
				}
				delimited = r.stdout
			case r.stdout != delimited:
				t.Errorf("delimited, --workers %s: the records differ from --workers 1's", workers)
			}
		}
	}
}

// TestDecodeSkipBadAvscFile decodes a file that avsc (Avro for JavaScript)
// wrote, 1,000 records of a nullable name and an age, record 10's name
// null, into Person with --skip-bad: 999 records, and the rejects file
// holds record 10's datum (the null branch, age 10).
func TestDecodeSkipBadAvscFile(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	avsc, _ := filepath.Abs(filepath.Join("..", "..", "interop", "js", "node_modules", "avsc"))
	_, statErr := os.Stat(filepath.Join(avsc, "package.json"))
	testutil.Need(t, err == nil && statErr == nil, "avsc not installed: npm ci --prefix interop/js (needs node and npm)")
	dir := t.TempDir()
	in := filepath.Join(dir, "avsc.avro")
	script := `const avsc = require(process.argv[1]);
const t = avsc.Type.forSchema(JSON.parse(process.argv[2]));
const enc = avsc.createFileEncoder(process.argv[3], t, {codec: 'null'});
for (let i = 0; i < 1000; i++) enc.write({name: i == 10 ? null : 'p' + i, age: i});
enc.end();`
	if out, err := exec.Command(node, "-e", script, avsc, nullablePersonSchema, in).CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	rejects := filepath.Join(dir, "rejects")
	for _, workers := range []string{"1", "2"} {
		args := append(slices.Clone(personArgs), in, "--skip-bad", "--rejects", rejects, "--format", "jsonl", "--workers", workers)
		r := runIO(t, nil, append([]string{"decode"}, args...)...)
		wantRun(t, r, 0, "; 1 record, 0 damaged blocks and 2 B skipped (written to "+rejects+"); first: "+in+": record 10: ")
		if !strings.Contains(r.stderr, "protoavro: decoded 999 records (") {
			t.Errorf("--workers %s: %q, want 999 records decoded", workers, r.stderr)
		}
		names := decodedNames(t, r.stdout)
		if len(names) != 999 || names[9] != "p9" || names[10] != "p11" || names[998] != "p999" {
			t.Errorf("--workers %s: decoded %d records: %q", workers, len(names), names)
		}
		if got, err := os.ReadFile(rejects); err != nil || !bytes.Equal(got, []byte{0x00, 0x14}) {
			t.Errorf("--workers %s: rejects %x (%v), want 0014 (null, age 10)", workers, got, err)
		}
	}
}

// TestDecodeNamesFileOptions decodes, with -m and a mapping flag, a file
// encode wrote with --preset engine: the incompatibility names the file's
// options and says that decode reads with them without the mapping flags
// (which it does).
func TestDecodeNamesFileOptions(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{"doc.proto": `syntax = "proto3";
package doc;
import "google/protobuf/struct.proto";
message Doc { google.protobuf.Struct body = 1; }
`})
	types := []string{"-I", dir, "-m", "doc.Doc", "doc.proto"}
	in := filepath.Join(dir, "doc.avro")
	r := runIO(t, []byte(`{"body":{"a":1,"b":["x"]}}`+"\n"), append(append([]string{"encode"}, types...), "--format", "jsonl", "--preset", "engine", "--out", in)...)
	if r.code != 0 {
		t.Fatalf("encode: %d %s", r.code, r.stderr)
	}
	r = runIO(t, nil, append(append([]string{"decode"}, types...), "--timestamps", "micros", "--format", "jsonl", in)...)
	wantRun(t, r, 1, `incompatible schemas`)
	note := ` (the file was written with options "` + protoavro.EngineReady().String() + `"; decode reads it with them without the mapping flags)` + "\n"
	if !strings.HasSuffix(r.stderr, note) {
		t.Errorf("stderr %q does not end with %q", r.stderr, note)
	}
	r = runIO(t, nil, append(append([]string{"decode"}, types...), "--format", "jsonl", in)...)
	if r.code != 0 || r.stdout != `{"body":{"a":1,"b":["x"]}}`+"\n" {
		t.Errorf("decode without mapping flags: exit code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

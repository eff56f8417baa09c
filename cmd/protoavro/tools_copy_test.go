package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/protoavro/ocf"
)

// sameSchemaBase is the schema of the first file of each pair in
// TestCopySchemasCompared; each case changes one attribute of it.
const sameSchemaBase = `{"type":"record","name":"t.Foo","fields":[
 {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
 {"name":"fx","type":{"type":"fixed","name":"F4","size":4}},
 {"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},
 {"name":"n","type":"int","default":7}
]}`

// sameSchemaRecord is a record of sameSchemaBase and of every variant
// (fixedValue is replaced for other fixed sizes).
const sameSchemaRecord = `{"ts":1700000000000,"dec":"\u0001\u0000","fx":"abcd","e":"RED","n":1}`

// writeSchemaFile writes the record with fromjson to dir/name under schema.
func writeSchemaFile(t *testing.T, dir, name, schema, record string) string {
	t.Helper()
	avsc := filepath.Join(dir, name+".avsc")
	if err := os.WriteFile(avsc, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if r := runIO(t, []byte(record+"\n"), "fromjson", "--schema", avsc, "--out", path); r.code != 0 {
		t.Fatalf("fromjson %s: %d %s", name, r.code, r.stderr)
	}
	return path
}

// TestCopySchemasCompared: cat and concat refuse files whose schemas have
// the same Parsing Canonical Form but differ in an attribute that changes
// what the values mean (logical type, decimal precision and scale) or that
// avro-tools compares (names, fixed size, enum symbols, defaults, field
// order), naming the attribute, its path and both files; identical
// schemas, and schemas that differ only in docs, still concatenate.
func TestCopySchemasCompared(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		old, new string // replaced in sameSchemaBase
		record   [2]string
		want     string
	}{
		{name: "logical type", old: "timestamp-millis", new: "timestamp-micros",
			want: "t.Foo.ts: logicalType timestamp-millis vs timestamp-micros"},
		{name: "logical type removed", old: `{"type":"long","logicalType":"timestamp-millis"}`, new: `"long"`,
			want: "t.Foo.ts: logicalType timestamp-millis vs none"},
		{name: "precision", old: `"precision":10`, new: `"precision":12`,
			want: "t.Foo.dec: precision 10 vs 12"},
		{name: "scale", old: `"scale":2`, new: `"scale":6`,
			want: "t.Foo.dec: scale 2 vs 6"},
		{name: "fixed size", old: `"size":4`, new: `"size":8`, record: [2]string{`"abcd"`, `"abcdefgh"`},
			want: "t.Foo.fx: size 4 vs 8"},
		{name: "record name", old: `"name":"t.Foo"`, new: `"name":"t.Bar"`,
			want: "t.Foo: name t.Foo vs t.Bar"},
		{name: "namespace", old: `"name":"t.Foo"`, new: `"name":"u.Foo"`,
			want: "t.Foo: name t.Foo vs u.Foo"},
		{name: "fixed name", old: `"name":"F4"`, new: `"name":"G4"`,
			want: "t.Foo.fx: name t.F4 vs t.G4"},
		{name: "field name", old: `{"name":"n",`, new: `{"name":"m",`, record: [2]string{`"n":1`, `"m":1`},
			want: "t.Foo: field 4 n vs m"},
		{name: "enum symbols", old: `["RED","GREEN"]`, new: `["RED","BLUE"]`,
			want: "t.Foo.e: symbol 1 GREEN vs BLUE"},
		{name: "enum symbol added", old: `["RED","GREEN"]`, new: `["RED","GREEN","BLUE"]`,
			want: "t.Foo.e: symbols 2 vs 3"},
		{name: "enum default", old: `"symbols":["RED","GREEN"]`, new: `"symbols":["RED","GREEN"],"default":"RED"`,
			want: `t.Foo.e: default none vs "RED"`},
		{name: "field default", old: `"default":7`, new: `"default":8`,
			want: "t.Foo.n: default 7 vs 8"},
		{name: "field default removed", old: `,"default":7`, new: ``,
			want: "t.Foo.n: default 7 vs none"},
		{name: "field sort order", old: `"default":7`, new: `"default":7,"order":"descending"`,
			want: "t.Foo.n: order ascending vs descending"},
		{name: "attribute", old: `"size":4`, new: `"size":4,"x.unit":"m"`,
			want: `t.Foo.fx: attribute "x.unit" none vs "m"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if !strings.Contains(sameSchemaBase, tc.old) {
				t.Fatalf("%q is not in the schema", tc.old)
			}
			other := strings.Replace(sameSchemaBase, tc.old, tc.new, 1)
			recA, recB := sameSchemaRecord, sameSchemaRecord
			if tc.record[0] != "" {
				recB = strings.Replace(recB, tc.record[0], tc.record[1], 1)
			}
			a := writeSchemaFile(t, dir, "a.avro", sameSchemaBase, recA)
			b := writeSchemaFile(t, dir, "b.avro", other, recB)
			out := filepath.Join(dir, "out.avro")
			for _, cmd := range [][]string{{"concat"}, {"cat"}, {"cat", "--offset", "1"}} {
				r := runCmd(t, append(cmd, "--out", out, a, b)...)
				want := b + ": its schema differs from the schema of " + a + " at " + tc.want + " (" + a + " vs " + b + ")"
				if r.code != exitData || !strings.Contains(r.stderr, want) {
					t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", cmd, r.code, r.stderr, exitData, want)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("%s left an output: %v", cmd, err)
				}
			}
		})
	}

	// The same schema, written by two runs, and a schema that differs only
	// in its docs (which avro-tools does not compare either), concatenate.
	t.Run("same", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		a := writeSchemaFile(t, dir, "a.avro", sameSchemaBase, sameSchemaRecord)
		b := writeSchemaFile(t, dir, "b.avro", sameSchemaBase, sameSchemaRecord)
		c := writeSchemaFile(t, dir, "c.avro", strings.Replace(sameSchemaBase, `"name":"t.Foo",`, `"name":"t.Foo","doc":"other words",`, 1), sameSchemaRecord)
		out := filepath.Join(dir, "out.avro")
		if n := copyRun(t, "concat", "--out", out, a, b, c); n[0] != 3 {
			t.Errorf("concat of one schema: %v", n)
		}
		if got := jsonLines(t, out); len(got) != 3 || got[0] != got[2] {
			t.Errorf("concat: %q", got)
		}
		if n := copyRun(t, "cat", "--offset", "1", "--out", out, a, b, c); n[0] != 2 {
			t.Errorf("cat of one schema: %v", n)
		}
	})
}

// TestCatSkipsRecords: cat and concat find where each record of a block
// ends with a skipper compiled from the schema, without converting it:
// records in blocks cut by --offset and --limit are copied byte for byte,
// whatever their encoding (arrays in blocks of a negative count with their
// byte size), including a record whose JSON would exceed tojson's bound; a
// record whose array block claims more bytes than are left is refused with
// where it is.
func TestCatSkipsRecords(t *testing.T) {
	t.Parallel()
	// A field name of 64 KiB, in records that take no bytes: 10,000 of
	// them are a record of a few bytes and 640 MB of JSON.
	wide := strings.Repeat("w", 64<<10)
	schema := `{"type":"record","name":"R","fields":[
 {"name":"s","type":"string"},
 {"name":"a","type":{"type":"array","items":"long"}},
 {"name":"m","type":{"type":"map","values":["null","int"]}},
 {"name":"wide","type":{"type":"array","items":{"type":"record","name":"W","fields":[{"name":"` + wide + `","type":"null"}]}}}]}`
	long := func(b []byte, vs ...int64) []byte {
		for _, v := range vs {
			b = binary.AppendVarint(b, v)
		}
		return b
	}
	str := func(b []byte, s string) []byte { return append(long(b, int64(len(s))), s...) }
	// Fields s, a, m, wide; an array or map ends with a block of 0 items.
	records := [][]byte{
		long(str(nil, "plain"), 2, 1, 2, 0, 0, 0),             // a: [1, 2]
		long(str(nil, "sized"), -3, 3, 1, 2, 3, 0, 0, 0),      // a: a block of -3 items in 3 bytes
		long(str(long(str(nil, "m"), 0, 1), "k"), 1, 4, 0, 0), // m: {"k": {"int": 4}}
		long(str(nil, "wide"), 0, 0, 10000, 0),                // wide: 10,000 W
		long(str(nil, ""), 1, 1, 0, 0, -1, 0, 0),              // a: [1], wide: a block of -1 items in 0 bytes
		long(str(nil, "last"), 2, 1, 2, 0, 0, 0),              // as the first
	}
	writeFile := func(path string, blocks ...[][]byte) []byte {
		t.Helper()
		var file bytes.Buffer
		w, err := ocf.NewWriter(&file, ocf.WriterOptions{Schema: []byte(schema)})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			if err := w.WriteBlock(int64(len(b)), bytes.Join(b, nil)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return file.Bytes()
	}
	// read returns the data of the blocks of a file and their count of
	// records.
	read := func(path string) ([]byte, int64) {
		t.Helper()
		_, r := readContainer(t, path)
		var data []byte
		var n int64
		for {
			b, err := r.Next()
			if err == io.EOF {
				return data, n
			}
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, b.Data...)
			n += b.Count
		}
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.avro"), filepath.Join(dir, "out.avro")
	writeFile(in, records[:3], records[3:])
	for _, c := range []struct {
		args     []string
		from, to int
	}{
		{[]string{"cat", "--offset", "1"}, 1, 6},
		{[]string{"cat", "--offset", "2", "--limit", "3"}, 2, 5},
		{[]string{"cat", "--limit", "4"}, 0, 4},
		{[]string{"cat", "--offset", "5"}, 5, 6},
		{[]string{"concat"}, 0, 6},
	} {
		copyRun(t, append(c.args, "--out", out, in)...)
		data, n := read(out)
		if want := bytes.Join(records[c.from:c.to], nil); n != int64(c.to-c.from) || !bytes.Equal(data, want) {
			t.Errorf("%q: %d records, %x; want records %d to %d, %x", c.args, n, data, c.from, c.to, want)
		}
	}

	// A record whose array block claims 100 bytes where 4 are left: the
	// file is refused at that record, and no output is left.
	bad := filepath.Join(dir, "bad.avro")
	badRecord := long(str(nil, "x"), -1, 100, 1, 0, 0, 0) // the size at byte 3, 4 bytes after it
	file := writeFile(bad, [][]byte{records[0], badRecord})
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, "cat", "--offset", "1", "--out", out, bad)
	blockAt := len(file) - 16 - len(records[0]) - len(badRecord) - 2 // the sync marker, the data, the count and size
	want := fmt.Sprintf("%s: record 1 (block 0 at byte %d, byte %d of its data): a at byte 3: truncated input: block size 100 exceeds the 4 bytes left", bad, blockAt, len(records[0]))
	if r.code != exitData || !strings.Contains(r.stderr, want) {
		t.Errorf("cat of a bad record: exit %d, %q; want %q", r.code, r.stderr, want)
	}
	wantOnly(t, dir, "in.avro", "bad.avro")
}

// TestCopyChecksBlocks: cat and concat check the records of every block
// they copy, copied as stored or compressed again, whole or in part: a
// block whose records do not match its count or the schema (fewer
// records, bytes after the last, a record of more zero-size items than a
// reader accepts, more empty records than its data can hold) is an error
// naming the file, the block and its byte offset, and no output is left.
func TestCopyChecksBlocks(t *testing.T) {
	t.Parallel()
	empties := binary.AppendVarint(nil, 1<<62) // an array of 2^62 nulls
	for _, c := range []struct {
		name, schema string
		good, bad    testBlock
		want         string
	}{
		{"short", `"long"`, testBlock{2, []byte{2, 4}}, testBlock{3, []byte{2, 4}},
			"record 4 (block 1 at byte %d, byte 2 of its data): datum at byte 0: truncated input"},
		{"trailing", `"long"`, testBlock{2, []byte{2, 4}}, testBlock{1, []byte{2, 4}},
			"block 1 at byte %d: 1 bytes after its 1 records"},
		{"empties", `{"type":"array","items":"null"}`, testBlock{2, []byte{0, 0}}, testBlock{1, append(empties, 0)},
			"record 2 (block 1 at byte %d, byte 0 of its data): "},
		{"huge count", `"null"`, testBlock{2, nil}, testBlock{math.MaxInt64 - 4, nil},
			"block 1 at byte %d: malformed input: 9223372036854775803 records in 0 bytes exceed the limit"},
	} {
		for _, codec := range []ocf.Codec{ocf.Null, ocf.Deflate} {
			dir := t.TempDir()
			in := writeContainer(t, filepath.Join(dir, "in.avro"), c.schema, codec, nil, c.good)
			bad := writeContainer(t, filepath.Join(dir, "bad.avro"), c.schema, codec, nil, c.good, c.bad)
			_, or := readContainer(t, bad)
			if _, err := or.NextRaw(); err != nil {
				t.Fatal(err)
			}
			want := bad + ": " + fmt.Sprintf(c.want, or.Offset())
			other := "snappy"
			if codec == ocf.Deflate {
				other = "null"
			}
			out := filepath.Join(dir, "out.avro")
			for _, args := range [][]string{
				{"concat", in, bad},                               // copied as stored
				{"concat", "--codec", other, in, bad},             // compressed again
				{"cat", "--limit", "100", in, bad},                // taken whole
				{"cat", "--offset", "3", "--sample", "1", bad},    // in part (from the block's second record)
				{"cat", "--sample", "0.5", "--codec", other, bad}, // sampled
			} {
				if args[1] == "--offset" && c.bad.count == 1 {
					continue // no record of the block after the offset
				}
				r := runCmd(t, append(args, "--out", out)...)
				wantRun(t, r, exitData, want)
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s %s %q: the output was written", c.name, codec, args)
				}
			}
		}
	}
}

// TestCopyRecordCountOverflow: the records counted over the files of cat
// and concat are checked for overflow: a block that takes them past an
// int64 is an error naming its file and block, not a negative count under
// which the blocks after it are dropped.
func TestCopyRecordCountOverflow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	maxFile := writeContainer(t, filepath.Join(dir, "max.avro"), `"null"`, ocf.Null, nil, testBlock{count: math.MaxInt64})
	one := writeContainer(t, filepath.Join(dir, "one.avro"), `"null"`, ocf.Null, nil, testBlock{count: 1})
	out := filepath.Join(dir, "out.avro")
	// The blocks before the offset are counted from their headers, not
	// read: the count of max.avro is taken as it is.
	r := runCmd(t, "cat", "--offset", "9223372036854775807", "--out", out, maxFile, one)
	wantRun(t, r, exitData, one+": block 0 at byte ")
	if !strings.Contains(r.stderr, "over the limit: with its 1 record, the files hold more than 9223372036854775807 records") {
		t.Errorf("cat past 2^63-1 records: %q", r.stderr)
	}
	// Copied, the block of 2^63-1 records in no bytes is refused first.
	wantRun(t, runCmd(t, "concat", "--out", out, maxFile, one), exitData, maxFile+": block 0 at byte ")
	wantOnly(t, dir, "max.avro", "one.avro")
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// binaryHint is what encode adds to the error of JSON Lines input that
// looks like binary protobuf.
const binaryHint = "(the input looks like binary protobuf, not JSON: give --format delimited)"

// TestBinaryHint checks that encode --format jsonl says the input looks
// like binary protobuf only when it does: not for a bad later line after a
// good one, nor for JSON that is not an object.
func TestBinaryHint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sample, _ := readSample(t)
	for _, c := range []struct {
		name  string
		input string
		want  string // in the error
		hint  bool
	}{
		{"sample", string(sample), "record 0 (line 1, input byte 0)", true},
		// A length prefix that is a digit, then the tag 0x0a of field 1:
		// the first line is "2", JSON, but not an object.
		{"digit prefix", "2\n\x08\x01", "record 0 (line 1, input byte 0)", true},
		{"nul", "\x00", "record 0", true},
		{"control on line 2", "{\"int32\":1}\n{\"int32\":1,\"string\":\"\x01\"}\n", "record 1 (line 2, input byte 12): syntax error (column 21): invalid character '\\x01' in string", false},
		{"invalid UTF-8 on line 2", "{\"int32\":1}\n{\"int32\":1,\"string\":\"\xff\"}\n", "record 1 (line 2, input byte 12)", false},
		{"array", "[1,2]\n", "record 0 (line 1, input byte 0): syntax error (column 1): unexpected token [", false},
		{"text", "hello\n", "record 0 (line 1, input byte 0)", false},
	} {
		in := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
		if err := os.WriteFile(in, []byte(c.input), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runIO(t, nil, encodeArgs("--format", "jsonl", "--in", in, "--out", filepath.Join(dir, "x.avro"))...)
		wantRun(t, r, 1, c.want)
		if strings.Contains(r.stderr, binaryHint) != c.hint {
			t.Errorf("%s: stderr %q; want the binary hint: %v", c.name, r.stderr, c.hint)
		}
	}
}

// TestLooksBinary checks the edges of looksBinary: a character cut at the
// end of a full window is not binary, one cut where the input ends is.
func TestLooksBinary(t *testing.T) {
	t.Parallel()
	long := "{\"string\":\"" + strings.Repeat("é", headSize) // no line end in the window
	for _, c := range []struct {
		head string
		want bool
	}{
		{long[:headSize], false}, // cut inside an é
		{long[:headSize-1], false},
		{"{\"a\":\"\xc3", true},
		{"{\"a\":1}\n\x00", false},
		{"\n\n \x0a\x08\x96\x01", true},
		{"{\"a\":\t1}\r\n", false},
		{"", false},
	} {
		if got := looksBinary([]byte(c.head)); got != c.want {
			t.Errorf("looksBinary(%.40q) = %v, want %v", c.head, got, c.want)
		}
	}
}

// TestLoneSurrogate checks that a \u escape of half a UTF-16 surrogate
// pair in a JSON line is an error that names the record, its line and the
// column of the escape, and says what is wrong, where protojson says
// "unexpected EOF" or blames the escape after it; a whole pair converts.
func TestLoneSurrogate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const what = "in a string is a lone UTF-16 surrogate: a character above U+FFFF is escaped as a pair, \\uD800-\\uDBFF then \\uDC00-\\uDFFF"
	for _, c := range []struct {
		line, want string
	}{
		{`{"int32":1,"string":"\ud800"}`, `record 1 (line 2, input byte 12): syntax error (column 22): \ud800 ` + what},
		{`{"int32":1,"string":"\uDC00"}`, `syntax error (column 22): \uDC00 ` + what},
		{`{"int32":1,"string":"\ud800\u0041"}`, `syntax error (column 22): \ud800 ` + what},
		{`{"int32":1,"string":"\ud83d\ude00\n\ud800x"}`, `syntax error (column 36): \ud800 ` + what},
		// A bad escape before it is protojson's error.
		{`{"int32":1,"string":"\x\ud800"}`, `invalid escape code "\\x" in string`},
	} {
		in := filepath.Join(dir, "in.jsonl")
		if err := os.WriteFile(in, []byte("{\"int32\":1}\n"+c.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		wantRun(t, runIO(t, nil, encodeArgs("--in", in, "--out", filepath.Join(dir, "x.avro"))...), 1, c.want)
	}
	in := filepath.Join(dir, "pair.jsonl")
	if err := os.WriteFile(in, []byte(`{"int32":1,"string":"\ud83d\ude00"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "pair.avro")
	wantRun(t, runIO(t, nil, encodeArgs("--in", in, "--out", out)...), 0, "encoded 1 record")
	if r := runIO(t, nil, "decode", out, "--format", "jsonl"); r.stdout != `{"int32":1,"string":"😀"}`+"\n" {
		t.Errorf("decode: %q, %s", r.stdout, r.stderr)
	}
}

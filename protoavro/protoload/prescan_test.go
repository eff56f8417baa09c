package protoload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/limits"
)

// deepAggregate returns a .proto file whose option aggregate nests depth
// levels deep, each level delimited by open and close.
func deepAggregate(depth int, open, close string) string {
	return `syntax = "proto2";
import "google/protobuf/descriptor.proto";
message Agg { optional Agg a = 1; }
extend google.protobuf.MessageOptions { optional Agg agg = 50000; }
message M {
  option (agg) = {` + strings.Repeat(" a "+open, depth) + strings.Repeat(close, depth) + `};
}
`
}

// TestPrescanRefusesDeepSource compiles .proto files nested beyond
// MaxSourceNesting (option aggregates 30,000 deep in braces and in angle
// brackets, messages nested 200 deep): each is refused before it reaches
// the compiler, with the file, the line and the limit.
func TestPrescanRefusesDeepSource(t *testing.T) {
	dir := t.TempDir()
	messages := "syntax = \"proto3\";\n" + strings.Repeat("message N {\n", 200) + strings.Repeat("}\n", 200)
	for name, text := range map[string]string{
		"braces.proto":   deepAggregate(30_000, "{", "}"),
		"angles.proto":   deepAggregate(30_000, "<", ">"),
		"messages.proto": messages,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Compile(context.Background(), []string{filepath.Join(dir, name)}, []string{dir}, nil, false)
		t.Logf("%s: %v", name, err)
		if !errors.Is(err, ErrSourceLimit) || !strings.Contains(err.Error(), name+":") || !strings.Contains(err.Error(), "more than 100 levels") {
			t.Errorf("%s: err = %v, want ErrSourceLimit naming the file and the limit", name, err)
		}
	}
}

// TestPrescan checks the scanner: nesting within the limit passes, and
// delimiters in comments, strings and character literals do not count.
func TestPrescan(t *testing.T) {
	for _, c := range []struct {
		src  string
		line int // the line of the error, 0 for none
	}{
		{strings.Repeat("{", 100) + strings.Repeat("}", 100), 0},
		{strings.Repeat("{", 101), 1},
		{"\n\n" + strings.Repeat("<", 101), 3},
		{"// " + strings.Repeat("{", 200) + "\n{}", 0},
		{"/* " + strings.Repeat("{", 200) + "\n */ {}", 0},
		{`"` + strings.Repeat("{", 200) + `" '\'` + strings.Repeat("[", 200) + `'`, 0},
		{"/*\n\n*/\n" + strings.Repeat("(", 101), 4},
		{`"\"` + "\n" + strings.Repeat("[", 101), 2},
		{strings.Repeat("}", 300) + strings.Repeat("{", 100), 0},
	} {
		err := Prescan("x.proto", []byte(c.src))
		switch {
		case c.line == 0 && err != nil:
			t.Errorf("%.40q: %v", c.src, err)
		case c.line != 0 && (!errors.Is(err, ErrSourceLimit) || !strings.HasPrefix(err.Error(), "x.proto:"+strconv.Itoa(c.line)+": ")):
			t.Errorf("%.40q: err = %v, want ErrSourceLimit on line %d", c.src, err, c.line)
		}
	}
}

// FuzzPrescan checks that Prescan never panics, refuses only with
// ErrSourceLimit on a line the input has, and, on input without comments,
// strings or character literals, refuses exactly when the delimiters open
// at some point exceed MaxSourceNesting.
func FuzzPrescan(f *testing.F) {
	for _, s := range []string{
		deepAggregate(3, "{", "}"), deepAggregate(200, "<", ">"), "/* {{{", "\"{{{", "'\\", "// {\n{",
		"syntax = \"proto3\"; message M { map<string, int32> m = 1 [json_name = \"x\"]; }",
		strings.Repeat("{", 100) + "}" + "{",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		err := Prescan("f.proto", src)
		if err != nil {
			var line int
			if !errors.Is(err, ErrSourceLimit) {
				t.Fatalf("error of another class: %v", err)
			}
			if _, scanErr := fmt.Sscanf(err.Error(), "f.proto:%d:", &line); scanErr == nil && (line < 1 || line > 1+bytes.Count(src, []byte("\n"))) {
				t.Fatalf("error on line %d of %d: %v", line, 1+bytes.Count(src, []byte("\n")), err)
			}
		}
		if bytes.ContainsAny(src, "/\"'") || len(src) > limits.ProtoSource {
			return
		}
		depth, deepest := 0, 0
		for _, c := range src {
			switch c {
			case '{', '[', '(', '<':
				depth++
				deepest = max(deepest, depth)
			case '}', ']', ')', '>':
				depth = max(depth-1, 0)
			}
		}
		if (err != nil) != (deepest > MaxSourceNesting) {
			t.Fatalf("nesting %d: err = %v", deepest, err)
		}
	})
}

package main

import (
	"errors"
	"flag"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/usage"
)

// TestParseAnyOrder: flags and files in any order, "--" ends the flags,
// "-IDIR" is "-I DIR".
func TestParseAnyOrder(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		files []string
		eos   bool
		every time.Duration
		incl  []string
	}{
		{[]string{"a.proto", "--exactly-once", "-m", "x.Y", "b.proto", "--progress", "1s"}, []string{"a.proto", "b.proto"}, true, time.Second, nil},
		{[]string{"-Idir", "a.proto", "-I", "d2", "--exactly-once=false"}, []string{"a.proto"}, false, 0, []string{"dir", "d2"}},
		{[]string{"a.proto", "--", "--exactly-once", "-m"}, []string{"a.proto", "--exactly-once", "-m"}, false, 0, nil},
		{[]string{"-m", "--", "a.proto"}, []string{"a.proto"}, false, 0, nil}, // "--" as -m's value
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		eos := fs.Bool("exactly-once", false, "")
		every := fs.Duration("progress", 0, "")
		var incl stringList
		fs.Var(&incl, "I", "")
		fs.String("m", "", "")
		files, err := parse(fs, tc.args)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if !slices.Equal(files, tc.files) || *eos != tc.eos || *every != tc.every || !slices.Equal(incl, tc.incl) {
			t.Errorf("%q: files %q, exactly-once %v, progress %v, -I %q", tc.args, files, *eos, *every, incl)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if _, err := parse(fs, []string{"a.proto", "--nope"}); !usage.Is(err) {
		t.Errorf("an unknown flag after a file: %v, want a usage error", err)
	}
	if _, err := parse(fs, []string{"a.proto", "-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h after a file: %v", err)
	}
}

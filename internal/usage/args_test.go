package usage

import (
	"errors"
	"flag"
	"io"
	"slices"
	"testing"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		imports    []string
		verbose    bool
		positional []string
	}{
		{"flags after files", []string{"a.proto", "-I", "x", "b.proto", "-v"}, []string{"x"}, true, []string{"a.proto", "b.proto"}},
		{"protoc style -IDIR", []string{"-Ix", "-I=y", "a.proto"}, []string{"x", "y"}, false, []string{"a.proto"}},
		{"terminator", []string{"-v", "--", "-I", "-x.proto"}, nil, true, []string{"-I", "-x.proto"}},
		{"terminator as a flag's value", []string{"-I", "--", "a.proto"}, []string{"--"}, false, []string{"a.proto"}},
		{"-IDIR after the terminator", []string{"a.proto", "--", "-Ix"}, nil, false, []string{"a.proto", "-Ix"}},
		{"value that looks like -IDIR", []string{"-o", "-Ix", "a.proto"}, nil, false, []string{"a.proto"}},
		{"bool flag before a file", []string{"-v", "a.proto"}, nil, true, []string{"a.proto"}},
		{"no arguments", nil, nil, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var imports []string
			fs.Func("I", "import path", func(s string) error { imports = append(imports, s); return nil })
			verbose := fs.Bool("v", false, "verbose")
			out := fs.String("o", "", "output")
			positional, err := ParseArgs(fs, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(positional, tt.positional) || !slices.Equal(imports, tt.imports) || *verbose != tt.verbose {
				t.Errorf("positional %q imports %q verbose %v; want %q %q %v", positional, imports, *verbose, tt.positional, tt.imports, tt.verbose)
			}
			if tt.name == "value that looks like -IDIR" && *out != "-Ix" {
				t.Errorf("-o = %q, want -Ix", *out)
			}
		})
	}
}

func TestParseArgsErrors(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Int("n", 0, "count")
	if _, err := ParseArgs(fs, []string{"a", "-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
	if _, err := ParseArgs(fs, []string{"a", "-n", "x"}); err == nil || errors.Is(err, flag.ErrHelp) {
		t.Errorf("bad value: %v", err)
	}
	if _, err := ParseArgs(fs, []string{"-zz"}); err == nil {
		t.Error("an unknown flag was accepted")
	}
}

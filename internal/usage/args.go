package usage

import (
	"flag"
	"strings"
)

// ParseArgs parses args with fs and returns the positional arguments, as
// every protoavro command reads its command line. Unlike
// [flag.FlagSet.Parse], flags may follow positional arguments: parsing
// resumes after each one. Everything after a "--" argument that is not a
// flag's value is positional. A protoc-style "-IDIR" is read as "-I DIR"
// when fs defines -I.
//
// The error is the one fs.Parse returned, as it is ([flag.ErrHelp] for -h
// and --help): the caller words it and makes it a usage [Error].
func ParseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	args = splitImportFlags(fs, args)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		consumed := args[:len(args)-len(rest)]
		if endsWithTerminator(fs, consumed) {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// endsWithTerminator reports whether the last argument fs consumed was the
// "--" that ends flag parsing, rather than the value of a flag.
func endsWithTerminator(fs *flag.FlagSet, consumed []string) bool {
	n := len(consumed)
	if n == 0 || consumed[n-1] != "--" {
		return false
	}
	return n < 2 || !takesValue(fs, consumed[n-2])
}

// takesValue reports whether arg is a flag of fs, written without "=value",
// that consumes the next argument as its value.
func takesValue(fs *flag.FlagSet, arg string) bool {
	name, ok := strings.CutPrefix(arg, "-")
	if !ok || name == "" || name == "-" {
		return false
	}
	name = strings.TrimPrefix(name, "-")
	if strings.Contains(name, "=") {
		return false
	}
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// splitImportFlags rewrites protoc-style "-IDIR" arguments into "-I", "DIR"
// when fs defines -I. Arguments after "--" and flag values are left alone.
func splitImportFlags(fs *flag.FlagSet, args []string) []string {
	if fs.Lookup("I") == nil {
		return args
	}
	out := make([]string, 0, len(args)+1)
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case takesValue(fs, a):
			out = append(out, a)
			if i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		case strings.HasPrefix(a, "-I") && len(a) > 2 && a[2] != '=':
			out = append(out, "-I", a[2:])
		default:
			out = append(out, a)
		}
	}
	return out
}

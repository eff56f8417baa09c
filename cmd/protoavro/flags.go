package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/protoavro/protoavro/internal/usage"
	"github.com/protoavro/protoavro/protoavro"
)

// newFlagSet returns an empty flag set for the subcommand name that reports
// errors by return value and prints nothing itself: [run] prints usage and
// errors.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("protoavro "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses args with fs and returns the positional arguments. Unlike
// [flag.FlagSet.Parse], flags may follow positional arguments: parsing
// resumes after each one. Everything after a "--" argument is positional.
// A protoc-style "-IDIR" is accepted as "-I DIR" when fs defines -I.
//
// It returns [flag.ErrHelp] for -h or --help, and a [usage.Error] for an
// unknown flag or a bad flag value.
//
// A flag that takes one value may be given once: a second use (also under
// its other name, as -m and --message) is a [usage.Error]. Flags whose value
// is a list ([stringList]) repeat.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	twice := onlyOnce(fs)
	positional, err := usage.ParseArgs(fs, args)
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return positional, err
	case *twice != "":
		return nil, usage.Errorf("%s given twice; it takes one value (run \"%s -h\" for usage)", flagName(*twice), fs.Name())
	default:
		return nil, usage.Errorf("%s (run \"%s -h\" for usage)", dashes(err.Error()), fs.Name())
	}
}

// flagAliases maps a flag's other name to the name that usage shows first.
var flagAliases = map[string]string{"message": "m"}

// onlyOnce wraps every flag of fs that takes one value so that a second
// use fails. A flag and its alias ([flagAliases]) count as one. The name of
// a flag given twice is stored in the string it returns.
func onlyOnce(fs *flag.FlagSet) *string {
	twice := new(string)
	seen := map[string]*bool{}
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(*stringList); ok {
			return
		}
		name := f.Name
		if a, ok := flagAliases[name]; ok {
			name = a
		}
		if seen[name] == nil {
			seen[name] = new(bool)
		}
		f.Value = &onceValue{Value: f.Value, set: seen[name], name: name, twice: twice}
	})
	return twice
}

// onceValue is a flag value that may be set once.
type onceValue struct {
	flag.Value
	set   *bool
	name  string
	twice *string
}

// errTwice is the error of a flag given twice; parseArgs words it.
var errTwice = errors.New("given twice")

// Set sets the value the first time and fails after.
func (v *onceValue) Set(s string) error {
	if *v.set {
		*v.twice = v.name
		return errTwice
	}
	*v.set = true
	return v.Value.Set(s)
}

// IsBoolFlag reports whether the wrapped flag is a boolean flag.
func (v *onceValue) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// flagName spells a flag as help does: "-m" for one letter, else "--name".
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// dashRE matches a flag name with a single dash in a message of package
// flag, such as "flag -codec" or ": -foo".
var dashRE = regexp.MustCompile(`(^|[\s:])-([A-Za-z][A-Za-z0-9_-]+)`)

// dashes rewrites the flag names in a message of package flag to the style
// of the help texts: "--codec", while one-letter flags keep one dash.
func dashes(msg string) string {
	return dashRE.ReplaceAllString(msg, "$1--$2")
}

// stringList is a repeatable string flag; each use appends a value.
type stringList []string

// String returns the values joined by commas.
func (l *stringList) String() string { return strings.Join(*l, ",") }

// Set appends v.
func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// codecFlag is a --codec flag holding a [protoavro.Compression].
type codecFlag struct {
	c protoavro.Compression
}

// String returns the codec name.
func (f *codecFlag) String() string { return string(f.c) }

// Set parses a codec name with [protoavro.ParseCompression].
func (f *codecFlag) Set(v string) error {
	c, err := protoavro.ParseCompression(v)
	if err != nil || v == "" {
		return errors.New("want null, deflate, snappy or zstd")
	}
	f.c = c
	return nil
}

// sizeFlag is a byte-size flag: a number of bytes, optionally with a
// binary suffix K, KiB, M, MiB, G or GiB (1K = 1024). Zero means unset.
type sizeFlag struct {
	n   int
	min int
	max int
}

// sizeSuffixes are the suffixes of [sizeFlag], longest first.
var sizeSuffixes = []struct {
	suffix string
	mult   int
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"k", 1 << 10},
}

// String returns the size in bytes.
func (f *sizeFlag) String() string { return strconv.Itoa(f.n) }

// Set parses a size and checks its range; a size beyond the maximum (or
// beyond what an int holds) is refused as too large.
func (f *sizeFlag) Set(v string) error {
	num, mult := v, 1
	for _, s := range sizeSuffixes {
		if rest, ok := strings.CutSuffix(v, s.suffix); ok {
			num, mult = rest, s.mult
			break
		}
	}
	n, err := strconv.Atoi(num)
	if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(num, "-") || err == nil && n > f.max/mult {
		return fmt.Errorf("too large: at most %d bytes (%s)", f.max, formatBytes(int64(f.max)))
	}
	if err != nil || n < 0 || n*mult < f.min {
		return fmt.Errorf("want a size from %d to %d bytes, e.g. 262144, 256K, 1M or 1G", f.min, f.max)
	}
	f.n = n * mult
	return nil
}

// intFlag is an integer flag with a lower bound and, when max is not
// zero, an upper one. Zero means unset.
type intFlag struct {
	n   int
	min int
	max int
}

// String returns the value.
func (f *intFlag) String() string { return strconv.Itoa(f.n) }

// Set parses an integer and checks its bounds.
func (f *intFlag) Set(v string) error {
	n, err := strconv.Atoi(v)
	if f.max != 0 && (err != nil || n < f.min || n > f.max) {
		return fmt.Errorf("want an integer from %d to %d", f.min, f.max)
	}
	if err != nil || n < f.min {
		return fmt.Errorf("want an integer of at least %d", f.min)
	}
	f.n = n
	return nil
}

// maxWorkers bounds --workers as the library bounds its workers.
const maxWorkers = protoavro.MaxWorkers

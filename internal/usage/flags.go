package usage

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// PrintFlags writes the flags of fs to w, sorted by name, as the commands'
// help and synopses write them: two dashes before a name longer than one
// letter ("--brokers BROKERS"), one before a single letter ("-I DIR"); then
// the usage text, indented, with the default where it is not the zero
// value. It is [flag.FlagSet.PrintDefaults] with the dashes the commands
// accept and show everywhere else (the flag package reads either form).
func PrintFlags(w io.Writer, fs *flag.FlagSet) {
	var b strings.Builder
	fs.VisitAll(func(f *flag.Flag) {
		dashes := "--"
		if len(f.Name) == 1 {
			dashes = "-"
		}
		fmt.Fprintf(&b, "  %s%s", dashes, f.Name)
		arg, text := flag.UnquoteUsage(f)
		if arg != "" {
			fmt.Fprintf(&b, " %s", arg)
		}
		if len(f.Name) == 1 && arg == "" {
			b.WriteString("\t") // a one-letter switch: its text on its line
		} else {
			b.WriteString("\n    \t")
		}
		b.WriteString(strings.ReplaceAll(text, "\n", "\n    \t"))
		if !isZeroValue(f) {
			if fmt.Sprintf("%T", f.Value) == "*flag.stringValue" {
				fmt.Fprintf(&b, " (default %q)", f.DefValue)
			} else {
				fmt.Fprintf(&b, " (default %v)", f.DefValue)
			}
		}
		b.WriteByte('\n')
	})
	io.WriteString(w, b.String())
}

// isZeroValue reports whether f's default is the zero value of its type,
// which the help leaves out, as [flag.FlagSet.PrintDefaults] does.
func isZeroValue(f *flag.Flag) (zero bool) {
	typ := reflect.TypeOf(f.Value)
	var z reflect.Value
	if typ.Kind() == reflect.Pointer {
		z = reflect.New(typ.Elem())
	} else {
		z = reflect.Zero(typ)
	}
	v, ok := z.Interface().(flag.Value)
	if !ok {
		return f.DefValue == ""
	}
	// A Value whose String method does not take its zero value: the
	// default is shown.
	defer func() {
		if recover() != nil {
			zero = false
		}
	}()
	return f.DefValue == v.String()
}

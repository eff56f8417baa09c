package main

// The whole-tree modes of "protoavro schema": every message of the files or
// of a package, into a directory, and the canonical form and fingerprint.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/avsc"
	"github.com/protoavro/protoavro/internal/usage"
	"github.com/protoavro/protoavro/protoavro"
)

// schemaTreeUsage documents the flags of [schemaTree], for schemaUsage.
const schemaTreeUsage = `  --out-dir DIR          Write one schema file per message into DIR, named
                         by the message's full name (acme.v1.Order.avsc).
                         Without -m: every message of the .proto files given
                         (or of the descriptor sets), nested ones included.
                         Messages whose full names differ only in case are
                         refused: their files would overwrite each other on a
                         case-insensitive file system (macOS, Windows).
  --package PKG          With --out-dir (or --canonical, --fingerprint): the
                         messages of protobuf package PKG instead.
  --canonical            Print (or write) the Parsing Canonical Form instead
                         of the indented JSON.
  --fingerprint          Print the CRC-64-AVRO fingerprint of the canonical
                         form, as 16 hex digits. Without -m (--package, or
                         the messages of the files), a line per message:
                         NAME<TAB>FINGERPRINT (and NAME<TAB>CANONICAL FORM).
  --options "K=V ..."    Mapping options, as recorded in container files:
                         profile=default|java timestamps=nanos|micros|millis|record
                         uint64=long|decimal mapkeys=text|entries (and every
                         other key the library accepts), each key once. A
                         mapping flag replaces the key it sets.
`

// schemaTree holds the whole-tree flags of "protoavro schema".
type schemaTree struct {
	outDir, pkg, options   string
	canonical, fingerprint bool
}

// register defines the flags on fs.
func (st *schemaTree) register(fs *flag.FlagSet) {
	fs.StringVar(&st.outDir, "out-dir", "", "directory for one .avsc per message")
	fs.StringVar(&st.pkg, "package", "", "protobuf package whose messages to write")
	fs.BoolVar(&st.canonical, "canonical", false, "Parsing Canonical Form")
	fs.BoolVar(&st.fingerprint, "fingerprint", false, "CRC-64-AVRO fingerprint")
	fs.StringVar(&st.options, "options", "", "mapping options")
}

// active reports whether a whole-tree flag is set, so that run handles the
// command.
func (st *schemaTree) active() bool {
	return st.outDir != "" || st.pkg != "" || st.canonical || st.fingerprint || st.options != ""
}

// run writes the schemas the flags select.
func (st *schemaTree) run(types *typeFlags, positional []string, mapping *mappingFlags, std stdio) error {
	switch {
	case st.canonical && st.fingerprint:
		return usage.Errorf("--canonical and --fingerprint exclude each other")
	case st.fingerprint && st.outDir != "":
		return usage.Errorf("--fingerprint prints to standard output; it does not go with --out-dir")
	case st.pkg != "" && types.message != "":
		return usage.Errorf("-m and --package exclude each other")
	}
	if _, err := protoavro.ParseOptions(st.options); err != nil {
		return usage.Errorf("--options: %w", err)
	}
	opts, err := mapping.options(st.options) // the mapping flags win
	if err != nil {
		return err
	}
	mds, err := st.messages(std.ctx, types, positional)
	if err != nil {
		return err
	}
	if len(mds) > 1 && st.outDir == "" && !st.canonical && !st.fingerprint {
		return usage.Errorf("missing -m: name the message type, or give --out-dir DIR for the schemas of all %d messages", len(mds))
	}
	if st.outDir != "" {
		if err := avsc.CaseCollision(mds); err != nil {
			return err
		}
	}
	schemas, err := avsc.Schemas(mds, opts)
	if err != nil {
		return err
	}
	if st.outDir != "" {
		return st.write(schemas, std)
	}
	var b strings.Builder
	for _, s := range schemas {
		if types.message == "" {
			// Selected as a set (--package, the files): one line per
			// message, named, however many there are.
			b.WriteString(string(s.Message.FullName()) + "\t")
		}
		switch {
		case st.fingerprint:
			fmt.Fprintf(&b, "%016x\n", s.Schema.Fingerprint())
		case st.canonical:
			b.WriteString(s.Schema.Canonical() + "\n")
		default:
			text, err := s.Schema.JSON()
			if err != nil {
				return err
			}
			b.Write(text)
		}
	}
	_, err = io.WriteString(stdout(std), b.String())
	return err
}

// messages returns the messages the flags select: the -m message, those of
// --package, or those of the .proto files given (of the descriptor sets,
// when no .proto file is given).
func (st *schemaTree) messages(ctx context.Context, types *typeFlags, positional []string) ([]protoreflect.MessageDescriptor, error) {
	if types.message != "" {
		md, err := types.resolve(ctx, positional)
		if err != nil {
			return nil, err
		}
		return []protoreflect.MessageDescriptor{md}, nil
	}
	ts, err := types.load(ctx, positional)
	if err != nil {
		return nil, err
	}
	files := ts.Roots()
	if st.pkg != "" {
		files = nil
		for _, f := range ts.Files() {
			if string(f.Package()) == st.pkg {
				files = append(files, f)
			}
		}
	} else if len(positional) == 0 {
		files = ts.Files()
	}
	mds := avsc.Messages(files)
	if len(mds) == 0 {
		if st.pkg != "" {
			return nil, usage.Errorf("no messages in package %q", st.pkg)
		}
		return nil, usage.Errorf("no messages in the files given")
	}
	return mds, nil
}

// write writes one file per schema into the output directory.
func (st *schemaTree) write(schemas []avsc.File, std stdio) error {
	if err := os.MkdirAll(st.outDir, 0o755); err != nil {
		return usage.Errorf("--out-dir: %w", err)
	}
	for _, s := range schemas {
		var text []byte
		if st.canonical {
			text = []byte(s.Schema.Canonical() + "\n")
		} else {
			var err error
			if text, err = s.Schema.JSON(); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(st.outDir, s.Name), text, 0o644); err != nil {
			return fmt.Errorf("write schema: %w", err)
		}
	}
	return summary(std, "protoavro: wrote %s to %s\n", plural(int64(len(schemas)), "schema"), st.outDir)
}

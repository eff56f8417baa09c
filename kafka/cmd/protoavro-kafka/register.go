package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/protoavro/protoavro/kafka/internal/usage"
	"github.com/protoavro/protoavro/kafka/serde"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// schemaFlags are the flags register and check share.
type schemaFlags struct {
	conn     connFlags
	typ      typeFlags
	topic    string
	subject  string
	strategy string
	key      bool
	level    string
	proto    bool
}

// checkNotes is the paragraph of check's help on its exit status.
var checkNotes = fmt.Sprintf(`Exit status: 0 when the schema is compatible (a new subject, and any schema
under NONE, included), %d when it is incompatible (the report on stdout names
each problem), %d for a usage error, %d when the check could not run: the
registry could not be reached or answered with an error (credentials it
refuses included), or the schema could not be derived.`, exitIncompatible, exitUsage, exitNotChecked)

// newSchemaFlags returns the flag set of command (register or check) with
// the flags both have; notes are the paragraph of its help after the
// synopsis.
func newSchemaFlags(command, notes string, con *console) (*flag.FlagSet, *schemaFlags) {
	fs := newFlags(command, "--registry URL --topic TOPIC [-I DIR]... [--descriptor-set FILE]... -m TYPE [FILE.proto...] (flags and files in any order)", notes, con)
	s := &schemaFlags{}
	s.conn.registerRegistry(fs)
	s.typ.register(fs)
	s.register(fs)
	return fs, s
}

func (s *schemaFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.topic, "topic", "", "the `TOPIC` whose subject is meant (with --strategy)")
	fs.StringVar(&s.subject, "subject", "", "the `SUBJECT` itself, instead of --topic and --strategy")
	fs.StringVar(&s.strategy, "strategy", "topic", "subject-name `STRATEGY`: topic, record or topic-record")
	fs.BoolVar(&s.key, "key", false, "the key's subject (<topic>-key) instead of the value's")
	fs.StringVar(&s.level, "level", "", "compatibility `LEVEL` to check under (default: the subject's, from the registry)")
}

// parse parses args with fs and returns the .proto files they name and
// the registry client of the connection flags.
func (s *schemaFlags) parse(fs *flag.FlagSet, args []string, con *console) ([]string, *serde.Registry, error) {
	files, err := parse(fs, args)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := s.conn.resolve(fs, con)
	if err != nil {
		return nil, nil, err
	}
	reg, err := s.conn.registryClient(&cfg)
	return files, reg, err
}

// avroSchema loads the message type and returns its Avro schema and subject.
func (s *schemaFlags) avroSchema(ctx context.Context, files []string) (md protoreflect.MessageDescriptor, text, subject string, err error) {
	md, err = s.typ.load(ctx, files)
	if err != nil {
		return nil, "", "", err
	}
	opts, err := s.typ.mapping()
	if err != nil {
		return nil, "", "", err
	}
	sch, err := opts.Schema(md)
	if err != nil {
		return nil, "", "", err
	}
	j, err := sch.JSON()
	if err != nil {
		return nil, "", "", err
	}
	subject, err = s.subjectFor(sch.FullName())
	return md, string(j), subject, err
}

func (s *schemaFlags) subjectFor(fullName string) (string, error) {
	if s.subject != "" {
		return s.subject, nil
	}
	st, err := serde.ParseStrategy(s.strategy)
	if err != nil {
		return "", usage.Errorf("--strategy: %w", err)
	}
	if s.topic == "" && st != serde.RecordName {
		return "", usage.Errorf("--topic or --subject is required")
	}
	return st.Subject(s.topic, fullName, s.key), nil
}

// gate runs the compatibility check and prints its report.
func (s *schemaFlags) gate(ctx context.Context, reg *serde.Registry, subject, text string, out io.Writer) (*serde.Report, error) {
	var (
		rep *serde.Report
		err error
	)
	if s.level != "" {
		lvl, perr := serde.ParseLevel(s.level)
		if perr != nil {
			return nil, usage.Errorf("--level: %w", perr)
		}
		rep, err = reg.CheckAt(ctx, subject, lvl, text)
	} else {
		rep, err = reg.Check(ctx, subject, text)
	}
	if err != nil {
		return nil, err
	}
	if rep.Compatible() {
		fmt.Fprintf(out, "compatible: subject %s, level %v, %s\n", subject, rep.Level, checkedAgainst(rep))
		return rep, nil
	}
	fmt.Fprintf(out, "INCOMPATIBLE: subject %s, level %v, %d problems:\n", subject, rep.Level, len(rep.Problems))
	for _, p := range rep.Problems {
		fmt.Fprintf(out, "  %s\n", p)
	}
	return rep, nil
}

// checkedAgainst says what the gate compared a compatible schema with: the
// versions it checked, or why there were none.
func checkedAgainst(rep *serde.Report) string {
	switch {
	case len(rep.Versions) > 0:
		return fmt.Sprintf("checked against versions %v", rep.Versions)
	case rep.Level == serde.LevelNone:
		return "nothing checked: NONE accepts any schema"
	default:
		return "a new subject (no versions): nothing to check against"
	}
}

// cmdCheck runs check; an error other than a usage error or the schema's
// incompatibility is a notCheckedError.
func cmdCheck(ctx context.Context, args []string, stdout io.Writer, con *console) error {
	err := runCheck(ctx, args, stdout, con)
	if err == nil || usage.Is(err) || errors.Is(err, errIncompatible) || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return &notCheckedError{err: err}
}

func runCheck(ctx context.Context, args []string, stdout io.Writer, con *console) error {
	fs, s := newSchemaFlags("check", checkNotes, con)
	files, reg, err := s.parse(fs, args, con)
	if err != nil {
		return err
	}
	_, text, subject, err := s.avroSchema(ctx, files)
	if err != nil {
		return err
	}
	rep, err := s.gate(ctx, reg, subject, text, stdout)
	if err != nil {
		return err
	}
	if !rep.Compatible() {
		return errIncompatible
	}
	return nil
}

func cmdRegister(ctx context.Context, args []string, stdout io.Writer, con *console) error {
	fs, s := newSchemaFlags("register", "", con)
	fs.BoolVar(&s.proto, "proto", false, "register the .proto file itself (a PROTOBUF schema, for protobuf producers), with its imports as references")
	noCheck := fs.Bool("no-check", false, "register without the local compatibility gate")
	files, reg, err := s.parse(fs, args, con)
	if err != nil {
		return err
	}
	if s.proto {
		md, err := s.typ.load(ctx, files)
		if err != nil {
			return err
		}
		subject, err := s.subjectFor(string(md.FullName()))
		if err != nil {
			return err
		}
		id, _, err := s.registerProto(ctx, reg, md.ParentFile(), subject)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "registered PROTOBUF %s under %s: id %d\n", md.ParentFile().Path(), subject, id)
		return nil
	}
	_, text, subject, err := s.avroSchema(ctx, files)
	if err != nil {
		return err
	}
	if !*noCheck {
		rep, err := s.gate(ctx, reg, subject, text, stdout)
		if err != nil {
			return err
		}
		if err := rep.Err(); err != nil {
			return err
		}
	}
	id, version, err := reg.Register(ctx, subject, serde.Schema{Type: serde.TypeAvro, Text: text})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "registered AVRO under %s: id %d, version %d\n", subject, id, version)
	return nil
}

// registerProto registers fd's source text under subject, after its
// non-standard imports, each under its import path as subject (the Confluent
// serializer's default reference subjects), and returns its ID and version.
// A reference names the version that holds the import as registered, which
// is not the subject's latest when that text was registered before.
func (s *schemaFlags) registerProto(ctx context.Context, reg *serde.Registry, fd protoreflect.FileDescriptor, subject string) (id, version int, err error) {
	var refs []serde.Reference
	imps := fd.Imports()
	for i := range imps.Len() {
		imp := imps.Get(i).FileDescriptor
		if strings.HasPrefix(imp.Path(), "google/protobuf/") {
			continue
		}
		_, v, err := s.registerProto(ctx, reg, imp, imp.Path())
		if err != nil {
			return 0, 0, err
		}
		refs = append(refs, serde.Reference{Name: imp.Path(), Subject: imp.Path(), Version: v})
	}
	text, err := s.source(fd.Path())
	if err != nil {
		return 0, 0, err
	}
	return reg.Register(ctx, subject, serde.Schema{Type: serde.TypeProtobuf, Text: text, References: refs})
}

func (s *schemaFlags) source(path string) (string, error) {
	dirs := []string(s.typ.imports)
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(path))); err == nil {
			return string(b), nil
		}
	}
	if len(s.typ.descriptorSets) > 0 {
		return "", fmt.Errorf("source of %s not found under %s (--proto registers the .proto source, which a descriptor set does not hold: give -I with its directory)", path, strings.Join(dirs, ", "))
	}
	return "", fmt.Errorf("source of %s not found under %s", path, strings.Join(dirs, ", "))
}

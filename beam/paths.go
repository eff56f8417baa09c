package protoavrobeam

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/protoavro/protoavro/beam/internal/safetext"
)

// ErrPath reports an input glob or an output prefix that no Beam
// filesystem of the program takes: empty, or of a scheme (such as s3://)
// whose filesystem package the program does not import. Convert returns
// it; the read and write transforms fail with it when the pipeline runs.
var ErrPath = errors.New("protoavrobeam: bad path")

// checkPath returns the ErrPath of path, the glob or the prefix (what) of
// a transform, or nil. It asks Beam's filesystem registry, whose own check
// panics.
func checkPath(what, path string) (err error) {
	if strings.TrimSpace(path) == "" {
		return fmt.Errorf("%w: the %s %q is empty", ErrPath, what, path)
	}
	defer func() {
		if p := recover(); p != nil {
			e, ok := p.(error)
			if !ok {
				e = fmt.Errorf("%v", p)
			}
			err = fmt.Errorf("%w: %s %s: %w", ErrPath, what, safetext.Quote(path, maxErrorText), safetext.Error(e, maxErrorText))
		}
	}()
	filesystem.ValidateScheme(path)
	return nil
}

// checkPrefix returns the ErrPath of an output prefix, or nil: what
// checkPath refuses, and bytes that are not UTF-8, which the prefix, a
// field of the writing DoFns, would lose on its way to the workers (Beam
// carries a DoFn's fields as JSON, which replaces them).
func checkPrefix(prefix string) error {
	if err := checkPath("prefix", prefix); err != nil {
		return err
	}
	if !utf8.ValidString(prefix) {
		return fmt.Errorf("%w: prefix %s: not UTF-8 (Beam gives the writers a prefix as JSON, which cannot hold its bytes)", ErrPath, safetext.Quote(prefix, maxErrorText))
	}
	return nil
}

// badPath is the text of a prefix's ErrPath, found when the pipeline is
// built and carried in the writing DoFns' fields, which fail with it when
// the pipeline runs.
type badPath string

// err returns the ErrPath of b, or nil when b is empty.
func (b badPath) err() error {
	if b == "" {
		return nil
	}
	return pathError(b)
}

// pathError is an ErrPath whose text came through a DoFn's fields.
type pathError string

func (e pathError) Error() string        { return string(e) }
func (e pathError) Is(target error) bool { return target == ErrPath }

// prefixError returns the badPath of prefix: "" when checkPrefix finds
// it sound.
func prefixError(prefix string) badPath {
	if err := checkPrefix(prefix); err != nil {
		return badPath(err.Error())
	}
	return ""
}

// checkGlobFn passes on the glob of a read when checkPath finds it sound,
// and fails the pipeline with its ErrPath otherwise: a transform cannot
// return an error when the pipeline is built, and Beam's matching panics
// there. The glob comes as an element (beam.Create), whose coder keeps its
// bytes as they are; a field of the DoFn would go through JSON, which
// replaces bytes that are not UTF-8.
type checkGlobFn struct{}

func (fn *checkGlobFn) ProcessElement(glob string, emit func(string)) error {
	if err := checkPath("glob", glob); err != nil {
		return err
	}
	emit(glob)
	return nil
}

package protoavrobeam

import (
	"errors"
	"fmt"
	"strings"

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

// checkGlobFn emits the glob of a read when checkPath finds it sound, and
// fails the pipeline with its ErrPath otherwise: a transform cannot
// return an error when the pipeline is built, and Beam's matching panics
// there.
type checkGlobFn struct {
	Glob string `json:"glob"`
}

func (fn *checkGlobFn) ProcessElement(_ []byte, emit func(string)) error {
	if err := checkPath("glob", fn.Glob); err != nil {
		return err
	}
	emit(fn.Glob)
	return nil
}

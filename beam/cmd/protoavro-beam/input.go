package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/protoavro/protoavro/beam/internal/usage"
)

// checkInput refuses, as a usage error, an --input pattern that the
// pipeline would fail on at once: blank, of a scheme that no Beam
// filesystem of the command reads (where the SDK panics), or,
// when the job runs in this process and so reads the files this process
// sees (jobInProcess), a pattern that is malformed or matches no file,
// worded as protoavro encode words it. Elsewhere the workers match the
// pattern on their own filesystems, and a pattern that matches nothing
// fails the pipeline there.
func checkInput(ctx context.Context, glob string) error {
	if strings.TrimSpace(glob) == "" {
		return usage.Errorf("--input %q: no file matches", glob)
	}
	if err := validScheme(glob); err != nil {
		return usage.Errorf("--input %s: %w", glob, err)
	}
	if !jobInProcess() {
		return nil
	}
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return usage.Errorf("--input %s: %w", glob, err)
	}
	defer fs.Close()
	files, err := fs.List(ctx, glob)
	if err != nil {
		return usage.Errorf("--input %s: %w", glob, err)
	}
	if len(files) == 0 {
		return usage.Errorf("--input %s: no file matches", glob)
	}
	return nil
}

// validScheme returns an error for a path whose scheme (gs:// and the
// like; none for a local path) has no Beam filesystem in the command,
// where filesystem.ValidateScheme panics.
func validScheme(path string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			scheme, _, _ := strings.Cut(path, "://")
			err = fmt.Errorf("protoavro-beam reads no %s:// paths (it reads local paths and gs://)", scheme)
		}
	}()
	filesystem.ValidateScheme(path)
	return nil
}

package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/protoavro/protoavro/beam/internal/usage"
)

// checkInput refuses, as a usage error, an --input pattern that the
// pipeline would fail on at once: blank, of a scheme that no Beam
// filesystem of the command reads (where the SDK panics), or,
// when the job runs in this process and so reads the files this process
// sees (jobInProcess), a pattern that is malformed, matches no file or
// matches a local directory, worded as protoavro encode words it.
// Elsewhere the workers match the pattern on their own filesystems, and a
// pattern that matches nothing fails the pipeline there.
func checkInput(ctx context.Context, glob string) error {
	if strings.TrimSpace(glob) == "" {
		return usage.Errorf("--input %q: no file matches", glob)
	}
	if err := validScheme(glob, "reads"); err != nil {
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
	if scheme(glob) == "" {
		for _, name := range files {
			if st, err := os.Stat(name); err == nil && st.IsDir() {
				return usage.Errorf("--input %s: %s: is a directory", glob, name)
			}
		}
	}
	return nil
}

// checkPrefix refuses, as a usage error, an --output prefix that is blank
// or of a scheme that no Beam filesystem of the command writes.
func checkPrefix(prefix string) error {
	if strings.TrimSpace(prefix) == "" {
		return usage.Errorf("--output %q: the prefix is blank", prefix)
	}
	if err := validScheme(prefix, "writes"); err != nil {
		return usage.Errorf("--output %s: %w", prefix, err)
	}
	return nil
}

// scheme is the scheme of a path as Beam's filesystems take it (gs for
// gs://...), or "" for a local path.
func scheme(path string) string {
	if i := strings.Index(path, "://"); i > 0 {
		return path[:i]
	}
	return ""
}

// validScheme returns an error for a path whose scheme (gs:// and the
// like; none for a local path) has no Beam filesystem in the command,
// where filesystem.ValidateScheme panics; does is what the command does
// with the path: "reads" or "writes".
func validScheme(path, does string) (err error) {
	if strings.TrimSpace(path) == "" {
		return fmt.Errorf("%q: the path is blank", path)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("protoavro-beam %s no %s:// paths (it %s local paths and gs://)", does, scheme(path), does)
		}
	}()
	filesystem.ValidateScheme(path)
	return nil
}

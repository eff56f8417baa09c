package protoload

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/reporter"
	"github.com/protoavro/protoavro/internal/limits"
	"github.com/protoavro/protoavro/internal/safetext"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Compile compiles the .proto files named on a command line (args) with
// protocompile and returns them in order. Imports are searched in
// importPaths, then in setFiles (may be nil), then among the standard
// imports. With sourceInfo, source info is kept, so leading comments are
// available (they become the doc attributes of schemas). An error
// is about the inputs: a file that is missing, not under an import path or
// shadowed, or that does not compile (the first error, with the count of
// the others and a hint for a missing import).
func Compile(ctx context.Context, args, importPaths []string, setFiles *protoregistry.Files, sourceInfo bool) ([]protoreflect.FileDescriptor, error) {
	var resolver protocompile.Resolver = &protocompile.SourceResolver{ImportPaths: importPaths, Accessor: boundedAccessor}
	if setFiles != nil {
		resolver = protocompile.CompositeResolver{resolver, filesResolver(setFiles)}
	}
	resolver = protocompile.WithStandardImports(resolver)
	resolver = checkedPaths(resolver)

	var names []string
	for _, arg := range args {
		name, err := protoPath(arg, importPaths, resolver)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}

	var errs errorCollector
	c := protocompile.Compiler{
		Resolver: resolver,
		Reporter: reporter.NewReporter(errs.report, nil),
	}
	if sourceInfo {
		c.SourceInfoMode = protocompile.SourceInfoStandard
	}
	files, err := c.Compile(ctx, names...)
	if err != nil {
		if reported := errs.summary(); reported != nil {
			err = reported
		}
		return nil, importHint(err, args, importPaths)
	}
	out := make([]protoreflect.FileDescriptor, len(files))
	for i, f := range files {
		out[i] = f
	}
	return out, nil
}

// missingRE finds the file that an import names when it is not found.
var missingRE = regexp.MustCompile(`open (\S+\.proto): no such file or directory`)

// importHint adds to a compile error about an import that is not found
// which -I would find it: a directory, among the import paths, the
// directories of the files given and the working directory and below them
// (a few levels deep), that holds the file under the name the import uses.
func importHint(err error, args, importPaths []string) error {
	m := missingRE.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	name := filepath.FromSlash(m[1])
	// The resolver names the file under the first import path.
	for _, ip := range importPaths {
		if rel, err := filepath.Rel(ip, name); err == nil && filepath.IsAbs(name) == filepath.IsAbs(ip) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			name = rel
			break
		}
	}
	shown := filepath.ToSlash(name)
	roots := append([]string{"."}, importPaths...)
	for _, a := range args {
		roots = append(roots, filepath.Dir(a))
	}
	if dir, ok := findImportRoot(name, roots); ok {
		return fmt.Errorf("%w (add -I %s: it holds %s)", err, dir, shown)
	}
	return fmt.Errorf("%w (add -I with the directory that %s is relative to; import paths: %s)", err, shown, strings.Join(importPaths, ", "))
}

// findImportRoot looks for a directory D under roots (at most 4 levels
// deep, 20,000 directories in all) where D/name exists, and returns the
// shortest such path.
func findImportRoot(name string, roots []string) (string, bool) {
	budget := 20000
	seen := map[string]bool{}
	for _, root := range roots {
		var best string
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			budget--
			if budget < 0 {
				return filepath.SkipAll
			}
			depth := strings.Count(filepath.Clean(path), string(filepath.Separator)) - strings.Count(filepath.Clean(root), string(filepath.Separator))
			if depth > 4 || seen[path] || (path != root && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			seen[path] = true
			if st, err := os.Stat(filepath.Join(path, name)); err == nil && st.Mode().IsRegular() {
				best = path
				return filepath.SkipAll
			}
			return nil
		})
		if best != "" {
			return best, true
		}
	}
	return "", false
}

// filesResolver returns a protocompile resolver that finds files in files.
func filesResolver(files *protoregistry.Files) protocompile.Resolver {
	return protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
		fd, err := files.FindFileByPath(path)
		if err != nil {
			return protocompile.SearchResult{}, err
		}
		return protocompile.SearchResult{Desc: fd}, nil
	})
}

// protoPath maps a .proto file argument to the path the compiler looks up
// in the import paths, the way protoc does: a file that exists on disk is
// made relative to the first import path that contains it; otherwise the
// argument is taken as a path relative to the import paths (or the name of
// a file that resolver knows, such as a standard import).
func protoPath(arg string, importPaths []string, resolver protocompile.Resolver) (string, error) {
	if st, err := os.Stat(arg); err == nil {
		if st.IsDir() {
			return "", fmt.Errorf("%s: is a directory, not a .proto file", arg)
		}
		abs, err := filepath.Abs(arg)
		if err != nil {
			return "", err
		}
		for i, dir := range importPaths {
			absDir, err := filepath.Abs(dir)
			if err != nil {
				continue
			}
			rel, err := filepath.Rel(absDir, abs)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			for _, earlier := range importPaths[:i] {
				if _, err := os.Stat(filepath.Join(earlier, rel)); err == nil {
					return "", fmt.Errorf("%s: shadowed by %s, found first in import path %s",
						arg, filepath.Join(earlier, rel), earlier)
				}
			}
			return filepath.ToSlash(rel), nil
		}
		if virtual, ok := findVirtual(arg, resolver); ok {
			return virtual, nil
		}
		return "", fmt.Errorf("%s: not under any import path (%s); add -I with a directory that contains it",
			arg, strings.Join(importPaths, ", "))
	}
	if virtual, ok := findVirtual(arg, resolver); ok {
		return virtual, nil
	}
	return "", fmt.Errorf("%s: no such file or directory (import paths: %s)", arg, strings.Join(importPaths, ", "))
}

// findVirtual reports whether resolver finds arg taken as a path relative to
// the import paths, and returns that path in slash form.
func findVirtual(arg string, resolver protocompile.Resolver) (string, bool) {
	if filepath.IsAbs(arg) {
		return "", false
	}
	name := filepath.ToSlash(filepath.Clean(arg))
	if name == ".." || strings.HasPrefix(name, "../") {
		return "", false
	}
	res, err := resolver.FindFileByPath(name)
	if err != nil {
		return "", false
	}
	if c, ok := res.Source.(interface{ Close() error }); ok {
		_ = c.Close()
	}
	return name, true
}

// errorCollector gathers the errors protocompile reports, so that compiling
// continues past the first one and the command can print one line that
// names the first error and counts the rest. It is safe for concurrent use.
type errorCollector struct {
	mu   sync.Mutex
	errs []reporter.ErrorWithPos
}

// report records err and lets compiling continue.
func (c *errorCollector) report(err reporter.ErrorWithPos) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, editionHint(err))
	return nil
}

// unknownEditionRE matches protocompile's error for an edition it does not
// know, with the edition and the ones it knows, each as %q quotes it.
var unknownEditionRE = regexp.MustCompile(`^edition value ("(?:[^"\\]|\\.)*") not recognized; should be one of \[(.*)\]$`)

// editionHint rewrites protocompile's error for an edition it does not
// know (edition = "2024"): such a file compiles with protoc or buf, to a
// descriptor set that protobuf-go builds, so the error says so. Other
// errors are returned as they are.
func editionHint(err reporter.ErrorWithPos) reporter.ErrorWithPos {
	m := unknownEditionRE.FindStringSubmatch(err.Unwrap().Error())
	if m == nil {
		return err
	}
	edition, uerr := strconv.Unquote(m[1])
	if uerr != nil {
		return err
	}
	return reporter.Errorf(err, "edition %s is not supported for .proto input by the compiler built into protoavro (protocompile; its editions: %s): compile the file with protoc or buf into a descriptor set (protoc --include_imports -o set.binpb %s, or buf build -o set.binpb) and load that with --descriptor-set set.binpb",
		safetext.Quote(edition, 64), safetext.Escape(m[2], 200), safetext.Escape(err.GetPosition().Filename, 200))
}

// summary returns nil if no error was reported, the first error if one
// was, and otherwise the first error followed by the count of the others.
func (c *errorCollector) summary() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Files compile concurrently: order by position for a stable report.
	slices.SortStableFunc(c.errs, func(a, b reporter.ErrorWithPos) int {
		pa, pb := a.GetPosition(), b.GetPosition()
		return cmp.Or(strings.Compare(pa.Filename, pb.Filename), cmp.Compare(pa.Line, pb.Line), cmp.Compare(pa.Col, pb.Col))
	})
	switch n := len(c.errs); n {
	case 0:
		return nil
	case 1:
		return c.errs[0]
	case 2:
		return fmt.Errorf("%w (and 1 more error)", c.errs[0])
	default:
		return fmt.Errorf("%w (and %d more errors)", c.errs[0], n-1)
	}
}

// checkedPaths refuses, before r looks for it, a file path that protoc
// refuses in an import (a path relative to the import paths, with no
// empty, "." or ".." element and no backslash: an import cannot name a
// file outside the import paths), or that holds control characters or
// bytes that are not UTF-8; the error quotes the path escaped.
func checkedPaths(r protocompile.Resolver) protocompile.Resolver {
	return protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
		if why := badPath(path); why != "" {
			return protocompile.SearchResult{}, fmt.Errorf("proto file %s: %s", safetext.Quote(path, 256), why)
		}
		return r.FindFileByPath(path)
	})
}

// badPath says why path is not a path an import may name, or "".
func badPath(path string) string {
	switch {
	case !utf8.ValidString(path) || strings.ContainsFunc(path, unicode.IsControl):
		return "holds control characters or bytes that are not UTF-8"
	case strings.ContainsRune(path, '\\'):
		return "holds a backslash; imports are separated by /"
	case strings.HasPrefix(path, "/"):
		return "is absolute; imports are relative to the import paths (-I)"
	}
	for _, elem := range strings.Split(path, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return `holds an empty, "." or ".." element; imports are relative to the import paths (-I), within them`
		}
	}
	return ""
}

// boundedAccessor opens a .proto source for protocompile, which reads it
// whole: one larger than limits.ProtoSource, or nested deeper than
// MaxSourceNesting (Prescan), is refused.
func boundedAccessor(path string) (io.ReadCloser, error) {
	data, err := limits.ReadFile(path, limits.ProtoSource)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(data)), Prescan(path, data)
}

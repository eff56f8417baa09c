// Package testpbgen generates the committed Go code for the test protos in
// testdata/proto, without protoc: the protos are compiled in-process with
// github.com/bufbuild/protocompile and the Go code is produced in-process by
// protoc-gen-go's own generator (google.golang.org/protobuf/compiler/protogen
// and google.golang.org/protobuf/cmd/protoc-gen-go/internal_gengo).
//
// The command internal/cmd/protogen is its front end; the tests in
// internal/testpb call [Generate] and [Diff] to prove the committed code is
// up to date.
package testpbgen

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/reporter"
	"github.com/protoavro/protoavro/internal/protofiles"
	gengo "google.golang.org/protobuf/cmd/protoc-gen-go/internal_gengo"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"
)

// Module is the Go module path of this repository. It is passed to
// protoc-gen-go as module=..., so output paths are relative to the
// repository root.
const Module = "github.com/protoavro/protoavro"

// ImportPath is the proto import path of the project's own test protos,
// relative to the repository root.
const ImportPath = "testdata/proto"

// OTLPImportPath is the import path of the vendored OpenTelemetry protos
// (third_party/opentelemetry-proto/README.md), relative to the repository root: a root
// of its own, so that the files keep their upstream paths and imports.
const OTLPImportPath = "third_party/opentelemetry-proto"

// ImportPaths are the proto import paths, relative to the repository root,
// in the order they are searched.
var ImportPaths = []string{ImportPath, OTLPImportPath}

// OutputDir is the directory, relative to the repository root, that holds
// all generated packages. Stale *.pb.go files below it are reported by
// [Diff] and removed by [Write].
const OutputDir = "internal/testpb"

// Protos are the proto files to generate Go code for, relative to
// [ImportPath]. The evolution/ protos are deliberately absent: v1 and v2
// declare the same names and would conflict in the global registry.
var Protos = []string{
	"avro2147.proto",
	"kitchen/kitchen.proto",
	"legacy/legacy.proto",
	"legacy/zerosize.proto",
	"editions/editions.proto",
	"opentelemetry/proto/common/v1/common.proto",
	"opentelemetry/proto/resource/v1/resource.proto",
	"opentelemetry/proto/trace/v1/trace.proto",
	"opentelemetry/proto/metrics/v1/metrics.proto",
	"opentelemetry/proto/logs/v1/logs.proto",
}

// GoPackages overrides the go_package of protos that are not the
// project's own (the vendored OTLP protos declare
// go.opentelemetry.io/proto/otlp/...): proto path → "import path;package
// name", passed to protoc-gen-go as M options, as protoc users do.
var GoPackages = map[string]string{
	"opentelemetry/proto/common/v1/common.proto":     Module + "/" + OutputDir + "/third_party/otlppb/commonpb;commonpb",
	"opentelemetry/proto/resource/v1/resource.proto": Module + "/" + OutputDir + "/third_party/otlppb/resourcepb;resourcepb",
	"opentelemetry/proto/trace/v1/trace.proto":       Module + "/" + OutputDir + "/third_party/otlppb/tracepb;tracepb",
	"opentelemetry/proto/metrics/v1/metrics.proto":   Module + "/" + OutputDir + "/third_party/otlppb/metricspb;metricspb",
	"opentelemetry/proto/logs/v1/logs.proto":         Module + "/" + OutputDir + "/third_party/otlppb/logspb;logspb",
}

// goPackage returns the Go package fd is generated into: its override in
// [GoPackages], or its own go_package option.
func goPackage(fd protoreflect.FileDescriptor) string {
	if p, ok := GoPackages[fd.Path()]; ok {
		return p
	}
	opts, _ := fd.Options().(*descriptorpb.FileOptions)
	return opts.GetGoPackage()
}

// File is one generated file.
type File struct {
	// Path is slash-separated and relative to the repository root.
	Path    string
	Content []byte
}

// Compile compiles [Protos] (found under root/[ImportPaths], with the
// standard well-known imports available) and returns the compiled files in
// the order of [Protos]. Warnings (such as unused imports) are errors.
func Compile(ctx context.Context, root string) ([]protoreflect.FileDescriptor, error) {
	var warnings []error
	rep := reporter.NewReporter(
		func(err reporter.ErrorWithPos) error { return err },
		func(err reporter.ErrorWithPos) { warnings = append(warnings, err) },
	)
	var importPaths []string
	for _, p := range ImportPaths {
		importPaths = append(importPaths, filepath.Join(root, filepath.FromSlash(p)))
	}
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			ImportPaths: importPaths,
		}),
		// Standard source info gives protoc-gen-go the comments it copies
		// into the Go code, as protoc would.
		SourceInfoMode: protocompile.SourceInfoStandard,
		Reporter:       rep,
		MaxParallelism: 1,
	}
	files, err := c.Compile(ctx, Protos...)
	if err != nil {
		return nil, fmt.Errorf("compiling protos: %w", err)
	}
	if len(warnings) > 0 {
		return nil, fmt.Errorf("compiling protos: warnings are errors here: %w", errors.Join(warnings...))
	}
	out := make([]protoreflect.FileDescriptor, len(files))
	for i, f := range files {
		out[i] = f
	}
	return out, nil
}

// Request builds the CodeGeneratorRequest protoc would send protoc-gen-go
// for files: every file and all of its dependencies in topological order
// (dependencies first), with only files themselves to generate, and the
// [GoPackages] overrides as M options.
func Request(files []protoreflect.FileDescriptor) *pluginpb.CodeGeneratorRequest {
	params := []string{"module=" + Module}
	overridden := make([]string, 0, len(GoPackages))
	for p := range GoPackages {
		overridden = append(overridden, p)
	}
	sort.Strings(overridden)
	for _, p := range overridden {
		params = append(params, "M"+p+"="+GoPackages[p])
	}
	req := &pluginpb.CodeGeneratorRequest{
		Parameter: proto.String(strings.Join(params, ",")),
		// CompilerVersion is left unset: there is no protoc, so the
		// generated header says "protoc (unknown)".
	}
	req.ProtoFile = protofiles.Protos(files...)
	for _, fd := range files {
		req.FileToGenerate = append(req.FileToGenerate, fd.Path())
	}
	return req
}

// Run runs protoc-gen-go's generator in-process on req and returns its
// response, as the protoc-gen-go binary would.
func Run(req *pluginpb.CodeGeneratorRequest) (*pluginpb.CodeGeneratorResponse, error) {
	gen, err := protogen.Options{}.New(req)
	if err != nil {
		return nil, fmt.Errorf("protoc-gen-go: %w", err)
	}
	for _, f := range gen.Files {
		if f.Generate {
			gengo.GenerateFile(gen, f)
		}
	}
	gen.SupportedFeatures = gengo.SupportedFeatures
	gen.SupportedEditionsMinimum = gengo.SupportedEditionsMinimum
	gen.SupportedEditionsMaximum = gengo.SupportedEditionsMaximum
	resp := gen.Response()
	if resp.Error != nil {
		return nil, fmt.Errorf("protoc-gen-go: %s", resp.GetError())
	}
	return resp, nil
}

// Generate compiles the protos under root and returns the generated Go
// files, sorted by path.
func Generate(ctx context.Context, root string) ([]File, error) {
	fds, err := Compile(ctx, root)
	if err != nil {
		return nil, err
	}
	for _, fd := range fds {
		if p := goPackage(fd); !strings.HasPrefix(p, Module+"/"+OutputDir+"/") {
			return nil, fmt.Errorf("%s: go_package %q is not below %s/%s (override it in GoPackages)", fd.Path(), p, Module, OutputDir)
		}
	}
	resp, err := Run(Request(fds))
	if err != nil {
		return nil, err
	}
	var out []File
	for _, f := range resp.File {
		if f.GetInsertionPoint() != "" {
			return nil, fmt.Errorf("unexpected insertion point %q in %s", f.GetInsertionPoint(), f.GetName())
		}
		name := f.GetName()
		if !strings.HasPrefix(name, OutputDir+"/") || strings.Contains(name, "..") {
			return nil, fmt.Errorf("generated file %s is outside %s", name, OutputDir)
		}
		out = append(out, File{Path: name, Content: []byte(f.GetContent())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// committedPBFiles lists the *.pb.go files currently below root/[OutputDir]
// (slash-separated, relative to root).
func committedPBFiles(root string) ([]string, error) {
	var paths []string
	dir := filepath.Join(root, filepath.FromSlash(OutputDir))
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".pb.go") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return paths, err
}

// stalePBFiles lists the *.pb.go files below root/[OutputDir] that are not
// among files.
func stalePBFiles(root string, files []File) ([]string, error) {
	existing, err := committedPBFiles(root)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, f := range files {
		want[f.Path] = true
	}
	var stale []string
	for _, p := range existing {
		if !want[p] {
			stale = append(stale, p)
		}
	}
	return stale, nil
}

// Diff compares files with what is on disk below root. It returns one line
// per problem: a generated file that is missing or differs, or a *.pb.go
// file below [OutputDir] that would not be generated. No lines means the
// committed code is up to date.
func Diff(root string, files []File) ([]string, error) {
	var problems []string
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			problems = append(problems, f.Path+": missing")
		case err != nil:
			return nil, err
		case !bytes.Equal(got, f.Content):
			problems = append(problems, f.Path+": out of date")
		}
	}
	stale, err := stalePBFiles(root, files)
	if err != nil {
		return nil, err
	}
	for _, p := range stale {
		problems = append(problems, p+": not generated any more")
	}
	return problems, nil
}

// Write writes files below root and removes *.pb.go files below
// [OutputDir] that are no longer generated. It returns the paths it
// changed (written or removed); files whose content is already right are
// left alone.
func Write(root string, files []File) ([]string, error) {
	var changed []string
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		if got, err := os.ReadFile(p); err == nil && bytes.Equal(got, f.Content) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return changed, err
		}
		if err := os.WriteFile(p, f.Content, 0o644); err != nil {
			return changed, err
		}
		changed = append(changed, f.Path)
	}
	stale, err := stalePBFiles(root, files)
	if err != nil {
		return changed, err
	}
	for _, p := range stale {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(p))); err != nil {
			return changed, err
		}
		changed = append(changed, p+" (removed)")
	}
	return changed, nil
}

// ParseFlags parses the command line of one of the repository's generator
// commands (internal/cmd/...), whose synopsis is usage. It exits with
// status 2 on a usage error: a bad flag or any positional argument.
func ParseFlags(usage string) {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: %s\n", usage)
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
}

// WriteOrCheck is the end of a generator command, internal/cmd/name, that
// made data for the file at path: it writes the file and reports true or,
// with check, reports false when the file holds data. Otherwise (a file
// that is stale, missing or cannot be written) it prints why on standard
// error and exits with status 1.
func WriteOrCheck(name, path string, data []byte, check bool) bool {
	if check {
		if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, data) {
			fmt.Fprintf(os.Stderr, "%s: %s is stale or missing: run go run ./internal/cmd/%s\n", name, path, name)
			os.Exit(1)
		}
		return false
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	return true
}

// FindRoot returns the repository root: the nearest directory at or above
// dir whose go.mod declares [Module].
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			if modulePath(data) == Module {
				return d, nil
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod for module %s at or above %s", Module, dir)
		}
		d = parent
	}
}

func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

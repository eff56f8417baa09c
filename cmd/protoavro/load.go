package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/protoavro/protoavro/protoavro/protoload"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// typeFlagsUsage documents the flags of [protoload.RegisterFlags], for the
// usage text of subcommands that select a message type. -IDIR is
// [parseArgs]'s.
const typeFlagsUsage = `  -I DIR                 Import path: a directory where .proto files and
                         their imports are found. May repeat; searched in
                         order. Default ".". Also accepted as -IDIR.
  --descriptor-set FILE  Load a serialized google.protobuf.FileDescriptorSet
                         (protoc -o, buf build -o). May repeat.
  -m, --message NAME     Full name of the message type, e.g. acme.v1.Order.
                         Required.
`

// typeFlags are the command-line flags that select a protobuf message type:
// import paths and .proto files compiled in-process, serialized descriptor
// sets, and the message's full name. Subcommands register them on their flag
// set with [typeFlags.register] and call [typeFlags.resolve] with the
// positional .proto file arguments. Loading and finding the message is
// [protoload.Resolve]'s, shared with protoavro-kafka.
type typeFlags struct {
	// importPaths are the -I directories; empty means ".".
	importPaths stringList
	// descriptorSets are the --descriptor-set files.
	descriptorSets stringList
	// message is the -m full message name.
	message string
	// noDocs leaves out the comments of the .proto files and descriptor
	// sets: schemas get no "doc" attributes (--docs=false, --no-docs).
	noDocs bool
}

// docsUsage documents the flags of [typeFlags.registerDocs].
const docsUsage = `  --docs=false, --no-docs
                         Leave out the "doc" attributes that the comments of
                         the .proto files (or of descriptor sets made with
                         --include_source_info) become.
`

// registerDocs defines --docs (true by default) and --no-docs on fs.
func (t *typeFlags) registerDocs(fs *flag.FlagSet) {
	fs.BoolFunc("docs", "keep the comments as doc attributes (true or false)", func(v string) error {
		keep, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
		t.noDocs = !keep
		return nil
	})
	fs.BoolVar(&t.noDocs, "no-docs", false, "leave out the doc attributes")
}

// register defines -I, --descriptor-set and -m (alias --message) on fs.
func (t *typeFlags) register(fs *flag.FlagSet) {
	protoload.RegisterFlags(fs, &t.importPaths, &t.descriptorSets, &t.message)
}

// input returns what the flags and the positional .proto files name, with
// source info kept (comments become the doc attributes of schemas).
func (t *typeFlags) input(positional []string) protoload.Input {
	return protoload.Input{
		Protos:          positional,
		ImportPaths:     t.importPaths,
		DescriptorSets:  t.descriptorSets,
		Message:         t.message,
		SourceInfo:      !t.noDocs,
		StripSourceInfo: t.noDocs,
	}
}

// resolve loads the .proto files named by positional and the descriptor
// sets, then returns the descriptor of the -m message. Every error it returns
// is a [usage.Error]: no -m, no input, a file that is missing or does not
// parse, or an unknown message name (with suggestions). ctx (an interrupt)
// stops the compilation.
func (t *typeFlags) resolve(ctx context.Context, positional []string) (protoreflect.MessageDescriptor, error) {
	md, _, err := t.resolveTypes(ctx, positional)
	return md, err
}

// resolveTypes is resolve that also returns every loaded type, whose
// Resolver resolves the google.protobuf.Any values of the records.
func (t *typeFlags) resolveTypes(ctx context.Context, positional []string) (protoreflect.MessageDescriptor, *protoload.Types, error) {
	if t.message == "" {
		// FindMessage's error, before any file is read.
		_, err := new(protoload.Types).FindMessage("")
		return nil, nil, err
	}
	ts, err := t.load(ctx, positional)
	if err != nil {
		return nil, nil, err
	}
	md, err := ts.FindMessage(t.message)
	if err != nil {
		return nil, nil, err
	}
	return md, ts, nil
}

// load compiles the .proto files named by positional and reads the
// descriptor sets. Every error it returns is a [usage.Error].
func (t *typeFlags) load(ctx context.Context, positional []string) (*protoload.Types, error) {
	return untilDone(ctx, func() (*protoload.Types, error) { return protoload.Load(ctx, t.input(positional)) })
}

// untilDone returns what fn returns, or ctx's error as soon as ctx is done
// (an interrupt): building descriptors from a large descriptor set does not
// look at ctx, and the process is about to end anyway, abandoning fn.
func untilDone[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := fn()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("loading the message types: %w", ctx.Err())
	}
}

// protoPaths returns the files that the positional .proto arguments may
// name (as paths, and in each import path; those that exist), for the
// checks against outputs. Their imports are not looked for.
func (t *typeFlags) protoPaths(protos []string) []string {
	dirs := t.importPaths
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	var paths []string
	for _, p := range protos {
		for _, path := range append([]string{p}, dirs...) {
			if path != p {
				path = filepath.Join(path, p)
			}
			if _, err := os.Stat(path); err == nil {
				paths = append(paths, path)
			}
		}
	}
	return paths
}

package main

import (
	"context"
	"flag"

	"github.com/protoavro/protoavro/kafka/internal/usage"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/protoload"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// typeFlags select a message type: -I, --descriptor-set and -m (alias
// --message), as the protoavro command has them ([protoload.RegisterFlags]),
// and the mapping --options.
type typeFlags struct {
	imports        stringList
	descriptorSets stringList
	message        string
	options        string
}

func (t *typeFlags) register(fs *flag.FlagSet) {
	protoload.RegisterFlags(fs, &t.imports, &t.descriptorSets, &t.message)
	fs.StringVar(&t.options, "options", "", "mapping `OPTIONS`, as protoavro's --options (e.g. \"profile=java\")")
}

// selected reports whether the flags or the positional arguments (args of
// them) name a message type at all.
func (t *typeFlags) selected(args int) bool {
	return t.message != "" || len(t.descriptorSets) > 0 || args > 0
}

// mapping returns the mapping options.
func (t *typeFlags) mapping() (protoavro.Options, error) {
	if t.options == "" {
		return protoavro.Options{}, nil
	}
	o, err := protoavro.ParseOptions(t.options)
	if err != nil {
		return o, usage.Errorf("--options: %w", err)
	}
	return o, nil
}

// load compiles the .proto files (paths relative to an import directory, or
// file paths under one) and reads the descriptor sets as the protoavro
// command does ([protoload.Resolve]), and returns the -m message. Its
// errors, all about the inputs (no -m, no input, a file missing or not
// compiling, an unknown message, with the closest names), are usage errors.
func (t *typeFlags) load(ctx context.Context, files []string) (protoreflect.MessageDescriptor, error) {
	md, err := protoload.Resolve(ctx, protoload.Input{
		Protos:         files,
		ImportPaths:    t.imports,
		DescriptorSets: t.descriptorSets,
		Message:        t.message,
	})
	return md, usage.Wrap(err)
}

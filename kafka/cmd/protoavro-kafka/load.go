package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/protoavro/protoavro/internal/protoload"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// typeFlags select a message type from .proto files compiled in-process.
type typeFlags struct {
	imports stringList
	message string
	options string
}

func (t *typeFlags) register(fs *flag.FlagSet) {
	fs.Var(&t.imports, "I", "import `DIR` for .proto files (may repeat; default \".\")")
	fs.StringVar(&t.message, "m", "", "full `NAME` of the message type")
	fs.StringVar(&t.options, "options", "", "mapping `OPTIONS`, as protoavro's --options (e.g. \"profile=java\")")
}

// mapping returns the mapping options.
func (t *typeFlags) mapping() (protoavro.Options, error) {
	if t.options == "" {
		return protoavro.Options{}, nil
	}
	o, err := protoavro.ParseOptions(t.options)
	if err != nil {
		return o, usagef("--options: %v", err)
	}
	return o, nil
}

// load compiles the files (paths relative to an import directory, or file
// paths under one) as the protoavro command does, and returns the -m
// message.
func (t *typeFlags) load(ctx context.Context, files []string) (protoreflect.MessageDescriptor, error) {
	if t.message == "" {
		return nil, usagef("-m NAME is required")
	}
	if len(files) == 0 {
		return nil, usagef("no .proto file given")
	}
	imports := []string(t.imports)
	if len(imports) == 0 {
		imports = []string{"."}
	}
	fds, err := protoload.Compile(ctx, files, imports, nil, false)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", strings.Join(files, " "), err)
	}
	var named protoregistry.Files // the files named, without their imports
	for _, fd := range fds {
		if err := named.RegisterFile(fd); err != nil {
			return nil, fmt.Errorf("compiling %s: %w", strings.Join(files, " "), err)
		}
	}
	if d, err := named.FindDescriptorByName(protoreflect.FullName(t.message)); err == nil {
		if md, ok := d.(protoreflect.MessageDescriptor); ok {
			return md, nil
		}
	}
	return nil, usagef("message %s not found in %s", t.message, strings.Join(files, " "))
}

// registryFlags name the schema registry.
type registryFlags struct {
	url, user, password string
}

func (r *registryFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.url, "registry", "http://127.0.0.1:8081", "schema registry `URL` (comma-separated for several)")
	fs.StringVar(&r.user, "registry-user", "", "basic-auth `USER` of the registry")
	fs.StringVar(&r.password, "registry-password", os.Getenv("PROTOAVRO_REGISTRY_PASSWORD"), "basic-auth `PASSWORD` (default $PROTOAVRO_REGISTRY_PASSWORD)")
}

func (r *registryFlags) client() (*serde.Registry, error) {
	return serde.NewRegistry(serde.RegistryOptions{Username: r.user, Password: r.password}, strings.Split(r.url, ",")...)
}

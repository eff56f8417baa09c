// Command protoc-gen-avro is a protoc (and buf) plugin that writes the Avro
// schema of every message of the files it is given, one .avsc file each,
// named by the message's full name (acme.v1.Order.avsc), nested messages
// included and map entries excluded: the files "protoavro schema --out-dir"
// writes.
//
//	go install github.com/protoavro/protoavro/cmd/protoc-gen-avro@latest
//	protoc -I proto --avro_out=schemas --avro_opt=profile=java acme/v1/order.proto
//
// The parameter is comma-separated key=value pairs: the mapping options of
// protoavro.ParseOptions (profile=default|java, timestamps=nanos|micros|millis|record,
// uint64=long|decimal, mapkeys=text|entries, and any other the library
// accepts), and docs=false, which leaves out the "doc" attributes that
// leading comments give under the default profile.
//
// With buf, in buf.gen.yaml:
//
//	version: v2
//	plugins:
//	  - local: protoc-gen-avro
//	    out: schemas
//	    opt: profile=java,timestamps=millis
package main

import (
	"fmt"
	"io"
	"os"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/protoavro/protoavro/internal/avsc"
	"github.com/protoavro/protoavro/internal/protofiles"
	"github.com/protoavro/protoavro/protoavro"
)

// usage is the help that -h prints.
const usage = `Usage: protoc-gen-avro (run by protoc or buf generate, not directly)

protoc-gen-avro is a protoc plugin: it reads a CodeGeneratorRequest on
standard input and writes the Avro schema of every message of the files to
generate, one .avsc file each, named by the message's full name
(acme.v1.Order.avsc), nested messages included and map entries excluded.

  protoc -I proto --avro_out=schemas --avro_opt=profile=java acme/v1/order.proto

With buf, in buf.gen.yaml:

  version: v2
  plugins:
    - local: protoc-gen-avro
      out: schemas
      opt: profile=java,timestamps=millis

The parameter (--avro_opt, opt) is comma-separated key=value pairs:
  profile=default|java                    the mapping profile
  timestamps=nanos|micros|millis|record   google.protobuf.Timestamp fields
  uint64=long|decimal                     uint64 and fixed64 fields
  mapkeys=text|entries                    map fields
  docs=false                              no "doc" attributes from comments
and any other mapping option that protoavro.ParseOptions accepts.
`

func main() {
	os.Exit(cli(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// cli runs the plugin with the command-line arguments args and returns its
// exit status: 0 for success or -h, 1 when a stream cannot be read or
// written, 2 for any argument (protoc passes none).
func cli(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fmt.Fprint(stdout, usage)
			return 0
		}
		fmt.Fprintln(stderr, "protoc-gen-avro: a protoc plugin; run it through protoc --avro_out=DIR (or buf generate); -h for help")
		return 2
	}
	if err := run(stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "protoc-gen-avro: %v\n", err)
		return 1
	}
	return 0
}

// run reads a CodeGeneratorRequest from r and writes the response to w. An
// error in the request's content (a bad parameter, a message the mapping
// cannot derive) goes into the response, for protoc to report; only
// failures to read or write the streams are returned.
func run(r io.Reader, w io.Writer) error {
	in, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read request: %w", err)
	}
	req := &pluginpb.CodeGeneratorRequest{}
	if err := proto.Unmarshal(in, req); err != nil {
		return fmt.Errorf("read request: %w", err)
	}
	resp := generate(req)
	out, err := proto.Marshal(resp)
	if err != nil {
		return fmt.Errorf("write response: %w", err)
	}
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("write response: %w", err)
	}
	return nil
}

// generate builds the response to req.
func generate(req *pluginpb.CodeGeneratorRequest) *pluginpb.CodeGeneratorResponse {
	resp := &pluginpb.CodeGeneratorResponse{
		SupportedFeatures: proto.Uint64(uint64(pluginpb.CodeGeneratorResponse_FEATURE_PROTO3_OPTIONAL |
			pluginpb.CodeGeneratorResponse_FEATURE_SUPPORTS_EDITIONS)),
		MinimumEdition: proto.Int32(int32(descriptorpb.Edition_EDITION_PROTO2)),
		MaximumEdition: proto.Int32(int32(descriptorpb.Edition_EDITION_2023)),
	}
	files, err := schemaFiles(req)
	if err != nil {
		resp.Error = proto.String(err.Error())
		return resp
	}
	resp.File = files
	return resp
}

// schemaFiles returns the .avsc files of every message of the files to
// generate.
func schemaFiles(req *pluginpb.CodeGeneratorRequest) ([]*pluginpb.CodeGeneratorResponse_File, error) {
	opts, own, err := avsc.ParseParameter(req.GetParameter(), "docs")
	if err != nil {
		return nil, fmt.Errorf("parameter %q: %w", req.GetParameter(), err)
	}
	switch own["docs"] {
	case "false":
		for _, f := range req.ProtoFile {
			f.SourceCodeInfo = nil
		}
	case "", "true":
	default:
		return nil, fmt.Errorf("parameter docs=%s: want true or false", own["docs"])
	}
	opts.Cache = protoavro.NewCache()
	if err := protofiles.CheckImports(req.ProtoFile); err != nil {
		return nil, fmt.Errorf("descriptors: %w", err)
	}
	reg, err := protofiles.NewFiles(req.ProtoFile)
	if err != nil {
		return nil, fmt.Errorf("descriptors: %w", err)
	}
	var gen []protoreflect.FileDescriptor
	for _, name := range req.FileToGenerate {
		fd, err := reg.FindFileByPath(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		gen = append(gen, fd)
	}
	schemas, err := avsc.Schemas(avsc.Messages(gen), opts)
	if err != nil {
		return nil, err
	}
	out := make([]*pluginpb.CodeGeneratorResponse_File, 0, len(schemas))
	for _, s := range schemas {
		text, err := s.Schema.JSON()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Message.FullName(), err)
		}
		out = append(out, &pluginpb.CodeGeneratorResponse_File{Name: proto.String(s.Name), Content: proto.String(string(text))})
	}
	return out, nil
}

// Command protoc-gen-avro is a protoc (and buf) plugin that writes the Avro
// schema of every message of the files it is given, one .avsc file each,
// named by the message's full name (acme.v1.Order.avsc), nested messages
// included and map entries excluded: the files "protoavro schema --out-dir"
// writes.
//
//	go install github.com/protoavro/protoavro/cmd/protoc-gen-avro@latest
//	protoc -I proto --avro_out=schemas --avro_opt=profile=java acme/v1/order.proto
//
// The parameter is comma-separated key=value pairs, each key at most once:
// the mapping options of protoavro.ParseOptions (profile=default|java,
// preset=engine, timestamps=nanos|micros|millis|record, uint64=long|decimal,
// mapkeys=text|entries, and any other the library accepts), and docs=true
// or docs=false (docs=false leaves out the "doc" attributes that leading
// comments give under the default profile). preset=engine applies first,
// wherever it stands, and the other options over it; with profile=java, the
// options that apply to the default profile only, and docs=true, are
// refused: the Java profile writes no "doc" attributes.
//
// The standard google/protobuf/*.proto files give no "doc" attributes, as
// in "protoavro schema", which has them built in: the comments protoc sends
// for them are left out.
//
// Messages whose full names differ only in case are refused: their files
// would overwrite each other on a case-insensitive file system.
//
// With buf, in buf.gen.yaml:
//
//	version: v2
//	plugins:
//	  - local: protoc-gen-avro
//	    out: schemas
//	    opt: timestamps=millis,uint64=decimal
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/protoavro/protoavro/internal/avsc"
	"github.com/protoavro/protoavro/internal/protofiles"
	"github.com/protoavro/protoavro/internal/safetext"
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
      opt: timestamps=millis,uint64=decimal

The parameter (--avro_opt, opt) is comma-separated key=value pairs, each key
at most once:
  profile=default|java                    the mapping profile
  preset=engine                           the engine-ready options (BigQuery,
                                          Spark, Arrow); the other options
                                          apply over it, wherever it stands
  timestamps=nanos|micros|millis|record   google.protobuf.Timestamp fields
  uint64=long|decimal                     uint64 and fixed64 fields
  mapkeys=text|entries                    map fields
  docs=true|false                         "doc" attributes from leading
                                          comments (default true)
and any other mapping option that protoavro.ParseOptions accepts. With
profile=java, the options that apply to the default profile only (every one
but profile, enums and docs=false) are refused: the Java profile ignores them
and writes no "doc" attributes.

The standard google/protobuf/*.proto files give no "doc" attributes: like
"protoavro schema", which has them built in, the plugin leaves out the
comments protoc sends for them. Files of editions after 2023 are refused, and
so are messages whose full names differ only in case (their files would
overwrite each other on a case-insensitive file system).
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

// The editions the plugin supports, which its response advertises: a file
// of an edition outside them is refused.
const (
	minEdition = descriptorpb.Edition_EDITION_PROTO2
	maxEdition = descriptorpb.Edition_EDITION_2023
)

// generate builds the response to req.
func generate(req *pluginpb.CodeGeneratorRequest) *pluginpb.CodeGeneratorResponse {
	resp := &pluginpb.CodeGeneratorResponse{
		SupportedFeatures: proto.Uint64(uint64(pluginpb.CodeGeneratorResponse_FEATURE_PROTO3_OPTIONAL |
			pluginpb.CodeGeneratorResponse_FEATURE_SUPPORTS_EDITIONS)),
		MinimumEdition: proto.Int32(int32(minEdition)),
		MaximumEdition: proto.Int32(int32(maxEdition)),
	}
	files, err := schemaFiles(req)
	if err != nil {
		resp.Error = proto.String(err.Error())
		return resp
	}
	resp.File = files
	return resp
}

// maxQuoted bounds each input text (the parameter, a file name) that an
// error of the plugin quotes, escaped: protoc prints the error on a
// terminal.
const maxQuoted = 200

// maxErrorText bounds the text of an error from building the request's
// descriptors, escaped: it quotes names from them.
const maxErrorText = 1000

// schemaFiles returns the .avsc files of every message of the files to
// generate.
func schemaFiles(req *pluginpb.CodeGeneratorRequest) ([]*pluginpb.CodeGeneratorResponse_File, error) {
	opts, docs, err := parseParameter(req.GetParameter())
	if err != nil {
		return nil, fmt.Errorf("parameter %s: %w", safetext.Quote(req.GetParameter(), maxQuoted), err)
	}
	opts.Cache = protoavro.NewCache()
	for _, f := range req.ProtoFile {
		if err := checkEdition(f); err != nil {
			return nil, err
		}
		// Without docs, no source info; and the standard files give none,
		// as in "protoavro schema", which has them built in.
		if !docs || standardFiles[f.GetName()] {
			f.SourceCodeInfo = nil
		}
	}
	if err := protofiles.CheckImports(req.ProtoFile); err != nil {
		return nil, fmt.Errorf("descriptors: %w", safetext.Error(err, maxErrorText))
	}
	reg, err := protofiles.NewFiles(req.ProtoFile)
	if err != nil {
		return nil, fmt.Errorf("descriptors: %w", safetext.Error(err, maxErrorText))
	}
	var gen []protoreflect.FileDescriptor
	for _, name := range req.FileToGenerate {
		fd, err := reg.FindFileByPath(name)
		if err != nil {
			return nil, fmt.Errorf("file to generate %s: %w", safetext.Quote(name, maxQuoted), err)
		}
		gen = append(gen, fd)
	}
	mds := avsc.Messages(gen)
	if err := avsc.CaseCollision(mds); err != nil {
		return nil, err
	}
	schemas, err := avsc.Schemas(mds, opts)
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

// parseParameter parses the plugin parameter: comma-separated key=value
// pairs, docs=true|false and the mapping options of protoavro.ParseOptions,
// each key at most once. It returns the mapping options and whether to
// give doc attributes.
func parseParameter(param string) (opts protoavro.Options, docs bool, err error) {
	docs = true
	var mapping []string
	docsGiven := false
	for kv := range strings.SplitSeq(param, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if k != "docs" {
			mapping = append(mapping, kv)
			continue
		}
		if docsGiven {
			return opts, docs, fmt.Errorf("option %s given twice", safetext.Quote(k, maxQuoted))
		}
		docsGiven = true
		switch v {
		case "true":
			docs = true
		case "false":
			docs = false
		default:
			return opts, docs, fmt.Errorf("want docs=true or docs=false, not %s", safetext.Quote(kv, maxQuoted))
		}
	}
	opts, err = protoavro.ParseOptions(strings.Join(mapping, " "))
	if err == nil && docsGiven && docs && opts.Profile == protoavro.JavaProfile {
		// As with the options the Java profile ignores: asked for, docs
		// would silently not be there.
		err = errors.New(`"docs=true": profile=java writes no "doc" attributes`)
	}
	return opts, docs, err
}

// checkEdition refuses a file of an edition outside those the plugin
// supports. protoc does not send such files to the plugin, which
// advertises its editions; a request made otherwise may hold one.
func checkEdition(f *descriptorpb.FileDescriptorProto) error {
	if f.GetSyntax() != "editions" {
		return nil // proto2 or proto3, or a syntax that building the files refuses
	}
	if e := f.GetEdition(); e < minEdition || e > maxEdition {
		return fmt.Errorf("%s: edition %s is not supported (protoc-gen-avro supports proto2, proto3 and editions up to %s)",
			safetext.Quote(f.GetName(), maxQuoted), editionName(e), editionName(maxEdition))
	}
	return nil
}

// editionName returns the name of edition e without its EDITION_ prefix:
// "2023", "PROTO2"; the number of an edition the plugin does not know.
func editionName(e descriptorpb.Edition) string {
	return strings.TrimPrefix(e.String(), "EDITION_")
}

// standardFiles are the files that protoc ships with its include directory,
// the standard imports that "protoavro schema" has built in (protocompile's).
var standardFiles = map[string]bool{
	"google/protobuf/any.proto":             true,
	"google/protobuf/api.proto":             true,
	"google/protobuf/compiler/plugin.proto": true,
	"google/protobuf/cpp_features.proto":    true,
	"google/protobuf/descriptor.proto":      true,
	"google/protobuf/duration.proto":        true,
	"google/protobuf/empty.proto":           true,
	"google/protobuf/field_mask.proto":      true,
	"google/protobuf/go_features.proto":     true,
	"google/protobuf/java_features.proto":   true,
	"google/protobuf/source_context.proto":  true,
	"google/protobuf/struct.proto":          true,
	"google/protobuf/timestamp.proto":       true,
	"google/protobuf/type.proto":            true,
	"google/protobuf/wrappers.proto":        true,
}

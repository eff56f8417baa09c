// Package protoload loads protobuf types at run time, from .proto files or
// serialized descriptor sets, the way the protoavro commands do, so that a
// program needs neither generated Go code nor protoc.
//
// [Load] takes an [Input]: .proto files, compiled in process and found as
// protoc finds them (a file on disk is taken relative to the first import
// path that holds it; an error about a missing import says which -I would
// find it), and descriptor sets (protoc --include_imports -o, buf build -o),
// whose missing standard imports (google/protobuf/*.proto) are supplied from
// the copies built into the program. The [Types] it returns hold every
// loaded file:
//
//   - [Types.FindMessage] finds a message by full name, suggesting the
//     closest names for an unknown one;
//   - [Types.Registry] is a *protoregistry.Files of the loaded files;
//   - [Types.Resolver] is a *dynamicpb.Types of their messages and
//     extensions: the resolver of google.protobuf.Any type URLs, for
//     protojson and for protoavro.Options.AnyResolver.
//
// [NewTypes] does the same for a FileDescriptorSet already in memory, such
// as one that travels with a pipeline. [Resolve] is [Load] followed by
// [Types.FindMessage], and [RegisterFlags] defines the flags the commands
// share (-I, --descriptor-set, -m/--message). [Compile] compiles .proto
// files alone.
//
// Errors of [Load], [Resolve] and [Types.FindMessage] are about the inputs:
// a file that is missing or does not compile, a descriptor set that is not
// one, lacks an import or is beyond the import bounds ([ErrImportLimit]),
// an unknown message name. The commands exit with
// status 2 for them.
package protoload

// Command protoavro maps protobuf messages to Avro from the command line.
//
// Usage:
//
//	protoavro <command> [arguments]
//
// schema prints the Avro schema of a message type (or writes one .avsc file
// per message); encode converts length-delimited protobuf or protojson lines
// to Avro Object Container Files; decode converts them back; inspect
// describes them. tojson, fromjson, getschema, getmeta, count, cat and concat
// work on container files of any schema, as Apache Avro's avro-tools does.
// kafka runs protoavro-kafka; version prints the build's version.
//
// Message types come from .proto files, compiled in-process with their
// imports, or from serialized FileDescriptorSet files (protoc -o, buf build
// -o), with the same flags on every command that takes a type (-I,
// --descriptor-set, -m).
//
// "protoavro <command> -h" prints a command's flags. The same help, for
// every command, is the command-line reference docs/cli.md in the
// repository, generated from it by internal/cmd/gencli.
//
// Exit status: 0 success, 1 bad data or an output whose writing fails, 2 a
// usage error (bad flags, missing files, an output file that cannot be
// created, unknown message).
package main

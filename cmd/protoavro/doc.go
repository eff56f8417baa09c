// Command protoavro maps protobuf messages to Avro from the command line.
//
// Usage:
//
//	protoavro <command> [arguments]
//
// Every command that works on a message type takes the same flags to find
// it. Message types come from .proto files, given as arguments and compiled
// in-process together with their imports (the standard
// google/protobuf/*.proto files are built in), and from serialized
// google.protobuf.FileDescriptorSet files (the output of protoc -o or
// buf build -o):
//
//	-I DIR                 import path; may repeat; default "."
//	--descriptor-set FILE  serialized FileDescriptorSet; may repeat
//	-m, --message NAME     full name of the message type (required)
//
// Like protoc, a .proto argument that exists on disk is made relative to the
// import path that contains it; any other argument is looked up relative to
// the import paths. Flags and .proto arguments may be given in any order;
// arguments after "--" are all files.
//
// # schema
//
// The schema command prints the Avro schema of one message as indented JSON,
// the content of an .avsc file:
//
//	protoavro schema [-I DIR]... [--descriptor-set FILE]... -m NAME [--profile default|java] [FILE.proto...]
//
// For example:
//
//	protoavro schema -I proto -m acme.v1.Order acme/v1/order.proto > order.avsc
//	protoavro schema --descriptor-set image.binpb -m acme.v1.Order --profile java
//
// The --profile flag selects the mapping: "default" is protoavro's lossless
// mapping, where leading comments in the .proto files become Avro "doc"
// attributes; "java" reproduces Apache Avro Java's ProtobufData.
//
// # Exit status
//
// A command exits with status 0 on success (and after printing help for -h
// or --help), 1 when its input was loaded but could not be processed (for
// example a message the profile cannot map), and 2 for a bad command line or
// input that cannot be loaded: an unknown flag or profile, a missing -m, a
// missing file, a .proto syntax error, or an unknown message name. On
// failure it prints exactly one line, starting with "protoavro: ", on
// standard error.
package main

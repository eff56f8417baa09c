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
//	-m, --message NAME     full name of the message type (required, except by decode)
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
// attributes; "java" reproduces Apache Avro Java's ProtobufData. schema,
// encode and decode also take the other mapping flags: --preset engine (the
// options of protoavro.EngineReady; later flags override it), --timestamps,
// --uint64, --map-keys, --recursion-depth, --recursion-carrier, --dynamic and
// --unknown-enums ("protoavro schema -h" describes them), and
// --schema-limits, which raises the bounds on deriving a schema from
// descriptors (docs/limits.md).
//
// With --out-dir DIR, schema writes the schema of every message of the
// .proto files given (or of the descriptor sets, or of one protobuf package
// with --package PKG), nested messages included, one file each named by
// the message's full name (acme.v1.Order.avsc). --canonical prints (or
// writes) the Parsing Canonical Form, --fingerprint the CRC-64-AVRO
// fingerprint as 16 hex digits ("NAME<TAB>VALUE" lines for several
// messages), and --options "K=V ..." takes the mapping options in the form
// container files record them (protoavro.ParseOptions):
//
//	protoavro schema -I proto --out-dir schemas acme/v1/order.proto
//	protoavro schema -I proto --package acme.v1 --fingerprint acme/v1/order.proto
//
// The protoc-gen-avro plugin writes the same files from protoc or buf (with
// doc attributes for the well-known types too, when the compiler passes
// their comments: the built-in google/protobuf/*.proto files have none).
//
// # encode
//
// The encode command converts a stream of protobuf messages of one type to
// an Avro Object Container File:
//
//	protoavro encode [type flags] [--in FILE|-]... [INPUT...] [--out FILE|-] [--format delimited|jsonl]
//	    [--codec null|deflate|snappy|zstd] [--workers N] [--block-size BYTES]
//	    [--profile default|java] [--descriptors stripped|full|minimal|none]
//	    [--shard-records N] [--shard-size BYTES] [--progress] [--skip-bad [--rejects FILE]]
//
// For example:
//
//	protoavro encode -I proto -m acme.v1.Order acme/v1/order.proto --in orders.bin --out orders.avro --codec zstd
//
// The inputs are the --in files and the arguments that do not end in
// .proto (glob patterns expanded), read in order into one output; gzip and
// zstd input is decompressed. Each input is length-delimited protobuf (each
// message preceded by its size as a varint, as Go's protodelim and Java's
// writeDelimitedTo write it), converted on --workers goroutines, or JSON
// Lines (one protojson object per line): without --format the format is
// told from the input's first bytes, and with a --format that the bytes
// contradict, errors say so. Input and output default to standard input
// and output. The file embeds the Avro schema, the message's descriptors
// (by default without source info; --descriptors selects full, minimal or
// none) and the mapping options, so decode needs no .proto files.
// --shard-records and --shard-size split the output into complete
// container files named after --out. Sizes take a binary suffix K, M or G
// (--shard-size 2G; 1K = 1024). A run replaces the shards of an earlier
// run of the same --out: after its own are in place it removes the
// container files at the shard names past its last one (other files there
// are kept, with a warning).
//
// For bytes fields named like OTLP's trace_id and span_id, a JSON line
// whose IDs are hex (as OTLP/JSON writes them; protojson reads bytes as
// base64) is an error that says so, rather than wrong bytes.
//
// A record that cannot be converted stops the command with an error naming
// the record's index (from 0) and the byte offset where it starts in the
// input (and, for JSON Lines, its line number). With --skip-bad such
// records are skipped and counted, and with --rejects FILE also copied to
// FILE in the input format. A broken length prefix (not a varint, over
// 64 MiB) or a truncated record always stops the command, since the
// records after it cannot be found.
//
// # decode
//
// The decode command converts a container file back to a stream of
// protobuf messages, length-delimited (marshalled deterministically) or, with
// --format jsonl, JSON Lines:
//
//	protoavro decode [--in FILE|-]... [FILE.avro...] [--out FILE|-] [--format delimited|jsonl]
//	    [--workers N] [--progress] [--skip-bad [--rejects FILE]] [type flags]
//
// Without type flags the records are read as the type embedded in the file.
// With them they are read into that type (for example a newer version of
// the message), by Avro's schema resolution, using the mapping options
// recorded in the file. With the default profile, encoding length-delimited
// messages that were marshalled deterministically and decoding the file
// gives back the same bytes (the Java profile, like Apache Avro Java, does
// not keep field presence).
//
// With --skip-bad a damaged file is salvaged: after a record that does not
// decode the rest of its block is skipped, after a damaged block everything
// up to the next sync marker; the summary counts what was skipped and
// --rejects FILE keeps the skipped bytes.
//
// # inspect
//
// The inspect command describes container files: the size as stored (for
// a gzip or zstd file, its size on disk, the compression and the
// decompressed size, each labelled), the message type, the mapping options, the codec, the schema's CRC-64-AVRO and SHA-256
// fingerprints, the number of blocks and records, and the metadata keys
// with their sizes; --schema adds the schema, --json prints one JSON object
// per file:
//
//	protoavro inspect [--json] [--schema] FILE.avro...
//
// Files written by protoavro are decoded completely, so damage is found;
// other container files are checked block by block.
//
// # avro-tools commands
//
// These commands work on any Avro container file, written by protoavro or
// not, and need no message type. JSON is the Avro specification's JSON
// encoding, as Apache Avro's avro-tools writes it: unions other than null
// as {"branch type name": value}, bytes and fixed as strings of code points
// 0-255, NaN and infinities as "NaN", "Infinity", "-Infinity".
//
//	protoavro tojson [--pretty] FILE.avro...
//	protoavro fromjson --schema FILE.avsc [--codec NAME] [--max-value-size SIZE] [--out FILE] [FILE.json]
//	protoavro getschema FILE.avro
//	protoavro getmeta [--key KEY] FILE.avro
//	protoavro count FILE.avro...
//	protoavro cat [--offset N] [--limit N] [--sample RATE] [--codec NAME] [--out FILE] FILE.avro...
//	protoavro concat [--codec NAME] [--out FILE] FILE.avro...
//
// count sums the block headers without decompressing or decoding records.
// cat copies a selection of records (skip --offset, keep an evenly spread
// --sample fraction, stop after --limit) to a new container file; concat
// copies whole files. Both need files with one schema (compared whole, as
// avro-tools compares them: logical types, decimal precision and scale,
// names, sizes, symbols, defaults, not only Parsing Canonical Form) and the
// same metadata outside avro.*, and copy blocks they take whole as they are
// stored when the codec does not change.
// fromjson reads JSON values one after another (JSON Lines or indented),
// each at most --max-value-size (64 MiB), refused before it is read whole;
// numbers beyond their type's range are refused; missing record fields take
// their defaults. A damaged file, a record that
// does not match the schema, or files with different schemas exit with
// status 1, the error naming the file, record index and byte offset.
//
// # version
//
// The version command (or --version) prints the module version and the VCS
// revision the binary was built from, as go install recorded them.
//
// # Output files, progress and summary
//
// encode and decode write an output file (and a rejects file) under a
// temporary name in the same directory (".NAME.tmp-XXXXXXXX") and rename it
// into place only when the command succeeds: after an error or an interrupt
// (SIGINT, SIGTERM) the temporary file is removed, no output file is
// created, and an existing one is left unchanged (a file replaced keeps
// its permissions). A symbolic link is followed (the link stays a link); a
// character device or a FIFO is written in place. Binary output is not
// written to a terminal. An output (--out, --rejects) that is one of the
// command's input files (--in, --descriptor-set, fromjson's --schema), by
// name or through a link, is refused (exit status 2); so are --out and
// --rejects naming one file. This holds for cat, concat and fromjson too.
// A write that fails (a closed pipe, a full disk), the summary's and help
// text's included, is an error and exits with status 1.
//
// While they run, they show progress on standard error (records, bytes
// read, rate, and the estimated time left when the input is a regular file)
// if standard error is a terminal, or always with --progress
// (--progress=false turns it off). When they succeed they print a one-line
// summary on standard error, for example:
//
//	protoavro: encoded 1000 records (203.8 KiB in, 142.3 KiB out, 1 block, zstandard) in 15ms; 0 skipped
//
// # Exit status
//
// A command exits with status 0 on success (and after printing help for -h
// or --help), 1 when its input was loaded but could not be processed (for
// example a message the profile cannot map, a malformed record, or a
// damaged container file), and 2 for a bad command line or input that
// cannot be loaded: an unknown flag, profile, codec or format, a missing -m
// beside .proto files, a missing file, a .proto syntax error, or an unknown
// message name (decoding a file that embeds no protobuf type without -m is
// status 1: the file lacks what it needs, the command line is whole). A
// flag that takes one value may be given once. On
// failure it prints exactly one line, starting with "protoavro: ", on
// standard error (after any progress lines forced with --progress).
package main

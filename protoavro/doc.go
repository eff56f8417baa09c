// Package protoavro bridges Protocol Buffers and Apache Avro.
//
// It derives an Avro schema from any protobuf message descriptor, once per
// descriptor and set of mapping options, and memoizes it, nested records and
// enums included, so that later lookups cost a map read and no allocation:
//
//	s, err := protoavro.Options{}.Schema((&pb.Order{}).ProtoReflect().Descriptor())
//	if err != nil { ... }
//	avsc, _ := s.JSON()      // the .avsc text
//	fp := s.Fingerprint()    // CRC-64-AVRO of the Parsing Canonical Form
//
// # Converting data
//
// [Options.Codec] compiles a [Codec] once per message type and options and
// caches it beside the schema. It is stateless per datum and safe for
// concurrent use, so one instance serves a whole program:
//
//	c, err := protoavro.Options{}.Codec(md)
//	buf, err = c.MarshalAppend(buf[:0], msg)      // message → Avro, no allocation but for map entries
//	err = c.Unmarshal(buf, msg2)                   // Avro → message (generated or dynamicpb)
//	avroBytes, err := c.TranscodeToAvro(nil, wire) // protobuf wire → Avro, no message built
//	wire, err = c.TranscodeToProto(nil, avroBytes) // Avro → protobuf wire
//
// [Codec.MarshalSingleObject] and [Codec.UnmarshalSingleObject] implement the
// specification's single-object encoding. [Codec.Resolve] reads data written
// with another schema, such as an older or newer version of the message, by
// Avro's schema resolution rules; [ParseSchema] parses such a schema (a
// container file's, a registry's) from untrusted text, with bounds on its
// size and nesting. [Schema] is protoavro's own type: no type of a
// third-party Avro module appears in this package's API.
//
// [NewContainerWriter] and [NewContainerReader] write and read Avro Object
// Container Files (null, deflate, snappy and zstandard blocks) in bounded
// memory, converting blocks on parallel workers. The files embed the message
// type and its descriptors, so they can be turned back into protobuf without
// the .proto files. Package ocf reads and writes container files of any
// schema, without a message type.
//
// # Files for engines
//
// [EngineReady] returns the options whose schemas BigQuery, Spark and Arrow
// load: finite schemas (the first level of each recursive type spelled out,
// [Options.RecursionDepth] 1, deeper subtrees carried as JSON; other depths
// and the protobuf bytes carrier are options too),
// google.protobuf.Struct/Value/ListValue/Any as JSON strings
// ([Options.DynamicAsJSON]), timestamp-micros and decimal(20,0) for uint64.
//
// Bad input gives a [*DataError] carrying the field path and byte offset
// (none, -1, for a message given to Marshal, whose input is not bytes),
// and wrapping one of the error classes ([ErrTruncated], [ErrMalformed],
// [ErrUnknownEnum], [ErrOutOfRange], [ErrMissingRequired], [ErrTooDeep],
// [ErrUnknownAnyType], [ErrIncompatible]).
//
// # Profiles
//
// The default profile ([DefaultProfile]) is lossless: field presence survives
// as ["null", T] unions, unsigned 32-bit integers widen to long, oneof
// members become nullable fields of which at most one is set, and
// google.protobuf.Timestamp and the wrapper types get dedicated Avro types.
// The Java profile ([JavaProfile]) reproduces Apache Avro Java's
// ProtobufData, so Go programs can produce what Java consumers already read.
// docs/mapping.md in the repository describes both mappings field kind by
// field kind, with the reasons for each choice.
//
// Mapping decisions rest only on descriptor features (presence, cardinality,
// map and list shape, oneof membership), never on the syntax keyword, so
// proto2, proto3 and editions files all work, as do dynamic descriptors
// built at run time.
//
// # Caching
//
// Schemas live in a [Cache]; [Options.Cache] selects one, and nil means the
// package-wide cache. Entries are keyed by descriptor identity, so two
// versions of one message loaded at run time never share a schema.
//
// # Errors
//
// Errors wrap one of the sentinel errors of this package ([ErrNameCollision],
// [ErrInvalidName], [ErrUnsupported], [ErrSchemaLimit], [ErrInvalidOptions],
// [ErrInvalidSchema], [ErrWrongType], the data classes above, and for container files
// [ErrNotContainer], [ErrClosed] and [ErrConcurrentUse]); test for them with
// [errors.Is]. docs/design.md in the repository shows how a descriptor
// becomes a plan, a schema and bytes.
package protoavro

// Package serde reads and writes Kafka record values in the Confluent Schema
// Registry wire format for protoavro: a magic byte 0, the schema ID as a
// big-endian uint32, for protobuf the message indexes, then the datum.
//
// It talks to a registry through franz-go's sr client (wrapped by
// [Registry], which caches its successful answers (at most 10,000 values and
// 256 MiB of schema text per cache, evicting those not read lately),
// remembers an unknown schema ID for a few seconds, bounds the fetch of a
// schema with its references to a minute, and turns a registry that is down
// into an error that wraps [ErrRegistryUnavailable], never cached):
//
//   - [Serializer] (Avro out): a protobuf message, or its wire bytes, becomes a
//     framed Avro record. The derived schema is registered (or looked up) once
//     per subject, under one of the subject-name strategies ([TopicName],
//     [RecordName], [TopicRecordName]); later records cost no registry call.
//   - [Deserializer] (Avro in): a framed Avro record becomes a message or wire
//     bytes of the reader's type; the writer schema is fetched once per ID and
//     resolved by Avro's rules, one resolver cached per ID.
//   - [ProtoDecoder] (protobuf in): a framed protobuf record; the schema (.proto
//     text or a base64 serialized FileDescriptorProto, as Confluent's
//     JavaScript serializer registers it) and its references are fetched by
//     ID and compiled in-process, the
//     message indexes pick the type, and the type's Avro codec is cached per
//     ID, so two IDs never share a schema. [ProtoEncoder] writes such records.
//   - [CheckCompatibility] and [Registry.Check] (the compatibility gate): a new
//     schema is checked locally against a subject's versions under BACKWARD,
//     FORWARD, FULL or a TRANSITIVE form, by Avro's resolution rules, and
//     every incompatibility is reported with its field path.
//
// Errors are told apart with errors.Is: [ErrBadMagic], [ErrTruncatedHeader],
// [ErrBadIndexes] (which are also protoavro.ErrMalformed or
// protoavro.ErrTruncated, as bad data in the datum is), [ErrUnknownID],
// [ErrWrongSchemaType], [ErrRegistryUnavailable] (retryable) and
// [ErrIncompatible] (which is protoavro.ErrIncompatible), and the other
// classes of errors.go; an operation cut short by the caller's context
// returns an error wrapping that context's error.
package serde

// Package records splits streams of protobuf messages into records, as the
// protoavro command and the Beam module's sources read them:
// length-delimited protobuf (a varint size before each message, as Go's
// protodelim and Java's writeDelimitedTo write it) with [NewDelimited],
// messages each preceded by its size as 4 bytes, big-endian (the
// OpenTelemetry Collector's file exporter, Java's DataOutputStream.writeInt
// before each message) with [NewSize32], and JSON Lines (one protojson
// object per line) with [NewLines]. [Sniff] tells length-delimited protobuf
// and JSON Lines apart from the first bytes of a stream; 4-byte prefixes
// are never guessed.
//
// Unlike protodelim, a reader gives each record's bytes without decoding
// them (to hand them to a [github.com/protoavro/protoavro/protoavro.Codec]
// or to workers), and where they start in the input. It reads untrusted
// bytes: every record is bounded by [MaxRecordSize], and every error of the
// input's bytes names the record's index and input offset ([Error]); a
// failure of the underlying io.Reader is returned wrapped, for [errors.Is].
package records

// Package bridge runs the protobuf-topic → Avro-topic stream bridge: it
// consumes protobuf records (Confluent-framed, or raw of one message type) of
// one or many topics (a list, or regular expressions) in a consumer group,
// converts them to Confluent-framed Avro with registered schemas, and
// produces each to the output topic its input topic's name gives, on
// franz-go's kgo.
//
// Delivery is at-least-once by default: a batch's offsets are committed only
// after every record produced from it is acknowledged. With
// Config.ExactlyOnce, each batch is produced and its offsets committed in one
// Kafka transaction, so a crash neither loses nor duplicates records for
// consumers that read committed data. Keys, headers and timestamps are carried
// over. A tombstone (a null value, a compacted topic's delete marker) stays a
// tombstone, with its key, rather than being converted. Records that cannot
// be converted (their data, or their registered schema, which does not
// compile or cannot be mapped) go to a dead-letter topic (Config.DeadLetter;
// without one, the first stops the bridge with an error), unchanged, with
// the reason in headers (HeaderError and the others). A registry that is
// down is retried, never dead-lettered; one that refuses the bridge's
// credentials, or an output schema (ErrOutputSchema), stops the bridge.
//
// A bridge logs with log/slog (Config.Logger), and Metrics serves its
// figures in Prometheus' text format with health probes.
//
// The package's files, by concern: bridge.go (Run), config.go (Config,
// output topic names), run.go (the poll loop and the at-least-once batch),
// txn.go (the exactly-once batch), convert.go (conversion on the worker
// pool), produce.go (producing a batch), deadletter.go (dead letters and
// error classes), brokererr.go (fetch and commit errors), lag.go,
// summary.go (Summary, the progress line), metrics.go (Metrics, health
// probes).
package bridge

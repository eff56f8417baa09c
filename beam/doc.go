// Package protoavrobeam converts protobuf data to Avro and back on Apache
// Beam (the Go SDK), for batch jobs that outgrow one machine: the same
// transforms run on the prism runner in-process and on Dataflow, Flink or
// Spark.
//
// The message type travels to workers as a [Type]: the message's full name,
// a serialized google.protobuf.FileDescriptorSet and the mapping options,
// all plain fields of the DoFns. A worker rebuilds the descriptor and the
// protoavro codec from it and caches them in the process (by the SHA-256 of
// the Type; at most 64 Types and 2 MiB of their bytes, the least recently
// used evicted first, failures not kept), so workers need no generated code.
//
// The transforms pass data in batches, not one element per record: a
// [Records] is a run of length-delimited protobuf wire records and a
// [Block] a run of Avro datums (the data of one container block). Beam's
// cost per element (coding, the data channel, the shuffle) is then paid per
// batch of about 256 KiB instead of per record.
//
//   - [ReadDelimited], [ReadSize32] and [ReadJSONLines] read files matching a glob (one
//     file per worker at a time, the files spread over workers by a
//     reshuffle) into Records;
//   - [ToAvro] converts Records to Blocks with the cached codec;
//   - [WriteAvro] converts Records and writes them to container files
//     prefix-SSSSS-of-NNNNN.avro without shuffling the data: each bundle
//     writes a temporary file of its own through protoavro's
//     ContainerWriter (its workers, its block rules), and a finalizing
//     step, given only the files' names, renames them once (N chosen by
//     the runner's bundles) or merges them into a fixed number of shards;
//     each shard is complete and self-describing, and a retried bundle
//     leaves no duplicate and no partial shard;
//   - [ReadAvro] reads container files with a splittable DoFn whose
//     restriction is a byte range: a block belongs to the range holding its
//     first byte, and a range is entered at the first sync marker in it, so
//     one large file spreads over workers;
//   - [Unbatch] and [WriteDelimited] turn records into single elements and
//     write them as length-delimited files.
//
// A program that cancels its pipeline (protoavro-beam on an interrupt)
// records the output with [SnapshotOutput] before the run, stops the
// writes of its in-process workers with [StopWrites], and removes what the
// run left with [OutputSnapshot.Discard].
//
// [Convert] puts a reader and [WriteAvro] together: files of records in
// (length-delimited, 4-byte-prefixed or JSON Lines), sharded container
// files out. The command protoavro-beam (beam/cmd/protoavro-beam) runs it.
package protoavrobeam

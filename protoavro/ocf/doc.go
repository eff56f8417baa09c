// Package ocf reads and writes Avro Object Container Files, as the Avro 1.12
// specification defines them, without interpreting the records they hold.
//
// A container file is a header — the magic "Obj\x01", a metadata map of
// byte values (avro.schema, the writer schema as JSON, and avro.codec, the
// block codec, among user keys) and a 16-byte sync marker — followed by
// blocks, each a record count, a byte size, that many bytes of records
// compressed with the file's codec, and the sync marker again.
//
// The package handles that framing and the codecs null, deflate, snappy and
// zstandard. It does not parse schemas or records: a [Writer] takes the
// schema as JSON bytes and blocks of already encoded records, a [Reader]
// gives the schema bytes and the blocks' data. Use it to inspect, check,
// copy or concatenate files, or as the layer under a record reader.
//
// A Reader is meant for untrusted input. Every size it reads is checked
// against a limit of [ReaderOptions] before anything is allocated for it,
// data is read in chunks as it arrives (a size that claims more than the
// input holds fails without allocating it), and blocks decompress with a
// bound on their output, so a decompression bomb fails without
// materialising more than the limit. Errors are *[Error] values naming the
// byte offset and block, wrapping one of [ErrNotContainer], [ErrTruncated],
// [ErrMalformed], [ErrLimit] or [ErrUnsupportedCodec], or the error of the
// underlying io.Reader; a nil io.Reader is an [ErrInvalidOptions].
package ocf

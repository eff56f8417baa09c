// Package interop holds protoavro's interoperability tests: container files
// and datums that protoavro writes are read by independent Avro
// implementations, and files that they write are read by protoavro.
//
// The implementations are Python's avro library (Debian python3-avro), Avro
// C (Debian avro-bin's avrocat for reading, and a small C program built
// against libavro for writing), JavaScript's avsc (npm, pinned in js/) and
// Java Avro 1.8 (Debian libavro-java, through small programs that the tests
// compile with javac). A test whose implementation is not installed skips
// with a one-line reason; with PROTOAVRO_INTEROP=require (as CI sets it) it
// fails instead. docs/interop.md describes the tests and their results.
//
// The package has no non-test code.
package interop

// Package bench compares protoavro with other Go Avro libraries on the
// AVRO-2147 datum (the message Foo of testdata/proto/avro2147.proto, with a
// nested message holding a 676-symbol enum), all encoding the same
// default-profile schema:
//
//   - Marshal: protoavro's Codec.MarshalAppend on the generated message, the
//     reference the other rows are compared with.
//   - Goavro: github.com/linkedin/goavro/v2 over a native map built from the
//     message per datum, as goavro-based converters
//     (go.einride.tech/protobuf-avro) do.
//   - HambaStruct: github.com/hamba/avro/v2's struct codec on a hand-written
//     struct of the same schema, filled once.
//
// It is a separate module (github.com/protoavro/protoavro/bench; the
// repository's go.work builds it with the library of the checkout it sits
// in) so that the benchmarks' dependencies stay out of the library's go.mod. The package has no non-test code; the
// benchmarks are in bench_test.go and TestComparisons checks that every row
// encodes the same datum. Run them with
//
//	cd bench && go test -run '^$' -bench AVRO2147 -benchmem -count 10 . | tee bench.txt
//	benchstat bench.txt
//
// and compare ratios within one run. protoavro's own benchmarks (schema
// cache, unmarshal, transcoders, containers) are in the repository root's
// bench_test.go.
package bench

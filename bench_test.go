// Benchmarks of the AVRO-2147 case: the message Foo, which holds a nested
// message with a 676-symbol enum. Apache Avro Java once rebuilt that nested
// schema on every datum; protoavro derives it once and reuses it.
//
// Run them side by side and compare ratios within one run:
//
//	go test -run '^$' -bench AVRO2147 -benchmem -count 10 . | tee bench.txt
//	benchstat bench.txt
package protoavro_test

import (
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/protoavro"
)

func BenchmarkAVRO2147(b *testing.B) {
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()

	// SchemaCached: a lookup in the cache after the first derivation.
	b.Run("SchemaCached", func(b *testing.B) {
		if _, err := protoavro.SchemaOf(md); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := protoavro.SchemaOf(md); err != nil {
				b.Fatal(err)
			}
		}
	})

	// SchemaUncached: the whole derivation, nested record and 676-symbol
	// enum included, with a fresh cache each time (what AVRO-2147 did per datum).
	b.Run("SchemaUncached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := (protoavro.Options{Cache: protoavro.NewCache()}).Schema(md); err != nil {
				b.Fatal(err)
			}
		}
	})
}

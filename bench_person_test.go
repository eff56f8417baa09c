package protoavro_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
	"github.com/protoavro/protoavro/protoavro"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// BenchmarkPerson measures small, string-heavy records: 1,000 Persons of
// testdata/proto/evolution/v2/person.proto, the records the Kafka bridge
// converts (about 100 bytes each), filled as its tests fill them. Each
// operation converts all of them, one call per record; ns/record is the
// cost of one.
//
//	go test -run '^$' -bench Person -benchmem -count 10 . | tee person.txt
//	benchstat person.txt
func BenchmarkPerson(b *testing.B) {
	md := testutil.FindMessage(testcompile.Protos(b, filepath.Join("testdata", "proto", "evolution", "v2"), "person.proto")[0],
		"protoavro.test.evolution.Person")
	if md == nil {
		b.Fatal("no Person")
	}
	codec, err := protoavro.Options{}.Codec(md)
	if err != nil {
		b.Fatal(err)
	}
	const n = 1000
	wires, datums := make([][]byte, n), make([][]byte, n)
	wireBytes := 0
	for i := range n {
		if wires[i], err = (proto.MarshalOptions{Deterministic: true}).Marshal(newBenchPerson(md, i)); err != nil {
			b.Fatal(err)
		}
		if datums[i], err = codec.TranscodeToAvro(nil, wires[i]); err != nil {
			b.Fatal(err)
		}
		wireBytes += len(wires[i])
	}
	buf := make([]byte, 0, 512)
	walker := newWireWalker(md)
	// each runs op on every record.
	each := func(records [][]byte, op func(rec []byte) error) func() error {
		return func() error {
			for _, rec := range records {
				if err := op(rec); err != nil {
					return err
				}
			}
			return nil
		}
	}
	ops := []benchOp{
		{"TranscodeToAvro", each(wires, func(rec []byte) error { buf, err = codec.TranscodeToAvro(buf[:0], rec); return err })},
		{"TranscodeToProto", each(datums, func(rec []byte) error { buf, err = codec.TranscodeToProto(buf[:0], rec); return err })},
		// The floors: the bare walk over the protobuf bytes, and a copy.
		{"Walk", each(wires, func(rec []byte) error { return walker.walk(walker.root, rec) })},
		{"Copy", each(wires, func(rec []byte) error { buf = append(buf[:0], rec...); return nil })},
	}
	for _, bc := range ops {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(wireBytes))
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.op(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n)/float64(b.N), "ns/record")
		})
	}
}

// newBenchPerson returns the i-th test Person of md, with the values the
// Kafka bridge's tests give it (kafka/internal/kafkatest): every field set
// from i, the repeated fields with 0 to 2 e-mail addresses and 0 to 3 tags,
// verified set on every other record.
func newBenchPerson(md protoreflect.MessageDescriptor, i int) *dynamicpb.Message {
	m := dynamicpb.NewMessage(md)
	fields := md.Fields()
	str := func(s string) protoreflect.Value { return protoreflect.ValueOfString(s) }
	m.Set(fields.ByName("name"), str(fmt.Sprintf("person-%d", i)))
	m.Set(fields.ByName("age"), protoreflect.ValueOfInt64(int64(i)*1000003))
	m.Set(fields.ByName("score"), protoreflect.ValueOfFloat64(float64(i)/3))
	role := fields.ByName("role")
	m.Set(role, protoreflect.ValueOfEnum(protoreflect.EnumNumber(i%role.Enum().Values().Len())))
	af := fields.ByName("address")
	addr := m.Mutable(af).Message()
	afs := af.Message().Fields()
	addr.Set(afs.ByName("street"), str(fmt.Sprintf("%d Main St", i)))
	addr.Set(afs.ByName("city"), str("Springfield"))
	addr.Set(afs.ByName("postal_code"), str(fmt.Sprintf("%05d", i%100000)))
	for j := range i % 3 {
		m.Mutable(fields.ByName("emails")).List().Append(str(fmt.Sprintf("p%d-%d@example.com", i, j)))
	}
	m.Set(fields.ByName("phone"), str(fmt.Sprintf("+1-555-%04d", i%10000)))
	if i%2 == 0 {
		m.Set(fields.ByName("verified"), protoreflect.ValueOfBool(i%4 == 0))
	}
	for j := range i % 4 {
		m.Mutable(fields.ByName("tags")).List().Append(str(fmt.Sprintf("t%d", j)))
	}
	return m
}

package kafkatest

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"
)

// TestPersonWire checks the direct encoding of the test Persons against
// proto.Marshal for both versions, on every shape NewPerson makes.
func TestPersonWire(t *testing.T) {
	for _, v := range []string{"v1", "v2"} {
		md := Person(t, v)
		for i := range 500 {
			want, err := proto.MarshalOptions{Deterministic: true}.Marshal(NewPerson(md, i))
			if err != nil {
				t.Fatal(err)
			}
			if got := personWire(md, i); !bytes.Equal(got, want) {
				t.Fatalf("%s person %d: %x, proto.Marshal gives %x", v, i, got, want)
			}
		}
	}
}

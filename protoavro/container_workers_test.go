package protoavro

import (
	"bytes"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
)

// TestContainerWriterWorkersSameBytes writes the same records, as wire
// bytes and as messages, with 1, 2 and 4 workers and every codec: the files
// differ only in their random sync markers, so that the workers change how
// fast a file is written, never what it holds.
func TestContainerWriterWorkersSameBytes(t *testing.T) {
	msgs := sampleFoos(3000)
	wires := make([][]byte, len(msgs))
	for i, m := range msgs {
		var err error
		if wires[i], err = proto.Marshal(m); err != nil {
			t.Fatal(err)
		}
	}
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	for _, comp := range allCompressions {
		var want []byte
		for _, workers := range []int{1, 2, 4} {
			var buf bytes.Buffer
			cw, err := NewContainerWriter(&buf, md, ContainerOptions{Compression: comp, BlockSize: 4096, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range msgs {
				if i%3 == 0 {
					err = cw.Write(m)
				} else {
					err = cw.WriteWire(wires[i])
				}
				if err != nil {
					t.Fatalf("%s, %d workers, record %d: %v", comp, workers, i, err)
				}
			}
			if err := cw.Close(); err != nil {
				t.Fatal(err)
			}
			file := withSync(buf.Bytes(), [16]byte{})
			if cw.Blocks() < 20 {
				t.Fatalf("%s: %d blocks, want at least 20 for the workers to share", comp, cw.Blocks())
			}
			if workers == 1 {
				want = file
				continue
			}
			if !bytes.Equal(file, want) {
				t.Errorf("%s: the file written with %d workers differs from the one of 1 worker (%d and %d bytes, sync markers aside)", comp, workers, len(file), len(want))
			}
		}
	}
}

// withSync returns a copy of the container file f with its sync marker, the
// last 16 bytes of the file, replaced by sync wherever it occurs.
func withSync(f []byte, sync [16]byte) []byte {
	if len(f) < 16 {
		panic(fmt.Sprintf("a container file of %d bytes", len(f)))
	}
	return bytes.ReplaceAll(f, bytes.Clone(f[len(f)-16:]), sync[:])
}

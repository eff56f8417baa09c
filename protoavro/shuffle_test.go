package protoavro

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/editionspb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testpb/legacypb"
	"github.com/protoavro/protoavro/internal/testutil"
)

// shuffleWire reorders the fields of a message's wire bytes, and of the
// messages nested in it (fields of message kind), at random, keeping the
// order of the occurrences of each field: the same message, as a writer
// that does not write fields in number order gives it.
func shuffleWire(r *rand.Rand, md protoreflect.MessageDescriptor, wire []byte) []byte {
	type field struct {
		num protowire.Number
		b   []byte
	}
	var fs []field
	for len(wire) > 0 {
		num, wt, n := protowire.ConsumeTag(wire)
		m := protowire.ConsumeFieldValue(num, wt, wire[n:])
		if n < 0 || m < 0 {
			return nil
		}
		b := wire[:n+m]
		if fd := md.Fields().ByNumber(num); fd != nil && wt == protowire.BytesType && fd.Message() != nil && !fd.IsMap() {
			v, _ := protowire.ConsumeBytes(wire[n:])
			b = protowire.AppendBytes(protowire.AppendTag(nil, num, wt), shuffleWire(r, fd.Message(), v))
		}
		fs = append(fs, field{num, b})
		wire = wire[n+m:]
	}
	// Shuffle the numbers, then give the occurrences of each number the
	// places of that number in order: the elements of a list keep their
	// order, though their runs may be split.
	nums := make([]protowire.Number, len(fs))
	for i, f := range fs {
		nums[i] = f.num
	}
	r.Shuffle(len(nums), func(i, j int) { nums[i], nums[j] = nums[j], nums[i] })
	byNum := map[protowire.Number][][]byte{}
	for _, f := range fs {
		byNum[f.num] = append(byNum[f.num], f.b)
	}
	var out []byte
	for _, n := range nums {
		out = append(out, byNum[n][0]...)
		byNum[n] = byNum[n][1:]
	}
	return out
}

// TestTranscodeShuffled transcodes random messages of the test types as
// proto.Marshal writes them and with their fields shuffled at every level
// (lists split into runs, nested messages shuffled inside): the shuffled
// input is the same message to proto.Unmarshal, and TranscodeToAvro gives
// the same record of both, the record Marshal gives.
func TestTranscodeShuffled(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for _, m := range []proto.Message{&avro2147pb.Foo{}, &kitchenpb.KitchenSink{}, &legacypb.Legacy{},
		&editionspb.Open{}, &editionspb.Hybrid{}, &editionspb.Opaque{}} {
		md := m.ProtoReflect().Descriptor()
		for _, o := range []Options{{}, {Profile: JavaProfile}} {
			c := mustCodecFor(t, o, md)
			key := testutil.SeedKey("shuffle " + string(md.FullName()))
			for i := range 300 {
				msg := testutil.RandMessage(md, false, key, i, testutil.DefaultConfig)
				what := fmt.Sprintf("%s %v #%d", md.FullName(), o.Profile, i)
				wire := testutil.Wire(t, msg)
				shuffled := shuffleWire(r, md, wire)
				back := m.ProtoReflect().New().Interface()
				if err := proto.Unmarshal(shuffled, back); err != nil || !proto.Equal(back, msg) {
					t.Fatalf("%s: the shuffled input is another message: %v", what, err)
				}
				want, err := c.Marshal(msg)
				if err != nil {
					t.Fatalf("%s: Marshal: %v", what, err)
				}
				a, err1 := c.TranscodeToAvro(nil, wire)
				b, err2 := c.TranscodeToAvro(nil, shuffled)
				if err1 != nil || err2 != nil || !bytes.Equal(a, want) || !bytes.Equal(b, want) {
					t.Fatalf("%s: ordered and shuffled inputs give %x, %v and %x, %v; Marshal %x", what, a, err1, b, err2, want)
				}
			}
		}
	}
}

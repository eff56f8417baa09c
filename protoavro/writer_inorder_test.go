package protoavro

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"google.golang.org/protobuf/encoding/protowire"
)

// wireFields splits a protobuf encoding into its top-level fields, or
// returns nil for bytes that are not a sequence of fields.
func wireFields(wire []byte) [][]byte {
	var out [][]byte
	for len(wire) > 0 {
		_, _, n := protowire.ConsumeField(wire)
		if n < 0 {
			return nil
		}
		out = append(out, wire[:n])
		wire = wire[n:]
	}
	return out
}

// reorderings returns encodings of wire's fields in other orders, each
// with a name: reversed, rotated by one, every field twice in a row, and
// the whole encoding twice (a merge). Protobuf reads them all; only the
// scanning path of the transcoder writes them.
func reorderings(wire []byte) map[string][]byte {
	fs := wireFields(wire)
	if len(fs) < 2 {
		return nil
	}
	rev := slices.Clone(fs)
	slices.Reverse(rev)
	var doubled [][]byte
	for _, f := range fs {
		doubled = append(doubled, f, f)
	}
	return map[string][]byte{
		"reversed": bytes.Join(rev, nil),
		"rotated":  bytes.Join(append(slices.Clone(fs[1:]), fs[0]), nil),
		"doubled":  bytes.Join(doubled, nil),
		"twice":    bytes.Join([][]byte{wire, wire}, nil),
	}
}

// transcodeBothPaths transcodes wire with the one-pass path allowed and
// without it, fails the test unless both give the same bytes or the same
// error, and reports whether the one-pass path gave up.
func transcodeBothPaths(t *testing.T, name string, c *Codec, wire []byte) (gaveUp bool, err error) {
	t.Helper()
	got, _, gaveUp, err := c.transcode(nil, wire, false)
	want, _, _, wantErr := c.transcode(nil, wire, true)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) || !bytes.Equal(got, want) {
		t.Fatalf("%s: the one-pass path gives %x (%v), the scanning path %x (%v), of %x", name, got, err, want, wantErr, wire)
	}
	return gaveUp, err
}

// TestInOrderPathAgreesWithScanning: the transcoder's one-pass path writes
// the protobuf encoders' own field order without giving up, whether the
// schema declares the fields in the order of their numbers or not
// (avro2147.Foo declares 20, 19, 18), and every other order through the
// scanning path; both paths give the same bytes for every input.
func TestInOrderPathAgreesWithScanning(t *testing.T) {
	t.Parallel()
	codecs := fuzzCodecs(t)
	// Deterministic encodings written in one pass, of messages declared in
	// the order of their numbers and of others; reorderings given up on.
	var inOrder, permuted, gaveUp int
	for _, m := range seedMessages() {
		wire := testutil.Wire(t, m)
		for _, fc := range codecs {
			if fc.c.Schema().Descriptor() != m.ProtoReflect().Descriptor() {
				continue
			}
			up, err := transcodeBothPaths(t, fc.name, fc.c, wire)
			if err == nil && up {
				t.Errorf("%s: the one-pass path gave up on a deterministic encoding %x", fc.name, wire)
			}
			switch {
			case err != nil || !fc.c.enc.inOrder:
			case fc.c.enc.prefix == len(fc.c.enc.fields):
				inOrder++
			default:
				permuted++
			}
			for how, w := range reorderings(wire) {
				if up, _ := transcodeBothPaths(t, fc.name+"/"+how, fc.c, w); up {
					gaveUp++
				}
			}
		}
	}
	// Every path was taken: the comparisons above compared something.
	if inOrder == 0 || permuted == 0 || gaveUp == 0 {
		t.Fatalf("%d encodings written in one pass in the schema's order, %d in another, %d given up on: each must be taken", inOrder, permuted, gaveUp)
	}
}

// FuzzTranscodePathsAgree: the one-pass and the scanning paths of
// TranscodeToAvro give the same bytes, or the same error, for any input.
func FuzzTranscodePathsAgree(f *testing.F) {
	addWireSeeds(f)
	for _, m := range seedMessages() {
		for _, w := range reorderings(testutil.Wire(f, m)) {
			f.Add(w)
		}
	}
	codecs := fuzzCodecs(f)
	f.Fuzz(func(t *testing.T, wire []byte) {
		for _, fc := range codecs {
			transcodeBothPaths(t, fc.name, fc.c, wire)
		}
	})
}

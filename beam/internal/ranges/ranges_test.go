package ranges

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	pb "github.com/protoavro/protoavro/internal/testpb/avro2147pb"
)

// delimitedOf returns recs length-delimited, and the offset of each.
func delimitedOf(recs ...string) ([]byte, []int64) {
	var out []byte
	var offs []int64
	for _, r := range recs {
		offs = append(offs, int64(len(out)))
		out = protowire.AppendBytes(out, []byte(r))
	}
	return out, offs
}

// collect gathers the records of batches with their indexes.
func collect(t *testing.T, batches []Batch) (recs []string, idx []int64) {
	t.Helper()
	for _, b := range batches {
		if err := b.Each("t", func(i int64, w []byte) error {
			recs, idx = append(recs, string(w)), append(idx, i)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return recs, idx
}

func TestDelimitedRangeAndClaims(t *testing.T) {
	data, offs := delimitedOf("a", "bb", "", "dddd", "e")
	var batches []Batch
	var claimed []int64
	done, err := Delimited(bytes.NewReader(data), "t", 4, offs[1]-1, func(off int64) bool {
		claimed = append(claimed, off)
		return off < offs[4]
	}, func(b Batch) { batches = append(batches, b) })
	if err != nil || done {
		t.Fatalf("done %v, err %v; want a refused claim", done, err)
	}
	recs, idx := collect(t, batches)
	if strings.Join(recs, ",") != "bb,,dddd" || idx[0] != 1 || idx[2] != 3 {
		t.Errorf("records %q at %v, want bb,,dddd at 1..3", recs, idx)
	}
	if len(claimed) != 4 || claimed[0] != offs[1] || claimed[3] != offs[4] {
		t.Errorf("claims %v, want the offsets of records 1 to 4 (%v)", claimed, offs[1:])
	}
	if len(batches) < 2 || batches[0].Offset != offs[1] {
		t.Errorf("batches %+v: want batches of about 4 bytes, the first at %d", batches, offs[1])
	}
}

func TestDelimitedErrors(t *testing.T) {
	data, _ := delimitedOf("a", "bb")
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"truncated record", "record 2 (input byte " + strconv.Itoa(len(data)) + "): truncated", append(append([]byte(nil), data...), 5, 'x')},
		{"truncated prefix", "record 2 (input byte " + strconv.Itoa(len(data)) + "): truncated", append(append([]byte(nil), data...), 0x80)},
		{"length over the limit", "exceeds the limit", protowire.AppendVarint(nil, MaxRecordSize+1)},
	} {
		_, err := Delimited(bytes.NewReader(tc.data), "in.delimited", 0, 0, func(int64) bool { return true }, func(Batch) {})
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "in.delimited") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an ErrInput naming the file and %q", tc.name, err, tc.want)
		}
	}
}

func TestJSONLines(t *testing.T) {
	in := "{\"int32\": 1, \"string\": \"x\"}\n\n  \n{\"int32\": 2}\n"
	var batches []Batch
	mt := (&pb.Foo{}).ProtoReflect().Type()
	if err := JSONLines(strings.NewReader(in), mt, nil, "t", 1, func(b Batch) { batches = append(batches, b) }); err != nil {
		t.Fatal(err)
	}
	recs, idx := collect(t, batches)
	if len(recs) != 2 || idx[1] != 1 || batches[1].Offset != int64(strings.Index(in, "{\"int32\": 2}")) {
		t.Fatalf("records %q at %v, batches %+v", recs, idx, batches)
	}
	for i, want := range []*pb.Foo{{Int32: proto.Int32(1), String_: proto.String("x")}, {Int32: proto.Int32(2)}} {
		w, _ := proto.MarshalOptions{Deterministic: true}.Marshal(want)
		if recs[i] != string(w) {
			t.Errorf("record %d: %x, want %x", i, recs[i], w)
		}
	}
	err := JSONLines(strings.NewReader(in+"{\"int32\": \"no\"}\n"), mt, nil, "in.jsonl", 0, func(Batch) {})
	if want := "in.jsonl: record 2 (line 5, input byte " + strconv.Itoa(len(in)) + ")"; !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), want) {
		t.Errorf("bad line: %v, want an ErrInput with %q", err, want)
	}
}

// Each record of a batch keeps its input offset (and line), so an error
// found after reading (a record that does not convert) names where the
// record is in its file.
func TestRecordError(t *testing.T) {
	errBad := errors.New("bad")
	// A non-minimal length prefix (0x81 0x00 for 1): the input offsets are
	// not those of the batch's own, re-encoded, prefixes.
	data := append([]byte{0x81, 0x00, 'a'}, protowire.AppendBytes(nil, []byte("bb"))...)
	data = protowire.AppendBytes(data, []byte("c"))
	var batches []Batch
	if _, err := Delimited(bytes.NewReader(data), "t", 1, 0, func(int64) bool { return true }, func(b Batch) { batches = append(batches, b) }); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range batches {
		if err := b.Each("t", func(i int64, _ []byte) error { got = append(got, b.RecordError(i, errBad).Error()); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"record 0 (input byte 0): bad", "record 1 (input byte 3): bad", "record 2 (input byte 6): bad"}; !slices.Equal(got, want) {
		t.Errorf("delimited: %q, want %q", got, want)
	}

	lines := "{\"int32\": 1}\n\n{\"int32\": 2}\n"
	mt := (&pb.Foo{}).ProtoReflect().Type()
	batches = nil
	if err := JSONLines(strings.NewReader(lines), mt, nil, "t", 1<<10, func(b Batch) { batches = append(batches, b) }); err != nil {
		t.Fatal(err)
	}
	if len(batches) != 1 {
		t.Fatalf("%d batches", len(batches))
	}
	err := batches[0].RecordError(1, errBad)
	if !errors.Is(err, errBad) || err.Error() != "record 1 (line 3, input byte 14): bad" {
		t.Errorf("JSON lines: %v", err)
	}
	// A batch built without positions still names the record.
	if err := (Batch{Index: 5, Count: 1}).RecordError(5, errBad); err.Error() != "record 5: bad" {
		t.Errorf("no positions: %v", err)
	}
}

package protoavro

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avrojson"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// TestBlockSizeBeyondInput: an array block whose byte size exceeds the
// bytes left is refused alike by the codec (Unmarshal and TranscodeToProto)
// and by avrojson (tojson, cat), at the byte where the size is.
func TestBlockSizeBeyondInput(t *testing.T) {
	c := mustCodec(t, Options{}, &fieldmaskpb.FieldMask{})
	// paths: a block of -1 items (one, with its byte size) of size 100,
	// then "a" and the end of the array.
	data := []byte{0x01, 0xc8, 0x01, 0x02, 0x61, 0x00}
	const msg = "block size 100 exceeds the 3 bytes left"
	errs := map[string]error{"Unmarshal": c.Unmarshal(data, &fieldmaskpb.FieldMask{})}
	_, errs["TranscodeToProto"] = c.TranscodeToProto(nil, data)
	_, _, errs["avrojson.AppendJSON"] = avrojson.AppendJSON(nil, c.schema.root, data)
	for what, err := range errs {
		if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), "paths at byte 1: ") || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want ErrTruncated at paths, byte 1, with %q", what, err, msg)
		}
	}
	// The same items with their true size are read by both.
	good := []byte{0x01, 0x04, 0x02, 0x61, 0x00}
	m := &fieldmaskpb.FieldMask{}
	if err := c.Unmarshal(good, m); err != nil || len(m.Paths) != 1 || m.Paths[0] != "a" {
		t.Errorf("Unmarshal with the true size: %v, %v", m, err)
	}
	if js, _, err := avrojson.AppendJSON(nil, c.schema.root, good); err != nil || string(js) != `{"paths":["a"]}` {
		t.Errorf("AppendJSON with the true size: %s, %v", js, err)
	}
}

// TestEmptyItemsClass: a datum with one zero-size item more than a datum
// may hold is refused by the codec and by avrojson with the one class of
// the bound, ocf.ErrLimit (which protoavro's errors also report as
// ErrMalformed), at the same byte.
func TestEmptyItemsClass(t *testing.T) {
	c := mustCodec(t, Options{}, &kitchenpb.WellKnown{})
	m := &kitchenpb.WellKnown{RepeatedEmpty: make([]*emptypb.Empty, maxEmptyItems)}
	for i := range m.RepeatedEmpty {
		m.RepeatedEmpty[i] = &emptypb.Empty{}
	}
	datum, err := c.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := avrojson.AppendJSON(nil, c.schema.root, datum); err != nil {
		t.Fatalf("AppendJSON at the bound: %v", err)
	}
	// The array's one block counts maxEmptyItems items, which take no
	// bytes: one more in the count is one over the bound.
	count := binary.AppendVarint(nil, maxEmptyItems)
	at := bytes.Index(datum, count)
	if at < 0 || bytes.Count(datum, count) != 1 {
		t.Fatalf("the block count %x is not once in the datum", count)
	}
	over := bytes.Clone(datum)
	over = append(over[:at], append(binary.AppendVarint(nil, maxEmptyItems+1), datum[at+len(count):]...)...)

	errs := map[string]error{"Unmarshal": c.Unmarshal(over, &kitchenpb.WellKnown{})}
	_, errs["TranscodeToProto"] = c.TranscodeToProto(nil, over)
	_, _, errs["avrojson.AppendJSON"] = avrojson.AppendJSON(nil, c.schema.root, over)
	for what, err := range errs {
		var e *avrobin.Error
		var de *DataError
		off := -1
		if errors.As(err, &de) {
			off = de.Offset
		} else if errors.As(err, &e) {
			off = e.Offset
		}
		if !errors.Is(err, ocf.ErrLimit) || off != at || !strings.Contains(err.Error(), "zero-size items exceed the limit of 1048576 per datum") {
			t.Errorf("%s: %v (offset %d), want ocf.ErrLimit at byte %d", what, err, off, at)
		}
	}
	if err := errs["Unmarshal"]; !errors.Is(err, ErrMalformed) {
		t.Errorf("Unmarshal: %v, want ErrMalformed too", err)
	}
}

// TestUnionIndexLongVarint: the index of a ["null", T] union written in a
// varint of more bytes than it needs (0x80 0x00 for 0, 0x82 0x00 for 1),
// which the Avro specification does not forbid, is read as the one-byte
// index by every reader: Unmarshal into a generated message (the direct
// reader) and into a dynamicpb message (the transcoder), TranscodeToProto,
// and avrojson; an index of 2 so written is refused by all, as
// ErrMalformed.
func TestUnionIndexLongVarint(t *testing.T) {
	c := mustCodec(t, Options{}, &kitchenpb.OptionalScalars{})
	// 16 nullable fields, double_field first: null, then 1.5.
	double := binary.LittleEndian.AppendUint64(nil, math.Float64bits(1.5))
	rest := make([]byte, 15)
	for _, d := range []struct{ short, long []byte }{
		{append([]byte{0x00}, rest...), append([]byte{0x80, 0x00}, rest...)},
		{append(append([]byte{0x02}, double...), rest...), append(append([]byte{0x82, 0x00}, double...), rest...)},
		{append(append([]byte{0x02}, double...), rest...), append(append([]byte{0x82, 0x80, 0x80, 0x00}, double...), rest...)},
	} {
		want := &kitchenpb.OptionalScalars{}
		if err := c.Unmarshal(d.short, want); err != nil {
			t.Fatal(err)
		}
		wantWire, _ := c.TranscodeToProto(nil, d.short)
		wantJSON, _, _ := avrojson.AppendJSON(nil, c.schema.root, d.short)
		got := &kitchenpb.OptionalScalars{}
		if err := c.Unmarshal(d.long, got); err != nil || !proto.Equal(got, want) {
			t.Errorf("Unmarshal of %x: %v, %v; want %v", d.long, got, err, want)
		}
		dyn := dynamicpb.NewMessage(want.ProtoReflect().Descriptor())
		if err := c.Unmarshal(d.long, dyn); err != nil || !proto.Equal(dyn, want) {
			t.Errorf("Unmarshal into dynamicpb of %x: %v, %v; want %v", d.long, dyn, err, want)
		}
		if wire, err := c.TranscodeToProto(nil, d.long); err != nil || !bytes.Equal(wire, wantWire) {
			t.Errorf("TranscodeToProto of %x: %x, %v; want %x", d.long, wire, err, wantWire)
		}
		if js, n, err := avrojson.AppendJSON(nil, c.schema.root, d.long); err != nil || n != len(d.long) || !bytes.Equal(js, wantJSON) {
			t.Errorf("AppendJSON of %x: %s, %d bytes, %v; want %s", d.long, js, n, err, wantJSON)
		}
	}
	bad := append([]byte{0x84, 0x00}, rest...)
	errs := map[string]error{
		"Unmarshal":           c.Unmarshal(bad, &kitchenpb.OptionalScalars{}),
		"Unmarshal dynamicpb": c.Unmarshal(bad, dynamicpb.NewMessage((&kitchenpb.OptionalScalars{}).ProtoReflect().Descriptor())),
	}
	_, errs["TranscodeToProto"] = c.TranscodeToProto(nil, bad)
	_, _, errs["AppendJSON"] = avrojson.AppendJSON(nil, c.schema.root, bad)
	for what, err := range errs {
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s of %x: %v, want ErrMalformed", what, bad, err)
		}
	}
}

// TestNestingLimitAlike: a Tree inside 1,000 others (through parent) is
// read by every reader (Unmarshal, TranscodeToProto, avrojson and its
// skipper) and written back as it was by Marshal; one inside 1,001 is
// refused by all: ErrTooDeep by the codec, ocf.ErrLimit by avrojson.
// Records alone count: avrojson does not count the unions between them.
func TestNestingLimitAlike(t *testing.T) {
	c := mustCodec(t, Options{}, &kitchenpb.Tree{})
	skip := avrobin.NewSkipper(c.schema.root, 0)
	// n Trees nested in the first: label, children, parent (branch 1) of
	// each, the last one's four fields, then each one's named map.
	chain := func(n int) []byte {
		b := bytes.Repeat([]byte{0, 0, 2}, n)
		b = append(b, 0, 0, 0, 0)
		return append(b, bytes.Repeat([]byte{0}, n)...)
	}
	deepest := chain(maxDepth)
	m := &kitchenpb.Tree{}
	if err := c.Unmarshal(deepest, m); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if _, err := c.TranscodeToProto(nil, deepest); err != nil {
		t.Errorf("TranscodeToProto: %v", err)
	}
	if _, n, err := avrojson.AppendJSON(nil, c.schema.root, deepest); err != nil || n != len(deepest) {
		t.Errorf("AppendJSON: %d of %d bytes, %v", n, len(deepest), err)
	}
	if r := (avrobin.Reader{Buf: deepest}); skip.Skip(&r) != nil || r.Pos != len(deepest) {
		t.Errorf("Skip: ends at %d of %d bytes, %v", r.Pos, len(deepest), skip.Skip(&avrobin.Reader{Buf: deepest}))
	}
	if again, err := c.Marshal(m); err != nil || !bytes.Equal(again, deepest) {
		t.Errorf("Marshal of the message read: %d bytes, %v; want the %d bytes read", len(again), err, len(deepest))
	}

	deeper := chain(maxDepth + 1)
	errs := map[string]error{"Unmarshal": c.Unmarshal(deeper, &kitchenpb.Tree{})}
	_, errs["TranscodeToProto"] = c.TranscodeToProto(nil, deeper)
	// The paths name the outermost and innermost few levels only.
	const path = "Tree.parent.parent.(996 more).parent.parent.parent"
	for what, err := range errs {
		var de *DataError
		if !errors.Is(err, ErrTooDeep) || !errors.As(err, &de) || de.Path != path {
			t.Errorf("%s: %.300v, want ErrTooDeep at %s", what, err, path)
		}
	}
	_, _, jerr := avrojson.AppendJSON(nil, c.schema.root, deeper)
	serr := skip.Skip(&avrobin.Reader{Buf: deeper})
	for what, err := range map[string]error{"AppendJSON": jerr, "Skip": serr} {
		if !errors.Is(err, ocf.ErrLimit) || !strings.Contains(err.Error(), "more than 1000 nested records") || len(err.Error()) > 300 {
			t.Errorf("%s: %.300v, want ocf.ErrLimit with a short path", what, err)
		}
	}
}

// TestDeepPathBounded: a writer schema of recursive records with long
// field names, resolved against a reader type, and a datum nested until it
// is refused: the error's path stays short, and building it costs no more
// than the datum justifies (it was rebuilt whole at every level).
func TestDeepPathBounded(t *testing.T) {
	name := strings.Repeat("r", 4000)
	ws, err := ParseSchema([]byte(`{"type":"record","name":"Point","namespace":"protoavro.test.kitchen","fields":[{"name":"junk","type":{"type":"record","name":"R","fields":[{"name":"` + name + `","type":["null","R"]}]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := mustCodec(t, Options{}, &kitchenpb.Point{}).Resolve(ws)
	if err != nil {
		t.Fatal(err)
	}
	datum := bytes.Repeat([]byte{2}, 1100)
	var uerr error
	n := testutil.Allocated(func() { uerr = r.Unmarshal(datum, &kitchenpb.Point{}) })
	if !errors.Is(uerr, ErrTooDeep) || len(uerr.Error()) > 2048 {
		t.Errorf("Unmarshal: an error of %d bytes: %.300v; want ErrTooDeep, short", len(uerr.Error()), uerr)
	}
	if n > 16<<20 {
		t.Errorf("Unmarshal allocated %d MiB", n>>20)
	}
}

// TestBlockMinItemSize: every reader checks an array or map block's count
// against the bytes left with the same least size of an item
// (avrobin.MinSize: 8 bytes for a double, 4 for a float, one more for a
// map key), so a block of more items than the bytes can hold is refused
// at its header alike, with the same error, by Unmarshal into a generated
// message (the direct reader) and into a dynamicpb message (the
// transcoder), TranscodeToProto and avrojson.
func TestBlockMinItemSize(t *testing.T) {
	zeros := func(n int) []byte { return make([]byte, n) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, c := range []struct {
		name string
		m    proto.Message
		data []byte
		at   int
		want string
	}{
		// packed_double, the first field: 8 items, with a byte size of
		// -25, in 9 bytes.
		{"doubles", &kitchenpb.Repeateds{}, []byte("\x0f1000000000"), 0, "block of 8 items exceeds the 9 bytes left"},
		// packed_float, the second field: 3 items in 8 bytes.
		{"floats", &kitchenpb.Repeateds{}, cat([]byte{0, 6}, zeros(8)), 1, "block of 3 items exceeds the 8 bytes left"},
		// string_to_double, after 12 empty maps: 2 entries in 11 bytes.
		{"map of doubles", &kitchenpb.Maps{}, cat(zeros(12), []byte{4, 2, 'a'}, zeros(9)), 12, "block of 2 items exceeds the 11 bytes left"},
		// repeated_double_wrapper, after 17 nulls and 2 empty arrays: 2
		// items in 8 bytes.
		{"double wrappers", &kitchenpb.WellKnown{}, cat(zeros(19), []byte{4}, zeros(8)), 19, "block of 2 items exceeds the 8 bytes left"},
	} {
		codec := mustCodec(t, Options{}, c.m)
		errs := map[string]error{
			"Unmarshal":           codec.Unmarshal(c.data, c.m.ProtoReflect().New().Interface()),
			"Unmarshal dynamicpb": codec.Unmarshal(c.data, dynamicpb.NewMessage(c.m.ProtoReflect().Descriptor())),
		}
		_, errs["TranscodeToProto"] = codec.TranscodeToProto(nil, c.data)
		_, _, errs["AppendJSON"] = avrojson.AppendJSON(nil, codec.schema.root, c.data)
		for what, err := range errs {
			var de *DataError
			var e *avrobin.Error
			off := -2
			if errors.As(err, &de) {
				off = de.Offset
			} else if errors.As(err, &e) {
				off = e.Offset
			}
			if !errors.Is(err, ErrTruncated) || off != c.at || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %s of %x: %v, want ErrTruncated at byte %d with %q", c.name, what, c.data, err, c.at, c.want)
			}
		}
	}
}

package protoavro

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testpb/legacypb"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// TestEmptyItemsCountedAlike: the writers count the zero-size items of a
// datum (nested records that take no bytes: empty messages in lists, map
// values, singular and oneof fields) exactly as the reader counts them, on
// random messages through the wire path and the struct path, in both
// profiles. The bound on them (TestDatumEmptyItemsBound) rests on this.
func TestEmptyItemsCountedAlike(t *testing.T) {
	for _, m := range []proto.Message{&kitchenpb.WellKnown{}, &kitchenpb.KitchenSink{}, &legacypb.Legacy{}} {
		md := m.ProtoReflect().Descriptor()
		for _, o := range []Options{{}, {Profile: JavaProfile}} {
			c := mustCodecFor(t, o, md)
			key := testutil.SeedKey("empty items " + string(md.FullName()))
			var seen int64
			for i := range 100 {
				msg := testutil.RandMessage(md, false, key, i, testutil.DefaultConfig)
				wire := testutil.Wire(t, msg)
				st := &encState{in: wire, occ: []occ{{start: 0, end: int32(len(wire)), wt: protowire.BytesType, next: -1}}, policy: c.policy, limit: math.MaxInt}
				datum, err := st.encodeMessage(nil, c.enc, 0)
				if err != nil {
					t.Fatalf("%s #%d: %v", md.FullName(), i, err)
				}
				want, _, err := emptyItems(c.dec, nil, datum)
				if err != nil {
					t.Fatalf("%s #%d: read back: %v", md.FullName(), i, err)
				}
				if st.empty != want {
					t.Fatalf("%s %v #%d: the wire writer counts %d zero-size items, the reader %d", md.FullName(), o.Profile, i, st.empty, want)
				}
				if p := c.direct(msg); p != nil {
					st := &encState{policy: c.policy, limit: math.MaxInt}
					if _, err := st.encodeStruct(nil, p, reflect.ValueOf(msg).UnsafePointer()); err != nil {
						t.Fatal(err)
					}
					if st.empty != want {
						t.Fatalf("%s %v #%d: the struct writer counts %d zero-size items, the reader %d", md.FullName(), o.Profile, i, st.empty, want)
					}
				} else if md.FullName() != "protoavro.test.legacy.Legacy" {
					t.Fatalf("%s: no struct plan", md.FullName())
				}
				seen += want
			}
			if wantSome := md.FullName() != "protoavro.test.legacy.Legacy"; wantSome && seen == 0 {
				t.Fatalf("%s: no zero-size items in 100 random messages: the test checks nothing", md.FullName())
			}
		}
	}
}

// TestDatumEmptyItemsBound: a datum with more zero-size items than the
// readers accept (limits.DatumEmptyItems) is refused by every writer of
// single datums, with ErrOutOfRange and where; one at the bound is written
// and reads back.
func TestDatumEmptyItemsBound(t *testing.T) {
	c := mustCodec(t, Options{}, &kitchenpb.WellKnown{})
	with := func(n int) *kitchenpb.WellKnown {
		m := &kitchenpb.WellKnown{Empty: &emptypb.Empty{}, RepeatedEmpty: make([]*emptypb.Empty, n-1)}
		for i := range m.RepeatedEmpty {
			m.RepeatedEmpty[i] = &emptypb.Empty{}
		}
		return m
	}
	// At the bound: written by every path, and read back.
	m := with(maxEmptyItems)
	datum, err := c.Marshal(m)
	if err != nil {
		t.Fatalf("Marshal at the bound: %v", err)
	}
	wire := testutil.Wire(t, m)
	// The reader takes it, and gives the message back (its wire bytes).
	back, err := c.TranscodeToProto(nil, datum)
	if err != nil || !bytes.Equal(back, wire) {
		t.Fatalf("read back at the bound: %d bytes, %v; want the %d bytes of the message", len(back), err, len(wire))
	}
	if again, err := c.TranscodeToAvro(nil, wire); err != nil || !bytes.Equal(again, datum) {
		t.Fatalf("TranscodeToAvro at the bound: %v", err)
	}

	// One more: refused by Marshal (the struct path), MarshalSingleObject
	// and TranscodeToAvro (the wire path).
	m = with(maxEmptyItems + 1)
	wire, err = proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, out []byte, err error, wantOffset bool) {
		t.Helper()
		var de *DataError
		if !errors.Is(err, ErrOutOfRange) || !errors.As(err, &de) {
			t.Fatalf("%s: got %v, want a DataError of ErrOutOfRange", what, err)
		}
		if !strings.Contains(de.Path, "WellKnown.repeated_empty[1048575]") || !strings.Contains(err.Error(), "take no bytes") {
			t.Errorf("%s: %v: want the field's path and what is wrong", what, err)
		}
		if wantOffset && de.Offset <= 0 {
			t.Errorf("%s: offset %d, want the input's byte offset", what, de.Offset)
		}
		if len(out) != 0 {
			t.Errorf("%s: %d bytes written with the error", what, len(out))
		}
	}
	out, err := c.Marshal(m)
	check("Marshal", out, err, false)
	out, err = c.TranscodeToAvro(nil, wire)
	check("TranscodeToAvro", out, err, true)
	out, err = c.MarshalSingleObject(nil, m)
	check("MarshalSingleObject", out, err, false)
}

// TestWriteDatumEmptyItems: ContainerWriter.WriteDatum refuses a datum with
// more zero-size items than a reader of single datums accepts, even when
// the record is large enough for a block of its own to hold them; one at
// the bound is written and reads back, in the file and as a single datum.
func TestWriteDatumEmptyItems(t *testing.T) {
	md := hostileMsg(t, "H")
	c := mustCodecFor(t, Options{}, md)
	// H: id, items (an array of Empty), name (20,000 bytes), attrs, e,
	// nums, note: a block of this record alone holds 65,536 + 64 × 20,000
	// zero-size items, more than a datum may.
	datum := func(items int) []byte {
		d := appendLong([]byte{0}, int64(items))
		d = append(d, 0)
		d = appendLong(d, 20_000)
		d = append(d, bytes.Repeat([]byte{'x'}, 20_000)...)
		return append(d, 0, 0, 0, 0)
	}
	for _, n := range []int{maxEmptyItems, maxEmptyItems + 1} {
		var buf bytes.Buffer
		var bad []*RecordError
		w, err := NewContainerWriter(&buf, md, ContainerOptions{OnBadRecord: func(re *RecordError) error { bad = append(bad, re); return nil }})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteDatum(datum(n)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if n > maxEmptyItems {
			if len(bad) != 1 || !errors.Is(bad[0], ErrOutOfRange) || w.Records() != 0 {
				t.Fatalf("%d items: bad records %v, %d written; want the datum refused", n, bad, w.Records())
			}
			if _, err := c.TranscodeToProto(nil, datum(n)); err == nil {
				t.Fatal("the reader accepts the datum the writer refuses: the test checks nothing")
			}
			continue
		}
		if len(bad) != 0 {
			t.Fatalf("%d items: %v", n, bad[0])
		}
		r, err := NewContainerReader(bytes.NewReader(buf.Bytes()), ReaderOptions{Message: dynamicpb.NewMessageType(md)})
		if err != nil {
			t.Fatal(err)
		}
		wire, err := r.ReadWire(nil)
		if err != nil || len(wire) < 2*n { // each Empty item is 2 bytes of wire
			t.Fatalf("the record read back: %d bytes, %v", len(wire), err)
		}
		// The block holds the one datum: it reads as a single datum too.
		or, err := ocf.NewReader(bytes.NewReader(buf.Bytes()), ocf.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := or.Next()
		if err != nil || b.Count != 1 {
			t.Fatalf("block: %v", err)
		}
		if _, err := c.TranscodeToProto(nil, b.Data); err != nil {
			t.Fatalf("the datum read back: %v", err)
		}
	}
}

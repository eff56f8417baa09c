package protoavro

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avrojson"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
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

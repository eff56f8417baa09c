package protoavro

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/protoavro/ocf"
)

// driftProto is a message whose records below carry fields it does not
// declare, as a newer version of its .proto writes them.
const driftProto = `syntax = "proto3";
package drift;
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";
message Empty {}
message Inner { string s = 1; }
message R {
  string name = 1;
  Inner inner = 2;
  map<string, Inner> by_key = 3;
  google.protobuf.Int32Value wrapped = 4;
  google.protobuf.Timestamp at = 5;
  repeated Empty empties = 6;
  repeated int32 nums = 7;
}
`

// Wire-building shorthands: a varint field, and a length-delimited one.
func varintField(dst []byte, num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(dst, num, protowire.VarintType), v)
}

func bytesField(dst []byte, num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(dst, num, protowire.BytesType), v)
}

// driftRecord is a record of drift.R as wire bytes and the number of
// fields in it that the transcoder drops as unknown.
type driftRecord struct {
	name    string
	wire    []byte
	unknown int64
}

// driftRecords are records of drift.R with unknown fields of every kind
// the transcoder drops, and records without.
func driftRecords() []driftRecord {
	name := bytesField(nil, 1, []byte("a"))
	inner := bytesField(nil, 2, varintField(bytesField(nil, 1, []byte("s")), 9, 1))
	entry := varintField(bytesField(bytesField(nil, 1, []byte("k")), 2, nil), 3, 1)
	return []driftRecord{
		{"none", name, 0},
		{"number the message lacks", varintField(append([]byte(nil), name...), 99, 7), 1},
		{"two of them", bytesField(varintField(append([]byte(nil), name...), 99, 7), 100, []byte("x")), 2},
		{"string as a varint", varintField(nil, 1, 5), 1},
		{"in a nested message", inner, 1},
		// Fields after the nested message's, then one before: the one-pass
		// path gives up and the scanning path counts them once.
		{"out of number order", append(varintField(append([]byte(nil), inner...), 98, 1), name...), 2},
		{"in a map entry", bytesField(nil, 3, entry), 1},
		{"in a wrapper", bytesField(nil, 4, varintField(varintField(nil, 1, 5), 2, 1)), 1},
		{"wrapper value in another wire type", bytesField(nil, 4, protowire.AppendFixed32(protowire.AppendTag(nil, 1, protowire.Fixed32Type), 5)), 1},
		{"in a Timestamp", bytesField(nil, 5, varintField(varintField(nil, 1, 10), 3, 1)), 1},
		{"list element in another wire type", protowire.AppendFixed32(protowire.AppendTag(varintField(nil, 7, 1), 7, protowire.Fixed32Type), 2), 1},
		{"timestamp alone", bytesField(nil, 5, varintField(nil, 1, 10)), 0},
	}
}

// TestTranscodeCountsUnknownFields: the transcoder counts every field it
// drops as unknown, once, on the one-pass path and the scanning path alike,
// and a record has some exactly when proto.Unmarshal keeps unknown fields
// (outside map entries, where it drops them too).
func TestTranscodeCountsUnknownFields(t *testing.T) {
	md := compileMessage(t, driftProto, "drift.R")
	c := mustCodecFor(t, Options{}, md)
	for _, r := range driftRecords() {
		for _, scanOnly := range []bool{false, true} {
			_, got, _, err := c.transcodeTally(nil, r.wire, scanOnly)
			if err != nil {
				t.Fatalf("%s: %v", r.name, err)
			}
			if got.unknown != r.unknown {
				t.Errorf("%s (scan only %v): %d unknown fields counted, want %d", r.name, scanOnly, got.unknown, r.unknown)
			}
		}
		m := dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(r.wire, m); err != nil {
			t.Fatalf("%s: proto.Unmarshal: %v (the premise of the test)", r.name, err)
		}
		if r.name != "in a map entry" && hasUnknown(m) != (r.unknown > 0) {
			t.Errorf("%s: proto.Unmarshal keeps unknown fields: %v; %d counted", r.name, hasUnknown(m), r.unknown)
		}
	}
}

// TestContainerDroppedUnknown: a container writer counts the records given
// as wire bytes (WriteWire, WriteInputAt) that had unknown fields, each
// once, with one worker or several; records given to Write are not
// counted.
func TestContainerDroppedUnknown(t *testing.T) {
	md := compileMessage(t, driftProto, "drift.R")
	recs := driftRecords()
	var want int64
	for _, r := range recs {
		if r.unknown > 0 {
			want++
		}
	}
	input := func(dst, record []byte) ([]byte, error) { return append(dst, record...), nil }
	for _, workers := range []int{1, 4} {
		opts := ContainerOptions{Workers: workers, BlockSize: 64, Input: input}
		for name, write := range map[string]func(w *ContainerWriter, i int) error{
			"WriteWire":    func(w *ContainerWriter, i int) error { return w.WriteWire(recs[i].wire) },
			"WriteInputAt": func(w *ContainerWriter, i int) error { return w.WriteInputAt(recs[i].wire, int64(i)) },
		} {
			_, w := writeRecords(t, md, opts, len(recs), write)
			if got := w.DroppedUnknown(); got != want || w.Records() != int64(len(recs)) {
				t.Errorf("%s, %d workers: %d of %d records counted, want %d", name, workers, got, w.Records(), want)
			}
		}
	}
	_, w := writeRecords(t, md, ContainerOptions{}, len(recs), func(w *ContainerWriter, i int) error {
		m := dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(recs[i].wire, m); err != nil {
			return err
		}
		return w.Write(m)
	})
	if got := w.DroppedUnknown(); got != 0 {
		t.Errorf("Write: %d records counted, want none", got)
	}
}

// TestContainerBadRecordsNotCounted: a record skipped as bad is not
// counted, neither its unknown fields nor its rounded values, whether its
// conversion fails or no block can hold it once converted (the workers
// refuse it after the transcoder took it); with WriteWire and with
// WriteInputAt, whose records go into blocks after their conversion.
func TestContainerBadRecordsNotCounted(t *testing.T) {
	md := compileMessage(t, driftProto, "drift.R")
	unknown := varintField(nil, 99, 1)
	rounded := bytesField(nil, 5, varintField(nil, 2, 1500)) // 1,500 ns: rounded to micros
	good := append(append([]byte(nil), unknown...), rounded...)
	truncated := append(append([]byte(nil), good...), 0x0a, 0x05, 'x')
	// A million empty messages take no bytes of Avro: more zero-size items
	// than a block holds for the datum's size, within what one datum may
	// hold (docs/limits.md).
	huge := append([]byte(nil), good...)
	for range 1_000_000 {
		huge = bytesField(huge, 6, nil)
	}
	recs := [][]byte{good, truncated, huge, good}
	input := func(dst, record []byte) ([]byte, error) { return append(dst, record...), nil }
	for name, write := range map[string]func(w *ContainerWriter, i int) error{
		"WriteWire":    func(w *ContainerWriter, i int) error { return w.WriteWire(recs[i]) },
		"WriteInputAt": func(w *ContainerWriter, i int) error { return w.WriteInputAt(recs[i], int64(i)) },
	} {
		var bad []string
		opts := ContainerOptions{Options: Options{Timestamps: TimestampMicros}, Workers: 2, Input: input, OnBadRecord: func(re *RecordError) error {
			bad = append(bad, fmt.Sprintf("%d:%v", re.Index, errors.Is(re.Err, ErrOutOfRange)))
			return nil
		}}
		_, w := writeRecords(t, md, opts, len(recs), write)
		if fmt.Sprint(bad) != "[1:false 2:true]" || w.Records() != 2 {
			t.Fatalf("%s: bad records %v, %d written; want 1 (truncated) and 2 (no block holds it) (the premise of the test)", name, bad, w.Records())
		}
		if w.DroppedUnknown() != 2 || w.Rounded() != 2 {
			t.Errorf("%s: %d records with unknown fields and %d values rounded counted; want those of the 2 records written", name, w.DroppedUnknown(), w.Rounded())
		}
	}
}

// TestContainerHeaderWithinReaders: a writer refuses a header whose
// metadata exceeds what readers accept, rather than write a file that no
// reader opens; just below the bound, the file it writes reads back.
func TestContainerHeaderWithinReaders(t *testing.T) {
	md := compileMessage(t, driftProto, "drift.R")
	h, err := ContainerHeader(md, ContainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	size := len(ocf.MetaSchema) + len(h.Schema) + len(ocf.MetaCodec) + len(h.Codec)
	for k, v := range h.Metadata {
		size += len(k) + len(v)
	}
	const key = "big"
	fits := make([]byte, ocf.DefaultMaxMetadataSize-size-len(key))
	var buf bytes.Buffer
	w, err := NewContainerWriter(&buf, md, ContainerOptions{Metadata: map[string][]byte{key: fits}})
	if err != nil {
		t.Fatalf("metadata of the bound: %v", err)
	}
	if err := errors.Join(w.WriteWire(bytesField(nil, 1, []byte("a"))), w.Close()); err != nil {
		t.Fatal(err)
	}
	if n, err := readAll(buf.Bytes(), ReaderOptions{}); err != nil || n != 1 {
		t.Errorf("a header at the bound: read %d records, %v", n, err)
	}
	over := map[string][]byte{key: append(fits, 0)}
	if _, err := NewContainerWriter(io.Discard, md, ContainerOptions{Metadata: over}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("metadata a byte over the bound: NewContainerWriter: %v, want ErrInvalidOptions", err)
	}
	if _, err := ContainerHeader(md, ContainerOptions{Metadata: over}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("metadata a byte over the bound: ContainerHeader: %v, want ErrInvalidOptions", err)
	}
}

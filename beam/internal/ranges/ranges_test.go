package ranges

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protoavro/protoavro/beam/internal/otlpid"
	pb "github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/tracepb"
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
	if want := `"in.jsonl": record 2 (line 5, input byte ` + strconv.Itoa(len(in)) + ")"; !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), want) {
		t.Errorf("bad line: %v, want an ErrInput with %q", err, want)
	}
}

// A file name is untrusted text: the errors of the readers quote it,
// escaped (a newline, an escape sequence, invalid UTF-8), so that an error
// is valid UTF-8 on one line, which a runner can carry and a terminal
// shows as it is, and still names the file, the record and its offset. So
// is the text of a JSON parser's error, which quotes the line.
func TestErrorsQuoteNames(t *testing.T) {
	name := "dir\n/in\xff\n\x1b[31mred.delimited"
	const quoted = `"dir\n/in\xff\n\x1b[31mred.delimited"`
	rec := protowire.AppendBytes(nil, []byte("ab"))
	mt := (&pb.Foo{}).ProtoReflect().Type()
	yes := func(int64) bool { return true }
	for _, tc := range []struct {
		what, want string
		err        error
	}{
		{"delimited", quoted + ": record 1 (input byte 3): truncated", func() error {
			_, err := Delimited(bytes.NewReader(append(slices.Clone(rec), 5, 'x')), name, 0, 0, yes, func(Batch) {})
			return err
		}()},
		{"json lines, a line over the limit", quoted + ": record 0", func() error {
			return JSONLines(strings.NewReader(strings.Repeat(" ", MaxRecordSize+1)), mt, nil, name, 0, func(Batch) {})
		}()},
		{"json lines, not a message", quoted + ": record 1 (line 2, input byte 13): proto:", func() error {
			return JSONLines(strings.NewReader("{\"int32\": 1}\n{\"int32\": \x1b[2J\xff}\n"), mt, nil, name, 0, func(Batch) {})
		}()},
		{"batch", quoted + ": record 0: length-delimited batch", Batch{Count: 1, Data: []byte{5, 'x'}}.Each(name, func(int64, []byte) error { return nil })},
		{"batch count", quoted + ": batch at record 0 says 2 records, holds 1", Batch{Count: 2, Data: rec}.Each(name, func(int64, []byte) error { return nil })},
		{"avro", quoted + ": ", func() error {
			_, err := Avro{}.Read(func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("not avro")), nil }, name, 0, yes, func([]byte) {})
			return err
		}()},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.what)
			continue
		}
		msg := tc.err.Error()
		if !utf8.ValidString(msg) || strings.ContainsAny(msg, "\n\x1b") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: %q, want valid UTF-8 on one line, no escape character, with %q", tc.what, msg, tc.want)
		}
	}
	// The quoted name is bounded.
	long := strings.Repeat("\xff", 100_000)
	_, err := Delimited(bytes.NewReader([]byte{5}), long, 0, 0, yes, func(Batch) {})
	if err == nil || len(err.Error()) > MaxNameText+200 || !strings.Contains(err.Error(), "(100000 bytes)") {
		t.Errorf("a long name: an error of %d bytes: %.200q", len(err.Error()), err)
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

// batchStats reads the batches that read emits and returns their memory:
// the most any one holds (its Data, Offsets and Lines, by capacity), the
// bytes allocated while reading, and the records.
func batchStats(t *testing.T, read func(emit func(Batch)) error) (largest int, allocated uint64, records int64) {
	t.Helper()
	next := int64(0)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := read(func(b Batch) {
		if b.Index != next || int64(len(b.Offsets)) != b.Count {
			t.Fatalf("batch of %d records at record %d with %d offsets, want it at record %d", b.Count, b.Index, len(b.Offsets), next)
		}
		next += b.Count
		largest = max(largest, cap(b.Data)+8*cap(b.Offsets)+8*cap(b.Lines))
	})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return largest, after.TotalAlloc - before.TotalAlloc, next
}

// A batch's index (the input offset of each record, and the line of each
// JSON line) counts in its size: batches of tiny records are no larger in
// memory than others (at most 3/2 of DefaultBatchSize), and reading them
// allocates about what they hold: 9 bytes for an empty delimited record
// (its length prefix and offset), 17 for an empty JSON line (with its
// line), besides what protojson allocates.
func TestBatchesOfTinyRecords(t *testing.T) {
	const limit = DefaultBatchSize * 3 / 2
	delimited := make([]byte, 4<<20) // 4 Mi records of length 0
	largest, allocated, n := batchStats(t, func(emit func(Batch)) error {
		_, err := Delimited(bytes.NewReader(delimited), "in", 0, 0, func(int64) bool { return true }, emit)
		return err
	})
	perByte := float64(allocated) / float64(len(delimited))
	t.Logf("delimited: %d empty records: largest batch %d KiB, %.1f bytes allocated per input byte", n, largest>>10, perByte)
	if n != int64(len(delimited)) || largest > limit || perByte > 11 {
		t.Errorf("delimited: %d empty records: largest batch %d bytes (want at most %d), %.1f bytes allocated per input byte (want at most 11)",
			n, largest, limit, perByte)
	}

	// JSON Lines: protojson allocates about 190 bytes a line of its own,
	// which the allocations of the batches are counted without.
	lines := bytes.Repeat([]byte("{}\n"), 1<<20)
	mt := (&emptypb.Empty{}).ProtoReflect().Type()
	_, parsing, _ := batchStats(t, func(func(Batch)) error {
		m := mt.New().Interface()
		for range 1 << 20 {
			proto.Reset(m)
			if err := protojson.Unmarshal([]byte("{}"), m); err != nil {
				return err
			}
		}
		return nil
	})
	largest, allocated, n = batchStats(t, func(emit func(Batch)) error {
		return JSONLines(bytes.NewReader(lines), mt, nil, "in", 0, emit)
	})
	perByte = (float64(allocated) - float64(parsing)) / float64(len(lines))
	t.Logf("JSON Lines: %d lines {}: largest batch %d KiB, %.1f bytes allocated per input byte besides protojson's %.1f", n, largest>>10, perByte, float64(parsing)/float64(len(lines)))
	if n != 1<<20 || largest > limit || perByte > 8 {
		t.Errorf("JSON Lines: %d lines {}: largest batch %d bytes (want at most %d), %.1f bytes allocated per input byte besides protojson's (want at most 8)",
			n, largest, limit, perByte)
	}

	// Records of 1,000 bytes: batches as large as their records, with
	// little besides.
	var big []byte
	for range 4000 {
		big = protowire.AppendBytes(big, bytes.Repeat([]byte{'x'}, 1000))
	}
	largest, allocated, _ = batchStats(t, func(emit func(Batch)) error {
		_, err := Delimited(bytes.NewReader(big), "in", 0, 0, func(int64) bool { return true }, emit)
		return err
	})
	if perByte = float64(allocated) / float64(len(big)); largest > limit || perByte > 2 {
		t.Errorf("1,000-byte records: largest batch %d bytes (want at most %d), %.1f bytes allocated per input byte (want at most 2)", largest, limit, perByte)
	}
}

// size32Of returns recs each after its size as 4 bytes, big-endian.
func size32Of(recs ...string) []byte {
	var out []byte
	for _, r := range recs {
		out = binary.BigEndian.AppendUint32(out, uint32(len(r)))
		out = append(out, r...)
	}
	return out
}

// Size32 input (the OpenTelemetry Collector's file exporter) is read as its
// records, from any start offset, with their input offsets; as varint
// input whose framing was not said, it is refused for its first two zero
// bytes, naming the file, record 0 and byte 0, where varint input said to
// be so reads it as the empty records its bytes then are.
func TestFramedSize32(t *testing.T) {
	data := size32Of("a", "", "ccc", strings.Repeat("d", 300))
	var batches []Batch
	done, err := Framed(bytes.NewReader(data), "t", Size32, 0, 5, func(int64) bool { return true }, func(b Batch) { batches = append(batches, b) })
	if err != nil || !done {
		t.Fatalf("done %v, err %v", done, err)
	}
	recs, idx := collect(t, batches)
	if want := []string{"", "ccc", strings.Repeat("d", 300)}; !slices.Equal(recs, want) || !slices.Equal(idx, []int64{1, 2, 3}) {
		t.Errorf("from byte 5: records %q at %v, want %q at 1..3", recs, idx, want)
	}
	if offs := batches[0].Offsets; !slices.Equal(offs, []int64{5, 9, 16}) {
		t.Errorf("offsets %v, want 5, 9, 16", offs)
	}

	// Small messages after 4-byte sizes are also valid varint input: three
	// empty records before each message.
	small := size32Of("ab", "c")
	var varint int64
	if _, err := Framed(bytes.NewReader(small), "otel.pb", Varint, 0, 0, func(int64) bool { return true }, func(b Batch) { varint += b.Count }); err != nil || varint != 8 {
		t.Fatalf("size32 input read as varint: %d records (%v); the test wants 8", varint, err)
	}
	_, err = Framed(bytes.NewReader(small), "otel.pb", VarintUnsaid, 0, 0, func(int64) bool { return true }, func(Batch) {})
	if want := `"otel.pb": record 0 (input byte 0): the input starts with two zero bytes`; !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "size32") {
		t.Errorf("unsaid framing: %v, want an ErrInput with %q and the size32 way out", err, want)
	}
	// A range that starts later is refused the same way: it scans from
	// the start of the file.
	if _, err := Framed(bytes.NewReader(small), "otel.pb", VarintUnsaid, 0, 6, func(int64) bool { return true }, func(Batch) {}); !errors.Is(err, ErrInput) {
		t.Errorf("unsaid framing from byte 6: %v, want an ErrInput", err)
	}
	var n int64
	if _, err := Framed(bytes.NewReader([]byte{0, 0, 0}), "empty.pb", Varint, 0, 0, func(int64) bool { return true }, func(b Batch) { n += b.Count }); err != nil || n != 3 {
		t.Errorf("varint framing said: %d records (%v), want the 3 empty records", n, err)
	}
	// One empty record first, then others, is varint input.
	plain, _ := delimitedOf("", "x", "")
	n = 0
	if _, err := Framed(bytes.NewReader(plain), "t", VarintUnsaid, 0, 0, func(int64) bool { return true }, func(b Batch) { n += b.Count }); err != nil || n != 3 {
		t.Errorf("unsaid framing of an empty record, then others: %d records (%v), want 3", n, err)
	}
	big := binary.BigEndian.AppendUint32(nil, MaxRecordSize+1)
	if _, err := Framed(bytes.NewReader(big), "big.pb", Size32, 0, 0, func(int64) bool { return true }, func(Batch) {}); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "big.pb") {
		t.Errorf("a size over the limit: %v, want an ErrInput naming the file", err)
	}
}

// OTLP's own JSON writes trace and span IDs in hex, which protojson reads
// as base64 of the wrong bytes (24 for a trace ID's 32 digits): such a line
// is refused, naming the file, the record and line, the field's path and
// the way out, where the same spans with base64 IDs are read. An ID that
// is not base64 at all gets the same hint.
func TestJSONLinesOTLPHexIDs(t *testing.T) {
	mt := (&tracepb.TracesData{}).ProtoReflect().Type()
	const (
		b64 = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"AAECAwQFBgcICQoLDA0ODw==","spanId":"AAECAwQFBgc=","name":"a"}]}]}]}` + "\n"
		hex = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"000102030405060708090a0b0c0d0e0f","spanId":"0001020304050607","name":"a"}]}]}]}` + "\n"
		bad = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"AAECAwQFBgcICQoLDA0ODw==","spanId":"0x01!","name":"a"}]}]}]}` + "\n"
	)
	var n int64
	if err := JSONLines(strings.NewReader(b64+b64), mt, nil, "t", 0, func(b Batch) { n += b.Count }); err != nil || n != 2 {
		t.Fatalf("base64 IDs: %d records (%v), want 2", n, err)
	}
	err := JSONLines(strings.NewReader(b64+hex), mt, nil, "otlp.jsonl", 0, func(Batch) {})
	for _, want := range []string{`"otlp.jsonl": record 1 (line 2, input byte ` + strconv.Itoa(len(b64)) + ")",
		"field resource_spans[0].scope_spans[0].spans[0].trace_id holds 24 bytes, not 16", "convert the IDs to base64"} {
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), want) {
			t.Errorf("hex IDs: %v, want an ErrInput with %q", err, want)
		}
	}
	err = JSONLines(strings.NewReader(bad), mt, nil, "otlp.jsonl", 0, func(Batch) {})
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "spanId") || !strings.Contains(err.Error(), "convert the IDs to base64") {
		t.Errorf("an ID that is not base64: %v, want an ErrInput on spanId with the hint", err)
	}
	// Other bytes fields are not IDs.
	if otlpid.Fields((&pb.Foo{}).ProtoReflect().Descriptor()) != nil {
		t.Error("Foo has no OTLP IDs")
	}
}

// A gzip or zstd file (pzstd's too, which starts with a skippable frame)
// is refused as compressed in every format (delimited, its framing said
// or not, size32, JSON Lines) and by every byte range of
// it, naming the file, record 0 and byte 0, rather than failing on a
// length or character its compressed bytes make; inputs shorter than a
// magic number are read.
func TestCompressedInputRefused(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	data, _ := delimitedOf("a", "bb")
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zst := append([]byte{0x28, 0xb5, 0x2f, 0xfd}, "frame"...)
	// pzstd's output: a skippable frame holding the size of the frame
	// after it.
	pzst := append([]byte{0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 9, 0, 0, 0}, zst...)
	mt := (&pb.Foo{}).ProtoReflect().Type()
	for _, c := range []struct {
		kind string
		data []byte
	}{{"gzip", gz.Bytes()}, {"zstd", zst}, {"zstd", pzst}} {
		want := `"in.gz": record 0 (input byte 0): the input is ` + c.kind + "-compressed: the Beam sources read uncompressed files; decompress it first"
		for _, f := range []struct {
			name string
			f    Framing
		}{{"delimited, framing unsaid", VarintUnsaid}, {"delimited", Varint}, {"size32", Size32}} {
			for _, start := range []int64{0, 3} {
				_, err := Framed(bytes.NewReader(c.data), "in.gz", f.f, 0, start, func(int64) bool { return true }, func(Batch) { t.Errorf("%s, %s: a batch", c.kind, f.name) })
				if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), want) {
					t.Errorf("%s, %s, range from byte %d: %v, want an ErrInput with %q", c.kind, f.name, start, err, want)
				}
			}
		}
		err := JSONLines(bytes.NewReader(c.data), mt, nil, "in.gz", 0, func(Batch) {})
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s, JSON Lines: %v, want an ErrInput with %q", c.kind, err, want)
		}
	}
	// A record of 0x51 bytes whose first bytes are a skippable frame's
	// magic number, with no zstd frame after them, is read.
	skippableLike := append(append([]byte{0x51, 0x2a, 0x4d, 0x18}, bytes.Repeat([]byte("a"), 76)...), 0x08, 0x01)
	for _, f := range []Framing{VarintUnsaid, Varint} {
		var n int64
		if _, err := Framed(bytes.NewReader(skippableLike), "t", f, 0, 0, func(int64) bool { return true }, func(b Batch) { n += b.Count }); err != nil || n != 1 {
			t.Errorf("a record starting like a skippable frame, framing %d: %d records (%v), want 1", f, n, err)
		}
	}
	for _, short := range [][]byte{nil, {0x02, 'a', 'b'}} {
		for _, f := range []Framing{VarintUnsaid, Varint} {
			var n int64
			if _, err := Framed(bytes.NewReader(short), "t", f, 0, 0, func(int64) bool { return true }, func(b Batch) { n += b.Count }); err != nil || n != int64(min(len(short), 1)) {
				t.Errorf("%x, framing %d: %d records (%v)", short, f, n, err)
			}
		}
	}
	var n int64
	if err := JSONLines(strings.NewReader("{}"), (&emptypb.Empty{}).ProtoReflect().Type(), nil, "t", 0, func(b Batch) { n += b.Count }); err != nil || n != 1 {
		t.Errorf("a short line: %d records (%v), want 1", n, err)
	}
}

package protoavro

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// salvaged is what reading a whole damaged file with Resync gave.
type salvaged struct {
	records [][]byte // wire bytes, in order
	errs    []string // the errors Resync recovered from, in order
	skipped Skipped  // summed
	rejects []byte   // what Resync copied
	count   int64    // Records at the end
	end     error    // nil, or the error Resync could not skip
}

// salvage reads file to its end, resynchronising after each error, with
// ReadWire or, with delimited, NextDelimited.
func salvage(file []byte, workers int, delimited bool) (salvaged, error) {
	var s salvaged
	cr, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{Message: (&avro2147pb.Foo{}).ProtoReflect().Type(), Workers: workers})
	if err != nil {
		return s, err
	}
	var rejects bytes.Buffer
	err = readEach(cr, delimited, &s.records, func(err error) (bool, error) {
		if err != io.EOF {
			s.errs = append(s.errs, err.Error())
		}
		sk, rerr := cr.Resync(&rejects)
		if err == io.EOF && (rerr != io.EOF || sk != (Skipped{})) {
			return true, fmt.Errorf("Resync at the end: %+v, %v", sk, rerr)
		}
		s.skipped.Records += sk.Records
		s.skipped.Blocks += sk.Blocks
		s.skipped.Bytes += sk.Bytes
		if rerr != nil && rerr != io.EOF {
			s.end = rerr
		}
		return rerr != nil, nil
	})
	s.rejects, s.count = rejects.Bytes(), cr.Records()
	return s, err
}

// readEach reads cr until failed says to stop, with ReadWire or, with
// delimited, NextDelimited, appending each record's wire bytes to records
// and passing each error of the reading, io.EOF included, to failed. It
// returns the error failed gives, or one for NextDelimited output that is
// not whole length-prefixed records or for no end after 100000 reads.
func readEach(cr *ContainerReader, delimited bool, records *[][]byte, failed func(error) (stop bool, err error)) error {
	for range 100_000 {
		var err error
		if delimited {
			var out []byte
			var n int
			if out, n, err = cr.NextDelimited(); err == nil {
				for range n {
					size, m := protowire.ConsumeVarint(out)
					if m < 0 || size > uint64(len(out)-m) {
						return fmt.Errorf("NextDelimited: bad length prefix")
					}
					*records = append(*records, slices.Clone(out[m:m+int(size)]))
					out = out[m+int(size):]
				}
				if len(out) != 0 {
					return fmt.Errorf("NextDelimited: %d bytes after %d records", len(out), n)
				}
			}
		} else {
			var w []byte
			if w, err = cr.ReadWire(nil); err == nil {
				*records = append(*records, w)
			}
		}
		if err == nil {
			continue
		}
		if stop, ferr := failed(err); stop || ferr != nil {
			return ferr
		}
	}
	return fmt.Errorf("no end after 100000 reads")
}

// TestResyncParallel damages files in the ways a file gets damaged and
// salvages them with 1, 2 and 4 workers, by ReadWire and by NextDelimited:
// every way gives the same records, the same errors, the same skipped
// counts and bytes; the records are the original ones, in order, and
// those read and skipped add up to the file's records wherever the damage
// leaves the blocks' framing sound.
func TestResyncParallel(t *testing.T) {
	msgs := sampleFoos(600)
	// dataStart is where block b's data starts: after its count and size.
	dataStart := func(b span) int64 {
		return b.Offset + int64(len(appendLong(appendLong(nil, b.Count), b.Size)))
	}
	// setCount rewrites block b's count varint with another of the same length.
	setCount := func(t *testing.T, file []byte, b span, count int64) {
		old, v := appendLong(nil, b.Count), appendLong(nil, count)
		if len(old) != len(v) {
			t.Fatalf("count %d and %d differ in length", b.Count, count)
		}
		copy(file[b.Offset:], v)
	}
	type damage struct {
		name  string
		comp  Compression
		apply func(t *testing.T, file []byte, bs []span) []byte
		// lost is the number of records that are neither read nor counted
		// as skipped (those of blocks whose framing is lost).
		lost func(bs []span) int64
		// wantErrs is the number of errors recovered from.
		wantErrs int
	}
	none := func([]span) int64 { return 0 }
	junk := func(file []byte, at int64) { copy(file[at:], bytes.Repeat([]byte{0xff}, 12)) } // a long that does not end
	cases := []damage{
		{name: "a record in block 1", comp: CompressionNull, wantErrs: 1, lost: none,
			apply: func(t *testing.T, file []byte, bs []span) []byte {
				junk(file, dataStart(bs[1])+bs[1].Size/2)
				return file
			}},
		{name: "records in blocks 0, 2 and the last", comp: CompressionNull, wantErrs: 3, lost: none,
			apply: func(t *testing.T, file []byte, bs []span) []byte {
				junk(file, dataStart(bs[0])+3)
				junk(file, dataStart(bs[2])+bs[2].Size/3)
				last := bs[len(bs)-1]
				junk(file, dataStart(last)+last.Size-12)
				return file
			}},
		{name: "the first record", comp: CompressionNull, wantErrs: 1, lost: none,
			apply: func(t *testing.T, file []byte, bs []span) []byte {
				junk(file, dataStart(bs[0]))
				return file
			}},
		{name: "count one less: bytes left after the records", comp: CompressionNull, wantErrs: 1,
			lost: func([]span) int64 { return 1 }, // the last record, skipped as bytes
			apply: func(t *testing.T, file []byte, bs []span) []byte {
				setCount(t, file, bs[2], bs[2].Count-1)
				return file
			}},
		{name: "count one more: the last record runs out", comp: CompressionDeflate, wantErrs: 1,
			lost: func(bs []span) int64 { return -1 }, // the record counted that is not there
			apply: func(t *testing.T, file []byte, bs []span) []byte {
				setCount(t, file, bs[1], bs[1].Count+1)
				return file
			}},
		{name: "deflate data of block 1", comp: CompressionDeflate, wantErrs: 1,
			lost: func(bs []span) int64 { return bs[1].Count },
			apply: func(t *testing.T, file []byte, bs []span) []byte {
				for i := dataStart(bs[1]); i < bs[1].End-16; i++ {
					file[i] ^= 0x55
				}
				return file
			}},
		{name: "zstd data of blocks 0 and 3", comp: CompressionZstd, wantErrs: 2,
			lost: func(bs []span) int64 { return bs[0].Count + bs[3].Count },
			apply: func(t *testing.T, file []byte, bs []span) []byte {
				file[dataStart(bs[0])+1] ^= 0xff
				file[dataStart(bs[3])+1] ^= 0xff
				return file
			}},
		{name: "sync marker of block 2", comp: CompressionSnappy, wantErrs: 1,
			// The search for the next marker skips block 3 as well.
			lost: func(bs []span) int64 { return bs[2].Count + bs[3].Count },
			apply: func(t *testing.T, file []byte, bs []span) []byte {
				file[bs[2].End-5] ^= 0xff
				return file
			}},
		{name: "negative count in block 1", comp: CompressionNull, wantErrs: 1,
			lost: func(bs []span) int64 { return bs[1].Count },
			apply: func(t *testing.T, file []byte, bs []span) []byte {
				setCount(t, file, bs[1], -bs[1].Count)
				return file
			}},
		{name: "bytes cut out of block 1", comp: CompressionNull, wantErrs: 1,
			// Block 1's marker is found in the bytes read for it: block 2
			// is read.
			lost: func(bs []span) int64 { return bs[1].Count },
			apply: func(t *testing.T, file []byte, bs []span) []byte {
				at := dataStart(bs[1]) + 10
				return slices.Delete(file, int(at), int(at+20))
			}},
		{name: "the file ends in the last block", comp: CompressionNull, wantErrs: 1,
			lost: func(bs []span) int64 { return bs[len(bs)-1].Count },
			apply: func(t *testing.T, file []byte, bs []span) []byte {
				last := bs[len(bs)-1]
				return file[:last.Offset+(last.End-last.Offset)/2]
			}},
		{name: "a record and the framing after it", comp: CompressionNull, wantErrs: 2,
			lost: func(bs []span) int64 { return bs[3].Count + bs[4].Count },
			apply: func(t *testing.T, file []byte, bs []span) []byte {
				junk(file, dataStart(bs[2])+bs[2].Size/2)
				file[bs[3].End-1] ^= 0xff
				return file
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := containerBytes(t, c.comp, 1024, msgs)
			bs := testutil.BlockSpans(t, file)
			if len(bs) < 6 {
				t.Fatalf("%d blocks", len(bs))
			}
			file = c.apply(t, bytes.Clone(file), bs)
			want, err := salvage(file, 1, false)
			if err != nil {
				t.Fatal(err)
			}
			if want.end != nil {
				t.Fatalf("Resync could not skip: %v", want.end)
			}
			if len(want.errs) != c.wantErrs {
				t.Fatalf("recovered from %d errors, want %d: %q", len(want.errs), c.wantErrs, want.errs)
			}
			// The records are the original ones, in order.
			last := int32(-1)
			for i, w := range want.records {
				var m avro2147pb.Foo
				if err := proto.Unmarshal(w, &m); err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				k := m.GetInt32()
				if k <= last || int(k) >= len(msgs) || !proto.Equal(&m, msgs[k]) {
					t.Fatalf("record %d is not original record %d, after %d", i, k, last)
				}
				last = k
			}
			if n := int64(len(want.records)) + want.skipped.Records + c.lost(bs); n != int64(len(msgs)) {
				t.Errorf("%d read + %d skipped + %d lost = %d, want %d", len(want.records), want.skipped.Records, c.lost(bs), n, len(msgs))
			}
			if want.count != int64(len(want.records))+want.skipped.Records {
				t.Errorf("Records %d, want %d read + %d skipped", want.count, len(want.records), want.skipped.Records)
			}
			if want.skipped.Bytes != int64(len(want.rejects)) {
				t.Errorf("skipped %d bytes, copied %d", want.skipped.Bytes, len(want.rejects))
			}
			for _, workers := range []int{1, 2, 4} {
				for _, delimited := range []bool{false, true} {
					if workers == 1 && !delimited {
						continue
					}
					got, err := salvage(file, workers, delimited)
					if err != nil {
						t.Fatalf("workers=%d delimited=%v: %v", workers, delimited, err)
					}
					if !slices.EqualFunc(got.records, want.records, bytes.Equal) || !slices.Equal(got.errs, want.errs) ||
						got.skipped != want.skipped || !bytes.Equal(got.rejects, want.rejects) || got.count != want.count || got.end != nil {
						t.Errorf("workers=%d delimited=%v: %d records, errors %q, skipped %+v, %d rejected bytes, Records %d, end %v;\n"+
							"sequential: %d records, errors %q, skipped %+v, %d rejected bytes, Records %d",
							workers, delimited, len(got.records), got.errs, got.skipped, len(got.rejects), got.count, got.end,
							len(want.records), want.errs, want.skipped, len(want.rejects), want.count)
					}
				}
			}
		})
	}
}

// TestResyncTrailingBytes: a block whose records decode but leave bytes
// after them gives its records, then the error; Resync skips the bytes
// alone. (Before, the sequential reader counted the last record as read
// but did not give it; the parallel one neither gave nor counted it.)
func TestResyncTrailingBytes(t *testing.T) {
	msgs := sampleFoos(3)
	file := containerBytes(t, CompressionNull, 1<<20, msgs)
	or, err := ocf.NewReader(bytes.NewReader(file), ocf.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := or.NextRaw()
	if err != nil || b.Count != 3 {
		t.Fatalf("%d records, %v", b.Count, err)
	}
	copy(file[b.Offset:], appendLong(nil, 2)) // 3 and 2 take one byte
	for _, workers := range []int{1, 3} {
		cr, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{Message: (&avro2147pb.Foo{}).ProtoReflect().Type(), Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			var m avro2147pb.Foo
			if err := cr.Read(&m); err != nil || !proto.Equal(&m, msgs[i]) {
				t.Fatalf("workers=%d: record %d: %v", workers, i, err)
			}
		}
		var m avro2147pb.Foo
		err = cr.Read(&m)
		var ce *ContainerError
		if !errors.As(err, &ce) || !errors.Is(err, ErrMalformed) || ce.Block != 0 {
			t.Fatalf("workers=%d: after the records: %v", workers, err)
		}
		// The bytes skipped are the third record's.
		third, err := cr.Codec().Marshal(msgs[2])
		if err != nil {
			t.Fatal(err)
		}
		var rejects bytes.Buffer
		sk, err := cr.Resync(&rejects)
		if err != nil || sk != (Skipped{Bytes: int64(len(third))}) || !bytes.Equal(rejects.Bytes(), third) {
			t.Fatalf("workers=%d: Resync: %+v, %v, skipped %x, want %x", workers, sk, err, rejects.Bytes(), third)
		}
		if err := cr.Read(&m); err != io.EOF || cr.Records() != 2 {
			t.Fatalf("workers=%d: at the end: %v, Records %d", workers, err, cr.Records())
		}
	}
}

// FuzzResyncParallel salvages arbitrary files with 1 and 3 workers: the
// same records, errors and skipped bytes, and an end.
func FuzzResyncParallel(f *testing.F) {
	msgs := sampleFoos(40)
	for _, comp := range allCompressions {
		file := containerBytes(f, comp, 256, msgs)
		f.Add(file)
		bad := bytes.Clone(file)
		bad[len(bad)/2] ^= 0xff
		f.Add(bad)
		f.Add(bad[:len(bad)*3/4])
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		want, err := salvage(file, 1, false)
		if err != nil {
			if errors.Is(err, ErrMalformed) || errors.Is(err, ErrTruncated) || errors.Is(err, ErrNotContainer) || errors.Is(err, ErrIncompatible) || errors.Is(err, ErrUnsupported) {
				return // the header
			}
			t.Fatal(err)
		}
		for _, delimited := range []bool{false, true} {
			got, err := salvage(file, 3, delimited)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got.records, want.records, bytes.Equal) || !slices.Equal(got.errs, want.errs) ||
				got.skipped != want.skipped || !bytes.Equal(got.rejects, want.rejects) || got.count != want.count ||
				fmt.Sprint(got.end) != fmt.Sprint(want.end) {
				t.Fatalf("delimited=%v: %d records, errors %q, skipped %+v, Records %d, end %v; sequential: %d records, errors %q, skipped %+v, Records %d, end %v",
					delimited, len(got.records), got.errs, got.skipped, got.count, got.end,
					len(want.records), want.errs, want.skipped, want.count, want.end)
			}
		}
	})
}

// span is a block of a container file as testutil.BlockSpans reads it.
type span = testutil.BlockSpan

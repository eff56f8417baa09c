package ranges

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// namedFile returns a container file of 1000 records "rec-00000" ...
// in blocks of about 30 records (a count of one varint byte), and its
// blocks.
func namedFile(t *testing.T, mt protoreflect.MessageType, codec protoavro.Compression) ([]byte, []ocf.Block) {
	t.Helper()
	var buf bytes.Buffer
	cw, err := protoavro.NewContainerWriter(&buf, mt.Descriptor(), protoavro.ContainerOptions{Compression: codec, BlockSize: 400})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if err := cw.WriteWire(protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), fmt.Appendf(nil, "rec-%05d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	or, err := ocf.NewReader(bytes.NewReader(buf.Bytes()), ocf.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var blocks []ocf.Block
	for {
		b, err := or.NextRaw()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.Count >= 60 {
			t.Fatalf("block of %d records: its count takes more than a byte", b.Count)
		}
		b.Data = nil
		blocks = append(blocks, b)
	}
	if len(blocks) < 20 {
		t.Fatalf("%d blocks, want 20 or more", len(blocks))
	}
	return buf.Bytes(), blocks
}

// errorPlace is where an error of a container file is: the block's file
// offset and index, and for a record, its index in the block and its
// datum's offset in the block's data (else -1).
type errorPlace struct {
	offset, block, record, datum int64
}

// containerReaderPlace reads data whole with protoavro's ContainerReader
// and returns the place of its error, and the error.
func containerReaderPlace(t *testing.T, data []byte, mt protoreflect.MessageType, blocks []ocf.Block) (errorPlace, error) {
	t.Helper()
	cr, err := protoavro.NewContainerReader(bytes.NewReader(data), protoavro.ReaderOptions{Message: mt})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err = cr.ReadWire(nil); err != nil {
			break
		}
	}
	var re *protoavro.RecordError
	var ce *protoavro.ContainerError
	switch {
	case errors.As(err, &re):
		p := errorPlace{}
		if _, serr := fmt.Sscanf(re.Err.Error(), "block %d at byte %d, datum byte %d of the block:", &p.block, &p.offset, &p.datum); serr != nil {
			t.Fatalf("record error %q: %v", re, serr)
		}
		p.record = re.Index
		for _, b := range blocks[:p.block] {
			p.record -= b.Count
		}
		return p, err
	case errors.As(err, &ce) && ce.Block >= 0:
		return errorPlace{offset: ce.Offset, block: ce.Block, record: -1, datum: -1}, err
	}
	t.Fatalf("ContainerReader: %v, want an error in a block", err)
	return errorPlace{}, nil
}

// readSplit reads data as Beam's ReadAvro does with the given split size
// (the whole file for 0): each range [start, end) in turn, its claims below
// end. It returns the errors of the ranges, by the ranges' starts.
func readSplit(t *testing.T, data []byte, mt protoreflect.MessageType, split int64) map[int64]error {
	t.Helper()
	a := Avro{Reader: func(*ocf.Header) (protoavro.ReaderOptions, error) {
		return protoavro.ReaderOptions{Message: mt}, nil
	}}
	size := int64(len(data))
	if split <= 0 {
		split = size
	}
	open := func() (io.ReadCloser, error) { return readSeekCloser{bytes.NewReader(data)}, nil }
	errs := map[int64]error{}
	for start := int64(0); start < size; start += split {
		end := start + split
		if _, err := a.Read(open, "d.avro", start, func(off int64) bool { return off < end }, func([]byte) {}); err != nil {
			errs[start] = err
		}
	}
	return errs
}

// A damaged container file read in byte ranges of any size gives errors
// that name the failing block by its offset in the file, as a whole-file
// read and protoavro's ContainerReader do, and a bad record by its index
// in that block and its datum's offset: the same error text whatever the
// split, with the error classes and, from a read of the whole file, the
// file's block index.
func TestAvroErrorsNameFileOffsets(t *testing.T) {
	// proto3, one string field: a value that is not UTF-8 is a bad datum.
	mt := (&wrapperspb.StringValue{}).ProtoReflect().Type()
	const k = 11 // the damaged block
	for _, tc := range []struct {
		name   string
		codec  protoavro.Compression
		damage func(data []byte, blocks []ocf.Block) []byte
		class  error
		offset func(data []byte, blocks []ocf.Block) int64 // of the failing block, when not blocks[k]'s
	}{
		{"bad datum", protoavro.CompressionNull, func(data []byte, _ []ocf.Block) []byte {
			i := bytes.Index(data, []byte("rec-00321"))
			data[i+4] = 0xff
			return data
		}, protoavro.ErrMalformed, func(data []byte, blocks []ocf.Block) int64 {
			i := int64(bytes.Index(data, []byte("rec-00321")))
			for j := len(blocks) - 1; ; j-- {
				if blocks[j].Offset < i {
					return blocks[j].Offset
				}
			}
		}},
		{"bad sync marker", protoavro.CompressionNull, func(data []byte, blocks []ocf.Block) []byte {
			data[blocks[k+1].Offset-16] ^= 0xff
			return data
		}, protoavro.ErrMalformed, nil},
		{"bad sync marker, snappy", protoavro.CompressionSnappy, func(data []byte, blocks []ocf.Block) []byte {
			data[blocks[k+1].Offset-1] ^= 0xff
			return data
		}, protoavro.ErrMalformed, nil},
		{"bad data, snappy", protoavro.CompressionSnappy, func(data []byte, blocks []ocf.Block) []byte {
			data[blocks[k+1].Offset-17] ^= 0xff // its checksum
			return data
		}, protoavro.ErrMalformed, nil},
		{"truncated in a block", protoavro.CompressionNull, func(data []byte, blocks []ocf.Block) []byte {
			return data[:blocks[k].Offset+5]
		}, protoavro.ErrTruncated, nil},
		{"truncated in a sync marker", protoavro.CompressionSnappy, func(data []byte, blocks []ocf.Block) []byte {
			return data[:blocks[k+1].Offset-8]
		}, protoavro.ErrTruncated, nil},
		{"trailing bytes", protoavro.CompressionNull, func(data []byte, _ []ocf.Block) []byte {
			return append(data, "garbage"...)
		}, protoavro.ErrMalformed, func(data []byte, _ []ocf.Block) int64 { return int64(len(data)) }},
		{"record count one more", protoavro.CompressionNull, func(data []byte, blocks []ocf.Block) []byte {
			data[blocks[k].Offset] += 2
			return data
		}, protoavro.ErrTruncated, nil},
		{"record count one less", protoavro.CompressionSnappy, func(data []byte, blocks []ocf.Block) []byte {
			data[blocks[k].Offset] -= 2
			return data
		}, protoavro.ErrMalformed, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig, blocks := namedFile(t, mt, tc.codec)
			wantOffset := blocks[k].Offset
			if tc.offset != nil {
				wantOffset = tc.offset(orig, blocks)
			}
			data := tc.damage(bytes.Clone(orig), blocks)
			want, crErr := containerReaderPlace(t, data, mt, blocks)
			if want.offset != wantOffset || !errors.Is(crErr, tc.class) {
				t.Fatalf("ContainerReader: %v, want an error of class %v at byte %d", crErr, tc.class, wantOffset)
			}
			var whole string
			for _, split := range []int64{0, 97, 700, 1500, 4096, int64(len(data)) / 2} {
				errs := readSplit(t, data, mt, split)
				if len(errs) == 0 {
					t.Fatalf("split %d: no error", split)
				}
				for start, err := range errs {
					var be *BlockError
					if !errors.As(err, &be) || be.Offset != want.offset || be.Record != want.record || be.Datum != want.datum {
						t.Fatalf("split %d: %v (%#v), want a *BlockError at %+v", split, err, be, want)
					}
					if !errors.Is(err, tc.class) {
						t.Errorf("split %d: %v, want class %v", split, err, tc.class)
					}
					msg := err.Error()
					if !strings.HasPrefix(msg, fmt.Sprintf(`protoavrobeam: "d.avro": block at byte %d: `, want.offset)) || strings.Contains(msg, "container block") {
						t.Errorf("split %d: %q, want the file offset %d alone", split, msg, want.offset)
					}
					if want.record >= 0 {
						var de *protoavro.DataError
						if !errors.As(err, &de) || !strings.Contains(msg, fmt.Sprintf(": record %d of the block, datum byte %d of the block: ", want.record, want.datum)) {
							t.Errorf("split %d: %q, want a *DataError and record %d of the block", split, msg, want.record)
						}
					}
					if whole == "" {
						whole = msg
					} else if msg != whole {
						t.Errorf("split %d: %q, the whole file %q", split, msg, whole)
					}
					// A position in the library's error types is the file's:
					// from a range read from the file's first block, with the
					// block's index.
					var oe *ocf.Error
					var ce *protoavro.ContainerError
					switch {
					case errors.As(err, &oe):
						if start != 0 || oe.Offset != want.offset || oe.Block != want.block {
							t.Errorf("split %d, range at %d: *ocf.Error at block %d, byte %d; want %+v from the first range only", split, start, oe.Block, oe.Offset, want)
						}
					case errors.As(err, &ce):
						if start != 0 || ce.Offset != want.offset || ce.Block != want.block {
							t.Errorf("split %d, range at %d: *ContainerError at block %d, byte %d; want %+v from the first range only", split, start, ce.Block, ce.Offset, want)
						}
					case start == 0 && want.record < 0:
						t.Errorf("split %d, range at 0: %v: no *ocf.Error or *ContainerError", split, err)
					}
				}
			}
		})
	}
}

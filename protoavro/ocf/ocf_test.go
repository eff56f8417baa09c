package ocf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/zstd"
	tavro "github.com/twmb/avro"
	tocf "github.com/twmb/avro/ocf"
)

var allCodecs = []Codec{Null, Deflate, Snappy, Zstandard}

const longSchema = `{"type":"record","name":"x.R","fields":[{"name":"a","type":"long"}]}`

// testBlock is a block of records "a" of the long schema.
type testBlock struct {
	count int64
	data  []byte
}

// makeBlocks returns n blocks of varied sizes of records of longSchema.
func makeBlocks(n int) []testBlock {
	r := rand.New(rand.NewPCG(3, 4))
	blocks := make([]testBlock, n)
	v := int64(0)
	for i := range blocks {
		c := 1 + r.IntN(300)
		var data []byte
		for range c {
			data = appendLong(data, v)
			v += int64(r.IntN(1000)) - 300
		}
		blocks[i] = testBlock{int64(c), data}
	}
	return blocks
}

// writeFile writes blocks into a container file.
func writeFile(t testing.TB, codec Codec, blocks []testBlock, meta map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WriterOptions{Schema: []byte(longSchema), Codec: codec, Metadata: meta})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if err := w.WriteBlock(b.count, b.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.BytesWritten() != int64(buf.Len()) || w.Blocks() != int64(len(blocks)) {
		t.Fatalf("writer counts %d bytes, %d blocks; file %d bytes, %d blocks", w.BytesWritten(), w.Blocks(), buf.Len(), len(blocks))
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	blocks := makeBlocks(20)
	for _, codec := range allCodecs {
		t.Run(string(codec), func(t *testing.T) {
			file := writeFile(t, codec, blocks, map[string][]byte{"origin": []byte("test"), "empty": nil})
			r, err := NewReader(bytes.NewReader(file), ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			h := r.Header()
			if string(h.Schema) != longSchema || h.Codec != codec || string(h.Metadata["origin"]) != "test" ||
				len(h.Metadata) != 4 || h.Size != r.Offset() {
				t.Fatalf("header %+v", h)
			}
			var total int64
			for i, want := range blocks {
				start := r.Offset()
				b, err := r.Next()
				if err != nil {
					t.Fatalf("block %d: %v", i, err)
				}
				if b.Index != int64(i) || b.Offset != start || b.Count != want.count || !bytes.Equal(b.Data, want.data) ||
					r.Offset() != start+int64(len(appendLong(appendLong(nil, b.Count), b.Size)))+b.Size+16 {
					t.Fatalf("block %d: index %d offset %d count %d size %d; want offset %d count %d", i, b.Index, b.Offset, b.Count, b.Size, start, want.count)
				}
				total += b.Count
			}
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("after the last block: %v, want io.EOF", err)
			}
			if _, err := r.NextRaw(); err != io.EOF {
				t.Fatalf("again: %v, want io.EOF", err)
			}
			if r.Offset() != int64(len(file)) || r.Records() != total || r.Blocks() != int64(len(blocks)) {
				t.Errorf("offset %d of %d, %d records (want %d), %d blocks", r.Offset(), len(file), r.Records(), total, r.Blocks())
			}
		})
	}
}

// TestCopyRawBlocks copies the blocks of a file into another with
// WriteRawBlock, and decompresses them on the side with Decompress.
func TestCopyRawBlocks(t *testing.T) {
	blocks := makeBlocks(5)
	for _, codec := range allCodecs {
		file := writeFile(t, codec, blocks, nil)
		r, err := NewReader(bytes.NewReader(file), ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		sync := [16]byte{1, 2, 3}
		w, err := NewWriter(&out, WriterOptions{Schema: r.Header().Schema, Codec: r.Header().Codec, Sync: sync})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			b, err := r.NextRaw()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			data, err := r.Decompress(nil, b)
			if err != nil || !bytes.Equal(data, blocks[i].data) {
				t.Fatalf("%s block %d: decompressed %v", codec, i, err)
			}
			if err := w.WriteRawBlock(b.Count, b.Data); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if w.Sync() != sync || !bytes.Contains(out.Bytes(), sync[:]) {
			t.Errorf("sync marker %x, want %x", w.Sync(), sync)
		}
		// Same blocks, same codec, other sync marker: same length.
		if out.Len() != len(file) || w.Records() != r.Records() {
			t.Errorf("%s: copy is %d bytes, %d records; original %d, %d", codec, out.Len(), w.Records(), len(file), r.Records())
		}
	}
}

func TestWriterOptions(t *testing.T) {
	for _, tc := range []struct {
		opts  WriterOptions
		class error
		want  string
	}{
		{WriterOptions{}, ErrInvalidOptions, "Schema is empty"},
		{WriterOptions{Schema: []byte(`"long"`), Codec: "bzip2"}, ErrUnsupportedCodec, `unsupported codec "bzip2"`},
		{WriterOptions{Schema: []byte(`"long"`), Metadata: map[string][]byte{"avro.x": nil}}, ErrInvalidOptions, `"avro.x" is reserved`},
	} {
		if _, err := NewWriter(io.Discard, tc.opts); !errors.Is(err, tc.class) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewWriter(%+v) = %v, want %v saying %q", tc.opts, err, tc.class, tc.want)
		}
	}
	w, err := NewWriter(io.Discard, WriterOptions{Schema: []byte(`"long"`)})
	if err != nil {
		t.Fatal(err)
	}
	if w.Codec() != Null {
		t.Errorf("default codec %q", w.Codec())
	}
	if err := w.WriteRawBlock(-1, nil); err == nil {
		t.Error("negative count accepted")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBlock(1, []byte{2}); err == nil {
		t.Error("write after Close accepted")
	}
}

func TestParseCodec(t *testing.T) {
	for in, want := range map[string]Codec{"": Null, "null": Null, "deflate": Deflate, "snappy": Snappy, "zstd": Zstandard, "zstandard": Zstandard} {
		if got, err := ParseCodec(in); err != nil || got != want || !got.Supported() {
			t.Errorf("ParseCodec(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseCodec("xz"); !errors.Is(err, ErrUnsupportedCodec) {
		t.Errorf("ParseCodec(xz): %v", err)
	}
	if Codec("xz").Supported() {
		t.Error("xz supported")
	}
}

// TestInterop reads files of twmb/avro's independent implementation and has
// it read ours.
func TestInterop(t *testing.T) {
	schema, err := tavro.Parse(longSchema)
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		A int64 `avro:"a"`
	}
	codecs := map[Codec]tocf.Codec{Deflate: tocf.DeflateCodec(6), Snappy: tocf.SnappyCodec(), Zstandard: tocf.MustZstdCodec(nil, nil)}
	for _, codec := range allCodecs {
		var buf bytes.Buffer
		var opts []tocf.WriterOpt
		if c := codecs[codec]; c != nil {
			opts = append(opts, tocf.WithCodec(c))
		}
		tw, err := tocf.NewWriter(&buf, schema, append(opts, tocf.WithBlockCount(10))...)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 25 {
			if err := tw.Encode(&rec{A: int64(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(&buf, ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var data []byte
		for {
			b, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", codec, err)
			}
			data = append(data, b.Data...)
		}
		var want []byte
		for i := range 25 {
			want = appendLong(want, int64(i))
		}
		if r.Header().Codec != codec || r.Blocks() != 3 || r.Records() != 25 || !bytes.Equal(data, want) {
			t.Errorf("%s: twmb's file read as codec %q, %d blocks, %d records, data %x", codec, r.Header().Codec, r.Blocks(), r.Records(), data)
		}

		// And the other way.
		blocks := makeBlocks(3)
		tr, err := tocf.NewReader(bytes.NewReader(writeFile(t, codec, blocks, nil)))
		if err != nil {
			t.Fatalf("%s: twmb cannot read our file: %v", codec, err)
		}
		var got []byte
		for {
			var x rec
			if err := tr.Decode(&x); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: twmb: %v", codec, err)
			}
			got = appendLong(got, x.A)
		}
		var all []byte
		for _, b := range blocks {
			all = append(all, b.data...)
		}
		if !bytes.Equal(got, all) {
			t.Errorf("%s: twmb read other records than written", codec)
		}
	}
}

// blockEnds returns the offsets at which the blocks of a valid file end.
func blockEnds(t *testing.T, file []byte) map[int]bool {
	r, err := NewReader(bytes.NewReader(file), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ends := map[int]bool{int(r.Offset()): true}
	for {
		if _, err := r.NextRaw(); err == io.EOF {
			return ends
		} else if err != nil {
			t.Fatal(err)
		}
		ends[int(r.Offset())] = true
	}
}

// readAll reads every block of file.
func readAll(file []byte, opts ReaderOptions) (*Reader, error) {
	r, err := NewReader(bytes.NewReader(file), opts)
	if err != nil {
		return nil, err
	}
	for {
		if _, err := r.Next(); err == io.EOF {
			return r, nil
		} else if err != nil {
			return r, err
		}
	}
}

// TestTruncated reads every prefix of valid files: a prefix that ends
// between blocks is a shorter valid file; any other gives a clear error.
func TestTruncated(t *testing.T) {
	for _, codec := range allCodecs {
		file := writeFile(t, codec, makeBlocks(3), map[string][]byte{"k": []byte("v")})
		ends := blockEnds(t, file)
		for n := range len(file) {
			_, err := readAll(file[:n], ReaderOptions{})
			if ends[n] {
				if err != nil {
					t.Errorf("%s: prefix of %d bytes ends between blocks: %v", codec, n, err)
				}
				continue
			}
			want := ErrTruncated
			if n < 4 {
				want = ErrNotContainer
			}
			var oe *Error
			if !errors.Is(err, want) || !errors.As(err, &oe) || oe.Offset > int64(n) {
				t.Fatalf("%s: prefix of %d bytes: %v, want %v", codec, n, err, want)
			}
		}
	}
}

// TestReadFailure reads valid files from a reader that fails after every
// prefix: the failure is returned as itself, never as a verdict on the
// bytes (not a container, truncated, a bad sync marker).
func TestReadFailure(t *testing.T) {
	errDisk := errors.New("disk failure")
	for _, codec := range allCodecs {
		file := writeFile(t, codec, makeBlocks(3), map[string][]byte{"k": []byte("v")})
		for n := range len(file) + 1 {
			r, err := NewReader(io.MultiReader(bytes.NewReader(file[:n]), iotest.ErrReader(errDisk)), ReaderOptions{})
			for err == nil {
				_, err = r.Next()
			}
			if !errors.Is(err, errDisk) {
				t.Fatalf("%s: failure after %d bytes: %v, want %v", codec, n, err, errDisk)
			}
			for _, class := range []error{ErrNotContainer, ErrTruncated, ErrMalformed} {
				if errors.Is(err, class) {
					t.Fatalf("%s: failure after %d bytes reported as %v: %v", codec, n, class, err)
				}
			}
		}
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestBomb: a block that decompresses far beyond the limit fails without
// materialising it.
func TestBomb(t *testing.T) {
	const limit = 1 << 20
	big := make([]byte, 64<<20)
	var streamed bytes.Buffer // a zstd frame that does not state its size
	zw, err := zstd.NewWriter(&streamed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(big); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	type bomb struct {
		name  string
		codec Codec
		data  []byte
	}
	bombs := []bomb{{"zstd without size", Zstandard, streamed.Bytes()}}
	for _, codec := range allCodecs {
		data, err := codec.Compress(nil, big)
		if err != nil {
			t.Fatal(err)
		}
		bombs = append(bombs, bomb{string(codec), codec, data})
	}
	opts := ReaderOptions{MaxBlockDataSize: limit, MaxBlockSize: 128 << 20}
	for _, b := range bombs {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, WriterOptions{Schema: []byte(`"long"`), Codec: b.codec})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRawBlock(64<<20, b.data); err != nil {
			t.Fatal(err)
		}
		file := buf.Bytes()
		_, _ = readAll(file, opts) // warm up the codec's state (zstd decoders)
		var err2 error
		n := allocated(func() { _, err2 = readAll(file, opts) })
		if !errors.Is(err2, ErrLimit) || !strings.Contains(err2.Error(), "container block 0 at byte") {
			t.Errorf("%s: %v, want ErrLimit", b.name, err2)
		}
		// Far less than the 64 MiB of the bomb (the bound leaves room for
		// buffer growth and, under the race detector, dropped sync.Pool items).
		if max := uint64(len(file)) + 16*limit; n > max {
			t.Errorf("%s: reading the bomb allocated %d bytes, more than %d", b.name, n, max)
		}
		t.Logf("%s: %d bytes compressed, %d allocated: %v", b.name, len(b.data), n, err2)
	}
}

// TestHostile: sizes and counts that overflow or exceed the limits give
// the right error without allocating what they claim.
func TestHostile(t *testing.T) {
	good := writeFile(t, Null, makeBlocks(1), nil)
	hdr := int(blockEndsFirst(t, good))
	long := func(vs ...int64) []byte {
		var b []byte
		for _, v := range vs {
			b = appendLong(b, v)
		}
		return b
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	sync := good[hdr-16 : hdr]
	magicB := magic[:]
	schemaEntry := cat(long(int64(len(MetaSchema))), []byte(MetaSchema), long(3), []byte(`"a"`))
	for _, tc := range []struct {
		name string
		data []byte
		opts ReaderOptions
		want error
		text string
	}{
		{"empty", nil, ReaderOptions{}, ErrNotContainer, "magic"},
		{"wrong magic", []byte("Obj\x02xxxxxxxxxxxxxxxxxxx"), ReaderOptions{}, ErrNotContainer, "magic"},
		{"varint of 11 bytes", cat(magicB, bytes.Repeat([]byte{0xff}, 11)), ReaderOptions{}, ErrMalformed, "varint longer"},
		{"varint beyond 64 bits", cat(magicB, bytes.Repeat([]byte{0xff}, 9), []byte{0x02}), ReaderOptions{}, ErrMalformed, "varint overflows 64 bits"},
		{"block count beyond 64 bits", cat(good[:hdr], bytes.Repeat([]byte{0x80}, 9), []byte{0x7f}, long(0)), ReaderOptions{}, ErrMalformed, "varint overflows 64 bits"},
		{"block size beyond 64 bits", cat(good[:hdr], long(1), bytes.Repeat([]byte{0xfe}, 9), []byte{0x03}), ReaderOptions{}, ErrMalformed, "varint overflows 64 bits"},
		{"metadata count MinInt64", cat(magicB, long(math.MinInt64)), ReaderOptions{}, ErrMalformed, "metadata block count"},
		{"metadata entries", cat(magicB, long(1<<40)), ReaderOptions{}, ErrLimit, "MaxMetadataEntries"},
		{"negative metadata entries", cat(magicB, long(-(1<<40), 5)), ReaderOptions{}, ErrLimit, "MaxMetadataEntries"},
		{"metadata length", cat(magicB, long(1, 1<<50)), ReaderOptions{}, ErrLimit, "MaxMetadataSize"},
		{"negative length", cat(magicB, long(1, -5)), ReaderOptions{}, ErrMalformed, "negative length"},
		{"metadata claims more than the file", cat(magicB, long(1, 1<<20), []byte("abc")), ReaderOptions{}, ErrTruncated, "3 of 1048576 bytes"},
		{"schema too large", cat(magicB, long(1, int64(len(MetaSchema))), []byte(MetaSchema), long(100)), ReaderOptions{MaxSchemaSize: 99}, ErrLimit, "MaxSchemaSize"},
		{"duplicate key", cat(magicB, long(2), schemaEntry, schemaEntry, long(0), sync), ReaderOptions{}, ErrMalformed, "appears twice"},
		{"no schema", cat(magicB, long(0), sync), ReaderOptions{}, ErrMalformed, "no avro.schema"},
		{"negative block count", cat(good[:hdr], long(-1, 0)), ReaderOptions{}, ErrMalformed, "block of -1 records"},
		{"negative block size", cat(good[:hdr], long(1, -1)), ReaderOptions{}, ErrMalformed, "in -1 bytes"},
		{"block size limit", cat(good[:hdr], long(1, 1<<62)), ReaderOptions{}, ErrLimit, "MaxBlockSize"},
		{"block claims more than the file", cat(good[:hdr], long(1, 1<<20), make([]byte, 100)), ReaderOptions{}, ErrTruncated, "block claims 1048576 bytes, 100 remain"},
		{"record count overflows", cat(good[:hdr], long(math.MaxInt64, 0), sync, long(1, 0), sync), ReaderOptions{}, ErrMalformed, "overflows"},
		{"bad sync marker", cat(good[:hdr], long(1, 0), make([]byte, 16)), ReaderOptions{}, ErrMalformed, "sync marker"},
		{"unsupported codec", cat(magicB, long(2), schemaEntry, long(int64(len(MetaCodec))), []byte(MetaCodec), long(2), []byte("xz"), long(0), sync, long(1, 1), []byte{0}, sync), ReaderOptions{}, ErrUnsupportedCodec, `"xz"`},
		{"corrupt deflate", rawBlockFile(t, Deflate, []byte{0xff, 0xff, 0xff}), ReaderOptions{}, ErrMalformed, "deflate block"},
		{"corrupt snappy", rawBlockFile(t, Snappy, []byte{0xff, 0xff, 0xff}), ReaderOptions{}, ErrMalformed, "snappy block"},
		{"snappy stating more than it holds", rawBlockFile(t, Snappy, append(binaryUvarint(1<<19), 0, 0, 0, 0, 0)), ReaderOptions{}, ErrMalformed, "states 524288 bytes"},
		{"corrupt zstandard", rawBlockFile(t, Zstandard, []byte{0xff, 0xff, 0xff}), ReaderOptions{}, ErrMalformed, "zstandard block"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = readAll(tc.data, tc.opts) })
			var oe *Error
			if !errors.Is(err, tc.want) || !errors.As(err, &oe) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("err = %v, want %v mentioning %q", err, tc.want, tc.text)
			}
			if n > 1<<20 {
				t.Errorf("allocated %d bytes", n)
			}
		})
	}
}

// rawBlockFile returns a file of one block of data as stored.
func rawBlockFile(t *testing.T, codec Codec, data []byte) []byte {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WriterOptions{Schema: []byte(`"long"`), Codec: codec})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRawBlock(1, data); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func binaryUvarint(v uint64) []byte { return binary.AppendUvarint(nil, v) }

// blockEndsFirst returns the header's size.
func blockEndsFirst(t *testing.T, file []byte) int64 {
	r, err := NewReader(bytes.NewReader(file), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Header().Size
}

func TestErrorText(t *testing.T) {
	for _, tc := range []struct {
		e    *Error
		want string
	}{
		{&Error{Offset: 7, Block: -1, Err: ErrTruncated}, "container header at byte 7: truncated input"},
		{&Error{Offset: 99, Block: 2, Err: fmt.Errorf("%w: x", ErrMalformed)}, "container block 2 at byte 99: malformed input: x"},
	} {
		if tc.e.Error() != tc.want || !errors.Is(tc.e, tc.e.Err) {
			t.Errorf("%q, want %q", tc.e.Error(), tc.want)
		}
	}
}

// ocf's constructors refuse a nil reader or writer with ErrInvalidOptions,
// as protoavro's do, instead of panicking.
func TestOCFNilStreams(t *testing.T) {
	if _, err := NewReader(nil, ReaderOptions{}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("NewReader(nil): %v, want ErrInvalidOptions", err)
	}
	if _, err := NewWriter(nil, WriterOptions{Schema: []byte(`"int"`)}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("NewWriter(nil): %v, want ErrInvalidOptions", err)
	}
}

// A block of no records holds no data: the writers refuse to write one that
// does, and the reader refuses one, under every codec, whose data would
// otherwise be skipped unread.
func TestBlockOfNoRecordsHoldingData(t *testing.T) {
	for _, codec := range allCodecs {
		t.Run(string(codec), func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, WriterOptions{Schema: []byte(`"long"`), Codec: codec})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteBlock(0, []byte{2}); !errors.Is(err, ErrMalformed) {
				t.Errorf("WriteBlock(0, 1 byte) = %v, want ErrMalformed", err)
			}
			if err := w.WriteBlock(0, nil); err != nil {
				t.Errorf("WriteBlock(0, no data) = %v", err)
			}
			compressed, err := codec.Compress(nil, []byte{2})
			if err != nil {
				t.Fatal(err)
			}
			err = w.WriteRawBlock(0, compressed)
			if codec == Null && !errors.Is(err, ErrMalformed) {
				t.Errorf("WriteRawBlock(0, 1 byte) = %v, want ErrMalformed", err)
			}
			if codec != Null && err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if codec == Null { // the reader's side, as another writer could write it
				buf.Write(appendLong(appendLong(nil, 0), int64(len(compressed))))
				buf.Write(compressed)
				buf.Write(w.sync[:])
			}
			r, err := NewReader(bytes.NewReader(buf.Bytes()), ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if b, err := r.Next(); err != nil || b.Count != 0 || len(b.Data) != 0 {
				t.Fatalf("the empty block: %+v, %v", b, err)
			}
			_, err = r.Next()
			var oe *Error
			if !errors.Is(err, ErrMalformed) || !errors.As(err, &oe) || oe.Block != 1 || !strings.Contains(err.Error(), "0 records holds 1 bytes") {
				t.Fatalf("the block of no records holding data: %v, want ErrMalformed in block 1", err)
			}
		})
	}
}

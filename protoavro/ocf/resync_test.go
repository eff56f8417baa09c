package ocf

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"slices"
	"testing"
)

// blockSpans returns the [start, end) offsets of each block of file,
// found by reading it.
func blockSpans(t *testing.T, file []byte) (h Header, spans [][2]int64) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(file), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := r.NextRaw()
		if err == io.EOF {
			return *r.Header(), spans
		}
		if err != nil {
			t.Fatal(err)
		}
		spans = append(spans, [2]int64{b.Offset, r.Offset()})
	}
}

// salvage reads every block of file, resynchronising after each error,
// and returns the indexes (by content) of the blocks read, the bytes
// skipped, and what Resync copied.
func salvage(t *testing.T, file []byte, want []testBlock) (got []int, skipped int64, copied []byte) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(file), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	for range 1000 {
		b, err := r.Next()
		if err == io.EOF {
			return got, skipped, w.Bytes()
		}
		if err != nil {
			n, rerr := r.Resync(&w)
			skipped += n
			if rerr == io.EOF {
				return got, skipped, w.Bytes()
			}
			if rerr != nil {
				t.Fatalf("Resync: %v", rerr)
			}
			continue
		}
		found := -1
		for i, tb := range want {
			if tb.count == b.Count && bytes.Equal(tb.data, b.Data) {
				found = i
			}
		}
		if found < 0 {
			t.Fatalf("read a block that was not written: %d records", b.Count)
		}
		got = append(got, found)
	}
	t.Fatal("no end")
	return
}

func TestResync(t *testing.T) {
	blocks := makeBlocks(6)
	for _, codec := range []Codec{Null, Deflate} {
		file := writeFile(t, codec, blocks, nil)
		_, spans := blockSpans(t, file)
		damage := func(f func(b []byte)) []byte {
			b := bytes.Clone(file)
			f(b)
			return b
		}
		tests := []struct {
			name string
			file []byte
			want []int
		}{
			{"sound", file, []int{0, 1, 2, 3, 4, 5}},
			// The sync marker after block 2 is damaged: block 2 is lost, and
			// block 3, whose end is the next sync marker found.
			{"bad sync marker", damage(func(b []byte) { b[spans[2][1]-3] ^= 0xff }), []int{0, 1, 4, 5}},
			// Block 1's size claims more than it holds: the marker after its
			// data is found within the bytes read, so block 2 is kept.
			{"size too large", damage(func(b []byte) { bumpSize(t, b, spans[1][0], 40) }), []int{0, 2, 3, 4, 5}},
			{"garbage between blocks", append(append(bytes.Clone(file[:spans[3][0]]), bytes.Repeat([]byte{0xff}, 5000)...), file[spans[3][0]:]...), []int{0, 1, 2, 4, 5}},
			{"truncated", file[:spans[4][0]+10], []int{0, 1, 2, 3}},
		}
		if codec == Deflate {
			// Data that does not decompress: the framing is sound, only the
			// block is lost.
			tests = append(tests, struct {
				name string
				file []byte
				want []int
			}{"bad data", damage(func(b []byte) {
				for i := spans[2][0] + 4; i < spans[2][1]-16; i++ {
					b[i] = 0xff
				}
			}), []int{0, 1, 3, 4, 5}})
		}
		for _, tt := range tests {
			t.Run(string(codec)+"/"+tt.name, func(t *testing.T) {
				got, skipped, copied := salvage(t, tt.file, blocks)
				if !slices.Equal(got, tt.want) {
					t.Errorf("read blocks %v, want %v", got, tt.want)
				}
				if int64(len(copied)) != skipped {
					t.Errorf("skipped %d bytes, copied %d", skipped, len(copied))
				}
				if tt.name == "sound" && skipped != 0 {
					t.Errorf("skipped %d bytes of a sound file", skipped)
				}
			})
		}
	}
}

// bumpSize adds d to the size of the block at off (both varints short).
func bumpSize(t *testing.T, file []byte, off int64, d int64) {
	t.Helper()
	r := bytes.NewReader(file[off:])
	count, err := readZigzag(r)
	if err != nil {
		t.Fatal(err)
	}
	sizeAt := off + int64(len(appendLong(nil, count)))
	size, err := readZigzag(bytes.NewReader(file[sizeAt:]))
	if err != nil {
		t.Fatal(err)
	}
	enc, bumped := appendLong(nil, size), appendLong(nil, size+d)
	if len(enc) != len(bumped) {
		t.Fatalf("size %d and %d encode to different lengths", size, size+d)
	}
	copy(file[sizeAt:], bumped)
}

// readZigzag reads an Avro long.
func readZigzag(r io.ByteReader) (int64, error) {
	var u uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, errors.New("long varint")
}

func TestResyncHeaderAndNoError(t *testing.T) {
	file := writeFile(t, Null, makeBlocks(2), nil)
	r, err := NewReader(bytes.NewReader(file), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := r.Resync(nil); n != 0 || err != nil {
		t.Errorf("Resync without an error: %d, %v", n, err)
	}
	for {
		if _, err := r.Next(); err != nil {
			break
		}
	}
	if _, err := r.Resync(nil); err != io.EOF {
		t.Errorf("Resync at the end: %v", err)
	}
}

// claimsToTheEnd returns a file of about size bytes: a sound block, a
// damaged one, then units of 22 bytes, each the sync marker and the header
// of a block of one record whose size claims nearly the rest of the file.
// Each unit is a candidate that Resync finds and the next read refuses
// (the file ends in the block it claims), all the way to the end.
func claimsToTheEnd(t *testing.T, size int) (file []byte, sound int) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WriterOptions{Schema: []byte(longSchema), Sync: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBlock(1, []byte{2}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file, sound = buf.Bytes(), buf.Len()
	file = append(append(file, 2, 4, 0xff, 0xff), bytes.Repeat([]byte("X"), 16)...) // a bad sync marker
	sync := w.Sync()
	const unit = 16 + 1 + 5
	n := (size - len(file)) / unit
	for i := range n {
		rest := (n - i - 1) * unit
		u := appendLong(appendLong(append(file, sync[:]...), 1), int64(max(rest-10, 1)))
		file = append(u, make([]byte, len(file)+unit-len(u))...)
	}
	return file, sound
}

// TestResyncLinear salvages files where every sync marker starts a block
// that claims the rest of the file. Each false candidate is checked where
// it lies, so the work (counted as the bytes allocated, which followed the
// bytes copied) grows with the file, not with its square: pushing back
// and reading again all that a candidate claimed took 2.4 s for 0.55 MB,
// 50 s for 2.2 MB.
func TestResyncLinear(t *testing.T) {
	alloc := make(map[int]uint64)
	for _, size := range []int{2 << 20, 4 << 20} {
		file, sound := claimsToTheEnd(t, size)
		budget := uint64(64 * len(file)) // generous; the square is thousands of times more
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		r, err := NewReader(bytes.NewReader(file), ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var blocks, resyncs int
		var skipped int64
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err == nil {
				blocks++
				continue
			}
			n, err := r.Resync(nil)
			skipped += n
			resyncs++
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("Resync: %v", err)
			}
			if resyncs%256 == 0 {
				runtime.ReadMemStats(&ms)
				if ms.TotalAlloc-before > budget {
					t.Fatalf("%d bytes: %d bytes allocated after %d candidates of %d, over the budget of %d",
						len(file), ms.TotalAlloc-before, resyncs, (len(file)-sound)/22, budget)
				}
			}
		}
		runtime.ReadMemStats(&ms)
		alloc[size] = ms.TotalAlloc - before
		t.Logf("%d bytes: %d candidates, %d bytes allocated (%.1f per byte)", len(file), resyncs, alloc[size], float64(alloc[size])/float64(len(file)))
		if blocks != 1 || skipped != int64(len(file)-sound) {
			t.Errorf("%d bytes: read %d blocks, skipped %d bytes; want the sound block and %d bytes skipped", len(file), blocks, skipped, len(file)-sound)
		}
		if alloc[size] > budget {
			t.Errorf("%d bytes: %d bytes allocated, over the budget of %d", len(file), alloc[size], budget)
		}
	}
	if ratio := float64(alloc[4<<20]) / float64(alloc[2<<20]); ratio > 2.5 {
		t.Errorf("twice the file allocated %.2f times as much: the work is not linear", ratio)
	}
}

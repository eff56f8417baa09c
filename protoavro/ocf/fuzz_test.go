package ocf

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader reads whole files — header, metadata, blocks — with small
// limits. Any input must give blocks and then io.EOF, or an *Error of one
// of the error classes; never a panic, and offsets only move forward.
func FuzzReader(f *testing.F) {
	blocks := makeBlocks(3)
	for _, codec := range allCodecs {
		file := writeFile(f, codec, blocks, map[string][]byte{"k": []byte("v")})
		f.Add(file)
		f.Add(file[:len(file)-7])                         // truncated in the last sync marker
		f.Add(append(bytes.Clone(file[:len(file)-1]), 0)) // bad sync marker
		bad := bytes.Clone(file)
		bad[len(bad)-30] ^= 0x55 // corrupt data
		f.Add(bad)
	}
	f.Add([]byte("Obj\x01"))
	f.Add([]byte("Obj\x01\x02\x16avro.schema\x06\"a\"\x00"))
	f.Add([]byte("Obj\x01\x01\x01\x00"))
	classes := []error{ErrNotContainer, ErrTruncated, ErrMalformed, ErrLimit, ErrUnsupportedCodec}
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := ReaderOptions{MaxSchemaSize: 1 << 10, MaxMetadataEntries: 16, MaxMetadataSize: 4 << 10,
			MaxBlockSize: 64 << 10, MaxBlockDataSize: 256 << 10}
		r, err := NewReader(bytes.NewReader(data), opts)
		for r != nil && err == nil {
			before := r.Offset()
			var b Block
			if b, err = r.Next(); err == nil {
				if b.Offset != before || r.Offset() <= before || r.Offset() > int64(len(data)) ||
					len(b.Data) > opts.MaxBlockDataSize || b.Size > int64(opts.MaxBlockSize) {
					t.Fatalf("block %+v read from %d to %d of %d", b, before, r.Offset(), len(data))
				}
			}
		}
		if err == io.EOF {
			return
		}
		var oe *Error
		if !errors.As(err, &oe) || oe.Offset < 0 || oe.Offset > int64(len(data)) {
			t.Fatalf("error %v (%T) is not an *Error within the input", err, err)
		}
		for _, c := range classes {
			if errors.Is(err, c) {
				return
			}
		}
		t.Fatalf("error %v wraps none of the classes", err)
	})
}

// FuzzResync salvages any input: reading blocks and resynchronising after
// each error must end (at io.EOF or at an error Resync cannot pass) with
// the offset only moving forward, never past the input, and with Resync
// copying exactly the bytes it says it skipped.
func FuzzResync(f *testing.F) {
	blocks := makeBlocks(4)
	for _, codec := range []Codec{Null, Deflate} {
		file := writeFile(f, codec, blocks, nil)
		f.Add(file)
		bad := bytes.Clone(file)
		bad[len(bad)/2] ^= 0xff
		f.Add(bad)
		f.Add(append(bytes.Clone(file[:len(file)/2]), file...)) // a file inside a file
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := ReaderOptions{MaxBlockSize: 64 << 10, MaxBlockDataSize: 256 << 10}
		r, err := NewReader(bytes.NewReader(data), opts)
		if err != nil {
			return
		}
		var copied bytes.Buffer
		var skipped int64
		for range len(data) + 2 { // each round reads a block or skips at least a byte
			before := r.Offset()
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				n, rerr := r.Resync(&copied)
				skipped += n
				if rerr != nil {
					break
				}
			}
			if r.Offset() <= before || r.Offset() > int64(len(data)) {
				t.Fatalf("offset %d after %d, input %d: no progress", r.Offset(), before, len(data))
			}
		}
		if int64(copied.Len()) != skipped {
			t.Fatalf("skipped %d bytes, copied %d", skipped, copied.Len())
		}
	})
}

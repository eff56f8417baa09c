package ocf

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestCompressConcurrent: goroutines that compress at once get the bytes a
// lone compression gives (so the output of a container does not depend on
// its writer's workers), and each block decompresses back to its input.
func TestCompressConcurrent(t *testing.T) {
	blocks := make([][]byte, 16)
	for i := range blocks {
		var b bytes.Buffer
		for j := range 2000 + 300*i {
			fmt.Fprintf(&b, "record %d of block %d;", j*j%977, i)
		}
		blocks[i] = b.Bytes()
	}
	for _, c := range []Codec{Null, Deflate, Snappy, Zstandard} {
		t.Run(string(c), func(t *testing.T) {
			want := make([][]byte, len(blocks))
			for i, src := range blocks {
				out, err := c.Compress(nil, src)
				if err != nil {
					t.Fatal(err)
				}
				want[i] = out
			}
			var wg sync.WaitGroup
			errs := make(chan error, 4*len(blocks))
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var out, back []byte
					for k := range len(blocks) {
						i := (k + g*5) % len(blocks)
						var err error
						if out, err = c.Compress(out[:0], blocks[i]); err != nil {
							errs <- err
							return
						}
						if !bytes.Equal(out, want[i]) {
							errs <- fmt.Errorf("block %d compressed at once with others differs from its lone compression", i)
							return
						}
						if back, err = c.Decompress(back[:0], out, DefaultMaxBlockDataSize); err != nil {
							errs <- fmt.Errorf("block %d: %w", i, err)
							return
						}
						if !bytes.Equal(back, blocks[i]) {
							errs <- fmt.Errorf("block %d does not decompress to its input", i)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// TestZstdEncoders: a compression that finds every encoder in use gets one
// of its own (compressions do not wait for each other) while fewer than
// GOMAXPROCS exist; beyond them, it waits for one given back, so that no
// more are made than can run at once.
func TestZstdEncoders(t *testing.T) {
	c, err := newZstdCodec()
	if err != nil {
		t.Fatal(err)
	}
	n := cap(c.free)
	if n != runtime.GOMAXPROCS(0) {
		t.Fatalf("room for %d encoders, GOMAXPROCS is %d", n, runtime.GOMAXPROCS(0))
	}
	held := map[*zstd.Encoder]bool{}
	var encs []*zstd.Encoder
	for range n {
		enc, err := c.encoder()
		if err != nil {
			t.Fatal(err)
		}
		if held[enc] {
			t.Fatal("an encoder in use was handed out again")
		}
		held[enc] = true
		encs = append(encs, enc)
	}
	if got := c.encoders(); got != n {
		t.Fatalf("%d encoders made for %d compressions at once", got, n)
	}
	// One more waits for an encoder given back, and gets that one.
	got := make(chan *zstd.Encoder)
	go func() {
		enc, err := c.encoder()
		if err != nil {
			t.Error(err)
		}
		got <- enc
	}()
	back := encs[len(encs)-1]
	c.free <- back
	if enc := <-got; enc != back {
		t.Error("a compression beyond GOMAXPROCS did not get the encoder given back")
	}
	if got := c.encoders(); got != n {
		t.Errorf("%d encoders made, want at most %d", got, n)
	}
	for _, enc := range encs {
		c.free <- enc
	}
	// A kept encoder still compresses as a fresh one does.
	src := bytes.Repeat([]byte("kept encoder "), 1000)
	out, err := c.compress(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	want := fresh(t).EncodeAll(src, nil)
	if !bytes.Equal(out, want) {
		t.Error("a kept encoder compresses otherwise than a fresh one")
	}
	dec, err := c.decompress(nil, out, DefaultMaxBlockDataSize)
	if err != nil || !bytes.Equal(dec, src) {
		t.Fatalf("round trip through a kept encoder: %v", err)
	}
}

// fresh returns a new encoder, closed at the end of the test.
func fresh(t *testing.T) *zstd.Encoder {
	t.Helper()
	enc, err := newZstdEncoder()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = enc.Close() })
	return enc
}

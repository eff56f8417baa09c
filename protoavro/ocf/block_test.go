package ocf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// builtBlock is a block a BlockBuilder emitted.
type builtBlock struct {
	count int64
	data  []byte
}

// collect returns a builder of the given size whose blocks go to *out.
func collect(size int, out *[]builtBlock) *BlockBuilder {
	return NewBlockBuilder(size, func(count int64, data []byte) error {
		*out = append(*out, builtBlock{count, bytes.Clone(data)})
		return nil
	})
}

// TestBlockBuilderBounds: blocks close at the builder's size, at
// MaxBlockRecords records, and before their zero-size items exceed what
// readers accept; the records come out whole and in order.
func TestBlockBuilderBounds(t *testing.T) {
	// Records of 3 bytes: blocks close at the first record that reaches
	// 10 bytes.
	var blocks []builtBlock
	b := collect(10, &blocks)
	for i := range 10 {
		if err := b.Add(append(b.Data(), byte(i), byte(i), byte(i)), 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(blocks); got != "[{4 [0 0 0 1 1 1 2 2 2 3 3 3]} {4 [4 4 4 5 5 5 6 6 6 7 7 7]} {2 [8 8 8 9 9 9]}]" {
		t.Errorf("blocks of 3-byte records at size 10: %s", got)
	}

	// Records that take no bytes: blocks of MaxBlockRecords.
	blocks = nil
	b = collect(0, &blocks)
	for range 2*MaxBlockRecords + 5 {
		if err := b.Add(b.Data(), 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 || blocks[0].count != MaxBlockRecords || blocks[1].count != MaxBlockRecords || blocks[2].count != 5 {
		t.Errorf("empty records: %d blocks %v, want two of %d and one of 5", len(blocks), blocks, MaxBlockRecords)
	}

	// Records of 2 bytes holding zero-size items, in random amounts: every
	// block is within the bound, and the records all come out.
	rng := rand.New(rand.NewPCG(1, 2))
	blocks = nil
	b = collect(0, &blocks)
	var want []byte
	var closedEarly bool
	for i := range 2000 {
		e := rng.Int64N(BlockEmptyLimit(2))
		rec := []byte{byte(i), byte(i >> 8)}
		want = append(want, rec...)
		before := len(blocks)
		if err := b.Add(append(b.Data(), rec...), e); err != nil {
			t.Fatalf("record %d with %d zero-size items: %v", i, e, err)
		}
		closedEarly = closedEarly || len(blocks) > before
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if !closedEarly {
		t.Fatal("no block closed for its zero-size items: the test checks nothing")
	}
	var got []byte
	var n int64
	for _, blk := range blocks {
		got = append(got, blk.data...)
		n += blk.count
	}
	if n != 2000 || !bytes.Equal(got, want) {
		t.Errorf("%d records in the blocks, %d bytes; want 2000 records, the input in order", n, len(got))
	}
}

// TestBlockBuilderEmptyBudget: a block closes before the record that would
// take its zero-size items over the bound, exactly at the bound; a record
// that no block holds is refused with ErrLimit and left out, and the
// builder goes on.
func TestBlockBuilderEmptyBudget(t *testing.T) {
	var blocks []builtBlock
	b := collect(0, &blocks)
	limit := BlockEmptyLimit(2) // two records of one byte: 2 bytes of data
	if err := b.Add(append(b.Data(), 1), limit/2); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(append(b.Data(), 2), limit-limit/2); err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 0 || !BlockFits(2, 2, limit) || BlockFits(2, 2, limit+1) {
		t.Fatalf("at the bound: %d blocks emitted; BlockFits %v, %v", len(blocks), BlockFits(2, 2, limit), BlockFits(2, 2, limit+1))
	}
	// One more item would exceed the bound of 3 bytes too: the block of
	// two is emitted, the record starts the next.
	if err := b.Add(append(b.Data(), 3), BlockEmptyLimit(1)); err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 1 || blocks[0].count != 2 || !bytes.Equal(blocks[0].data, []byte{1, 2}) || b.Records() != 1 || !bytes.Equal(b.Data(), []byte{3}) {
		t.Fatalf("blocks %v, building %d records %v", blocks, b.Records(), b.Data())
	}
	// A record of one byte with more zero-size items than a block of it
	// holds: refused, the block being built is emitted, nothing else is.
	err := b.Add(append(b.Data(), 4), BlockEmptyLimit(1)+1)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), fmt.Sprintf("%d zero-size values in a datum of 1 bytes exceed the %d", BlockEmptyLimit(1)+1, BlockEmptyLimit(1))) {
		t.Errorf("a record no block holds: %v, want ErrLimit saying why", err)
	}
	if len(blocks) != 2 || b.Records() != 0 || len(b.Data()) != 0 {
		t.Fatalf("after the refusal: blocks %v, building %d records", blocks, b.Records())
	}
	if err := b.Add(append(b.Data(), 5), 0); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(blocks); got != "[{2 [1 2]} {1 [3]} {1 [5]}]" {
		t.Errorf("blocks %s", got)
	}
}

// TestBlockBuilderErrors: emit's error is returned as it is; Add with less
// than the block's data is refused.
func TestBlockBuilderErrors(t *testing.T) {
	boom := errors.New("boom")
	b := NewBlockBuilder(1, func(int64, []byte) error { return boom })
	if err := b.Add(append(b.Data(), 1), 0); err != boom {
		t.Errorf("Add: %v, want emit's error", err)
	}
	b = NewBlockBuilder(0, func(int64, []byte) error { return nil })
	if err := b.Add([]byte{1, 2}, 0); err != nil {
		t.Fatal(err)
	}
	if err := b.Add([]byte{1}, 0); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("Add of less than the block: %v, want ErrInvalidOptions", err)
	}
	b.Reset()
	if b.Records() != 0 || len(b.Data()) != 0 {
		t.Errorf("after Reset: %d records, %d bytes", b.Records(), len(b.Data()))
	}
}

// TestBlockBuilderDataBound: however large the builder's size, a block
// closes before its data would exceed MaxBlockData, and a block of
// incompressible data under snappy, the codec that expands data most, stays
// within what readers accept; a datum larger than MaxBlockData alone is
// refused with ErrLimit and left out.
func TestBlockBuilderDataBound(t *testing.T) {
	// Incompressible records just over half of MaxBlockData: one a block.
	rng := rand.New(rand.NewPCG(3, 4))
	rec := make([]byte, MaxBlockData/2+8)
	for i := 0; i+8 <= len(rec); i += 8 {
		binary.LittleEndian.PutUint64(rec[i:], rng.Uint64())
	}
	var counts []int64
	b := NewBlockBuilder(1<<30, func(count int64, data []byte) error {
		counts = append(counts, count)
		out, err := Snappy.Compress(nil, data)
		if len(out) > DefaultMaxBlockSize {
			t.Errorf("a block of %d bytes of data is %d bytes under snappy, over the %d readers accept", len(data), len(out), DefaultMaxBlockSize)
		}
		return err
	})
	for range 2 {
		if err := b.Add(append(b.Data(), rec...), 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Add(append(b.Data(), rec[:MaxBlockData/2-8]...), 0); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(counts) != "[1 2]" {
		t.Errorf("records per block %v, want [1 2]", counts)
	}

	var emitted int
	b = NewBlockBuilder(0, func(int64, []byte) error { emitted++; return nil })
	if err := b.Add(append(b.Data(), 1), 0); err != nil {
		t.Fatal(err)
	}
	huge := append(b.Data(), make([]byte, MaxBlockData+1)...)
	if err := b.Add(huge, 0); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("a datum over MaxBlockData: %v, want ErrLimit", err)
	}
	if emitted != 1 || b.Records() != 0 {
		t.Errorf("after the refusal: %d blocks emitted, %d records pending; want the first record's block alone", emitted, b.Records())
	}
	if err := b.Add(append(b.Data(), make([]byte, MaxBlockData)...), 0); err != nil || b.Records() != 1 {
		t.Errorf("a datum of MaxBlockData: %v, %d records", err, b.Records())
	}
}

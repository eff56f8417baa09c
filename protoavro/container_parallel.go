package protoavro

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/limits"
	"github.com/protoavro/protoavro/internal/pool"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// This file holds the parallel side of ContainerReader (ReaderOptions.Workers
// > 1): the caller's goroutine reads raw blocks ahead, workers decompress
// them and decode all their records into protobuf wire bytes, and ReadWire
// hands the records out in file order. At most Workers+1 blocks are in
// flight (internal/pool's Ordered), each holding its compressed data, its
// decompressed data and its records' wire bytes, so memory stays bounded
// by about 3 × (Workers+1) × the block size, as in the writer. Nothing is
// kept per record: a block of many tiny records takes no more than one of
// a few large ones.

// parallelReader is the state of a parallel ContainerReader.
type parallelReader struct {
	pool    *pool.Ordered[*pblock, *pblock]
	free    []*pblock
	cur     *pblock // the block being handed out
	next    int     // index in cur of the next record
	pos     int     // where in cur.wire the next record's size starts
	readErr error   // the error that ended the reading of raw blocks (io.EOF at the end)
	closed  bool
	// bigData and bigWire are the buffers of the last large block, kept
	// for the next one: large blocks are decoded one at a time, on the
	// reader's goroutine, and reuse one set of buffers rather than
	// allocate their size anew (the last block's buffers may not be
	// collected yet when the next one's are allocated).
	bigData, bigWire []byte
}

// pblock is one block on its way through the workers.
type pblock struct {
	b    ocf.Block // as read; b.Data aliases raw
	raw  []byte
	data []byte // decompressed
	// wire holds the records decoded, length-delimited: each one's size
	// as a varint, then its wire bytes. segs divides them at the block's
	// errors: the records of segment seg, the one being handed out, end
	// at its wireEnd, where those of the next one start.
	wire []byte
	segs []segment
	seg  int
	// large is set by a worker on a block that decompresses to more than
	// largeBlock bytes: the reader's goroutine decodes it, when its turn
	// comes, so that one such block at a time is held decompressed.
	large bool
}

// segment is a run of a block's records that decoded, and the error that
// ends it, if any.
type segment struct {
	// n records end at wireEnd of the block's wire.
	n       int
	wireEnd int
	// err ends the segment after its n records: a block error (a
	// *ContainerError), or a record error (recErr set) of the record at
	// errStart..errEnd of data. skip and rest are what Resync skips then:
	// the records and bytes counted, and the bytes themselves (in raw or
	// data).
	err              error
	recErr           bool
	errStart, errEnd int
	skip             Skipped
	rest             []byte
	// resume is set after a record error whose datum ends where the
	// writer schema says (skipDatum): Resync skips that datum alone, and
	// the block's records after it, from resume.pos, are the next
	// segment's (decoded ahead, or by Resync past maxSegments).
	resume resumePoint
}

// maxSegments bounds the segments decoded ahead in a block: past as many
// bad records, Resync decodes the rest of the block on the reader's
// goroutine, maxSegments more at a time, so that a block of many bad
// records holds no more than that many segments.
const maxSegments = 64

// cur returns the segment being handed out.
func (pb *pblock) cur() *segment { return &pb.segs[pb.seg] }

// largeBlock is the decompressed size of a block above which it is
// decoded by the reader's goroutine rather than a worker, and its buffers
// are kept for the next such block, not for the workers: blocks in flight
// take at most about (Workers+1) × largeBlock, plus one large block's
// buffers, not (Workers+1) × 64 MiB (a deflate bomb of a few KB per
// block).
const largeBlock = 8 << 20

// newParallelReader starts the workers of cr. They use only what does not
// change while reading (the decoder program, the writer schema's skipper
// and the ocf reader's Decompress), never cr itself, so that a reader
// dropped before its end is collected and its workers stopped.
func newParallelReader(cr *ContainerReader, workers int) *parallelReader {
	or, dec, skip := cr.or, cr.dec, cr.skip
	p := &parallelReader{pool: pool.New(workers, func(pb *pblock) *pblock {
		decodeBlock(or, dec, skip, pb, largeBlock)
		return pb
	})}
	runtime.AddCleanup(cr, func(o *pool.Ordered[*pblock, *pblock]) { o.Close() }, p.pool)
	return p
}

// decodeBlock decompresses pb's block and decodes its records, on a worker
// (within bytes of decompressed data: a larger block is marked large and
// left) or on the reader's goroutine (within 0: any size the reader
// accepts). On an error it sets what Resync skips as the sequential
// reader's Resync skips it.
func decodeBlock(or *ocf.Reader, dec *decRecord, skip *lazySkipper, pb *pblock, within int) {
	pb.wire, pb.segs, pb.seg, pb.large = pb.wire[:0], append(pb.segs[:0], segment{}), 0, false
	var err error
	if within > 0 && within < or.MaxBlockDataSize() {
		// A block within the bound is decompressed once; one that
		// exceeds it costs at most within bytes more, once. Damaged
		// data is decompressed again by or, for its error.
		pb.data, err = or.Header().Codec.Decompress(pb.data[:0], pb.b.Data, within)
		if errors.Is(err, ocf.ErrLimit) {
			pb.large = true
			return
		}
	}
	// A block of no records that holds data is damaged too
	// (ocf.Reader.Decompress).
	if err != nil || within <= 0 || within >= or.MaxBlockDataSize() || pb.b.Count == 0 && len(pb.data) > 0 {
		pb.data, err = or.Decompress(pb.data[:0], pb.b)
	}
	sg := pb.cur()
	if err != nil {
		// The block alone, as compressed (ocf.Reader.Resync of a block
		// whose framing was sound).
		sg.err, sg.skip, sg.rest = containerError(err), Skipped{Blocks: 1, Bytes: int64(len(pb.raw))}, pb.raw
		return
	}
	empty, err := blockEmpty(pb.b.Count, len(pb.data))
	if err != nil {
		sg.err = &ContainerError{Block: pb.b.Index, Offset: pb.b.Offset, Err: err}
		sg.skip, sg.rest = Skipped{Records: pb.b.Count, Blocks: 1, Bytes: int64(len(pb.data))}, pb.data
		return
	}
	// The records' wire takes about as much as their Avro: room for that
	// from the start spares a large block the copies of growing.
	pb.wire = limits.Grow(pb.wire, len(pb.data)+len(pb.data)/8)
	decodeRecords(dec, skip, pb, resumePoint{index: 0, pos: 0, empty: empty})
}

// resumePoint is where the decoding of a block's records goes on: at
// record index of the block, at byte pos of its data, with empty zero-size
// items counted. index is 0 for none (the first record of a block is never
// resumed at).
type resumePoint struct {
	index int64
	pos   int
	empty int64
}

// decodeRecords decodes the records of pb's decompressed block from at on,
// appending them to pb.wire and starting pb.segs anew, until the block's
// end or an error that ends it. A record that does not decode is skipped
// alone when the writer schema finds its end: its error ends a segment,
// and the records after it are the next one's, up to maxSegments; else
// the error ends the block, and Resync skips the rest of it.
func decodeRecords(dec *decRecord, skip *lazySkipper, pb *pblock, at resumePoint) {
	data := pb.data
	pos, empty, guess := at.pos, at.empty, 1
	pb.segs, pb.seg = append(pb.segs[:0], segment{}), 0
	sg := pb.cur()
	for i := at.index; i < pb.b.Count; i++ {
		start, end := pos, 0
		var err error
		pb.wire, guess, err = appendDelimited(pb.wire, guess, func(dst []byte) ([]byte, error) {
			var err error
			dst, end, err = decodeRecord(dec, dst, data, pos, &empty)
			return dst, err
		})
		if err == nil {
			pos = end
			sg.n++
			continue
		}
		sg.wireEnd, sg.err, sg.recErr, sg.errStart, sg.errEnd = len(pb.wire), err, true, start, min(end, len(data))
		next, e, ok := skipDatum(skip.get(), data, start, sg.errEnd, empty)
		if !ok {
			sg.skip, sg.rest = Skipped{Records: pb.b.Count - i, Bytes: int64(len(data) - start)}, data[start:]
			return
		}
		sg.skip, sg.rest = Skipped{Records: 1, Bytes: int64(next - start)}, data[start:next]
		sg.resume = resumePoint{index: i + 1, pos: next, empty: e}
		if len(pb.segs) == maxSegments {
			return
		}
		pos, empty = next, e
		pb.segs = append(pb.segs, segment{})
		sg = &pb.segs[len(pb.segs)-1]
	}
	sg.wireEnd = len(pb.wire)
	if pos != len(data) {
		// The records are sound; the error comes after them.
		sg.err = &ContainerError{Block: pb.b.Index, Offset: pb.b.Offset,
			Err: fmt.Errorf("%w: %d bytes left after the block's records", ErrMalformed, len(data)-pos)}
		sg.skip, sg.rest = Skipped{Bytes: int64(len(data) - pos)}, data[pos:]
	}
}

// skipDatum finds the end of the datum at start of a block's data with
// the writer schema's skipper k, empty zero-size items of the block
// counted before it: a record that did not decode for a reason of its
// values (one the reader's type cannot take), whose decoding stopped at
// stop. It returns where the datum ends and the zero-size items counted
// after it; ok is false when the datum's end cannot be found (damaged or
// truncated data), or lies before stop.
func skipDatum(k *avrobin.Skipper, data []byte, start, stop int, empty int64) (end int, after int64, ok bool) {
	r := avrobin.Reader{Buf: data, Pos: start, Empty: avrobin.Budget{N: empty, Max: emptyItemsLimit(len(data)), Per: "container block"}}
	if err := k.Skip(&r); err != nil || r.Pos < stop || r.Pos > len(data) {
		return 0, 0, false
	}
	return r.Pos, r.Empty.N, true
}

// appendDelimited appends a record, length-delimited, to dst: read appends
// the record's wire bytes after guess bytes set aside for its size, which
// are moved when the size takes another number of bytes. It returns the
// size of this size as the next guess. On an error dst is returned as it
// was.
func appendDelimited(dst []byte, guess int, read func([]byte) ([]byte, error)) ([]byte, int, error) {
	n := len(dst)
	dst = append(dst, make([]byte, guess)...)
	dst, err := read(dst)
	if err != nil {
		return dst[:n], guess, err
	}
	size := len(dst) - n - guess
	if need := protowire.SizeVarint(uint64(size)); need != guess {
		if need > guess {
			dst = slices.Grow(dst, need-guess)
		}
		dst = dst[:n+need+size]
		copy(dst[n+need:], dst[n+guess:n+guess+size])
		guess = need
	}
	protowire.AppendVarint(dst[n:n], uint64(size))
	return dst, guess, nil
}

// NextDelimited returns the records of the current block that are not
// read yet (at least one), length-delimited: each record's size as a
// varint, then its wire bytes (as ReadWire returns them), the form of Go's
// protodelim and Java's writeDelimitedTo. It returns their number; the
// bytes are valid until the next call of a method of cr. It returns io.EOF
// after the last record, and the error of a bad record after the records
// before it. With Workers > 1 the workers write the length prefixes, so
// that this call only hands out a block's bytes.
func (cr *ContainerReader) NextDelimited() ([]byte, int, error) {
	if err := cr.enter(); err != nil {
		return nil, 0, err
	}
	defer cr.leave()
	if cr.err != nil {
		return nil, 0, cr.err
	}
	if p := cr.par; p != nil {
		if err := p.nextBlock(cr); err != nil {
			return nil, 0, err
		}
		sg := p.cur.cur()
		from, n := p.pos, sg.n-p.next
		p.next, p.pos = sg.n, sg.wireEnd
		cr.index += int64(n)
		return p.cur.wire[from:sg.wireEnd], n, nil
	}
	// Sequential: decode the rest of the block, at least one record.
	cr.delim = cr.delim[:0]
	n, guess := 0, 1
	for n == 0 || cr.left > 0 {
		var err error
		if cr.delim, guess, err = appendDelimited(cr.delim, guess, cr.readWire); err != nil {
			if n > 0 {
				break // the records before it first; the error is sticky
			}
			return nil, 0, err
		}
		n++
	}
	return cr.delim, n, nil
}

// decodeRecord decodes the record at pos of a block's data, appending its
// wire bytes to dst; empty counts the block's zero-size items so far, and
// is left as it was on an error. It returns the position after the record
// (where the decoding stopped, on an error). A *DataError's offset is made
// relative to the record.
func decodeRecord(dec *decRecord, dst, data []byte, pos int, empty *int64) ([]byte, int, error) {
	st := newDecState(avroReader{avrobin.Reader{Buf: data, Pos: pos, Empty: avrobin.Budget{N: *empty, Max: emptyItemsLimit(len(data)), Per: "container block"}}}, false)
	n := len(dst)
	out, err := st.record(dst, dec)
	end, counted := st.r.Pos, st.r.Empty.N
	st.release()
	if err != nil {
		var de *DataError
		if asDataError(err, &de) {
			de.Offset -= pos
		}
		return dst[:n], end, inField(err, dec.name)
	}
	*empty = counted
	return out, end, nil
}

// readWire is ReadWire of a parallel reader.
func (p *parallelReader) readWire(cr *ContainerReader, dst []byte) ([]byte, error) {
	if err := p.nextBlock(cr); err != nil {
		return dst, err
	}
	// The size was written by decodeBlock: a varint within the wire.
	size, w := protowire.ConsumeVarint(p.cur.wire[p.pos:])
	start := p.pos + w
	dst = append(dst, p.cur.wire[start:start+int(size)]...)
	p.pos = start + int(size)
	p.next++
	cr.index++
	return dst, nil
}

// nextBlock makes p.cur a block with records left to hand out, or
// returns the reader's error (io.EOF at the end).
func (p *parallelReader) nextBlock(cr *ContainerReader) error {
	for p.cur == nil || p.next >= p.cur.cur().n {
		if pb := p.cur; pb != nil {
			if pb.cur().err != nil {
				// p.cur stays, for Resync; so do the workers and the
				// blocks in flight behind it.
				return p.fail(cr, pb)
			}
			if cap(pb.data) > largeBlock {
				// A large block's: kept for the next large block, not
				// for the workers.
				p.bigData, p.bigWire = pb.data, pb.wire
				pb.raw, pb.data, pb.wire = nil, nil, nil
			}
			p.free = append(p.free, pb)
			p.cur = nil
		}
		p.fill(cr)
		pb, ok := p.pool.Next()
		if ok && pb.large {
			// The worker's partial output gives way to the large
			// buffers, if a large block came before.
			if p.bigData != nil {
				pb.data, pb.wire, p.bigData, p.bigWire = p.bigData, p.bigWire, nil, nil
			}
			decodeBlock(cr.or, cr.dec, cr.skip, pb, 0)
		}
		if !ok {
			if p.readErr == io.EOF {
				p.close()
				cr.err = io.EOF
			} else {
				cr.err = containerError(p.readErr) // Resync may read on
			}
			return cr.err
		}
		p.cur, p.next, p.pos = pb, 0, 0
		cr.block = pb.b
	}
	return nil
}

// fill reads raw blocks ahead until Workers+1 are in flight.
func (p *parallelReader) fill(cr *ContainerReader) {
	for p.readErr == nil && !p.pool.Full() {
		b, err := cr.or.NextRaw()
		if err != nil {
			p.readErr = err
			return
		}
		var pb *pblock
		if n := len(p.free); n > 0 {
			pb, p.free = p.free[n-1], p.free[:n-1]
		} else {
			pb = &pblock{}
		}
		pb.raw = append(pb.raw[:0], b.Data...) // NextRaw reuses its buffer
		pb.b = b
		pb.b.Data = pb.raw
		p.pool.Submit(pb)
	}
}

// fail turns the error that ends pb into the reader's sticky error, as
// the sequential reader reports it.
func (p *parallelReader) fail(cr *ContainerReader, pb *pblock) error {
	sg := pb.cur()
	if !sg.recErr {
		cr.err = sg.err
		return cr.err
	}
	cr.err = cr.blockRecordError(pb.b, pb.data, sg.errStart, sg.errEnd, sg.err)
	return cr.err
}

// skipBlock is the part of Resync that skips what the sequential reader
// skips after the current segment's error: a record whose datum's end was
// found alone, after which the next segment's records are handed out (the
// rest of the block is decoded here, on the reader's goroutine, when the
// workers stopped at maxSegments); else the rest of the block. ok is false
// for an error of the reading of blocks.
func (p *parallelReader) skipBlock(cr *ContainerReader) (sk Skipped, rest []byte, ok bool) {
	pb := p.cur
	if pb == nil || pb.cur().err == nil {
		return Skipped{}, nil, false
	}
	sg := pb.cur()
	sk, rest = sg.skip, sg.rest
	if at := sg.resume; at.index > 0 {
		p.next = 0
		if pb.seg+1 < len(pb.segs) {
			pb.seg++
			return sk, rest, true
		}
		// rest is in pb.data, which the records after it leave as it is.
		pb.wire, p.pos = pb.wire[:0], 0
		decodeRecords(cr.dec, cr.skip, pb, at)
		return sk, rest, true
	}
	p.cur = nil
	p.free = append(p.free, pb) // rest stays valid until the next fill
	return sk, rest, true
}

// resume goes on reading blocks after Resync skipped damaged framing; err
// is the reader's error after it (io.EOF when the file ended in the
// damage).
func (p *parallelReader) resume(err error) {
	if err == io.EOF {
		p.readErr = io.EOF
		p.close()
		return
	}
	p.readErr = nil
}

// blockEmpty returns the zero-size items that a block of count records in
// dataLen bytes holds at least (records that take no bytes), or an error
// beyond the limit.
func blockEmpty(count int64, dataLen int) (int64, error) {
	empty := limits.BlockRecords(count, dataLen)
	if limit := emptyItemsLimit(dataLen); empty > limit {
		return 0, fmt.Errorf("%w: %d records in %d bytes exceed the limit of %d zero-size items per block", ErrMalformed, count, dataLen, limit)
	}
	return empty, nil
}

// blockRecordError is the error of the reader's next record, at
// data[start:end] of block b. An incompatibility names the mapping options
// the file was written with, when they are not the reader's.
func (cr *ContainerReader) blockRecordError(b ocf.Block, data []byte, start, end int, err error) *RecordError {
	return &RecordError{Index: cr.index, Offset: -1, Record: data[start:end], BlockOffset: b.Offset, DatumOffset: int64(start),
		Err: inBlock{fmt.Sprintf("block %d at byte %d, datum byte %d of the block: ", b.Index, b.Offset, start), cr.hinted(err)}}
}

// inBlock is err, a record's error, placed in its block by prefix; its text
// leaves out err's own "protoavro: ", which RecordError says once.
type inBlock struct {
	prefix string
	err    error
}

func (e inBlock) Error() string { return e.prefix + strings.TrimPrefix(e.err.Error(), "protoavro: ") }
func (e inBlock) Unwrap() error { return e.err }

// close stops the workers once reading has ended.
func (p *parallelReader) close() {
	if !p.closed {
		p.closed = true
		p.pool.Close()
		p.bigData, p.bigWire = nil, nil
	}
}

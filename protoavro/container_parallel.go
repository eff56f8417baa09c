package protoavro

import (
	"fmt"
	"io"
	"runtime"

	"github.com/protoavro/protoavro/internal/pool"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// This file holds the parallel side of ContainerReader (ReaderOptions.Workers
// > 1): the caller's goroutine reads raw blocks ahead, workers decompress
// them and decode all their records into protobuf wire bytes, and ReadWire
// hands the records out in file order. At most Workers+1 blocks are in
// flight (internal/pool's Ordered), each holding its compressed data, its
// decompressed data and its records' wire bytes, so memory stays bounded
// by about 3 × (Workers+1) × the block size, as in the writer.

// parallelReader is the state of a parallel ContainerReader.
type parallelReader struct {
	pool    *pool.Ordered[*pblock, *pblock]
	free    []*pblock
	cur     *pblock // the block being handed out
	next    int     // index in cur of the next record
	readErr error   // the error that ended the reading of raw blocks (io.EOF at the end)
	closed  bool
}

// pblock is one block on its way through the workers.
type pblock struct {
	b    ocf.Block // as read; b.Data aliases raw
	raw  []byte
	data []byte // decompressed
	wire []byte // the records' wire bytes, one after the other
	ends []int  // end of each record in wire
	// err ends the block after its len(ends) records: a block error (an
	// *ocf.Error or a *ContainerError), or a record error (recErr set) of
	// the record at errStart..errEnd of data.
	err              error
	recErr           bool
	errStart, errEnd int
}

// newParallelReader starts the workers of cr. They use only what does not
// change while reading (the decoder program and the ocf reader's
// Decompress), never cr itself, so that a reader dropped before its end is
// collected and its workers stopped.
func newParallelReader(cr *ContainerReader, workers int) *parallelReader {
	or, dec := cr.or, cr.dec
	p := &parallelReader{pool: pool.New(workers, func(pb *pblock) *pblock {
		decodeBlock(or, dec, pb)
		return pb
	})}
	runtime.AddCleanup(cr, func(o *pool.Ordered[*pblock, *pblock]) { o.Close() }, p.pool)
	return p
}

// decodeBlock decompresses pb's block and decodes its records, on a worker.
func decodeBlock(or *ocf.Reader, dec *decRecord, pb *pblock) {
	pb.wire, pb.ends, pb.err, pb.recErr = pb.wire[:0], pb.ends[:0], nil, false
	var err error
	if pb.data, err = or.Decompress(pb.data[:0], pb.b); err != nil {
		pb.err = containerError(err)
		return
	}
	data := pb.data
	empty, err := blockEmpty(pb.b.Count, len(data))
	if err != nil {
		pb.err = &ContainerError{Block: pb.b.Index, Offset: pb.b.Offset, Err: err}
		return
	}
	pos := 0
	for i := int64(0); i < pb.b.Count; i++ {
		start := pos
		if pb.wire, pos, err = decodeRecord(dec, pb.wire, data, pos, &empty); err != nil {
			pb.err, pb.recErr, pb.errStart, pb.errEnd = err, true, start, min(pos, len(data))
			return
		}
		if i == pb.b.Count-1 && pos != len(data) {
			pb.err = &ContainerError{Block: pb.b.Index, Offset: pb.b.Offset,
				Err: fmt.Errorf("%w: %d bytes left after the block's records", ErrMalformed, len(data)-pos)}
			return
		}
		pb.ends = append(pb.ends, len(pb.wire))
	}
}

// decodeRecord decodes the record at pos of a block's data, appending its
// wire bytes to dst; empty counts the block's zero-size items so far. It
// returns the position after the record. A *DataError's offset is made
// relative to the record.
func decodeRecord(dec *decRecord, dst, data []byte, pos int, empty *int64) ([]byte, int, error) {
	st := decStatePool.Get().(*decState)
	st.r = avroReader{buf: data, pos: pos, empty: *empty, emptyMax: emptyItemsLimit(len(data))}
	st.depth, st.anyOrder, st.itemCounted = 0, false, false
	n := len(dst)
	out, err := st.record(dst, dec)
	end := st.r.pos
	*empty = st.r.empty
	st.r.buf = nil
	decStatePool.Put(st)
	if err != nil {
		var de *DataError
		if asDataError(err, &de) {
			de.Offset -= pos
		}
		return dst[:n], end, inField(err, dec.name)
	}
	return out, end, nil
}

// readWire is ReadWire of a parallel reader.
func (p *parallelReader) readWire(cr *ContainerReader, dst []byte) ([]byte, error) {
	for p.cur == nil || p.next >= len(p.cur.ends) {
		if pb := p.cur; pb != nil {
			if pb.err != nil {
				p.close()
				return dst, p.fail(cr, pb)
			}
			p.free = append(p.free, pb)
			p.cur = nil
		}
		p.fill(cr)
		pb, ok := p.pool.Next()
		if !ok {
			p.close()
			if p.readErr != io.EOF {
				cr.err = containerError(p.readErr)
			} else {
				cr.err = io.EOF
			}
			return dst, cr.err
		}
		p.cur, p.next = pb, 0
		cr.block = pb.b
	}
	pb := p.cur
	start := 0
	if p.next > 0 {
		start = pb.ends[p.next-1]
	}
	dst = append(dst, pb.wire[start:pb.ends[p.next]]...)
	p.next++
	cr.index++
	return dst, nil
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
	if !pb.recErr {
		cr.err = pb.err
		return cr.err
	}
	cr.err = blockRecordError(cr.index, pb.b, pb.data, pb.errStart, pb.errEnd, pb.err)
	return cr.err
}

// blockEmpty returns the zero-size items that a block of count records in
// dataLen bytes holds at least (records that take no bytes), or an error
// beyond the limit.
func blockEmpty(count int64, dataLen int) (int64, error) {
	empty := max(count-int64(dataLen), 0)
	if limit := emptyItemsLimit(dataLen); empty > limit {
		return 0, fmt.Errorf("%w: %d records in %d bytes exceed the limit of %d zero-size items per block", ErrMalformed, count, dataLen, limit)
	}
	return empty, nil
}

// blockRecordError is the error of record index, at data[start:end] of
// block b.
func blockRecordError(index int64, b ocf.Block, data []byte, start, end int, err error) *RecordError {
	return &RecordError{Index: index, Offset: -1, Record: data[start:end],
		Err: fmt.Errorf("block %d at byte %d, datum byte %d of the block: %w", b.Index, b.Offset, start, err)}
}

// close stops the workers once reading has ended.
func (p *parallelReader) close() {
	if !p.closed {
		p.closed = true
		p.pool.Close()
	}
}

package ranges

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protoavro/protoavro/beam/internal/safetext"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// Avro reads the records of container files one byte range at a time.
type Avro struct {
	// MaxBlockSize bounds a block, compressed and decompressed.
	MaxBlockSize int
	// Reader returns how to read a file with header h: its message type
	// and mapping options.
	Reader func(h *ocf.Header) (protoavro.ReaderOptions, error)
}

// AvroResult says what Avro.Read did.
type AvroResult struct {
	// Blocks is the number of blocks claimed and read.
	Blocks int64
	// Done reports that the range holds nothing more: the file's blocks
	// were all read with no claim refused, or no block starts in it. The
	// caller claims the range's end.
	Done bool
}

func (a Avro) ocfOptions() ocf.ReaderOptions {
	return ocf.ReaderOptions{MaxBlockSize: a.MaxBlockSize, MaxBlockDataSize: a.MaxBlockSize}
}

// Read reads the records of the blocks that start at or after byte start
// of the file that open opens (twice: for its header, then for its blocks
// from the range on), claiming each block's file offset before its records
// are read, and emits each record's protobuf wire bytes. A range that
// starts after the header is entered at the first sync marker that ends at
// or after start. Errors name path; the error of a bad block, or of bytes
// where a block should start, is a *BlockError, which names the block's
// offset in the file however far into the file the range starts.
func (a Avro) Read(open func() (io.ReadCloser, error), path string, start int64, claim func(int64) bool, emit func([]byte)) (AvroResult, error) {
	var res AvroResult
	hdr, hdrBytes, err := a.readHeader(open)
	if err != nil {
		return res, fmt.Errorf("protoavrobeam: %s: %w", Name(path), safetext.Error(err, MaxErrorText))
	}
	rc, err := open()
	if err != nil {
		return res, fmt.Errorf("protoavrobeam: %s: %w", Name(path), safetext.Error(err, MaxErrorText))
	}
	defer rc.Close()
	// Find the first block that starts in the range: the header's end, or
	// just after a sync marker that ends at or after start.
	first := hdr.Size
	if start > hdr.Size {
		first = start - int64(len(hdr.Sync))
	}
	if err := skip(rc, first); err != nil {
		return res, fmt.Errorf("protoavrobeam: %s: seek to byte %d: %w", Name(path), first, err)
	}
	br := bufio.NewReaderSize(rc, 1<<20)
	if start > hdr.Size {
		n, found, err := findSync(br, hdr.Sync[:])
		if err != nil {
			return res, fmt.Errorf("protoavrobeam: %s: look for a sync marker after byte %d: %w", Name(path), first, err)
		}
		if !found {
			res.Done = true
			return res, nil
		}
		first += n
	}
	// The blocks from first on, read as the continuation of the header.
	blocks, err := ocf.NewReader(io.MultiReader(bytes.NewReader(hdrBytes), br), a.ocfOptions())
	if err != nil {
		return res, fmt.Errorf("protoavrobeam: %s: %w", Name(path), err)
	}
	fd := &claimingFeeder{or: blocks, claim: claim, shift: first - hdr.Size, fromStart: first == hdr.Size, header: hdrBytes, sync: hdr.Sync}
	records, err := ocf.NewReader(fd, a.ocfOptions())
	if err != nil {
		return res, fd.readError(path, err)
	}
	ro, err := a.Reader(hdr)
	if err != nil {
		return res, fmt.Errorf("protoavrobeam: %s: %w", Name(path), err)
	}
	cr, err := protoavro.NewContainerReaderFrom(records, ro)
	if err != nil {
		return res, fmt.Errorf("protoavrobeam: %s: %w", Name(path), safetext.Error(err, MaxErrorText))
	}
	for {
		wire, err := cr.ReadWire(nil)
		if err == io.EOF {
			res.Blocks, res.Done = fd.claimed, fd.eof
			return res, nil
		}
		if err != nil {
			res.Blocks = fd.claimed
			return res, fd.readError(path, err)
		}
		emit(wire)
	}
}

// readHeader reads the header of the file and returns it with its bytes.
func (a Avro) readHeader(open func() (io.ReadCloser, error)) (*ocf.Header, []byte, error) {
	rc, err := open()
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	var rec bytes.Buffer
	or, err := ocf.NewReader(io.TeeReader(rc, &rec), a.ocfOptions())
	if err != nil {
		return nil, nil, err
	}
	h := or.Header()
	return h, rec.Bytes()[:h.Size], nil
}

// skip advances r by n bytes, seeking when it can.
func skip(r io.Reader, n int64) error {
	if s, ok := r.(io.Seeker); ok {
		_, err := s.Seek(n, io.SeekStart)
		return err
	}
	_, err := io.CopyN(io.Discard, r, n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// findSync reads br up to and including the first occurrence of sync and
// returns the number of bytes consumed; found is false at the end of the
// input.
func findSync(br *bufio.Reader, sync []byte) (n int64, found bool, err error) {
	for {
		chunk, perr := br.Peek(br.Size())
		if i := bytes.Index(chunk, sync); i >= 0 {
			_, _ = br.Discard(i + len(sync))
			return n + int64(i+len(sync)), true, nil
		}
		if perr != nil {
			if perr == io.EOF {
				return n, false, nil
			}
			return n, false, perr
		}
		d := len(chunk) - (len(sync) - 1)
		_, _ = br.Discard(d)
		n += int64(d)
	}
}

// BlockError is an error of [Avro.Read] in a block of a container file, or
// in the bytes where the next block should start. A range that starts
// after the file's first block is entered at a sync marker, so the reader
// does not know how many blocks and records precede it: the error names the
// block by its offset in the file, and a record by its index in the block.
type BlockError struct {
	// Offset is the byte offset in the file where the block starts.
	Offset int64
	// Record is the 0-based index in the block of the record that does not
	// decode, or -1 for an error of the block itself.
	Record int64
	// Datum is the byte offset of that record's datum in the block's
	// decompressed data, or -1.
	Datum int64
	// Err is the error: for a record, its datum's (a *protoavro.DataError
	// underneath); for the block, one of the error classes of package ocf,
	// as an *ocf.Error (bad framing) or a *protoavro.ContainerError (bad
	// data or record count) with the file offset and the block's index in
	// the file when the read began at the file's first block, the class's
	// own error otherwise.
	Err error
}

// Error describes the error as "block at byte N: DETAIL", or "block at
// byte N: record R of the block, datum byte D of the block: DETAIL", with
// the detail escaped and cut to MaxErrorText bytes.
func (e *BlockError) Error() string {
	detail := e.Err
	var oe *ocf.Error
	var ce *protoavro.ContainerError
	switch {
	case errors.As(detail, &oe):
		detail = oe.Err
	case errors.As(detail, &ce):
		detail = ce.Err
	}
	var sb strings.Builder
	sb.WriteString("block at byte ")
	sb.WriteString(strconv.FormatInt(e.Offset, 10))
	sb.WriteString(": ")
	if e.Record >= 0 {
		sb.WriteString("record ")
		sb.WriteString(strconv.FormatInt(e.Record, 10))
		sb.WriteString(" of the block")
		if e.Datum >= 0 {
			sb.WriteString(", datum byte ")
			sb.WriteString(strconv.FormatInt(e.Datum, 10))
			sb.WriteString(" of the block")
		}
		sb.WriteString(": ")
	}
	if detail != nil {
		sb.WriteString(safetext.Escape(strings.TrimPrefix(detail.Error(), "protoavro: "), MaxErrorText))
	}
	return sb.String()
}

// Unwrap returns Err.
func (e *BlockError) Unwrap() error { return e.Err }

// Is reports the error classes of package ocf that protoavro has none of as
// protoavro's, as protoavro's ContainerReader does: ocf.ErrLimit as
// protoavro.ErrMalformed, ocf.ErrUnsupportedCodec as protoavro.ErrUnsupported.
func (e *BlockError) Is(target error) bool {
	switch target {
	case protoavro.ErrMalformed:
		return errors.Is(e.Err, ocf.ErrLimit)
	case protoavro.ErrUnsupported:
		return errors.Is(e.Err, ocf.ErrUnsupportedCodec)
	}
	return false
}

// claimingFeeder is the input of the record reader: the header, then each
// block of or, re-framed, claimed when the record reader asks for its
// bytes. A block whose claim fails ends the input, so the records of a
// block are read only by the range that holds the block's first byte. The
// record reader reads one block at a time, asking for the next block's
// bytes only after the last record of the current one: its errors are those
// of the current block, or the feeder's own (err), of the next.
type claimingFeeder struct {
	or        *ocf.Reader
	claim     func(int64) bool
	shift     int64 // file offset = or's offset + shift
	fromStart bool  // or's first block is the file's: its block indexes are the file's
	header    []byte
	sync      [16]byte
	pending   []byte
	buf       []byte
	block     int64 // file offset of the current block
	index     int64 // index of the current block in or
	before    int64 // records of or's blocks before the current one
	records   int64 // records of or's blocks up to the current one
	eof       bool  // the file's blocks are all read
	stopped   bool  // a claim failed
	claimed   int64 // blocks claimed
	err       error // of or
}

func (fd *claimingFeeder) Read(p []byte) (int, error) {
	if len(fd.header) > 0 {
		n := copy(p, fd.header)
		fd.header = fd.header[n:]
		return n, nil
	}
	for len(fd.pending) == 0 {
		if fd.eof || fd.stopped || fd.err != nil {
			return 0, io.EOF
		}
		b, err := fd.or.NextRaw()
		if errors.Is(err, io.EOF) {
			fd.eof = true
			continue
		}
		if err != nil {
			fd.err = err
			return 0, err
		}
		fd.block, fd.index = b.Offset+fd.shift, b.Index
		fd.before, fd.records = fd.records, fd.records+b.Count
		if !fd.claim(fd.block) {
			fd.stopped = true
			continue
		}
		fd.claimed++
		fd.buf = protowire.AppendVarint(fd.buf[:0], protowire.EncodeZigZag(b.Count))
		fd.buf = protowire.AppendVarint(fd.buf, protowire.EncodeZigZag(int64(len(b.Data))))
		fd.buf = append(fd.buf, b.Data...)
		fd.buf = append(fd.buf, fd.sync[:]...)
		fd.pending = fd.buf
	}
	n := copy(p, fd.pending)
	fd.pending = fd.pending[n:]
	return n, nil
}

// readError is err, an error of the record reader, placed in the file: the
// feeder's own error when it has one (bad framing, from the block after
// the current one on), else the error of the current block or of one of
// its records. The offsets and indexes of both readers count from the
// range's first block, and those of the record reader in the re-framed
// blocks; the error gives the file's offsets instead, and the file's block
// index only when the range began at the file's first block.
func (fd *claimingFeeder) readError(path string, err error) error {
	var (
		oe *ocf.Error
		ce *protoavro.ContainerError
		re *protoavro.RecordError
		be *BlockError
	)
	switch {
	case fd.err != nil && errors.As(fd.err, &oe) && oe.Block >= 0:
		be = &BlockError{Offset: oe.Offset + fd.shift, Record: -1, Datum: -1, Err: oe.Err}
		if fd.fromStart {
			be.Err = &ocf.Error{Offset: be.Offset, Block: oe.Block, Err: oe.Err}
		}
	case fd.err != nil:
		err = fd.err
	case errors.As(err, &re):
		be = &BlockError{Offset: fd.block, Record: re.Index - fd.before, Datum: re.DatumOffset, Err: re.Err}
		if cause := errors.Unwrap(re.Err); be.Datum >= 0 && cause != nil {
			be.Err = cause // without the text that places it in the re-framed blocks
		}
	case errors.As(err, &ce) && ce.Block >= 0:
		be = &BlockError{Offset: fd.block, Record: -1, Datum: -1, Err: ce.Err}
		if fd.fromStart {
			be.Err = &protoavro.ContainerError{Offset: be.Offset, Block: fd.index, Err: ce.Err}
		}
	}
	if be != nil {
		return fmt.Errorf("protoavrobeam: %s: %w", Name(path), be)
	}
	return fmt.Errorf("protoavrobeam: %s: %w", Name(path), safetext.Error(err, MaxErrorText))
}

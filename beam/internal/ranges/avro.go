package ranges

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

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
// or after start. Errors name path and, for a bad block, its offset.
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
	fd := &claimingFeeder{or: blocks, claim: claim, shift: first - hdr.Size, header: hdrBytes, sync: hdr.Sync}
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
		return res, fmt.Errorf("protoavrobeam: %s: %w", Name(path), err)
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

// claimingFeeder is the input of the record reader: the header, then each
// block of or, re-framed, claimed when the record reader asks for its
// bytes. A block whose claim fails ends the input, so the records of a
// block are read only by the range that holds the block's first byte.
type claimingFeeder struct {
	or      *ocf.Reader
	claim   func(int64) bool
	shift   int64 // file offset = or's offset + shift
	header  []byte
	sync    [16]byte
	pending []byte
	buf     []byte
	block   int64 // file offset of the current block
	eof     bool  // the file's blocks are all read
	stopped bool  // a claim failed
	claimed int64 // blocks claimed
	err     error // of or
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
		fd.block = b.Offset + fd.shift
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

// readError is the error of a bad block: the feeder's own error (a damaged
// block) when it has one.
func (fd *claimingFeeder) readError(path string, err error) error {
	if fd.err != nil {
		err = fd.err
	}
	return fmt.Errorf("protoavrobeam: %s: block at byte %d: %w", Name(path), fd.block, err)
}

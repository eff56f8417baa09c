package ocf

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/safetext"
)

// ReaderOptions bound what a [Reader] accepts, so that hostile input cannot
// make it allocate without bound. A zero field takes its default.
type ReaderOptions struct {
	// MaxSchemaSize bounds avro.schema, in bytes (default 16 MiB).
	MaxSchemaSize int
	// MaxMetadataEntries bounds the number of metadata entries (default 4096).
	MaxMetadataEntries int
	// MaxMetadataSize bounds the metadata's keys and values together, in
	// bytes (default 64 MiB).
	MaxMetadataSize int
	// MaxBlockSize bounds the size of one block as stored (default 64 MiB).
	MaxBlockSize int
	// MaxBlockDataSize bounds the size of one block decompressed (default
	// 64 MiB).
	MaxBlockDataSize int
}

// The defaults of [ReaderOptions].
const (
	DefaultMaxSchemaSize      = 16 << 20
	DefaultMaxMetadataEntries = 4096
	DefaultMaxMetadataSize    = 64 << 20
	DefaultMaxBlockSize       = 64 << 20
	DefaultMaxBlockDataSize   = 64 << 20
)

func (o *ReaderOptions) setDefaults() {
	for _, f := range []struct {
		p   *int
		def int
	}{
		{&o.MaxSchemaSize, DefaultMaxSchemaSize},
		{&o.MaxMetadataEntries, DefaultMaxMetadataEntries},
		{&o.MaxMetadataSize, DefaultMaxMetadataSize},
		{&o.MaxBlockSize, DefaultMaxBlockSize},
		{&o.MaxBlockDataSize, DefaultMaxBlockDataSize},
	} {
		if *f.p <= 0 {
			*f.p = f.def
		}
	}
}

// Header is the header of a container file.
type Header struct {
	// Schema is the writer schema as JSON, the avro.schema metadata.
	Schema []byte
	// Codec is the block codec, the avro.codec metadata; null when absent.
	// It may be one this package does not implement (see
	// [Codec.Supported]): then only [Reader.NextRaw] reads blocks.
	Codec Codec
	// Metadata is the whole metadata map, avro.schema and avro.codec
	// included.
	Metadata map[string][]byte
	// Sync is the sync marker that ends every block.
	Sync [16]byte
	// Size is the length of the header in bytes: the offset of the first
	// block.
	Size int64
}

// Block is one block of a container file.
type Block struct {
	// Index is the 0-based index of the block in the file.
	Index int64
	// Offset is the byte offset of the block in the file.
	Offset int64
	// Count is the number of records the block says it holds.
	Count int64
	// Size is the size of the block's data as stored (compressed).
	Size int64
	// Data is the block's data: decompressed from [Reader.Next], as stored
	// from [Reader.NextRaw]. The reader reuses it on the next call.
	Data []byte
}

// Reader reads a container file block by block. Its methods must be called
// from one goroutine, except [Reader.Decompress] and [Reader.Header].
type Reader struct {
	br      *source
	off     int64 // bytes consumed
	opts    ReaderOptions
	h       Header
	raw     []byte
	data    []byte
	blocks  int64
	records int64
	err     error // sticky: io.EOF or an *Error
	// Of the last block that failed, for Resync: damage holds the bytes
	// read for it, header included, when its framing was bad, unless
	// pendDamage is not 0: then they are the last pendDamage bytes
	// consumed of br.buf, where they were read (readPending); framed says
	// that its framing was sound (its data did not decompress).
	damage     []byte
	pendDamage int
	framed     bool
}

// source is the input of a Reader: bytes pushed back by Resync, then the
// buffered file. The pushed-back bytes are buf[r:]; the bytes before r were
// consumed, and stay where they are until fill needs the room, so that
// Resync can push back bytes it finds in buf by moving r. ReadByte records
// into tape when it is set.
type source struct {
	buf  []byte
	r    int
	br   *bufio.Reader
	tape *[]byte
}

// ReadByte reads one byte.
func (s *source) ReadByte() (byte, error) {
	var c byte
	if s.r < len(s.buf) {
		c = s.buf[s.r]
		s.r++
	} else {
		var err error
		if c, err = s.br.ReadByte(); err != nil {
			return 0, err
		}
	}
	if s.tape != nil {
		*s.tape = append(*s.tape, c)
	}
	return c, nil
}

// Read reads into p.
func (s *source) Read(p []byte) (int, error) {
	if s.r < len(s.buf) {
		n := copy(p, s.buf[s.r:])
		s.r += n
		return n, nil
	}
	return s.br.Read(p)
}

// fill reads from br onto the end of buf until buf[r:] holds at least k
// bytes, and returns the error of br if it ends or fails first. It may move
// buf[r:] to the start of buf (r changes): it does so when the bytes before
// r are at least as many, so each consumed byte is moved at most once. The
// buffer grows as the bytes arrive, at most doubling, as readN's does.
func (s *source) fill(k int) error {
	for len(s.buf)-s.r < k {
		if len(s.buf) == cap(s.buf) {
			live := len(s.buf) - s.r
			if s.r > 0 && s.r >= live {
				s.buf = s.buf[:copy(s.buf, s.buf[s.r:])]
			} else {
				nb := make([]byte, live, live+min(k-live, max(live, 64<<10)))
				copy(nb, s.buf[s.r:])
				s.buf = nb
			}
			s.r = 0
		}
		m, err := s.br.Read(s.buf[len(s.buf):min(cap(s.buf), s.r+k)])
		s.buf = s.buf[:len(s.buf)+m]
		if err != nil {
			return err
		}
	}
	return nil
}

// NewReader reads the header of the container file in r. It buffers r.
func NewReader(r io.Reader, opts ReaderOptions) (*Reader, error) {
	if r == nil {
		return nil, fmt.Errorf("ocf: %w: nil io.Reader", ErrInvalidOptions)
	}
	opts.setDefaults()
	or := &Reader{br: &source{br: bufio.NewReaderSize(r, 64<<10)}, opts: opts}
	if err := or.readHeader(); err != nil {
		return nil, &Error{Offset: or.off, Block: -1, Err: err}
	}
	return or, nil
}

func (or *Reader) readHeader() error {
	var m [4]byte
	n, err := io.ReadFull(or.br, m[:])
	or.off += int64(n)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return err // a failure of the reader, not a verdict on the bytes
	}
	if n < 4 || m != magic {
		or.off = 0
		return fmt.Errorf("%w (no \"Obj\\x01\" magic at the start)", ErrNotContainer)
	}
	meta := map[string][]byte{}
	entries, size := 0, 0
	for {
		count, err := or.readLong()
		if err != nil {
			return truncated(err, "metadata")
		}
		if count == 0 {
			break
		}
		if count < 0 { // a negative count is followed by the block's size
			if count == math.MinInt64 {
				return fmt.Errorf("%w: metadata block count %d", ErrMalformed, count)
			}
			count = -count
			if _, err := or.readLong(); err != nil {
				return truncated(err, "metadata")
			}
		}
		if count > int64(or.opts.MaxMetadataEntries-entries) {
			return fmt.Errorf("%w: more than %d metadata entries (ReaderOptions.MaxMetadataEntries)", ErrLimit, or.opts.MaxMetadataEntries)
		}
		entries += int(count)
		for range count {
			k, err := or.readBytes(or.opts.MaxMetadataSize-size, "ReaderOptions.MaxMetadataSize")
			if err != nil {
				return fmt.Errorf("metadata key: %w", err)
			}
			size += len(k)
			limit, name := or.opts.MaxMetadataSize-size, "ReaderOptions.MaxMetadataSize"
			if string(k) == MetaSchema && or.opts.MaxSchemaSize < limit {
				limit, name = or.opts.MaxSchemaSize, "ReaderOptions.MaxSchemaSize"
			}
			v, err := or.readBytes(limit, name)
			if err != nil {
				return fmt.Errorf("metadata %s: %w", safetext.Quote(string(k), 200), err)
			}
			size += len(v)
			if _, dup := meta[string(k)]; dup {
				return fmt.Errorf("%w: metadata key %s appears twice", ErrMalformed, safetext.Quote(string(k), 200))
			}
			meta[string(k)] = v
		}
	}
	n, err = io.ReadFull(or.br, or.h.Sync[:])
	or.off += int64(n)
	if err != nil {
		return truncated(err, "sync marker")
	}
	schema, ok := meta[MetaSchema]
	if !ok {
		return fmt.Errorf("%w: no %s metadata", ErrMalformed, MetaSchema)
	}
	or.h.Schema, or.h.Metadata, or.h.Size, or.h.Codec = schema, meta, or.off, Null
	if c, ok := meta[MetaCodec]; ok {
		or.h.Codec = Codec(c)
	}
	return nil
}

// truncated turns an end of input in what into ErrTruncated.
func truncated(err error, what string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%w: the file ends in the %s", ErrTruncated, what)
	}
	return err
}

// readLong reads an Avro long (avrobin.ReadLong). It returns io.EOF when
// the input ends before it, io.ErrUnexpectedEOF inside it.
func (or *Reader) readLong() (int64, error) {
	v, n, err := avrobin.ReadLong(or.br)
	or.off += int64(n)
	return v, err
}

// readBytes reads a length-prefixed value of at most limit bytes; name is
// the option that sets the limit.
func (or *Reader) readBytes(limit int, name string) ([]byte, error) {
	n, err := or.readLong()
	if err != nil {
		return nil, truncated(err, "metadata")
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: negative length %d", ErrMalformed, n)
	}
	if n > int64(limit) {
		return nil, fmt.Errorf("%w: length %d exceeds the limit of %d (%s)", ErrLimit, n, limit, name)
	}
	v, m, err := or.readN(nil, n)
	if err != nil {
		return nil, fmt.Errorf("%w: %d of %d bytes", err, m, n)
	}
	return v, nil
}

// readN appends n bytes of input to dst and returns how many it read. The
// buffer grows as the bytes arrive, at most doubling, so that a size that
// claims more than the input holds allocates little more than the input.
// An end of input is ErrTruncated.
func (or *Reader) readN(dst []byte, n int64) ([]byte, int64, error) {
	start := len(dst)
	for read := int64(0); read < n; {
		if len(dst) == cap(dst) {
			dst = slices.Grow(dst, int(min(n-read, max(read, 64<<10))))
		}
		m, err := io.ReadFull(or.br, dst[len(dst):start+int(min(n, int64(cap(dst)-start)))])
		dst = dst[:len(dst)+m]
		read += int64(m)
		or.off += int64(m)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return dst, read, ErrTruncated
		}
		if err != nil {
			return dst, read, err
		}
	}
	return dst, n, nil
}

// Header returns the file's header. The caller must not modify it.
func (or *Reader) Header() *Header { return &or.h }

// Offset returns the number of bytes read from the file so far: after
// [Reader.Next] or [Reader.NextRaw], the offset of the next block.
func (or *Reader) Offset() int64 { return or.off }

// Blocks returns the number of blocks read so far.
func (or *Reader) Blocks() int64 { return or.blocks }

// Records returns the sum of the record counts of the blocks read so far.
func (or *Reader) Records() int64 { return or.records }

// Next reads the next block and decompresses it. It returns io.EOF after
// the last block; after another error, it returns that error again.
func (or *Reader) Next() (Block, error) {
	b, err := or.next(true)
	if err != nil {
		return b, err
	}
	if or.data, err = or.Decompress(or.data[:0], b); err != nil {
		or.err, or.framed = err, true
		return Block{}, err
	}
	b.Data = or.data
	return b, nil
}

// NextRaw reads the next block without decompressing it. It returns io.EOF
// after the last block; after another error, it returns that error again.
func (or *Reader) NextRaw() (Block, error) { return or.next(false) }

// next reads the next block; decompress says that it will be decompressed.
func (or *Reader) next(decompress bool) (Block, error) {
	if or.err != nil {
		return Block{}, or.err
	}
	limit, name := or.opts.MaxBlockSize, "ReaderOptions.MaxBlockSize"
	if decompress && (or.h.Codec == Null || or.h.Codec == "") && or.opts.MaxBlockDataSize < limit {
		limit, name = or.opts.MaxBlockDataSize, "ReaderOptions.MaxBlockDataSize"
	}
	var hdr []byte
	b, sync, err := or.readBlock(limit, name, &hdr)
	if err != nil {
		if err != io.EOF {
			err = &Error{Offset: b.Offset, Block: b.Index, Err: err}
			switch {
			case or.pendDamage > 0:
			case or.br.r < len(or.br.buf):
				// A header refused, read from the pushed-back bytes: it
				// stays where it is.
				or.pendDamage = len(hdr) + len(or.raw) + len(sync)
			default:
				or.damage = append(append(append(or.damage[:0], hdr...), or.raw...), sync...)
			}
			or.framed = false
		}
		or.err = err
		return Block{}, err
	}
	or.blocks++
	or.records += b.Count
	return b, nil
}

// readBlock reads a block of at most limit bytes; name is the option that
// sets the limit. The bytes of the block's header go to *hdr, and the
// bytes read where its sync marker should be are returned.
func (or *Reader) readBlock(limit int, name string, hdr *[]byte) (Block, []byte, error) {
	b := Block{Index: or.blocks, Offset: or.off}
	or.raw = or.raw[:0]
	or.pendDamage = 0
	or.br.tape = hdr
	defer func() { or.br.tape = nil }()
	var err error
	if b.Count, err = or.readLong(); err != nil {
		if err == io.EOF {
			return b, nil, io.EOF // the end, between blocks
		}
		return b, nil, truncated(err, "block header")
	}
	if b.Size, err = or.readLong(); err != nil {
		return b, nil, truncated(err, "block header")
	}
	or.br.tape = nil
	if b.Count < 0 || b.Size < 0 {
		return b, nil, fmt.Errorf("%w: block of %d records in %d bytes", ErrMalformed, b.Count, b.Size)
	}
	if b.Count > math.MaxInt64-or.records {
		return b, nil, fmt.Errorf("%w: block of %d records: the file's record count overflows", ErrMalformed, b.Count)
	}
	if b.Size > int64(limit) {
		return b, nil, fmt.Errorf("%w: block of %d bytes exceeds the limit of %d (%s)", ErrLimit, b.Size, limit, name)
	}
	if or.br.r < len(or.br.buf) {
		return or.readPending(b, len(*hdr))
	}
	var m int64
	or.raw, m, err = or.readN(or.raw[:0], b.Size)
	if err != nil {
		return b, nil, fmt.Errorf("%w: block claims %d bytes, %d remain in the input", err, b.Size, m)
	}
	var sync [16]byte
	n, err := io.ReadFull(or.br, sync[:])
	or.off += int64(n)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return b, sync[:n], fmt.Errorf("%w: sync marker: the file ends in it", ErrTruncated)
	}
	if err != nil {
		return b, sync[:n], err
	}
	if sync != or.h.Sync {
		return b, sync[:], fmt.Errorf("%w: sync marker %x does not match the header's %x", ErrMalformed, sync, or.h.Sync)
	}
	b.Data = or.raw
	return b, nil, nil
}

// readPending is the rest of readBlock for a block whose header was read
// from the bytes Resync pushed back and whose data starts in them. It reads
// what the block claims into the pushed-back bytes (so after a block that
// claimed the rest of the file, the candidates of the next Resync are
// checked where they lie, sync marker first, without copying the bytes
// they claim), and copies the block's data to raw only when its sync
// marker matches. It returns what readBlock does; a failed block's bytes,
// header included, stay in source.buf for Resync (pendDamage).
func (or *Reader) readPending(b Block, hdrLen int) (Block, []byte, error) {
	s := or.br
	s.r -= hdrLen // the header was read from buf: keep it with the block
	size, k := int(b.Size), hdrLen+int(b.Size)+len(or.h.Sync)
	ferr := s.fill(k)
	start := s.r
	got := min(len(s.buf)-start, k) // of the block, header included
	fail := func(err error) (Block, []byte, error) {
		s.r = start + got
		or.off += int64(got - hdrLen)
		or.pendDamage = got
		return b, nil, err
	}
	if ferr == io.ErrUnexpectedEOF {
		ferr = io.EOF
	}
	if body := got - hdrLen; body < size {
		if ferr == io.EOF {
			ferr = ErrTruncated
		}
		return fail(fmt.Errorf("%w: block claims %d bytes, %d remain in the input", ferr, b.Size, body))
	}
	sync := s.buf[start+hdrLen+size : start+got]
	if len(sync) < len(or.h.Sync) {
		if ferr == io.EOF {
			return fail(fmt.Errorf("%w: sync marker: the file ends in it", ErrTruncated))
		}
		return fail(ferr)
	}
	if !bytes.Equal(sync, or.h.Sync[:]) {
		return fail(fmt.Errorf("%w: sync marker %x does not match the header's %x", ErrMalformed, sync, or.h.Sync))
	}
	or.raw = append(or.raw[:0], s.buf[start+hdrLen:start+hdrLen+size]...)
	s.r = start + k
	or.off += int64(k - hdrLen)
	b.Data = or.raw
	return b, nil, nil
}

// Resync recovers from an error of [Reader.Next] or [Reader.NextRaw] in a
// block, to salvage what follows a damaged part of a file: the next call
// reads the block after the next sync marker. A block whose framing was
// sound but whose data did not decompress is skipped alone; otherwise the
// bytes from the damaged block's start to the end of the next sync marker
// found are skipped (the bytes read for the damaged block are searched
// first, so a block size that claimed too much loses no more than it
// must). The skipped bytes are copied to w when it is not nil, and their
// number returned. Salvaging a file so takes work linear in its size,
// however many false sync markers it holds: bytes pushed back are not
// copied again, and a block read from them is checked where it lies, its
// sync marker first. Without an error to recover from it does nothing. It
// returns io.EOF when the file ends before a sync marker, and the error
// again for an error in the header or a failure of w.
func (or *Reader) Resync(w io.Writer) (int64, error) {
	var oe *Error
	switch {
	case or.err == nil:
		return 0, nil
	case or.err == io.EOF:
		return 0, io.EOF
	case !errors.As(or.err, &oe) || oe.Block < 0:
		return 0, or.err
	}
	emit := func(p []byte) error {
		if w == nil || len(p) == 0 {
			return nil
		}
		_, err := w.Write(p)
		return err
	}
	if or.framed { // next counted the block
		or.err, or.framed = nil, false
		return int64(len(or.raw)), emit(or.raw)
	}
	or.blocks++ // the damaged block keeps its index
	s, buf := or.br, or.damage
	if or.pendDamage > 0 {
		buf = s.buf[s.r-or.pendDamage : s.r]
	}
	start := or.off - int64(len(buf))
	if i := bytes.Index(buf, or.h.Sync[:]); i >= 0 {
		// Push back what follows the marker, without copying it where
		// that can be helped: it is in s.buf already, or it is all that
		// remains of damage, which becomes s.buf.
		end := i + len(or.h.Sync)
		rest := len(buf) - end
		switch {
		case or.pendDamage > 0:
			s.r -= rest
		case s.r == len(s.buf):
			s.buf, or.damage = or.damage, s.buf[:0]
			s.r = end
		default: // not reached: bytes read from s.buf are in pendDamage
			s.buf = append(slices.Clone(buf[end:]), s.buf[s.r:]...)
			s.r = 0
		}
		or.pendDamage = 0
		or.off -= int64(rest)
		or.err = nil
		return int64(end), emit(buf[:end])
	}
	// Search the rest of the file, keeping a window of the last bytes.
	keep := min(len(buf), len(or.h.Sync)-1)
	if err := emit(buf[:len(buf)-keep]); err != nil {
		return int64(len(buf) - keep), err
	}
	window := append(make([]byte, 0, 4096), buf[len(buf)-keep:]...)
	if or.pendDamage > 0 {
		// Reading on moves s.r: should w or the input fail, the damage
		// stays, as it would in or.damage.
		defer func() {
			if or.err != nil && or.err != io.EOF {
				or.damage = append(or.damage[:0], buf...)
			}
			or.pendDamage = 0
		}()
	}
	for {
		c, err := or.br.ReadByte()
		if err != nil {
			or.err = io.EOF
			if err != io.EOF {
				or.err = &Error{Offset: or.off, Block: oe.Block, Err: err}
			}
			werr := emit(window)
			if werr != nil {
				return or.off - start, werr
			}
			return or.off - start, or.err
		}
		or.off++
		window = append(window, c)
		if bytes.HasSuffix(window, or.h.Sync[:]) {
			or.err = nil
			return or.off - start, emit(window)
		}
		if len(window) == cap(window) {
			n := len(window) - (len(or.h.Sync) - 1)
			if err := emit(window[:n]); err != nil {
				return or.off - start, err
			}
			window = append(window[:0], window[n:]...)
		}
	}
}

// MaxBlockDataSize returns the most bytes a block may decompress to
// (ReaderOptions.MaxBlockDataSize).
func (or *Reader) MaxBlockDataSize() int { return or.opts.MaxBlockDataSize }

// Decompress appends the data of b, a block from [Reader.NextRaw] of this
// reader, decompressed to dst, within ReaderOptions.MaxBlockDataSize. It
// may be called from several goroutines at once, on copies of the blocks'
// data: the way to decompress blocks in parallel. A block of no records
// whose data is not empty is an error of class [ErrMalformed]: its bytes
// would be lost unread.
func (or *Reader) Decompress(dst []byte, b Block) ([]byte, error) {
	out, err := or.h.Codec.Decompress(dst, b.Data, or.opts.MaxBlockDataSize)
	if err == nil && b.Count == 0 && len(out) > len(dst) {
		err = fmt.Errorf("%w: a block of 0 records holds %d bytes of data", ErrMalformed, len(out)-len(dst))
	}
	if err != nil {
		return dst, &Error{Offset: b.Offset, Block: b.Index, Err: err}
	}
	return out, nil
}

package protoavrobeam

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

func init() {
	register.DoFn4x1[context.Context, *sdf.LockRTracker, fileio.ReadableFile, func([]byte), error](&readAvroFn{})
}

// DefaultSplitSize is the size of the byte ranges into which ReadAvro
// splits a container file before reading (64 MiB, as Beam's textio).
const DefaultSplitSize = 64 << 20

// ReadAvroOptions configure ReadAvro.
type ReadAvroOptions struct {
	// Type, when set, is the message type to read into, by Avro's schema
	// resolution (another version of the message, or files written by
	// another program). The zero Type means the type embedded in each file.
	Type Type
	// SplitSize is the size in bytes of the ranges a file is split into
	// before reading (default DefaultSplitSize); the runner may split them
	// further while they are read.
	SplitSize int64
	// MaxBlockSize bounds one block, compressed and decompressed (default
	// 64 MiB).
	MaxBlockSize int
}

// ReadAvro reads the container files matching glob into a PCollection of
// their records as protobuf wire bytes ([]byte), by a splittable DoFn: a
// file's restriction is a byte range, split into opts.SplitSize ranges and
// further on the runner's request; a block belongs to the range that holds
// its first byte, and a range is entered at the first sync marker at or
// after its start. So one large file spreads over workers, and every record
// is read once.
func ReadAvro(s beam.Scope, glob string, opts ReadAvroOptions) beam.PCollection {
	s = s.Scope("protoavrobeam.ReadAvro")
	split := opts.SplitSize
	if split <= 0 {
		split = DefaultSplitSize
	}
	fn := &readAvroFn{byteRanges: byteRanges{SplitSize: split}, Type: opts.Type, MaxBlockSize: opts.MaxBlockSize}
	return beam.ParDo(s, fn, matchFiles(s, glob))
}

var (
	rangesRead  = beam.NewCounter("protoavrobeam", "avro_ranges")
	rangesEmpty = beam.NewCounter("protoavrobeam", "avro_empty_ranges")
	blocksRead  = beam.NewCounter("protoavrobeam", "avro_blocks")
)

type readAvroFn struct {
	byteRanges
	Type         Type `json:"type"`
	MaxBlockSize int  `json:"max_block_size"`
}

func (fn *readAvroFn) ocfOptions() ocf.ReaderOptions {
	return ocf.ReaderOptions{MaxBlockSize: fn.MaxBlockSize, MaxBlockDataSize: fn.MaxBlockSize}
}

func (fn *readAvroFn) ProcessElement(ctx context.Context, rt *sdf.LockRTracker, f fileio.ReadableFile, emit func([]byte)) error {
	path := f.Metadata.Path
	rangesRead.Inc(ctx, 1)
	hdr, hdrBytes, err := fn.readHeader(ctx, f)
	if err != nil {
		return fmt.Errorf("protoavrobeam: %s: %w", path, err)
	}
	rest := rt.GetRestriction().(offsetrange.Restriction)
	finish := func() { finishRange(rt) }
	rc, err := f.Open(ctx)
	if err != nil {
		return fmt.Errorf("protoavrobeam: %w", err)
	}
	defer rc.Close()
	// Find the first block that starts in the range: the header's end, or
	// just after a sync marker that ends at or after rest.Start.
	first := hdr.Size
	if rest.Start > hdr.Size {
		first = rest.Start - int64(len(hdr.Sync))
	}
	if err := skip(rc, first); err != nil {
		return fmt.Errorf("protoavrobeam: %s: seek to byte %d: %w", path, first, err)
	}
	br := bufio.NewReaderSize(rc, 1<<20)
	if rest.Start > hdr.Size {
		n, found, err := findSync(br, hdr.Sync[:])
		if err != nil {
			return fmt.Errorf("protoavrobeam: %s: look for a sync marker after byte %d: %w", path, first, err)
		}
		if !found {
			rangesEmpty.Inc(ctx, 1)
			finish()
			return nil
		}
		first += n
	}
	// The blocks from first on, read as the continuation of the header.
	blocks, err := ocf.NewReader(io.MultiReader(bytes.NewReader(hdrBytes), br), fn.ocfOptions())
	if err != nil {
		return fmt.Errorf("protoavrobeam: %s: %w", path, err)
	}
	fd := &claimingFeeder{or: blocks, rt: rt, shift: first - hdr.Size, header: hdrBytes, sync: hdr.Sync}
	records, err := ocf.NewReader(fd, fn.ocfOptions())
	if err != nil {
		return fn.readError(path, fd, err)
	}
	t := fn.Type
	fileOptions := false
	if t.Message == "" {
		meta := hdr.Metadata
		t = Type{Message: string(meta[protoavro.MetaMessage]), Descriptors: meta[protoavro.MetaDescriptors], Options: string(meta[protoavro.MetaOptions])}
		if t.Message == "" || t.Descriptors == nil {
			return fmt.Errorf("protoavrobeam: %s: %w: the file has no embedded protobuf type; give ReadAvroOptions.Type", path, ErrType)
		}
		fileOptions = true
	}
	c, err := t.compile()
	if err != nil {
		return fmt.Errorf("protoavrobeam: %s: %w", path, err)
	}
	o, err := protoavro.ParseOptions(t.Options)
	if err != nil {
		return fmt.Errorf("protoavrobeam: %s: %w", path, err)
	}
	cr, err := protoavro.NewContainerReaderFrom(records, protoavro.ReaderOptions{Message: c.mt, Options: o, FileOptions: fileOptions})
	if err != nil {
		return fmt.Errorf("protoavrobeam: %s: %w", path, err)
	}
	for {
		wire, err := cr.ReadWire(nil)
		if err == io.EOF {
			if fd.eof {
				finish()
			}
			blocksRead.Inc(ctx, fd.claimed)
			if fd.claimed == 0 {
				rangesEmpty.Inc(ctx, 1)
			}
			return nil
		}
		if err != nil {
			return fn.readError(path, fd, err)
		}
		emit(wire)
	}
}

func (fn *readAvroFn) readError(path string, fd *claimingFeeder, err error) error {
	if fd.err != nil {
		err = fd.err
	}
	return fmt.Errorf("protoavrobeam: %s: block at byte %d: %w", path, fd.block, err)
}

// readHeader reads the header of f and returns it with its bytes.
func (fn *readAvroFn) readHeader(ctx context.Context, f fileio.ReadableFile) (*ocf.Header, []byte, error) {
	rc, err := f.Open(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	var rec bytes.Buffer
	or, err := ocf.NewReader(io.TeeReader(rc, &rec), fn.ocfOptions())
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
// block of or, re-framed, claimed from the restriction tracker when the
// record reader asks for its bytes. A block whose claim fails ends the
// input, so the records of a block are read only by the restriction that
// holds the block's first byte.
type claimingFeeder struct {
	or      *ocf.Reader
	rt      *sdf.LockRTracker
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
		if !fd.rt.TryClaim(fd.block) {
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

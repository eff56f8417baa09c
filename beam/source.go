package protoavrobeam

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/protoavro/protoavro/beam/internal/ranges"
	"github.com/protoavro/protoavro/beam/internal/worker"
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

func (fn *readAvroFn) ProcessElement(ctx context.Context, rt *sdf.LockRTracker, f fileio.ReadableFile, emit func([]byte)) error {
	worker.MarkStarted()
	rangesRead.Inc(ctx, 1)
	a := ranges.Avro{MaxBlockSize: fn.MaxBlockSize, Reader: fn.readerOptions}
	open := func() (io.ReadCloser, error) { return f.Open(ctx) }
	start := rt.GetRestriction().(offsetrange.Restriction).Start
	res, err := a.Read(open, f.Metadata.Path, start, func(off int64) bool { return rt.TryClaim(off) }, emit)
	blocksRead.Inc(ctx, res.Blocks)
	if err != nil {
		return err
	}
	if res.Blocks == 0 {
		rangesEmpty.Inc(ctx, 1)
	}
	if res.Done {
		finishRange(rt)
	}
	return nil
}

// readerOptions returns how to read a file with header h: as fn.Type, or
// when that is empty as the type the file embeds, under its options.
func (fn *readAvroFn) readerOptions(h *ocf.Header) (protoavro.ReaderOptions, error) {
	t := fn.Type
	fileOptions := false
	if t.Message == "" {
		meta := h.Metadata
		t = Type{Message: string(meta[protoavro.MetaMessage]), Descriptors: meta[protoavro.MetaDescriptors], Options: string(meta[protoavro.MetaOptions])}
		if t.Message == "" || t.Descriptors == nil {
			return protoavro.ReaderOptions{}, fmt.Errorf("%w: the file has no embedded protobuf type; give ReadAvroOptions.Type", ErrType)
		}
		fileOptions = true
	}
	c, err := t.compile()
	if err != nil {
		return protoavro.ReaderOptions{}, err
	}
	// c.opts: the Type's options, with the resolver of its Any values.
	return protoavro.ReaderOptions{Message: c.mt, Options: c.opts, FileOptions: fileOptions}, nil
}

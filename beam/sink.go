package protoavrobeam

import (
	"bufio"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

func init() {
	register.DoFn2x0[beam.T, func(int, beam.T)](&shardKeyFn{})
	register.Emitter2[int, beam.T]()
	register.DoFn4x1[context.Context, int, func(*Block) bool, func(string), error](&writeAvroShardFn{})
	register.Iter1[Block]()
	register.DoFn4x1[context.Context, int, func(*[]byte) bool, func(string), error](&writeDelimitedShardFn{})
	register.Iter1[[]byte]()
	register.Emitter1[string]()
	register.DoFn5x1[context.Context, []byte, func(*string) bool, func(*[]byte) bool, func(string), error](&finalizeFn{})
	register.Iter1[string]()
	register.Combiner3[[]byte, int, []byte](&shardsUsedFn{})
	register.Function2x0[[]byte, func(int)](emitMarker)
	register.Emitter1[int]()
}

// ShardName is the name of shard i of n under prefix:
// prefix-SSSSS-of-NNNNN followed by suffix.
func ShardName(prefix string, i, n int, suffix string) string {
	return fmt.Sprintf("%s-%05d-of-%05d%s", prefix, i, n, suffix)
}

// tempMarker separates a shard's final name from the attempt id in the name
// of its temporary file: final + tempMarker + hex id.
const tempMarker = ".tmp-"

// WriteOptions configure WriteAvro and WriteDelimited.
type WriteOptions struct {
	// Shards is the number of output files (default 1). Every shard is
	// written, empty ones included.
	Shards int
	// Compression is the block codec of container files; empty means null.
	Compression protoavro.Compression
}

// WriteAvro writes a PCollection of Blocks of type t to n =
// opts.Shards container files named ShardName(prefix, i, n, ".avro"). Each
// shard has the header protoavro.NewContainerWriter writes (the schema,
// the message type, its descriptors and the mapping options), so it is
// complete and self-describing; protoavro decode and every Avro reader read
// it. Each Block becomes one container block.
//
// Shards are written under temporary names (the final name, ".tmp-" and a
// random id) by a grouped step, one group per shard; a single finalizing
// step renames the temporary files of the attempts the runner committed and
// removes every other temporary file of the output, such as those of failed
// attempts (or of an earlier failed run). So a retried bundle leaves no
// duplicate and no partial shard. If a shard that received elements has no
// committed file (a failed bundle the runner did not retry), finalization
// fails and renames nothing. The result is the PCollection of the
// final file names.
func WriteAvro(s beam.Scope, t Type, prefix string, opts WriteOptions, blocks beam.PCollection) beam.PCollection {
	s = s.Scope("protoavrobeam.WriteAvro")
	n := max(opts.Shards, 1)
	codec := opts.Compression
	if codec == "" {
		codec = protoavro.CompressionNull
	}
	filesystem.ValidateScheme(prefix)
	keyed := beam.ParDo(s, &shardKeyFn{Shards: n}, blocks)
	temps := beam.ParDo(s, &writeAvroShardFn{typed: typed{Type: t}, Prefix: prefix, Shards: n, Codec: string(codec)}, beam.GroupByKey(s, keyed))
	return finalize(s, &finalizeFn{Type: t, Prefix: prefix, Shards: n, Suffix: ".avro", Codec: string(codec), Avro: true}, keyed, temps)
}

// WriteDelimited writes a PCollection of protobuf wire records ([]byte) to
// opts.Shards length-delimited files named ShardName(prefix, i, n,
// ".delimited"), with the temporary names and the single finalizing step
// of WriteAvro. The result is the PCollection of the final file names.
func WriteDelimited(s beam.Scope, prefix string, opts WriteOptions, records beam.PCollection) beam.PCollection {
	s = s.Scope("protoavrobeam.WriteDelimited")
	n := max(opts.Shards, 1)
	filesystem.ValidateScheme(prefix)
	keyed := beam.ParDo(s, &shardKeyFn{Shards: n}, records)
	temps := beam.ParDo(s, &writeDelimitedShardFn{Prefix: prefix, Shards: n}, beam.GroupByKey(s, keyed))
	return finalize(s, &finalizeFn{Prefix: prefix, Shards: n, Suffix: ".delimited"}, keyed, temps)
}

// finalize adds the finalizing step. Besides the committed temporary files
// it is given which shards received elements (from the keyed elements,
// not from the writes), so that a shard whose write never committed is an
// error rather than an empty file: a runner that drops a failed bundle and
// lets the pipeline drain (prism does) must not publish the shard empty.
//
// On a failure prism also cancels the bundles in flight and drops their
// output too, so either side input may come incomplete. The marks come from
// one combine whose input always holds a marker element (-1, from an
// impulse), so they are exactly one value when complete and none when
// dropped; finalization fails unless there is exactly one.
func finalize(s beam.Scope, fn *finalizeFn, keyed, temps beam.PCollection) beam.PCollection {
	marker := beam.ParDo(s, emitMarker, beam.Impulse(s))
	used := beam.Combine(s, &shardsUsedFn{Shards: fn.Shards}, beam.Flatten(s, beam.DropValue(s, keyed), marker))
	return beam.ParDo(s, fn, beam.Impulse(s), beam.SideInput{Input: temps}, beam.SideInput{Input: used})
}

// emitMarker emits the marker element of the shard marks' combine.
func emitMarker(_ []byte, emit func(int)) { emit(-1) }

// shardsUsedFn combines shard indexes into one mark per shard: byte i of
// the result is 1 when shard i received an element.
type shardsUsedFn struct {
	Shards int `json:"shards"`
}

func (fn *shardsUsedFn) CreateAccumulator() []byte { return make([]byte, fn.Shards) }

func (fn *shardsUsedFn) AddInput(a []byte, shard int) []byte {
	if shard >= 0 && shard < len(a) {
		a[shard] = 1
	}
	return a
}

func (fn *shardsUsedFn) MergeAccumulators(a, b []byte) []byte {
	for i := range min(len(a), len(b)) {
		a[i] |= b[i]
	}
	return a
}

func (fn *shardsUsedFn) ExtractOutput(a []byte) []byte { return a }

// shardKeyFn keys elements by shard, round robin from a random start.
type shardKeyFn struct {
	Shards int `json:"shards"`
	next   int
}

func (fn *shardKeyFn) Setup() { fn.next = rand.IntN(max(fn.Shards, 1)) }

func (fn *shardKeyFn) ProcessElement(x beam.T, emit func(int, beam.T)) {
	emit(fn.next, x)
	fn.next = (fn.next + 1) % fn.Shards
}

// testHookShardWritten, when set (by tests, in loopback mode), is called
// after a shard's temporary file has received its first element; an error
// fails the bundle there, leaving a partial temporary file behind.
var testHookShardWritten func(shard int, temp string) error

// tempName returns a fresh temporary name for shard i.
func tempName(prefix string, i, n int, suffix string) string {
	var id [8]byte
	_, _ = crand.Read(id[:])
	return ShardName(prefix, i, n, suffix) + tempMarker + hex.EncodeToString(id[:])
}

// createTemp opens a new temporary file for shard i.
func createTemp(ctx context.Context, prefix string, i, n int, suffix string) (string, io.WriteCloser, error) {
	if i < 0 || i >= n {
		return "", nil, fmt.Errorf("protoavrobeam: shard %d out of range [0, %d)", i, n)
	}
	name := tempName(prefix, i, n, suffix)
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return "", nil, fmt.Errorf("protoavrobeam: %w", err)
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, name)
	if err != nil {
		return "", nil, fmt.Errorf("protoavrobeam: create %s: %w", name, err)
	}
	return name, w, nil
}

type writeAvroShardFn struct {
	typed
	Prefix string `json:"prefix"`
	Shards int    `json:"shards"`
	Codec  string `json:"codec"`
}

func (fn *writeAvroShardFn) ProcessElement(ctx context.Context, shard int, blocks func(*Block) bool, emit func(string)) error {
	if err := startWrite(); err != nil {
		return fmt.Errorf("protoavrobeam: shard %d: %w", shard, err)
	}
	defer endWrite()
	name, f, err := createTemp(ctx, fn.Prefix, shard, fn.Shards, ".avro")
	if err != nil {
		return err
	}
	err = fn.c.writeContainer(f, ocf.Codec(fn.Codec), func(yield func(Block) error) error {
		var b Block
		first := true
		for blocks(&b) {
			if err := checkWrite(ctx); err != nil {
				return err
			}
			if err := yield(b); err != nil {
				return err
			}
			if first && testHookShardWritten != nil {
				if err := testHookShardWritten(shard, name); err != nil {
					return err
				}
			}
			first = false
		}
		return nil
	})
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("protoavrobeam: close %s: %w", name, cerr)
	}
	if err != nil {
		return fmt.Errorf("protoavrobeam: shard %d (%s): %w", shard, name, err)
	}
	emit(name)
	return nil
}

// writeContainer writes a container file of c's type to w: the header,
// then each Block that blocks yields as one block.
func (c *compiled) writeContainer(w io.Writer, codec ocf.Codec, blocks func(yield func(Block) error) error) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	ow, err := ocf.NewWriter(bw, ocf.WriterOptions{Schema: c.schema, Codec: codec, Metadata: c.meta})
	if err != nil {
		return err
	}
	err = blocks(func(b Block) error {
		if b.Count == 0 {
			return nil
		}
		if err := ow.WriteBlock(b.Count, b.Data); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	if err := ow.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

type writeDelimitedShardFn struct {
	Prefix string `json:"prefix"`
	Shards int    `json:"shards"`
}

func (fn *writeDelimitedShardFn) ProcessElement(ctx context.Context, shard int, records func(*[]byte) bool, emit func(string)) error {
	if err := startWrite(); err != nil {
		return fmt.Errorf("protoavrobeam: shard %d: %w", shard, err)
	}
	defer endWrite()
	name, f, err := createTemp(ctx, fn.Prefix, shard, fn.Shards, ".delimited")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var rec, pre []byte
	for n := 0; records(&rec) && err == nil; n++ {
		if n%1024 == 0 {
			if err = checkWrite(ctx); err != nil {
				break
			}
		}
		pre = protowire.AppendVarint(pre[:0], uint64(len(rec)))
		if _, err = bw.Write(pre); err == nil {
			_, err = bw.Write(rec)
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("protoavrobeam: shard %d (%s): %w", shard, name, err)
	}
	emit(name)
	return nil
}

// finalizeFn runs once, after every shard is written: it checks that every
// shard that received elements has a committed temporary file, then renames
// the committed temporary files, writes the shards that received nothing,
// and removes the other temporary files of the output.
type finalizeFn struct {
	Type   Type   `json:"type"`
	Prefix string `json:"prefix"`
	Shards int    `json:"shards"`
	Suffix string `json:"suffix"`
	Codec  string `json:"codec"`
	Avro   bool   `json:"avro"`
}

func (fn *finalizeFn) ProcessElement(ctx context.Context, _ []byte, temps func(*string) bool, used func(*[]byte) bool, emit func(string)) error {
	if err := startWrite(); err != nil {
		return fmt.Errorf("protoavrobeam: finalize %s: %w", fn.Prefix, err)
	}
	defer endWrite()
	committed := make([]string, fn.Shards)
	var name string
	for temps(&name) {
		i, ok := fn.shardOf(name)
		if !ok {
			return fmt.Errorf("protoavrobeam: finalize: %s is not a temporary shard of %s", name, fn.Prefix)
		}
		if committed[i] != "" {
			return fmt.Errorf("protoavrobeam: finalize: shard %d committed twice (%s, %s)", i, committed[i], name)
		}
		committed[i] = name
	}
	// Nothing is renamed unless every shard that received elements was
	// committed: a job whose write failed publishes no shard.
	var marks, m []byte
	nmarks := 0
	for used(&m) {
		marks, nmarks = m, nmarks+1
	}
	if nmarks != 1 || len(marks) != fn.Shards {
		return fmt.Errorf("protoavrobeam: finalize: %s: %d values of the shard marks, want 1 of %d shards (a failed bundle the runner did not retry)", fn.Prefix, nmarks, fn.Shards)
	}
	for i, m := range marks {
		if m != 0 && committed[i] == "" {
			return fmt.Errorf("protoavrobeam: finalize: shard %d of %s received elements but no write of it was committed (a failed bundle the runner did not retry)", i, fn.Prefix)
		}
	}
	fs, err := filesystem.New(ctx, fn.Prefix)
	if err != nil {
		return fmt.Errorf("protoavrobeam: %w", err)
	}
	defer fs.Close()
	for i := range fn.Shards {
		if err := checkWrite(ctx); err != nil {
			return fmt.Errorf("protoavrobeam: finalize %s before shard %d: %w", fn.Prefix, i, err)
		}
		final := ShardName(fn.Prefix, i, fn.Shards, fn.Suffix)
		tmp := committed[i]
		if tmp == "" {
			// No element went to shard i: write a complete empty file.
			var w io.WriteCloser
			if tmp, w, err = createTemp(ctx, fn.Prefix, i, fn.Shards, fn.Suffix); err != nil {
				return err
			}
			if fn.Avro {
				c, err := fn.Type.compile()
				if err != nil {
					w.Close()
					return err
				}
				err = c.writeContainer(w, ocf.Codec(fn.Codec), func(func(Block) error) error { return nil })
				if err != nil {
					w.Close()
					return err
				}
			}
			if err := w.Close(); err != nil {
				return fmt.Errorf("protoavrobeam: close %s: %w", tmp, err)
			}
		}
		if err := rename(ctx, fs, tmp, final); err != nil {
			// A retried finalization finds the shards it already renamed.
			if !exists(ctx, fs, final) || exists(ctx, fs, tmp) {
				return err
			}
		}
		emit(final)
	}
	// Every other temporary file of this output is from an attempt that was
	// not committed.
	_, err = removeTemps(ctx, fs, fn.Prefix, fn.Shards, fn.Suffix)
	return err
}

// shardOf returns the shard index of a temporary file name.
func (fn *finalizeFn) shardOf(name string) (int, bool) {
	return tempShard(fn.Prefix, fn.Shards, fn.Suffix, name)
}

// errNoRemove reports a filesystem that cannot remove files.
var errNoRemove = errors.New("filesystem cannot remove files")

func rename(ctx context.Context, fs filesystem.Interface, from, to string) error {
	if r, ok := fs.(filesystem.Renamer); ok {
		if err := r.Rename(ctx, from, to); err != nil {
			return fmt.Errorf("protoavrobeam: rename %s to %s: %w", from, to, err)
		}
		return nil
	}
	if c, ok := fs.(filesystem.Copier); ok {
		if err := c.Copy(ctx, from, to); err != nil {
			return fmt.Errorf("protoavrobeam: copy %s to %s: %w", from, to, err)
		}
	} else if err := copyFile(ctx, fs, from, to); err != nil {
		return err
	}
	return remove(ctx, fs, from)
}

func copyFile(ctx context.Context, fs filesystem.Interface, from, to string) error {
	r, err := fs.OpenRead(ctx, from)
	if err != nil {
		return fmt.Errorf("protoavrobeam: copy %s: %w", from, err)
	}
	defer r.Close()
	w, err := fs.OpenWrite(ctx, to)
	if err != nil {
		return fmt.Errorf("protoavrobeam: copy to %s: %w", to, err)
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return fmt.Errorf("protoavrobeam: copy %s to %s: %w", from, to, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("protoavrobeam: copy %s to %s: %w", from, to, err)
	}
	return nil
}

func remove(ctx context.Context, fs filesystem.Interface, name string) error {
	r, ok := fs.(filesystem.Remover)
	if !ok {
		return fmt.Errorf("protoavrobeam: remove %s: %w", name, errNoRemove)
	}
	if err := r.Remove(ctx, name); err != nil {
		return fmt.Errorf("protoavrobeam: remove %s: %w", name, err)
	}
	return nil
}

// exists reports whether the file name exists. It asks for its size, not
// for a listing: a name may hold glob metacharacters.
func exists(ctx context.Context, fs filesystem.Interface, name string) bool {
	_, err := fs.Size(ctx, name)
	return err == nil
}

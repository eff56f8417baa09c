package protoavrobeam

import (
	"bufio"
	"cmp"
	"container/heap"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protoavro/protoavro/beam/internal/ranges"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*tempFile)(nil)).Elem())
	register.DoFn3x1[context.Context, Records, func(tempFile), error](&writeAvroFn{})
	register.DoFn3x1[context.Context, []byte, func(tempFile), error](&writeDelimitedFn{})
	register.Emitter1[tempFile]()
	register.DoFn4x1[context.Context, []byte, func(*tempFile) bool, func(string), error](&finalizeFn{})
	register.Iter1[tempFile]()
	register.Emitter1[string]()
}

// ShardName is the name of shard i of n under prefix:
// prefix-SSSSS-of-NNNNN followed by suffix, each number of five digits
// for n up to MaxShards.
func ShardName(prefix string, i, n int, suffix string) string {
	return fmt.Sprintf("%s-%05d-of-%05d%s", prefix, i, n, suffix)
}

// MaxShards is the largest number of shards of an output: the five digits
// of ShardName. An output's shards are found again by that form
// (SnapshotOutput, and a finalization's removal of the shards of an
// earlier run with another count), so no count needs more.
const MaxShards = 99_999

// ErrShards reports a WriteOptions.Shards over MaxShards.
var ErrShards = errors.New("protoavrobeam: too many shards")

// checkShards returns the error of a WriteOptions.Shards of n.
func checkShards(n int) error {
	if n > MaxShards {
		return fmt.Errorf("%w: WriteOptions.Shards %d, at most %d (MaxShards: shard names have five digits)", ErrShards, n, MaxShards)
	}
	return nil
}

// tempMarker separates an output's prefix and suffix from the random id
// in the name of a temporary file: prefix + suffix + tempMarker + 16 hex
// digits.
const tempMarker = ".tmp-"

// WriteOptions configure WriteAvro and WriteDelimited.
type WriteOptions struct {
	// Shards is the number of output files. 0, the default, lets the
	// runner decide: one file per bundle of the writing stage, as many as
	// the runner made (merged into MaxShards files if the runner made more).
	// With n > 0, exactly n files are written, empty ones included; the
	// files of the bundles are then merged into n at finalization (a copy
	// of their blocks, not a conversion). At most MaxShards: a larger n
	// fails the write (Convert returns ErrShards; WriteAvro and
	// WriteDelimited fail the pipeline with it before they write a record).
	Shards int
	// Compression is the block codec of container files; empty means null.
	Compression protoavro.Compression
}

// tempFile is what a bundle of a write reports to the finalizing step: the
// temporary file it wrote and the number of records in it.
type tempFile struct {
	Name    string `json:"name"`
	Records int64  `json:"records"`
}

// WriteAvro converts a PCollection of Records of type t to Avro and writes
// them to container files named ShardName(prefix, i, n, ".avro"), each with
// the header protoavro.NewContainerWriter writes (the schema, the message
// type, its descriptors and the mapping options), so that each is complete
// and self-describing. The blocks are built by protoavro's ContainerWriter,
// with its workers (GOMAXPROCS goroutines converting and compressing
// within a bundle) and its block rules (at most 65,536 records, and the
// zero-size items readers accept, per block). A record that does not
// convert fails the bundle with an error naming its source, index, input
// byte offset and field.
//
// Each bundle writes its records straight into a temporary file of its own
// (prefix + ".avro.tmp-" + a random id): no data crosses a shuffle, only
// the names of the files a bundle committed do, to a single finalizing
// step. It renames each committed file to its shard name once it knows
// their number n (opts.Shards 0), or merges them into opts.Shards files,
// and removes every other temporary file of the output (those of failed
// or retried bundles, of this run or of an earlier one). A retried bundle
// thus leaves no duplicate and no partial shard. A bundle that started in
// this process and did not finish (a failed bundle that an in-process
// runner such as prism drops while the pipeline drains) makes the
// finalization fail before it renames anything. Once every shard is in
// place, the finalization removes the final shards of an earlier run of
// the output with another count (ShardName(prefix, i, m, ".avro") with m
// other than this run's n), which a glob of the output would otherwise
// read with this run's, and logs their names; no other file is touched.
// The result is the PCollection of the final file names.
func WriteAvro(s beam.Scope, t Type, prefix string, opts WriteOptions, records beam.PCollection) beam.PCollection {
	s = s.Scope("protoavrobeam.WriteAvro")
	codec := opts.Compression
	if codec == "" {
		codec = protoavro.CompressionNull
	}
	run, bad := randomID(), prefixError(prefix)
	temps := beam.ParDo(s, &writeAvroFn{typed: typed{Type: t}, Prefix: prefix, BadPath: bad, Codec: string(codec), Run: run, Shards: opts.Shards}, records)
	return finalize(s, &finalizeFn{Type: t, Prefix: prefix, BadPath: bad, Shards: max(opts.Shards, 0), Suffix: ".avro", Codec: string(codec), Avro: true, Run: run}, temps)
}

// WriteDelimited writes a PCollection of protobuf wire records ([]byte) to
// length-delimited files named ShardName(prefix, i, n, ".delimited"), with
// the temporary files per bundle and the single finalizing step of
// WriteAvro (files merged by concatenation when opts.Shards is set; the
// shards of an earlier run with another count removed). The result is the
// PCollection of the final file names.
func WriteDelimited(s beam.Scope, prefix string, opts WriteOptions, records beam.PCollection) beam.PCollection {
	s = s.Scope("protoavrobeam.WriteDelimited")
	run, bad := randomID(), prefixError(prefix)
	temps := beam.ParDo(s, &writeDelimitedFn{Prefix: prefix, BadPath: bad, Run: run, Shards: opts.Shards}, records)
	return finalize(s, &finalizeFn{Prefix: prefix, BadPath: bad, Shards: max(opts.Shards, 0), Suffix: ".delimited", Run: run}, temps)
}

// finalize adds the finalizing step: one call, on an impulse, with the
// committed temporary files as a side input.
func finalize(s beam.Scope, fn *finalizeFn, temps beam.PCollection) beam.PCollection {
	return beam.ParDo(s, fn, beam.Impulse(s), beam.SideInput{Input: temps})
}

func randomID() string {
	var id [8]byte
	_, _ = crand.Read(id[:])
	return hex.EncodeToString(id[:])
}

// bundles counts, per write (its random run id), the bundles of the
// writing DoFns that started and finished in this process, so that the
// finalization, when it runs in the same process, can tell that a bundle
// failed.
var bundles struct {
	mu      sync.Mutex
	started map[string]int
	ended   map[string]int
}

func bundleStarted(run string) {
	bundles.mu.Lock()
	defer bundles.mu.Unlock()
	if bundles.started == nil {
		bundles.started, bundles.ended = map[string]int{}, map[string]int{}
	}
	bundles.started[run]++
}

func bundleEnded(run string) {
	bundles.mu.Lock()
	defer bundles.mu.Unlock()
	bundles.ended[run]++
}

// unfinishedBundles returns how many bundles of the write run started in
// this process and did not finish.
func unfinishedBundles(run string) int {
	bundles.mu.Lock()
	defer bundles.mu.Unlock()
	return bundles.started[run] - bundles.ended[run]
}

// testHookShardWritten, when set (by tests, in loopback mode), is called
// after a bundle's temporary file has received its first element; an error
// fails the bundle there, leaving a partial temporary file behind.
var testHookShardWritten func(temp string) error

// tempName returns a fresh temporary name of the output (prefix, suffix).
func tempName(prefix, suffix string) string {
	return prefix + suffix + tempMarker + randomID()
}

// createTemp opens a new temporary file of the output.
func createTemp(ctx context.Context, prefix, suffix string) (string, io.WriteCloser, error) {
	name := tempName(prefix, suffix)
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

// bundleFile is the temporary file a bundle writes.
type bundleFile struct {
	name    string
	f       io.WriteCloser
	bw      *bufio.Writer
	records int64 // records written
	first   bool  // no element written yet
}

func openBundleFile(ctx context.Context, prefix, suffix string) (*bundleFile, error) {
	name, f, err := createTemp(ctx, prefix, suffix)
	if err != nil {
		return nil, err
	}
	return &bundleFile{name: name, f: f, bw: bufio.NewWriterSize(f, 1<<20), first: true}, nil
}

// written runs the test hook after the first element.
func (b *bundleFile) written() error {
	if b.first && testHookShardWritten != nil {
		b.first = false
		return testHookShardWritten(b.name)
	}
	b.first = false
	return nil
}

// close flushes and closes the file; err is the error of the writes so far.
func (b *bundleFile) close(err error) error {
	if err == nil {
		err = b.bw.Flush()
	}
	if cerr := b.f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		if errors.As(err, new(*badRecordError)) {
			return err // it names the record's input, not the shard
		}
		return fmt.Errorf("protoavrobeam: %s: %w", b.name, err)
	}
	return nil
}

// finishBundle ends a bundle of the write run to prefix, whose temporary
// file is f (nil if the bundle wrote nothing): detach lets go of f, after
// closing what writes into it and setting its records, and returns the
// error of that close; f is then closed and reported to the finalizing
// step by emit. abort closes what the bundle holds open when the write may
// not go on.
func finishBundle(run, prefix string, f *bundleFile, abort func(), emit func(tempFile), detach func() error) error {
	if f == nil {
		bundleEnded(run)
		return nil
	}
	if err := startWrite(); err != nil {
		abort()
		return fmt.Errorf("protoavrobeam: write %s: %w", prefix, err)
	}
	defer endWrite()
	if err := f.close(detach()); err != nil {
		return err
	}
	emit(tempFile{Name: f.name, Records: f.records})
	bundleEnded(run)
	return nil
}

// span is the part of a bundle's records that came from one Records, for
// the errors of the ContainerWriter, which count records in the bundle.
type span struct {
	start int64 // index of the first record in the bundle's stream
	r     Records
}

type writeAvroFn struct {
	typed
	Prefix string `json:"prefix"`
	// BadPath, when set, is the error of Prefix (prefixError).
	BadPath badPath `json:"bad_path"`
	Codec   string  `json:"codec"`
	Run     string  `json:"run"`
	Shards  int     `json:"shards"` // WriteOptions.Shards, checked in Setup
	file    *bundleFile
	cw      *protoavro.ContainerWriter
	spans   []span
	next    int64 // records given to cw
}

// Setup refuses a shard count over MaxShards and a prefix that checkPath
// refuses, before anything is written, and compiles the Type, logging its warning (once in this process): that
// the shards do not embed the files of its AnyTypes, which would make
// their header too large for readers.
func (fn *writeAvroFn) Setup(ctx context.Context) error {
	if err := checkShards(fn.Shards); err != nil {
		return err
	}
	if err := fn.BadPath.err(); err != nil {
		return err
	}
	if err := fn.typed.Setup(); err != nil {
		return err
	}
	fn.c.warn(ctx)
	return nil
}

func (fn *writeAvroFn) StartBundle(context.Context, func(tempFile)) {
	bundleStarted(fn.Run)
}

func (fn *writeAvroFn) ProcessElement(ctx context.Context, r Records, _ func(tempFile)) error {
	if err := startWrite(); err != nil {
		return fmt.Errorf("protoavrobeam: write %s: %w", fn.Prefix, err)
	}
	defer endWrite()
	if err := fn.write(ctx, r); err != nil {
		fn.abort()
		return err
	}
	return nil
}

func (fn *writeAvroFn) write(ctx context.Context, r Records) error {
	if err := checkWrite(ctx); err != nil {
		return err
	}
	if fn.file == nil {
		f, err := openBundleFile(ctx, fn.Prefix, ".avro")
		if err != nil {
			return err
		}
		fn.file = f
		opts := fn.c.containerOptions()
		opts.Compression, opts.OnBadRecord = ocf.Codec(fn.Codec), fn.badRecord
		fn.cw, err = protoavro.NewContainerWriter(f.bw, fn.c.md, opts)
		if err != nil {
			return err
		}
		fn.spans, fn.next = fn.spans[:0], 0
	}
	// The spans of records already written are not needed for errors.
	written := fn.cw.Records()
	k := sort.Search(len(fn.spans), func(i int) bool { return fn.spans[i].start+fn.spans[i].r.Count > written })
	fn.spans = append(fn.spans[:0], fn.spans[k:]...)
	fn.spans = append(fn.spans, span{start: fn.next, r: r})
	b := r.batch()
	err := b.Each(r.Source, func(index int64, wire []byte) error {
		off := int64(-1)
		if k := index - r.Index; k >= 0 && k < int64(len(r.Offsets)) {
			off = r.Offsets[k]
		}
		fn.next++
		return fn.cw.WriteWireAt(wire, off)
	})
	if err != nil {
		if errors.As(err, new(*badRecordError)) {
			return err // it names the record's source, index and offset
		}
		return fmt.Errorf("protoavrobeam: temporary shard %s: %w", fn.file.name, err)
	}
	return fn.file.written()
}

// badRecordError is the error of a record that cannot be converted, which
// names the record's input, not the shard being written.
type badRecordError struct{ err error }

func (e *badRecordError) Error() string { return e.err.Error() }
func (e *badRecordError) Unwrap() error { return e.err }

// badRecord turns the ContainerWriter's error for a record into one that
// names its source, index and input offset.
func (fn *writeAvroFn) badRecord(e *protoavro.RecordError) error {
	k := sort.Search(len(fn.spans), func(i int) bool { return fn.spans[i].start > e.Index }) - 1
	if k < 0 {
		return e
	}
	sp := fn.spans[k]
	index := sp.r.Index + e.Index - sp.start
	return &badRecordError{withAnyHint(fmt.Errorf("protoavrobeam: %s: %w", ranges.Name(sp.r.Source), sp.r.batch().RecordError(index, e.Err)))}
}

// abort closes the bundle's file after a failure; the finalization of the
// output removes it.
func (fn *writeAvroFn) abort() {
	if fn.cw != nil {
		_ = fn.cw.Close()
	}
	if fn.file != nil {
		_ = fn.file.f.Close()
	}
	fn.cw, fn.file = nil, nil
}

func (fn *writeAvroFn) FinishBundle(ctx context.Context, emit func(tempFile)) error {
	return finishBundle(fn.Run, fn.Prefix, fn.file, fn.abort, emit, func() error {
		err := fn.cw.Close()
		fn.file.records = fn.cw.Records()
		fn.cw, fn.file = nil, nil
		return err
	})
}

// Teardown closes the file of a bundle that failed.
func (fn *writeAvroFn) Teardown() { fn.abort() }

type writeDelimitedFn struct {
	Prefix  string  `json:"prefix"`
	BadPath badPath `json:"bad_path"` // the error of Prefix, if any (prefixError)
	Run     string  `json:"run"`
	Shards  int     `json:"shards"` // WriteOptions.Shards, checked in Setup
	file    *bundleFile
	pre     []byte
}

// Setup refuses a shard count over MaxShards and a prefix that checkPath
// refuses, before anything is written.
func (fn *writeDelimitedFn) Setup() error {
	if err := checkShards(fn.Shards); err != nil {
		return err
	}
	return fn.BadPath.err()
}

func (fn *writeDelimitedFn) StartBundle(context.Context, func(tempFile)) {
	bundleStarted(fn.Run)
}

func (fn *writeDelimitedFn) ProcessElement(ctx context.Context, rec []byte, _ func(tempFile)) error {
	if fn.file == nil || fn.file.records%1024 == 0 {
		if err := checkWrite(ctx); err != nil {
			fn.abort()
			return fmt.Errorf("protoavrobeam: write %s: %w", fn.Prefix, err)
		}
	}
	if err := startWrite(); err != nil {
		fn.abort()
		return fmt.Errorf("protoavrobeam: write %s: %w", fn.Prefix, err)
	}
	defer endWrite()
	if fn.file == nil {
		f, err := openBundleFile(ctx, fn.Prefix, ".delimited")
		if err != nil {
			return err
		}
		fn.file = f
	}
	fn.pre = protowire.AppendVarint(fn.pre[:0], uint64(len(rec)))
	_, err := fn.file.bw.Write(fn.pre)
	if err == nil {
		_, err = fn.file.bw.Write(rec)
	}
	if err == nil {
		fn.file.records++
		err = fn.file.written()
	}
	if err != nil {
		name := fn.file.name
		fn.abort()
		return fmt.Errorf("protoavrobeam: %s: %w", name, err)
	}
	return nil
}

func (fn *writeDelimitedFn) abort() {
	if fn.file != nil {
		_ = fn.file.f.Close()
	}
	fn.file = nil
}

func (fn *writeDelimitedFn) FinishBundle(ctx context.Context, emit func(tempFile)) error {
	return finishBundle(fn.Run, fn.Prefix, fn.file, fn.abort, emit, func() error {
		fn.file = nil
		return nil
	})
}

// Teardown closes the file of a bundle that failed.
func (fn *writeDelimitedFn) Teardown() { fn.abort() }

// finalizeFn runs once, after every bundle of the write: it renames the
// committed temporary files to their shard names (or merges them into a
// fixed number of shards), writes the shards that received nothing, and
// removes the other temporary files of the output.
type finalizeFn struct {
	Type    Type    `json:"type"`
	Prefix  string  `json:"prefix"`
	BadPath badPath `json:"bad_path"` // the error of Prefix, if any (prefixError)
	Shards  int     `json:"shards"`   // 0: one shard per committed file
	Suffix  string  `json:"suffix"`
	Codec   string  `json:"codec"`
	Avro    bool    `json:"avro"`
	Run     string  `json:"run"`
}

func (fn *finalizeFn) ProcessElement(ctx context.Context, _ []byte, temps func(*tempFile) bool, emit func(string)) error {
	if err := startWrite(); err != nil {
		return fmt.Errorf("protoavrobeam: finalize %s: %w", fn.Prefix, err)
	}
	defer endWrite()
	if err := checkShards(fn.Shards); err != nil {
		return err
	}
	if err := fn.BadPath.err(); err != nil {
		return err
	}
	var committed []tempFile
	seen := map[string]bool{}
	var tf tempFile
	for temps(&tf) {
		if !isTemp(fn.Prefix, fn.Suffix, tf.Name) {
			return fmt.Errorf("protoavrobeam: finalize: %s is not a temporary file of %s", tf.Name, fn.Prefix)
		}
		if seen[tf.Name] {
			return fmt.Errorf("protoavrobeam: finalize: %s committed twice", tf.Name)
		}
		seen[tf.Name] = true
		committed = append(committed, tf)
	}
	// Nothing is renamed when a bundle of the write failed in this
	// process: its records are in no committed file.
	if n := unfinishedBundles(fn.Run); n > 0 {
		return fmt.Errorf("protoavrobeam: finalize: %s: %d bundles of the write started and did not finish (a failed bundle the runner did not retry)", fn.Prefix, n)
	}
	groups := assignShards(committed, shardsFor(fn.Shards, len(committed)))
	fs, err := filesystem.New(ctx, fn.Prefix)
	if err != nil {
		return fmt.Errorf("protoavrobeam: %w", err)
	}
	defer fs.Close()
	for i, group := range groups {
		if err := checkWrite(ctx); err != nil {
			return fmt.Errorf("protoavrobeam: finalize %s before shard %d: %w", fn.Prefix, i, err)
		}
		final := ShardName(fn.Prefix, i, len(groups), fn.Suffix)
		var tmp string
		if len(group) == 1 {
			tmp = group[0].Name // renamed as it is
		} else if tmp, err = fn.merge(ctx, fs, group); err != nil {
			return err
		}
		if err := rename(ctx, fs, tmp, final); err != nil {
			// A retried finalization finds the shards it already renamed.
			if !exists(ctx, fs, final) || exists(ctx, fs, tmp) {
				return err
			}
		}
		emit(final)
	}
	// Every other temporary file of this output is from a bundle that was
	// not committed.
	if _, err = removeTemps(ctx, fs, fn.Prefix, fn.Suffix); err != nil {
		return err
	}
	// The shards of an earlier run with another count are not part of
	// this output.
	removed, err := removeOtherCounts(ctx, fs, fn.Prefix, fn.Suffix, len(groups))
	if len(removed) > 0 {
		log.Infof(ctx, "protoavrobeam: %s", removedText(fn.Prefix, removed))
	}
	return err
}

// removedText describes the shards of an earlier run of the output prefix
// that a finalization removed, for the log.
func removedText(prefix string, removed []string) string {
	names := make([]string, 0, min(len(removed), 10)+1)
	for _, name := range removed[:min(len(removed), 10)] {
		names = append(names, ranges.Name(name))
	}
	if len(removed) > 10 {
		names = append(names, fmt.Sprintf("… (%d more)", len(removed)-10))
	}
	return fmt.Sprintf("removed %d shards of an earlier run of %s with another shard count: %s",
		len(removed), ranges.Name(prefix), strings.Join(names, ", "))
}

// shardsFor returns the number of shards to give to assignShards for
// WriteOptions.Shards and the number of committed files: shards, except
// that with shards 0 more than MaxShards files are merged into MaxShards.
func shardsFor(shards, committed int) int {
	if shards == 0 && committed > MaxShards {
		return MaxShards
	}
	return shards
}

// assignShards groups the committed files into the shards: one shard per
// file (at least one shard) when shards is 0, else shards groups, each
// file to the group with the fewest records so far (then the fewest files,
// then the lowest index), largest first.
func assignShards(files []tempFile, shards int) [][]tempFile {
	slices.SortFunc(files, func(a, b tempFile) int {
		return cmp.Or(cmp.Compare(b.Records, a.Records), strings.Compare(a.Name, b.Name))
	})
	if shards <= 0 {
		groups := make([][]tempFile, max(len(files), 1))
		for i, f := range files {
			groups[i] = []tempFile{f}
		}
		return groups
	}
	groups := make([][]tempFile, shards)
	h := &shardHeap{load: make([]int64, shards), groups: groups}
	for i := range shards {
		h.order = append(h.order, i)
	}
	heap.Init(h)
	for _, f := range files {
		k := h.order[0]
		groups[k] = append(groups[k], f)
		h.load[k] += f.Records
		heap.Fix(h, 0)
	}
	return groups
}

// shardHeap orders the shards of assignShards, the next to fill first.
type shardHeap struct {
	order  []int // shard indexes, a heap
	load   []int64
	groups [][]tempFile
}

func (h *shardHeap) Len() int { return len(h.order) }
func (h *shardHeap) Less(a, b int) bool {
	i, j := h.order[a], h.order[b]
	return cmp.Or(cmp.Compare(h.load[i], h.load[j]), cmp.Compare(len(h.groups[i]), len(h.groups[j])), cmp.Compare(i, j)) < 0
}
func (h *shardHeap) Swap(a, b int) { h.order[a], h.order[b] = h.order[b], h.order[a] }
func (h *shardHeap) Push(x any)    { h.order = append(h.order, x.(int)) }
func (h *shardHeap) Pop() any {
	x := h.order[len(h.order)-1]
	h.order = h.order[:len(h.order)-1]
	return x
}

// merge writes the files of group, in order, into a new temporary file
// and returns its name: for container files a copy of their blocks under
// one header, for delimited files their concatenation. An empty group
// gives an empty shard (a header-only container file).
func (fn *finalizeFn) merge(ctx context.Context, fs filesystem.Interface, group []tempFile) (string, error) {
	name, w, err := createTemp(ctx, fn.Prefix, fn.Suffix)
	if err != nil {
		return "", err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	err = fn.mergeInto(ctx, fs, bw, group)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := w.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("protoavrobeam: finalize: write %s: %w", name, err)
	}
	return name, nil
}

func (fn *finalizeFn) mergeInto(ctx context.Context, fs filesystem.Interface, w io.Writer, group []tempFile) error {
	if !fn.Avro {
		for _, f := range group {
			if err := copyFrom(ctx, fs, f.Name, w); err != nil {
				return err
			}
		}
		return nil
	}
	c, err := fn.Type.compile()
	if err != nil {
		return err
	}
	c.warn(ctx)
	ow, err := ocf.NewWriter(w, ocf.WriterOptions{Schema: c.schema, Codec: ocf.Codec(fn.Codec), Metadata: c.meta})
	if err != nil {
		return err
	}
	for _, f := range group {
		if err := copyBlocks(ctx, fs, f.Name, ocf.Codec(fn.Codec), ow); err != nil {
			return err
		}
	}
	return ow.Close()
}

// copyBlocks writes the blocks of the container file name, compressed
// with codec, to ow as they are stored.
func copyBlocks(ctx context.Context, fs filesystem.Interface, name string, codec ocf.Codec, ow *ocf.Writer) error {
	r, err := fs.OpenRead(ctx, name)
	if err != nil {
		return fmt.Errorf("open %s: %w", name, err)
	}
	defer r.Close()
	or, err := ocf.NewReader(bufio.NewReaderSize(r, 1<<20), ocf.ReaderOptions{})
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	if got := or.Header().Codec; got != codec {
		return fmt.Errorf("read %s: codec %s, want %s", name, got, codec)
	}
	for {
		b, err := or.NextRaw()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		if err := ow.WriteRawBlock(b.Count, b.Data); err != nil {
			return err
		}
	}
}

// copyFrom copies the file name to w.
func copyFrom(ctx context.Context, fs filesystem.Interface, name string, w io.Writer) error {
	r, err := fs.OpenRead(ctx, name)
	if err != nil {
		return fmt.Errorf("open %s: %w", name, err)
	}
	defer r.Close()
	if _, err := io.Copy(w, r); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	return nil
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
	w, err := fs.OpenWrite(ctx, to)
	if err != nil {
		return fmt.Errorf("protoavrobeam: copy to %s: %w", to, err)
	}
	if err := copyFrom(ctx, fs, from, w); err != nil {
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

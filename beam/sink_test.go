package protoavrobeam

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protoavro/protoavro/beam/internal/beamtest"
	"github.com/protoavro/protoavro/protoavro"
)

func iterOf[T any](xs ...T) func(*T) bool {
	return func(p *T) bool {
		if len(xs) == 0 {
			return false
		}
		*p, xs = xs[0], xs[1:]
		return true
	}
}

// A runner that drops a failed bundle and drains the pipeline (prism does)
// runs the finalizing step without that bundle's file: when the bundle ran
// in the finalizing process, the finalization fails and renames nothing,
// rather than publish an output without the bundle's records.
func TestFinalizeRefusesUnfinishedBundle(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "out")
	run := randomID()
	fn := &finalizeFn{Prefix: prefix, Shards: 3, Suffix: ".delimited", Run: run}
	committed := tempName(prefix, ".delimited")
	if err := os.WriteFile(committed, []byte{1, 7}, 0o644); err != nil {
		t.Fatal(err)
	}
	bundleStarted(run)
	bundleStarted(run) // fails: never ends
	bundleEnded(run)
	var emitted []string
	err := fn.ProcessElement(context.Background(), nil, iterOf(tempFile{committed, 1}), func(s string) { emitted = append(emitted, s) })
	if err == nil || !strings.Contains(err.Error(), "1 bundles of the write started and did not finish") {
		t.Fatalf("err = %v, want the unfinished bundle reported", err)
	}
	if len(emitted) != 0 {
		t.Errorf("emitted %v", emitted)
	}
	if got := dirFiles(t, dir); len(got) != 1 || filepath.Join(dir, got[0]) != committed {
		t.Errorf("files after the refused finalization: %v, want only %s", got, committed)
	}

	// Once every bundle has ended, the same input finalizes into 3 shards:
	// the committed file renamed, two written empty.
	bundleEnded(run)
	err = fn.ProcessElement(context.Background(), nil, iterOf(tempFile{committed, 1}), func(s string) { emitted = append(emitted, s) })
	if err != nil {
		t.Fatal(err)
	}
	if got := outputFiles(t, dir, "out", 3, ".delimited"); !slices.Equal(got, emitted) {
		t.Fatalf("emitted %v, want %v", emitted, got)
	}
	var sizes []int
	for _, name := range emitted {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(b))
	}
	if slices.Sort(sizes); !slices.Equal(sizes, []int{0, 0, 2}) {
		t.Errorf("shard sizes %v, want one of 2 bytes and two empty", sizes)
	}
	// A name that is not a temporary file of the output is refused.
	err = fn.ProcessElement(context.Background(), nil, iterOf(tempFile{filepath.Join(dir, "elsewhere"), 1}), func(string) { t.Error("emitted a shard") })
	if err == nil || !strings.Contains(err.Error(), "is not a temporary file of") {
		t.Errorf("err = %v, want a foreign name refused", err)
	}
}

// An output prefix is a name, not a pattern: under a directory whose name
// holds glob metacharacters, finalization removes its own stray temporary
// file and not that of another output the pattern would match.
func TestFinalizePrefixWithMetacharacters(t *testing.T) {
	root := t.TempDir()
	dir, twin := filepath.Join(root, "run[1]"), filepath.Join(root, "run1")
	for _, d := range []string{dir, twin} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	prefix := filepath.Join(dir, "out")
	stray := tempName(prefix, ".delimited")
	other := tempName(filepath.Join(twin, "out"), ".delimited")
	for _, f := range []string{stray, other} {
		if err := os.WriteFile(f, []byte{1, 7}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fn := &finalizeFn{Prefix: prefix, Suffix: ".delimited"}
	if err := fn.ProcessElement(context.Background(), nil, iterOf[tempFile](), func(string) {}); err != nil {
		t.Fatal(err)
	}
	if got := dirFiles(t, dir); len(got) != 1 || got[0] != "out-00000-of-00001.delimited" {
		t.Errorf("%s holds %q, want only the final shard", dir, got)
	}
	if got := dirFiles(t, twin); len(got) != 1 || filepath.Join(twin, got[0]) != other {
		t.Errorf("%s holds %q, want the other output's file kept", twin, got)
	}
}

// writeBundles runs the Avro write's DoFn over the batches, one bundle per
// batch, and returns the files the bundles committed.
func writeBundles(t *testing.T, fn *writeAvroFn, batches ...Records) []tempFile {
	t.Helper()
	if err := fn.Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer fn.Teardown()
	var temps []tempFile
	for _, r := range batches {
		fn.StartBundle(context.Background(), nil)
		if err := fn.ProcessElement(context.Background(), r, nil); err != nil {
			t.Fatal(err)
		}
		if err := fn.FinishBundle(context.Background(), func(f tempFile) { temps = append(temps, f) }); err != nil {
			t.Fatal(err)
		}
	}
	return temps
}

// delimitedRecords returns recs as one Records of source.
func delimitedRecords(source string, recs [][]byte) Records {
	r := Records{Source: source, Count: int64(len(recs))}
	for _, rec := range recs {
		r.Offsets = append(r.Offsets, int64(len(r.Data)))
		r.Data = protowire.AppendBytes(r.Data, rec)
	}
	return r
}

// The bundles' files, merged into fewer shards than there are files, and
// renamed one per shard without fixed sharding, hold every record once.
func TestFinalizeMergesAndRenames(t *testing.T) {
	recs := sampleRecords(t)
	for _, shards := range []int{0, 1, 2, 5} {
		dir := t.TempDir()
		prefix := filepath.Join(dir, "foo")
		fn := &writeAvroFn{typed: typed{Type: fooType(t)}, Prefix: prefix, Codec: string(protoavro.CompressionSnappy), Run: randomID()}
		temps := writeBundles(t, fn, delimitedRecords("a", recs[:300]), delimitedRecords("b", recs[300:700]), delimitedRecords("c", recs[700:]))
		fin := &finalizeFn{Type: fn.Type, Prefix: prefix, Shards: shards, Suffix: ".avro", Codec: fn.Codec, Avro: true, Run: fn.Run}
		var emitted []string
		if err := fin.ProcessElement(context.Background(), nil, iterOf(temps...), func(s string) { emitted = append(emitted, s) }); err != nil {
			t.Fatal(err)
		}
		n := shards
		if n == 0 {
			n = 3
		}
		if got := outputFiles(t, dir, "foo", n, ".avro"); !slices.Equal(got, emitted) {
			t.Fatalf("shards %d: emitted %v, want %v", shards, emitted, got)
		}
		sameMultiset(t, readShards(t, emitted), recs)
	}
}

// More than 65,536 records that take no bytes in Avro (google.protobuf.Empty)
// go into blocks of at most 65,536 records, which protoavro's reader reads.
func TestWriteAvroEmptyRecordsBlockCap(t *testing.T) {
	const n = 200_000
	ty, err := TypeOf((&emptypb.Empty{}).ProtoReflect().Descriptor(), protoavro.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "empty")
	fn := &writeAvroFn{typed: typed{Type: ty}, Prefix: prefix, Codec: string(protoavro.CompressionNull), Run: randomID()}
	temps := writeBundles(t, fn, delimitedRecords("empty.delimited", make([][]byte, n)))
	if len(temps) != 1 || temps[0].Records != n {
		t.Fatalf("committed %v, want one file of %d records", temps, n)
	}
	checkEmptyShard(t, temps[0].Name, n)
}

// checkEmptyShard reads the container file name of google.protobuf.Empty
// records with protoavro's reader and fails t unless it holds n records in
// blocks of at most 65,536.
func checkEmptyShard(t *testing.T, name string, n int64) {
	t.Helper()
	inBlock := map[int64]int64{} // records by block number
	cr := beamtest.Each(t, name, func(cr *protoavro.ContainerReader, _ proto.Message) { inBlock[cr.Blocks()]++ })
	if got := cr.Records(); got != n {
		t.Errorf("read %d records, want %d", got, n)
	}
	for b, count := range inBlock {
		if count > 65536 {
			t.Errorf("block %d holds %d records, more than 65,536", b, count)
		}
	}
	if min := (n + 65535) / 65536; cr.Blocks() < min {
		t.Errorf("%d blocks, want at least %d", cr.Blocks(), min)
	}
}

// A record that does not convert fails the bundle with an error that names
// its input (quoted: a file name is untrusted text), index and offset, and
// not the temporary shard, also when the error surfaces as the bundle
// finishes.
func TestBadRecordErrorNamesInput(t *testing.T) {
	recs := sampleRecords(t)
	dir := t.TempDir()
	fn := &writeAvroFn{typed: typed{Type: fooType(t)}, Prefix: filepath.Join(dir, "foo"), Codec: string(protoavro.CompressionNull), Run: randomID()}
	if err := fn.Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer fn.Teardown()
	batch := append(slices.Clone(recs[:10]), []byte{0xff, 0xff}) // not a message
	r := delimitedRecords("in\xff\nX\x1b[2J.delimited", batch)
	ctx := context.Background()
	fn.StartBundle(ctx, nil)
	if err := fn.ProcessElement(ctx, r, nil); err != nil {
		t.Fatalf("the error surfaced in ProcessElement, not as the bundle finishes: %v", err)
	}
	err := fn.FinishBundle(ctx, func(tempFile) { t.Error("a failed bundle committed its file") })
	want := `protoavrobeam: "in\xff\nX\x1b[2J.delimited": record 10 (input byte ` + strconv.FormatInt(r.Offsets[10], 10) + "): "
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.ContainsAny(err.Error(), "\n\x1b") ||
		!utf8.ValidString(err.Error()) || strings.Contains(err.Error(), tempMarker) {
		t.Errorf("err = %q, want one line of valid UTF-8 starting %q, without the temporary file", err, want)
	}
}

// The shards of an earlier run of the output with another count are
// removed once the run's shards are in place, and only they: files that
// merely look like shards, and other outputs' shards, are kept.
func TestFinalizeRemovesOtherCounts(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "out")
	earlier := []string{"out-00000-of-00003.delimited", "out-00001-of-00003.delimited", "out-00002-of-00003.delimited", "out-00000-of-00001.delimited"}
	kept := []string{
		"out-00000-of-00002.delimited.bak", "out-0000-of-00003.delimited", "out-00000-of-000003.delimited",
		"outx-00000-of-00003.delimited", "out-00000-of-00003.avro", "out-00000-of-00003.delimited.tmp",
	}
	for _, name := range append(slices.Clone(earlier), kept...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte{9}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed := tempName(prefix, ".delimited")
	if err := os.WriteFile(committed, []byte{1, 7}, 0o644); err != nil {
		t.Fatal(err)
	}
	fn := &finalizeFn{Prefix: prefix, Shards: 2, Suffix: ".delimited", Run: randomID()}
	if err := fn.ProcessElement(context.Background(), nil, iterOf(tempFile{committed, 1}), func(string) {}); err != nil {
		t.Fatal(err)
	}
	want := append([]string{"out-00000-of-00002.delimited", "out-00001-of-00002.delimited"}, kept...)
	slices.Sort(want)
	if got := dirFiles(t, dir); !slices.Equal(got, want) {
		t.Errorf("files after the run: %q, want %q", got, want)
	}
	var paths []string
	for _, name := range earlier {
		paths = append(paths, filepath.Join(dir, name))
	}
	if got := removedText(prefix, paths); !strings.Contains(got, "removed 4 shards") || !strings.Contains(got, `"`+filepath.Join(dir, earlier[0])+`"`) {
		t.Errorf("log text %q", got)
	}
}

// At most MaxShards shards: the five digits of their names, by which an
// output's shards are found again. A larger WriteOptions.Shards is an error
// of Convert, of the writing DoFns' Setup (before anything is written) and
// of the finalization; with Shards 0, more committed files than
// MaxShards are merged into MaxShards shards.
func TestMaxShards(t *testing.T) {
	if got := ShardName("p", MaxShards-1, MaxShards, ".avro"); got != "p-99998-of-99999.avro" {
		t.Fatalf("ShardName = %q", got)
	}
	opts := WriteOptions{Shards: MaxShards + 1}
	_, s := beam.NewPipelineWithRoot()
	if _, err := Convert(s, fooType(t), Delimited, "in", filepath.Join(t.TempDir(), "out"), opts); !errors.Is(err, ErrShards) {
		t.Errorf("Convert: %v, want ErrShards", err)
	}
	if err := (&writeAvroFn{typed: typed{Type: fooType(t)}, Shards: MaxShards + 1}).Setup(context.Background()); !errors.Is(err, ErrShards) {
		t.Errorf("writeAvroFn.Setup: %v, want ErrShards", err)
	}
	if err := (&writeDelimitedFn{Shards: MaxShards + 1}).Setup(); !errors.Is(err, ErrShards) {
		t.Errorf("writeDelimitedFn.Setup: %v, want ErrShards", err)
	}
	if err := (&writeDelimitedFn{Shards: MaxShards}).Setup(); err != nil {
		t.Errorf("writeDelimitedFn.Setup of MaxShards: %v", err)
	}
	dir := t.TempDir()
	fn := &finalizeFn{Prefix: filepath.Join(dir, "out"), Shards: MaxShards + 1, Suffix: ".delimited", Run: randomID()}
	if err := fn.ProcessElement(context.Background(), nil, iterOf[tempFile](), func(string) { t.Error("emitted a shard") }); !errors.Is(err, ErrShards) {
		t.Errorf("finalize: %v, want ErrShards", err)
	}
	if got := dirFiles(t, dir); len(got) > 0 {
		t.Errorf("the refused finalization wrote %q", got)
	}

	files := make([]tempFile, MaxShards+2)
	for i := range files {
		files[i] = tempFile{Name: fmt.Sprintf("t%06d", i), Records: 1}
	}
	groups := assignShards(files, shardsFor(0, len(files)))
	seen := map[string]bool{}
	for _, g := range groups {
		for _, f := range g {
			seen[f.Name] = true
		}
	}
	if len(groups) != MaxShards || len(seen) != len(files) {
		t.Errorf("%d files without Shards: %d shards holding %d files, want %d holding all", len(files), len(groups), len(seen), MaxShards)
	}
	if shardsFor(0, MaxShards) != 0 || shardsFor(7, MaxShards+1) != 7 {
		t.Error("shardsFor changed a count it must keep")
	}
}

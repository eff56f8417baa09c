package protoavrobeam

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/emptypb"

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
	if err := fn.Setup(); err != nil {
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
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	cr, err := protoavro.NewContainerReader(bytes.NewReader(data), protoavro.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	inBlock := map[int64]int64{} // records by block number
	for {
		if _, err := cr.ReadWire(nil); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("record %d: %v", cr.Records(), err)
		}
		inBlock[cr.Blocks()]++
	}
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

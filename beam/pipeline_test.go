package protoavrobeam

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"google.golang.org/protobuf/encoding/protowire"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/protoavro/protoavro/beam/internal/ranges"
	pb "github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro"
)

// The tests run their pipelines on prism, in process, with the SDK worker
// in loopback mode (prism's default): the worker is this test binary.
func TestMain(m *testing.M) {
	ptest.MainWithDefault(m, "prism")
}

// sampleRecords returns the records of testdata/avro2147.delimited (1,000
// protoavro.avro2147.Foo messages) as wire bytes.
func sampleRecords(t *testing.T) [][]byte {
	t.Helper()
	data, err := os.ReadFile("../testdata/avro2147.delimited")
	if err != nil {
		t.Fatal(err)
	}
	var recs [][]byte
	for len(data) > 0 {
		v, n := protowire.ConsumeBytes(data)
		if n < 0 {
			t.Fatalf("sample: %v", protowire.ParseError(n))
		}
		recs = append(recs, v)
		data = data[n:]
	}
	if len(recs) != 1000 {
		t.Fatalf("sample has %d records, want 1000", len(recs))
	}
	return recs
}

func fooType(t *testing.T) Type {
	t.Helper()
	ty, err := TypeOf((&pb.Foo{}).ProtoReflect().Descriptor(), protoavro.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// writeDelimitedFiles splits recs into n files name-0.delimited ... in dir.
func writeDelimitedFiles(t *testing.T, dir, name string, recs [][]byte, n int) {
	t.Helper()
	for i := range n {
		var buf []byte
		for _, r := range recs[i*len(recs)/n : (i+1)*len(recs)/n] {
			buf = protowire.AppendBytes(buf, r)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.delimited", name, i)), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readFiles opens each of files and returns the records read gives for it.
func readFiles(t *testing.T, files []string, read func(r *bufio.Reader, name string) ([][]byte, error)) [][]byte {
	t.Helper()
	var recs [][]byte
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := read(bufio.NewReader(fh), f)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		recs = append(recs, got...)
	}
	return recs
}

// readShards reads container files with protoavro's reader and returns
// their records as wire bytes.
func readShards(t *testing.T, files []string) [][]byte {
	t.Helper()
	return readFiles(t, files, func(r *bufio.Reader, name string) ([][]byte, error) {
		cr, err := protoavro.NewContainerReader(r, protoavro.ReaderOptions{})
		if err != nil {
			return nil, err
		}
		if got := cr.MessageType().Descriptor().FullName(); got != "protoavro.avro2147.Foo" {
			t.Errorf("%s: embedded type %s", name, got)
		}
		var recs [][]byte
		for {
			w, err := cr.ReadWire(nil)
			if err == io.EOF {
				return recs, nil
			}
			if err != nil {
				return nil, err
			}
			recs = append(recs, w)
		}
	})
}

// readDelimitedFiles reads length-delimited files.
func readDelimitedFiles(t *testing.T, files []string) [][]byte {
	t.Helper()
	return readFiles(t, files, func(r *bufio.Reader, name string) ([][]byte, error) {
		var recs [][]byte
		_, err := ranges.Delimited(r, name, 0, 0, func(int64) bool { return true }, func(b ranges.Batch) {
			if err := b.Each(name, func(_ int64, w []byte) error { recs = append(recs, w); return nil }); err != nil {
				t.Fatal(err)
			}
		})
		return recs, err
	})
}

// sameMultiset fails t unless got and want hold the same records, each as
// many times.
func sameMultiset(t *testing.T, got, want [][]byte) {
	t.Helper()
	count := map[string]int{}
	for _, r := range want {
		count[string(r)]++
	}
	for _, r := range got {
		count[string(r)]--
	}
	var extra, lost int
	for _, c := range count {
		if c < 0 {
			extra -= c
		} else {
			lost += c
		}
	}
	if len(got) != len(want) || extra != 0 || lost != 0 {
		t.Fatalf("got %d records, want %d: %d missing, %d extra or duplicated", len(got), len(want), lost, extra)
	}
}

// dirFiles lists the files of dir, sorted.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// outputFiles fails t unless dir holds exactly the n shards of base, and
// returns their paths.
func outputFiles(t *testing.T, dir, base string, n int, suffix string) []string {
	t.Helper()
	var names, files []string
	for i := range n {
		f := ShardName(filepath.Join(dir, base), i, n, suffix)
		names, files = append(names, filepath.Base(f)), append(files, f)
	}
	if got := dirFiles(t, dir); !slices.Equal(got, names) {
		t.Fatalf("output files %q, want %q", got, names)
	}
	return files
}

func convertPipeline(t *testing.T, in, out string, shards int, codec protoavro.Compression) *beam.Pipeline {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	if _, err := Convert(s, fooType(t), Delimited, in, out, WriteOptions{Shards: shards, Compression: codec}); err != nil {
		t.Fatal(err)
	}
	return p
}

// The sample, split into 4 files, converts into shards whose records are the
// input's, each shard a complete container file that Python's avro reads.
func TestConvertSample(t *testing.T) {
	recs := sampleRecords(t)
	in, outDir := t.TempDir(), t.TempDir()
	writeDelimitedFiles(t, in, "part", recs, 4)
	const shards = 3
	out := filepath.Join(outDir, "foo")
	if err := ptest.Run(convertPipeline(t, filepath.Join(in, "*.delimited"), out, shards, protoavro.CompressionDeflate)); err != nil {
		t.Fatal(err)
	}
	files := outputFiles(t, outDir, "foo", shards, ".avro")
	sameMultiset(t, readShards(t, files), recs)

	py := findPython(t)
	for _, f := range files {
		count := readShards(t, []string{f})
		out, err := exec.Command(py, "-c", pythonCount, f).CombinedOutput()
		if err != nil {
			t.Fatalf("python avro reading %s: %v\n%s", f, err, out)
		}
		fields := strings.Fields(string(out))
		if len(fields) != 2 || fields[0] != "protoavro.avro2147.Foo" || fields[1] != strconv.Itoa(len(count)) {
			t.Errorf("python avro on %s: %q, want protoavro.avro2147.Foo and %d records", filepath.Base(f), out, len(count))
		}
	}
}

// pythonCount reads every record of a container file with Python's avro and
// prints the embedded message name and the number of records.
const pythonCount = `import sys, avro.datafile, avro.io
with open(sys.argv[1], "rb") as f:
    r = avro.datafile.DataFileReader(f, avro.io.DatumReader())
    n = sum(1 for _ in r)
    print(r.get_meta("protoavro.message").decode(), n)
`

var python = sync.OnceValue(func() string {
	for _, exe := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(exe, "-c", "import avro.datafile").Run() == nil {
			return exe
		}
	}
	return ""
})

// findPython returns a Python with the avro library (Debian python3-avro).
// Without one the test skips, or fails under PROTOAVRO_INTEROP=require, as
// the tests of interop/.
func findPython(t *testing.T) string {
	t.Helper()
	py := python()
	testutil.Need(t, py != "", "python3-avro not installed: apt-get install python3-avro")
	return py
}

// The splittable read, with ranges far smaller than the file and blocks of
// a few records, gives back every record once; WriteDelimited writes them.
func TestReadAvroSmallSplits(t *testing.T) {
	recs := sampleRecords(t)
	in, outDir := t.TempDir(), t.TempDir()
	for i, codec := range []protoavro.Compression{protoavro.CompressionNull, protoavro.CompressionSnappy} {
		var buf bytes.Buffer
		cw, err := protoavro.NewContainerWriter(&buf, (&pb.Foo{}).ProtoReflect().Descriptor(),
			protoavro.ContainerOptions{Compression: codec, BlockSize: 2 << 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs[i*500 : (i+1)*500] {
			if err := cw.WriteWire(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := cw.Close(); err != nil {
			t.Fatal(err)
		}
		if cw.Blocks() < 20 {
			t.Fatalf("only %d blocks", cw.Blocks())
		}
		if err := os.WriteFile(filepath.Join(in, fmt.Sprintf("in-%d.avro", i)), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, s := beam.NewPipelineWithRoot()
	wire := ReadAvro(s, filepath.Join(in, "*.avro"), ReadAvroOptions{SplitSize: 3000})
	WriteDelimited(s, filepath.Join(outDir, "out"), WriteOptions{Shards: 2}, wire)
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		t.Fatal(err)
	}
	files := outputFiles(t, outDir, "out", 2, ".delimited")
	sameMultiset(t, readDelimitedFiles(t, files), recs)
	ranges := counter(res, "avro_ranges")
	if ranges < 50 {
		t.Errorf("the read ran %d ranges; want the files split into many", ranges)
	}
	t.Logf("%d ranges read, %d of them empty", ranges, counter(res, "avro_empty_ranges"))
}

func counter(res beam.PipelineResult, name string) int64 {
	var n int64
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Key.Name == name {
			n += c.Committed
		}
	}
	return n
}

// A shard write that fails on its first try, after writing part of its
// temporary file, fails the job on prism (prism does not retry bundles);
// running the job again, as a runner retries the work, leaves the shards
// alone, every record once and no temporary file, the partial one of the
// failed attempt included.
//
// A failing job ends with bundles still in flight, and there Beam's Go SDK
// harness itself races (harness.go, MainWithOptions: a worker goroutine
// checks a shutdown flag and sends on the response channel that the
// receiving loop closes), which -race reports in 1 of about 30 runs. So a
// -race test binary runs this test in a child `go test` built without
// -race; the library's own code in it is covered by -race in every other
// test of the package.
func TestFailedAttemptLeavesNoStrays(t *testing.T) {
	if raceEnabled && os.Getenv(childEnv) == "" {
		runWithoutRace(t, "TestFailedAttemptLeavesNoStrays")
		return
	}
	recs := sampleRecords(t)
	in, outDir := t.TempDir(), t.TempDir()
	writeDelimitedFiles(t, in, "part", recs, 4)
	out := filepath.Join(outDir, "foo")
	const shards = 2
	var failed atomic.Bool
	errInjected := errors.New("injected failure")
	testHookShardWritten = func(temp string) error {
		if failed.CompareAndSwap(false, true) {
			return fmt.Errorf("%w after the first element of %s", errInjected, temp)
		}
		return nil
	}
	defer func() { testHookShardWritten = nil }()
	glob := filepath.Join(in, "*.delimited")
	err := ptest.Run(convertPipeline(t, glob, out, shards, protoavro.CompressionNull))
	if err == nil || !strings.Contains(err.Error(), errInjected.Error()) {
		t.Fatalf("first run: %v, want the injected failure", err)
	}
	var partial int
	for _, n := range dirFiles(t, outDir) {
		if !strings.Contains(n, tempMarker) {
			t.Fatalf("first run left a final file %s", n)
		}
		partial++
	}
	if partial == 0 {
		t.Fatal("the failed attempt left no temporary file: the test does not test the cleanup")
	}
	if err := ptest.Run(convertPipeline(t, glob, out, shards, protoavro.CompressionNull)); err != nil {
		t.Fatal(err)
	}
	files := outputFiles(t, outDir, "foo", shards, ".avro")
	sameMultiset(t, readShards(t, files), recs)
}

// childEnv marks the child go test of runWithoutRace, so that a child
// built with -race after all (GOFLAGS=-race) runs the test instead of
// starting another child.
const childEnv = "PROTOAVRO_BEAM_NORACE_CHILD"

// runWithoutRace runs the test named test in a child go test of this
// package built without -race, and fails t with its output if it fails.
func runWithoutRace(t *testing.T, test string) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command, to run %s without -race: %v", test, err)
	}
	cmd := exec.Command(goTool, "test", "-count=1", "-v", "-run", "^"+test+"$", ".")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s without -race: %v\n%s", test, err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: "+test+" ")) {
		t.Fatalf("%s without -race did not report it passed:\n%s", test, out)
	}
}

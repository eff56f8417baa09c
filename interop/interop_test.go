package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// The tests, per implementation (Python, JavaScript, Java, AvroC, and
// avrocat for reading):
//
//   - Test<Impl>Reads (ours → theirs): protoavro writes a container file
//     per variant (both profiles, and the default profile's other mapping
//     options for the messages they affect), message type and codec the
//     implementation supports; the implementation reads them all and prints
//     the records as interop JSON; each record must equal what the source
//     message says, field by field (expectRecord).
//   - Test<Impl>Writes (theirs → ours): the implementation writes a
//     container file per variant, message type and codec from interop JSON
//     records (the same expected values) with protoavro's schema
//     (Schema.JSON()); protoavro reads each into generated messages, which
//     must equal the source messages (exactly for the default profile; for
//     the Java profile as its documented loss of presence says).
//   - TestJavaReferenceDatums: Java Avro's GenericDatumReader reads the Java
//     profile's reference datums with the reference schema.
//
// Documented limitations of an implementation are expected exactly, not
// skipped over: records it cannot represent are left out of its corpus or
// its comparison by a named reason, and files it cannot handle must fail
// (knownFailure). docs/interop.md lists them. Each test ends with
// "interop summary" log lines, which .ci/run prints.

// jsonLines decodes a test program's output, a JSON value of type T a
// line; what names the program's role in messages.
func jsonLines[T any](t *testing.T, out []byte, what string) []T {
	t.Helper()
	var vs []T
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s output: %v: %.200s", what, err, sc.Text())
		}
		vs = append(vs, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s output: %v", what, err)
	}
	return vs
}

// built is the outcome of building an implementation's test program.
type built struct{ err error }

func (b *built) buildErr() error { return b.err }

// needBuilt is need for an implementation whose test program the tests
// build: info is nil when the implementation is not installed (reason says
// what to install), and t fails when building the program failed.
func needBuilt[T any, P interface {
	*T
	buildErr() error
}](t *testing.T, info P, reason string) P {
	t.Helper()
	testutil.Need(t, info != nil, reason)
	if err := info.buildErr(); err != nil {
		t.Fatal(err)
	}
	return info
}

// missing reports a missing optional part of an implementation (a codec):
// logged, or a failure under PROTOAVRO_INTEROP=require.
func missing(t *testing.T, reason string) {
	t.Helper()
	if os.Getenv(testutil.RequireEnv) == "require" {
		t.Errorf("%s (%s=require)", reason, testutil.RequireEnv)
		return
	}
	t.Logf("not tested: %s", reason)
}

// workDir holds what the tests build once per run (compiled Java and C
// programs); TestMain removes it.
var workDir string

func TestMain(m *testing.M) {
	var err error
	if workDir, err = os.MkdirTemp("", "protoavro-interop-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(workDir)
	os.Exit(code)
}

// variant is a set of mapping options and the message types it is tested
// with.
type variant struct {
	name string
	opts protoavro.Options
	only []protoreflect.FullName // nil: every message type
}

var variants = []variant{
	{"default", protoavro.Options{}, nil},
	{"java", protoavro.Options{Profile: protoavro.JavaProfile}, nil},
	{"uint64-decimal", protoavro.Options{Uint64: protoavro.Uint64AsDecimal}, []protoreflect.FullName{
		"protoavro.test.kitchen.Scalars", "protoavro.test.kitchen.OptionalScalars", "protoavro.test.kitchen.Repeateds",
		"protoavro.test.kitchen.Maps", "protoavro.test.kitchen.WellKnown"}},
	{"map-entries", protoavro.Options{MapKeys: protoavro.MapAsEntryArray}, []protoreflect.FullName{
		"protoavro.test.kitchen.Maps", "protoavro.test.kitchen.WellKnown"}},
	{"timestamp-millis", protoavro.Options{Timestamps: protoavro.TimestampMillis}, []protoreflect.FullName{"protoavro.test.kitchen.WellKnown"}},
	{"timestamp-micros", protoavro.Options{Timestamps: protoavro.TimestampMicros}, []protoreflect.FullName{"protoavro.test.kitchen.WellKnown"}},
	{"timestamp-record", protoavro.Options{Timestamps: protoavro.TimestampRecord}, []protoreflect.FullName{"protoavro.test.kitchen.WellKnown"}},
}

// corpusSize is the number of edge-value and random messages per message
// type and variant (testutil.Corpus adds an empty one and one per oneof
// member): messages whose every field is set to edge values (extreme
// integers, unsigned maxima, NaN, ±Inf, −0.0, subnormals, empty and
// non-ASCII strings, empty and large bytes, lists and maps holding every
// edge value, messages nested several levels deep, recursion included), and
// seeded random messages that mix edge values with random bit patterns.
// Under the race detector, which makes the Go side of every test about ten
// times slower, the random messages are 3: the corpus exercises the same
// code, and CI runs the whole corpus without it first (.ci/run).
func corpusSize() testutil.CorpusConfig {
	if raceEnabled {
		return testutil.CorpusConfig{Edges: 4, Random: 3}
	}
	return testutil.CorpusConfig{Edges: 4, Random: 12}
}

// raceEnabled is set under the race detector (race_test.go).
var raceEnabled bool

// testCase is one variant and message type with its messages.
type testCase struct {
	name   string // variant/full.name
	opts   protoavro.Options
	mt     protoreflect.MessageType
	schema *protoavro.Schema
	avsc   []byte
	tree   schema // avsc, parsed by twmb/avro
	msgs   []proto.Message
	want   []record // expectRecord of each message
}

// buildCases returns every test case. With noNULMapKeys, map entries whose
// key holds a NUL character are removed from the messages.
func buildCases(noNULMapKeys bool) ([]*testCase, error) {
	var out []*testCase
	for _, v := range variants {
		for _, md := range testutil.Messages() {
			if v.only != nil && !contains(v.only, md.FullName()) {
				continue
			}
			mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
			if err != nil {
				return nil, err
			}
			s, err := v.opts.Schema(md)
			if err != nil {
				return nil, err
			}
			avsc, err := s.JSON()
			if err != nil {
				return nil, err
			}
			tree, err := parseSchema(avsc)
			if err != nil {
				return nil, fmt.Errorf("%s: twmb/avro parses the schema: %w", md.FullName(), err)
			}
			c := &testCase{name: v.name + "/" + string(md.FullName()), opts: v.opts, mt: mt, schema: s, avsc: avsc, tree: tree,
				msgs: testutil.Corpus(md, corpusSize(), testutil.Precision(v.opts.Timestamps), v.name)}
			for i, m := range c.msgs {
				if err := proto.CheckInitialized(m); err != nil {
					return nil, fmt.Errorf("%s: message %d: %w", c.name, i, err)
				}
				if noNULMapKeys {
					removeNULMapKeys(m.ProtoReflect())
				}
				r, err := expectRecord(c.tree, m.ProtoReflect())
				if err != nil {
					return nil, fmt.Errorf("%s: message %d: %w", c.name, i, err)
				}
				c.want = append(c.want, r)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

var (
	allCases        = sync.OnceValues(func() ([]*testCase, error) { return buildCases(false) })
	noNULKeyedCases = sync.OnceValues(func() ([]*testCase, error) { return buildCases(true) })
)

// removeNULMapKeys removes, recursively, the map entries whose string key
// holds a NUL character.
func removeNULMapKeys(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.IsMap() && fd.MapKey().Kind() == protoreflect.StringKind {
			testutil.DeleteEntries(v.Map(), func(k protoreflect.MapKey, _ protoreflect.Value) bool {
				return strings.IndexByte(k.String(), 0) >= 0
			})
		}
		testutil.ForEachMessage(fd, v, removeNULMapKeys)
		return true
	})
}

func contains[T comparable](s []T, v T) bool {
	for _, e := range s {
		if e == v {
			return true
		}
	}
	return false
}

func testCases(t *testing.T, noNULMapKeys bool) []*testCase {
	t.Helper()
	cases := allCases
	if noNULMapKeys {
		cases = noNULKeyedCases
	}
	cs, err := cases()
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// fileName turns a case name and codec into a file name.
func fileName(c *testCase, codec protoavro.Compression, ext string) string {
	return strings.ReplaceAll(c.name, "/", "__") + "." + string(codec) + ext
}

// writeContainer writes the case's messages to a container file with
// protoavro, in small blocks so that every file has several. The deflate
// and zstandard files are written from protobuf wire bytes (WriteWire, the
// path of the CLI's encode), the others from messages (Write).
func writeContainer(path string, c *testCase, codec protoavro.Compression) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	cw, err := protoavro.NewContainerWriter(bw, c.mt.Descriptor(), protoavro.ContainerOptions{
		Options: c.opts, Compression: codec, BlockSize: 4 << 10, Workers: 2})
	if err != nil {
		return err
	}
	wire := codec == protoavro.CompressionDeflate || codec == protoavro.CompressionZstd
	for _, m := range c.msgs {
		var err error
		if wire {
			var b []byte
			if b, err = (proto.MarshalOptions{Deterministic: true}).Marshal(m); err == nil {
				err = cw.WriteWire(b)
			}
		} else {
			err = cw.Write(m)
		}
		if err != nil {
			cw.Close()
			return err
		}
	}
	if err := cw.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// run runs a command with a time limit and returns its standard output.
func run(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s %s: %v", filepath.Base(name), strings.Join(shortArgs(args), " "), time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("%s %s: %v\nstderr:\n%s", name, strings.Join(shortArgs(args), " "), err, tail(stderr.String(), 4000))
	}
	return stdout.Bytes()
}

func shortArgs(args []string) []string {
	if len(args) > 6 {
		return append(append([]string{}, args[:5]...), fmt.Sprintf("... (%d arguments)", len(args)))
	}
	return args
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// readerOutput is one line of a reader's output.
type readerOutput struct {
	File    string            `json:"file"`
	Codec   string            `json:"codec"`
	Records []json.RawMessage `json:"records"`
	Error   string            `json:"error"`
}

// containerFile is a file protoavro wrote for a case with a codec.
type containerFile struct {
	path  string
	c     *testCase
	codec protoavro.Compression
}

// containerFiles returns the files of every case and codec, written once
// into workDir and shared by the reader tests.
func containerFiles(noNULMapKeys bool) ([]containerFile, error) {
	if noNULMapKeys {
		return noNULKeyedFiles()
	}
	return allFiles()
}

var (
	allFiles        = sync.OnceValues(func() ([]containerFile, error) { return writeContainerFiles(false) })
	noNULKeyedFiles = sync.OnceValues(func() ([]containerFile, error) { return writeContainerFiles(true) })
)

func writeContainerFiles(noNULMapKeys bool) ([]containerFile, error) {
	cases := allCases
	dir := filepath.Join(workDir, "files")
	if noNULMapKeys {
		cases, dir = noNULKeyedCases, filepath.Join(workDir, "files-no-nul-map-keys")
	}
	cs, err := cases()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []containerFile
	for _, c := range cs {
		for _, codec := range allCodecs {
			p := filepath.Join(dir, fileName(c, codec, ".avro"))
			if err := writeContainer(p, c, codec); err != nil {
				return nil, fmt.Errorf("%s %s: %w", c.name, codec, err)
			}
			out = append(out, containerFile{p, c, codec})
		}
	}
	return out, nil
}

// readTest describes a reader test (ours → theirs).
type readTest struct {
	impl   string // the implementation and its version, for the summary
	codecs []protoavro.Compression
	// read gets the file paths and prints one readerOutput line per file.
	read func(files []string) []byte
	// parse converts one record of a reader's output; nil means interop
	// JSON (parseInterop).
	parse func(s schema, j any) (any, error)
	// skip, when set, says why a record is not compared (a documented
	// limitation of the implementation), and whether the reader leaves it
	// out of its output.
	skip func(want record) (reason string, absent bool)
	// want, when set, turns an expected record into what this reader
	// prints for it.
	want func(want record) any
	// noNULMapKeys removes map entries whose key holds a NUL from the
	// messages (an implementation that cannot represent such keys).
	noNULMapKeys bool
	// knownFailure, when set, names a documented incompatibility for which
	// reading the case's files must fail, as it does today.
	knownFailure func(c *testCase) string
}

// oursToTheirs writes a file per case and codec with protoavro, has the
// reader read them all, and compares every record with the expected one.
func oursToTheirs(t *testing.T, rt readTest) {
	all, err := containerFiles(rt.noNULMapKeys)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]containerFile{}
	var paths []string
	for _, f := range all {
		if contains(rt.codecs, f.codec) {
			files[f.path] = f
			paths = append(paths, f.path)
		}
	}
	out := rt.read(paths)
	seen := map[string]bool{}
	compared, known, skipped := 0, 0, map[string]int{}
	for _, ro := range jsonLines[readerOutput](t, out, "reader") {
		f, ok := files[ro.File]
		if !ok {
			t.Fatalf("reader output for unknown file %q", ro.File)
		}
		seen[ro.File] = true
		t.Run(f.c.name+"/"+string(f.codec), func(t *testing.T) {
			if rt.knownFailure != nil {
				if reason := rt.knownFailure(f.c); reason != "" {
					expectKnownFailure(t, reason, ro.Error)
					known++
					return
				}
			}
			if ro.Error != "" {
				t.Fatalf("reading %s: %s", filepath.Base(ro.File), ro.Error)
			}
			if ro.Codec != "" && ro.Codec != string(f.codec) {
				t.Errorf("codec %q, want %q", ro.Codec, f.codec)
			}
			compared += compareRecords(t, rt, f.c, ro.Records, skipped)
		})
	}
	for _, p := range paths {
		if !seen[p] {
			t.Errorf("no output for %s", filepath.Base(p))
		}
	}
	summary(t, "%s read %d files protoavro wrote (%s): %d records equal the source messages", rt.impl, len(paths)-known, codecList(rt.codecs), compared)
	for reason, n := range skipped {
		summary(t, "not compared: %d records: %s", n, reason)
	}
	if known > 0 {
		summary(t, "%d files fail as documented (known incompatibility)", known)
	}
}

// summary logs a line that .ci/run shows (it greps for "interop summary").
func summary(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Logf("interop summary: %s: "+format, append([]any{t.Name()}, args...)...)
}

func codecList(cs []protoavro.Compression) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

// compareRecords compares a reader's records of one file with the
// expected ones and returns the number compared.
func compareRecords(t *testing.T, rt readTest, c *testCase, raws []json.RawMessage, skipped map[string]int) int {
	t.Helper()
	parse := rt.parse
	if parse == nil {
		parse = parseInterop
	}
	next, compared := 0, 0
	for i, want := range c.want {
		reason, absent := "", false
		if rt.skip != nil {
			reason, absent = rt.skip(want)
		}
		if !absent {
			if next >= len(raws) {
				t.Fatalf("%d records, want more", len(raws))
			}
			next++
		}
		if reason != "" {
			skipped[reason]++
			continue
		}
		j, err := testutil.DecodeJSON(raws[next-1])
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		got, err := parse(c.tree, j)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		var w any = want
		if rt.want != nil {
			w = rt.want(want)
		}
		if d := diff(nil, "", w, got, 10); len(d) > 0 {
			t.Errorf("record %d (%.300s):\n  %s", i, prototext.MarshalOptions{}.Format(c.msgs[i]), strings.Join(d, "\n  "))
		}
		compared++
	}
	if next != len(raws) {
		t.Errorf("%d records, want %d", len(raws), next)
	}
	return compared
}

// writeJob is one file for a writer to write.
type writeJob struct {
	Schema string `json:"schema"`
	Input  string `json:"input"`
	Output string `json:"output"`
	Codec  string `json:"codec"`
	c      *testCase
	given  []int // the indices of the messages given to the writer

	dropsLogicalTypes bool
}

// writerOutput is one line of a writer's output.
type writerOutput struct {
	Output string `json:"output"`
	Error  string `json:"error"`
}

// writeTest describes a writer test (theirs → ours).
type writeTest struct {
	impl   string // the implementation and its version, for the summary
	codecs []protoavro.Compression
	// write gets the jobs file and prints one writerOutput line per job.
	write func(jobsFile string) []byte
	// decimalAsBytes gives decimals to the writer as their bytes (hex), for
	// implementations without the decimal logical type.
	decimalAsBytes bool
	// noNULMapKeys removes map entries whose key holds a NUL from the
	// messages (an implementation that cannot represent such keys).
	noNULMapKeys bool
	// knownFailure, when set, names a documented incompatibility for which
	// writing the case's files must fail, as it does today.
	knownFailure func(c *testCase) string
	// dropsLogicalTypes: the writer writes the schema without its logical
	// types (an implementation without them); else they must be kept.
	dropsLogicalTypes bool
}

// theirsToOurs writes, per case and codec, the schema and the interop JSON
// records, and a jobs file listing them (one JSON writeJob a line); the
// writer writes every file; protoavro then reads each file written.
func theirsToOurs(t *testing.T, wt writeTest) {
	dir := t.TempDir()
	var jobs []*writeJob
	var jobLines bytes.Buffer
	for _, c := range testCases(t, wt.noNULMapKeys) {
		base := filepath.Join(dir, fileName(c, "", ""))
		schema, input := base+"avsc", base+"jsonl"
		if err := os.WriteFile(schema, c.avsc, 0o644); err != nil {
			t.Fatal(err)
		}
		var lines bytes.Buffer
		var given []int
		for i, r := range c.want {
			var v any = r
			if wt.decimalAsBytes {
				v = decimalsToBytes(v)
			}
			b, err := interopJSON(v)
			if err != nil {
				t.Fatal(err)
			}
			lines.Write(b)
			lines.WriteByte('\n')
			given = append(given, i)
		}
		if err := os.WriteFile(input, lines.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, codec := range wt.codecs {
			j := &writeJob{Schema: schema, Input: input, Output: filepath.Join(dir, fileName(c, codec, ".avro")), Codec: string(codec), c: c, given: given, dropsLogicalTypes: wt.dropsLogicalTypes}
			jobs = append(jobs, j)
			b, _ := json.Marshal(j)
			jobLines.Write(b)
			jobLines.WriteByte('\n')
		}
	}
	jobsFile := filepath.Join(dir, "jobs.jsonl")
	if err := os.WriteFile(jobsFile, jobLines.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := wt.write(jobsFile)
	errs := map[string]string{}
	for _, wo := range jsonLines[writerOutput](t, out, "writer") {
		errs[wo.Output] = wo.Error
	}
	records, known := 0, 0
	for _, j := range jobs {
		t.Run(j.c.name+"/"+j.Codec, func(t *testing.T) {
			e, ok := errs[j.Output]
			if wt.knownFailure != nil && ok {
				if reason := wt.knownFailure(j.c); reason != "" {
					expectKnownFailure(t, reason, e)
					known++
					return
				}
			}
			switch {
			case !ok:
				t.Fatal("the writer reported nothing for this file")
			case e != "":
				t.Fatalf("writing: %s", e)
			}
			records += readBack(t, j)
		})
	}
	summary(t, "%s wrote %d files (%s) that protoavro read: %d records equal the source messages", wt.impl, len(jobs)-known, codecList(wt.codecs), records)
	if known > 0 {
		summary(t, "%d files fail as documented (known incompatibility)", known)
	}
}

// logicalTypes lists the logical types of a schema's JSON in order, for
// comparing the schema a writer wrote with the one it was given.
func logicalTypes(schemaJSON []byte) string {
	var v any
	if err := json.Unmarshal(schemaJSON, &v); err != nil {
		return "(bad JSON: " + err.Error() + ")"
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any: // a union
			for _, b := range v {
				walk(b)
			}
		case map[string]any:
			if lt, ok := v["logicalType"].(string); ok {
				out = append(out, lt)
			}
			if fs, ok := v["fields"].([]any); ok {
				for _, f := range fs {
					if f, ok := f.(map[string]any); ok {
						walk(f["type"])
					}
				}
			}
			for _, k := range []string{"type", "items", "values"} {
				walk(v[k])
			}
		}
	}
	walk(v)
	return strings.Join(out, " ")
}

// checkForeignTimestamps reads a file whose schema has timestamp-millis or
// timestamp-nanos with timestamp-micros options, as a program
// reading another program's file does: by docs/mapping.md the writer's
// logical type gives the unit, so every record must come out right.
func checkForeignTimestamps(t *testing.T, j *writeJob) {
	t.Helper()
	c := j.c
	f, err := os.Open(j.Output)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opts := c.opts
	opts.Timestamps = protoavro.TimestampMicros
	cr, err := protoavro.NewContainerReader(bufio.NewReader(f), protoavro.ReaderOptions{Message: c.mt, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	wrong := 0
	for n := 0; ; n++ {
		m := c.mt.New().Interface()
		err := cr.Read(m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || n < len(j.given) && !sameMessage(expectedMessage(c, c.msgs[j.given[n]]), m) {
			wrong++
		}
	}
	if wrong > 0 {
		t.Errorf("read with timestamp-micros options, %d of %d records of this %s file are wrong: the writer's unit must win",
			wrong, len(j.given), c.opts.Timestamps)
	}
}

// expectKnownFailure checks that a documented incompatibility still fails.
func expectKnownFailure(t *testing.T, known, err string) {
	t.Helper()
	if err == "" {
		t.Errorf("expected to fail (%s), but it worked: update the test and docs/interop.md", known)
		return
	}
	t.Logf("known incompatibility (docs/interop.md): %s: %s", known, err)
}

// readBack reads a file written by another implementation with protoavro
// and compares the messages with the expected ones.
func readBack(t *testing.T, j *writeJob) (n int) {
	c := j.c
	f, err := os.Open(j.Output)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr, err := protoavro.NewContainerReader(bufio.NewReader(f), protoavro.ReaderOptions{Message: c.mt, Options: c.opts})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(cr.Compression()); got != j.Codec && !(j.Codec == "null" && got == "") {
		t.Errorf("codec %q, want %q", got, j.Codec)
	}
	if got := cr.WriterSchema().Canonical(); got != c.schema.Canonical() {
		t.Errorf("the file's schema has another canonical form:\ngot  %.500s\nwant %.500s", got, c.schema.Canonical())
	}
	if got, want := logicalTypes(cr.Metadata()["avro.schema"]), logicalTypes(c.avsc); got != want && !j.dropsLogicalTypes {
		t.Errorf("the file's schema has other logical types:\ngot  %s\nwant %s", got, want)
	}
	if c.opts.Profile == protoavro.DefaultProfile && c.opts.Timestamps != protoavro.TimestampMicros && c.opts.Timestamps != protoavro.TimestampRecord && !j.dropsLogicalTypes {
		checkForeignTimestamps(t, j)
	}
	for ; ; n++ {
		m := c.mt.New().Interface()
		err := cr.Read(m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("record %d: %v", n, err)
		}
		if n >= len(j.given) {
			continue
		}
		want := expectedMessage(c, c.msgs[j.given[n]])
		if !sameMessage(want, m) {
			t.Errorf("record %d:\ngot  %.2000s\nwant %.2000s", n, prototext.Format(m), prototext.Format(want))
		}
	}
	if n != len(j.given) {
		t.Errorf("%d records, want %d", n, len(j.given))
	}
	return n
}

// expectedMessage is what protoavro must read back from the Avro record of
// m: m itself, except in the Java profile, which carries no presence: a
// field set to its default reads back as unset, and a google.protobuf.Value
// that sets no member as a null Value (docs/mapping.md, "Java profile" in
// the data conversion table).
func expectedMessage(c *testCase, m proto.Message) proto.Message {
	m = testutil.CloneExact(m)
	if c.opts.Profile == protoavro.JavaProfile {
		testutil.ClearDefaults(m.ProtoReflect())
		testutil.NullEmptyValues(m.ProtoReflect())
	}
	return m
}

// sameMessage compares two messages exactly, −0.0 included, but any NaN
// equals any other: implementations need not keep NaN payloads.
func sameMessage(a, b proto.Message) bool {
	a, b = testutil.CloneExact(a), testutil.CloneExact(b)
	canonicalNaN(a.ProtoReflect())
	canonicalNaN(b.ProtoReflect())
	opts := proto.MarshalOptions{Deterministic: true}
	ab, err1 := opts.Marshal(a)
	bb, err2 := opts.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ab, bb)
}

// canonicalNaN replaces every NaN in m by one NaN.
func canonicalNaN(m protoreflect.Message) {
	nan := func(fd protoreflect.FieldDescriptor, v protoreflect.Value) (protoreflect.Value, bool) {
		if (fd.Kind() == protoreflect.FloatKind || fd.Kind() == protoreflect.DoubleKind) && math.IsNaN(v.Float()) {
			if fd.Kind() == protoreflect.FloatKind {
				return protoreflect.ValueOfFloat32(float32(math.NaN())), true
			}
			return protoreflect.ValueOfFloat64(math.NaN()), true
		}
		return v, false
	}
	var set []protoreflect.FieldDescriptor
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap() && fd.MapValue().Message() == nil:
			mp := v.Map()
			mp.Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if nv, ok := nan(fd.MapValue(), mv); ok {
					mp.Set(k, nv)
				}
				return true
			})
		case fd.IsList() && fd.Message() == nil:
			l := v.List()
			for i := range l.Len() {
				if nv, ok := nan(fd, l.Get(i)); ok {
					l.Set(i, nv)
				}
			}
		case !fd.IsMap() && !fd.IsList() && fd.Message() == nil:
			if _, ok := nan(fd, v); ok {
				set = append(set, fd)
			}
		}
		testutil.ForEachMessage(fd, v, canonicalNaN)
		return true
	})
	for _, fd := range set {
		nv, _ := nan(fd, m.Get(fd))
		m.Set(fd, nv)
	}
}

// repoDir returns the path of a file of this package's directory.
func repoDir(elem ...string) string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Join(append([]string{wd}, elem...)...)
}

var allCodecs = []protoavro.Compression{protoavro.CompressionNull, protoavro.CompressionDeflate, protoavro.CompressionSnappy, protoavro.CompressionZstd}

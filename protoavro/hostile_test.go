package protoavro

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/protofiles"
	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
)

// The hostile-input suite: crafted container files, schemas, descriptors
// and datums, each of which must give a clear error (or succeed) within
// 2 s and 256 MiB of allocation, with an error message that is short and
// safe to print. The limits it asserts are documented in docs/limits.md.

const hostileProto = `
syntax = "proto3";
package hostile;
message Empty {}
enum E { E_ZERO = 0; E_ONE = 1; }
message H {
  int64 id = 1;
  repeated Empty items = 2;
  string name = 3;
  map<string, int64> attrs = 4;
  E e = 5;
  repeated int64 nums = 6;
  optional string note = 7;
}
message Doubles {
%s}
message DoubleList { repeated Doubles items = 1; }
`

func hostileFile(t testing.TB) protoreflect.FileDescriptor {
	t.Helper()
	var sb strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&sb, "  double d%d = %d;\n", i, i)
	}
	return testcompile.Sources(t, map[string]string{"hostile.proto": fmt.Sprintf(hostileProto, sb.String())}, "hostile.proto")[0]
}

func hostileMsg(t testing.TB, name string) protoreflect.MessageDescriptor {
	t.Helper()
	md := hostileFile(t).Messages().ByName(protoreflect.Name(name))
	if md == nil {
		t.Fatalf("no message %s", name)
	}
	return md
}

// budget runs f and fails t if it allocates more than maxAlloc bytes, the
// measure of the work it did, or takes more than 2 minutes (10 under the
// race detector: a guard against hangs, far above any normal run, not a
// speed goal); it returns f's error, which must be short and safe to print.
func budget(t *testing.T, maxAlloc uint64, f func() error) error {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	err := f()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	limit := 2 * time.Minute
	if raceEnabled {
		limit *= 5
	}
	if elapsed > limit {
		t.Errorf("took %v, over %v", elapsed, limit)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > maxAlloc {
		t.Errorf("allocated %d MiB, over %d MiB", alloc>>20, maxAlloc>>20)
	}
	if err != nil {
		msg := err.Error()
		if len(msg) > 2048 {
			t.Errorf("error message of %d bytes: %.200s…", len(msg), msg)
		}
		if !safetext.Safe(msg) {
			t.Errorf("error message is not safe to print: %q", safetext.Truncate(msg, 300))
		}
	}
	return err
}

const mib = 1 << 20

// wantClass fails t unless err wraps class (nil: no error) and, when
// contains is set, mentions it.
func wantClass(t *testing.T, err, class error, contains string) {
	t.Helper()
	switch {
	case class == nil && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case class != nil && err == nil:
		t.Fatalf("no error, want %v", class)
	case class != nil && !errors.Is(err, class):
		t.Fatalf("error %v does not wrap %v", err, class)
	}
	if contains != "" && err != nil && !strings.Contains(err.Error(), contains) {
		t.Fatalf("error %q does not mention %q", err, contains)
	}
}

// Raw container files, so that every byte can be hostile.

var hostileSync = [16]byte{'h', 'o', 's', 't', 'i', 'l', 'e', ' ', 's', 'y', 'n', 'c', ' ', '!', '!', '!'}

type kv struct{ k, v []byte }

func rawHeader(entries ...kv) []byte {
	b := []byte("Obj\x01")
	if len(entries) > 0 {
		b = appendLong(b, int64(len(entries)))
		for _, e := range entries {
			b = appendAvroBytes(b, e.k)
			b = appendAvroBytes(b, e.v)
		}
	}
	b = append(b, 0)
	return append(b, hostileSync[:]...)
}

func rawBlock(b []byte, count int64, data []byte) []byte {
	b = appendLong(bytes.Clone(b), count)
	b = appendAvroBytes(b, data)
	return append(b, hostileSync[:]...)
}

func schemaEntry(s string) kv { return kv{[]byte("avro.schema"), []byte(s)} }
func codecEntry(c string) kv  { return kv{[]byte("avro.codec"), []byte(c)} }

// readContainer reads every record of file as md (nil: the embedded type)
// with the sequential reader.
func readContainer(file []byte, md protoreflect.MessageDescriptor) (int, error) {
	return readContainerWith(file, md, 1)
}

// sameParallel checks that the parallel reader (3 workers) gives the records
// and the error the sequential reader gives.
func sameParallel(t *testing.T, file []byte, md protoreflect.MessageDescriptor) {
	t.Helper()
	n, err := readContainerWith(file, md, 1)
	np, errp := readContainerWith(file, md, 3)
	if n != np || fmt.Sprint(err) != fmt.Sprint(errp) {
		t.Fatalf("the parallel reader differs: %d records, %v; sequential: %d records, %v", np, errp, n, err)
	}
}

func readContainerWith(file []byte, md protoreflect.MessageDescriptor, workers int) (int, error) {
	opts := ReaderOptions{Workers: workers}
	if md != nil {
		opts.Message = dynamicpb.NewMessageType(md)
	}
	cr, err := NewContainerReader(bytes.NewReader(file), opts)
	if err != nil {
		return 0, err
	}
	n := 0
	var wire []byte
	for {
		if wire, err = cr.ReadWire(wire[:0]); err != nil {
			if err == io.EOF {
				return n, nil
			}
			return n, err
		}
		n++
	}
}

// hSchema is the writer schema of H with extra fields appended (JSON text
// of Avro fields) and extra named types defined before H.
func hSchema(t testing.TB, extraFields ...string) string {
	c := mustCodecFor(t, Options{}, hostileMsg(t, "H"))
	js, err := c.Schema().JSON()
	if err != nil {
		t.Fatal(err)
	}
	s := string(js)
	if len(extraFields) == 0 {
		return s
	}
	i := strings.LastIndex(s, "]")
	return s[:i] + "," + strings.Join(extraFields, ",") + s[i:]
}

// hDatum is one H record of the own schema: id, no items, no name, no
// attrs, E_ZERO, no nums, no note.
func hDatum(id int64) []byte {
	b := appendLong(nil, id)
	return append(b, 0, 0, 0, 0, 0, 0)
}

// emptyNest is a field of type array of records nested depth deep with
// fanout fields each, every one of which can be empty: level d has fields
// of level d-1 (the first defines it, the others refer to it), level 0
// fields of type null.
func emptyNest(depth, fanout int) string {
	var nested func(d int) string
	nested = func(d int) string {
		var fs strings.Builder
		for f := range fanout {
			if f > 0 {
				fs.WriteString(",")
			}
			ft := `"null"`
			switch {
			case d > 0 && f == 0:
				ft = nested(d - 1)
			case d > 0:
				ft = fmt.Sprintf(`"N%d"`, d-1)
			}
			fmt.Fprintf(&fs, `{"name":"f%d","type":%s}`, f, ft)
		}
		return fmt.Sprintf(`{"type":"record","name":"N%d","fields":[%s]}`, d, fs.String())
	}
	return `{"name":"junk","type":{"type":"array","items":` + nested(depth-1) + `}}`
}

func TestHostileContainerHeaders(t *testing.T) {
	h := hostileMsg(t, "H")
	own := hSchema(t)
	ok := rawBlock(rawHeader(schemaEntry(own)), 1, hDatum(5))
	nested30 := hSchema(t, emptyNest(30, 3))
	if len(nested30) > 8<<10 {
		t.Fatalf("nested schema of %d bytes", len(nested30))
	}
	nested24 := hSchema(t, emptyNest(24, 3))
	// 50 records whose junk arrays hold 1000 items of the deep empty records each.
	var junk []byte
	for i := range 50 {
		junk = append(junk, hDatum(int64(i))...)
		junk = appendLong(junk, 1000)
		junk = append(junk, 0)
	}
	deepArrays := func(n int) string {
		return strings.Repeat(`{"type":"array","items":`, n) + `"long"` + strings.Repeat("}", n)
	}
	garbage := bytes.Repeat([]byte("\x1b[31m\x1b]0;owned\x07{\"type\":\xff"), 50*mib/20)
	checkFiles(t, h, []fileCase{
		{name: "valid", file: ok, records: 1},
		{name: "empty-able records nested 30 deep, 3 fields each", file: rawBlock(rawHeader(schemaEntry(nested30)), 1, append(hDatum(1), 0)), records: 1},
		{name: "nested 24 deep, 50 records of 1000 items", file: rawBlock(rawHeader(schemaEntry(nested24)), 50, junk), records: 50},
		{name: "arrays nested 9000 deep", file: rawBlock(rawHeader(schemaEntry(hSchema(t, `{"name":"deep","type":`+deepArrays(9000)+`}`))), 1, hDatum(1)),
			class: ErrMalformed, contains: "nested more than 256 levels"},
		{name: "arrays nested 100000 deep", file: rawBlock(rawHeader(schemaEntry(hSchema(t, `{"name":"deep","type":`+deepArrays(100000)+`}`))), 1, hDatum(1)),
			class: ErrMalformed, contains: "nested more than 256 levels"},
		{name: "50 MB garbage schema with terminal escapes", file: rawHeader(kv{[]byte("avro.schema"), garbage}),
			class: ErrMalformed, contains: "MaxSchemaSize", alloc: 128 * mib},
		{name: "1 MB garbage schema with terminal escapes", file: rawHeader(kv{[]byte("avro.schema"), garbage[:mib]}),
			class: ErrMalformed, contains: "invalid Avro schema"},
		{name: "schema not JSON", file: rawHeader(schemaEntry("\x1b[2Jnot json")), class: ErrMalformed, contains: "invalid Avro schema"},
		{name: "schema of another record", file: rawHeader(schemaEntry(`{"type":"record","name":"Other","fields":[]}`)), class: ErrIncompatible, contains: "Other"},
		{name: "schema not a record", file: rawHeader(schemaEntry(`"long"`)), class: ErrIncompatible},
		{name: "no schema", file: rawHeader(codecEntry("null")), class: ErrMalformed, contains: "avro.schema"},
		{name: "codec with terminal escapes", file: rawHeader(schemaEntry(own), codecEntry("\x1b]0;evil\x07")), class: ErrUnsupported, contains: `\x1b]0;evil\a`},
		{name: "duplicate metadata key", file: rawHeader(schemaEntry(own), schemaEntry(own)), class: ErrMalformed, contains: "twice"},
		{name: "1,000,000 metadata keys", file: manyMeta(1_000_000, own), class: ErrMalformed, contains: "MaxMetadataEntries"},
		{name: "4096 metadata entries", file: manyMeta(4095, own), records: 0},
		{name: "metadata count MinInt64", file: append([]byte("Obj\x01"), appendLong(nil, math.MinInt64)...), class: ErrMalformed},
		{name: "metadata count MaxInt64", file: append([]byte("Obj\x01"), appendLong(nil, math.MaxInt64)...), class: ErrMalformed, contains: "MaxMetadataEntries"},
		{name: "metadata key length MaxInt64", file: append(append([]byte("Obj\x01"), 2), appendLong(nil, math.MaxInt64)...), class: ErrMalformed, contains: "exceeds the limit"},
		{name: "metadata key length negative", file: append(append([]byte("Obj\x01"), 2), appendLong(nil, -5)...), class: ErrMalformed, contains: "negative"},
		{name: "metadata value of 1 GiB claimed", file: append(append(append([]byte("Obj\x01"), 2), appendAvroBytes(nil, []byte("k"))...), appendLong(nil, 1<<30)...), class: ErrMalformed, contains: "exceeds the limit"},
		{name: "varint of 11 bytes", file: append([]byte("Obj\x01"), bytes.Repeat([]byte{0xff}, 11)...), class: ErrMalformed, contains: "varint"},
		{name: "not a container", file: []byte("PAR1garbage"), class: ErrNotContainer},
		// Options are read with the embedded type.
		{name: "options with terminal escapes", embedded: true, class: ErrInvalidOptions, contains: `\x1b[2J`,
			file: rawHeader(schemaEntry(own), kv{[]byte(MetaOptions), []byte("profile=\x1b[2J")},
				kv{[]byte(MetaMessage), []byte("hostile.H")}, kv{[]byte(MetaDescriptors), hostileFDS(t)})},
	})
}

// fileCase is a container file of a hostile test and what reading it must
// give.
type fileCase struct {
	name     string
	file     []byte
	class    error  // the error class; nil for a file that reads
	contains string // what the error says
	records  int    // the records read (before the error)
	alloc    uint64 // the allocation budget; 0 for 256 MiB
	embedded bool   // read with the type the file embeds, not the test's
}

// checkFiles reads each case's file with md (sequentially, within its
// allocation budget, and in parallel with the same outcome) and checks the
// error and the records read.
func checkFiles(t *testing.T, md protoreflect.MessageDescriptor, cases []fileCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			alloc := c.alloc
			if alloc == 0 {
				alloc = 256 * mib
			}
			md := md
			if c.embedded {
				md = nil
			}
			var n int
			err := budget(t, alloc, func() (err error) { n, err = readContainer(c.file, md); return err })
			wantClass(t, err, c.class, c.contains)
			sameParallel(t, c.file, md)
			if n != c.records {
				t.Fatalf("%d records, want %d", n, c.records)
			}
		})
	}
}

func manyMeta(n int, schema string) []byte {
	b := []byte("Obj\x01")
	b = appendLong(b, int64(n+1))
	b = appendAvroBytes(b, []byte("avro.schema"))
	b = appendAvroBytes(b, []byte(schema))
	for i := range n {
		b = appendAvroBytes(b, fmt.Appendf(nil, "k%d", i))
		b = appendAvroBytes(b, []byte("v"))
	}
	b = append(b, 0)
	return append(b, hostileSync[:]...)
}

func hostileFDS(t testing.TB) []byte {
	fd := hostileFile(t)
	set := &descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{protodesc.ToFileDescriptorProto(fd)}}
	b, err := proto.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHostileSchemaSize: large and wide schemas compile in time linear in
// their size; over the limit they are refused before parsing.
func TestHostileSchemaSize(t *testing.T) {
	field := func(i int) string { return fmt.Sprintf(`{"name":"x%d","type":"long"}`, i) }
	wide := func(n int) string {
		fs := make([]string, n)
		for i := range fs {
			fs[i] = field(i)
		}
		return hSchema(t, fs...)
	}
	t.Run("1,000,000 fields (33 MB)", func(t *testing.T) {
		s := wide(1_000_000)
		if len(s) < 28*mib {
			t.Fatalf("%d bytes", len(s))
		}
		err := budget(t, 128*mib, func() error {
			_, err := readContainer(rawHeader(schemaEntry(s)), hostileMsg(t, "H"))
			return err
		})
		wantClass(t, err, ErrMalformed, "MaxSchemaSize")
		err = budget(t, 128*mib, func() error { _, err := ParseSchema([]byte(s)); return err })
		wantClass(t, err, ErrInvalidSchema, "exceed the limit")
	})
	t.Run("30,000 unknown fields, records of data", func(t *testing.T) {
		s := wide(30_000)
		var data []byte
		for i := range 3 {
			data = append(data, hDatum(int64(i))...)
			for range 30_000 {
				data = append(data, 2)
			}
		}
		var n int
		err := budget(t, 256*mib, func() (err error) {
			n, err = readContainer(rawBlock(rawHeader(schemaEntry(s)), 3, data), hostileMsg(t, "H"))
			return err
		})
		wantClass(t, err, nil, "")
		if n != 3 {
			t.Fatalf("%d records", n)
		}
	})
}

// TestHostileReversedFields: a writer record of 100,000 fields in reverse
// order parses and resolves within 256 MiB, in O(n log n), not in the
// quadratic time of matching the fields one by one
// (BenchmarkReversedFieldsHeader times it).
func TestHostileReversedFields(t *testing.T) {
	const n = 100_000
	md := wideMessage(t, n)
	c := mustCodecFor(t, Options{}, md)
	text := reversedWideSchema(n)
	// Parsing the header schema and resolving it, as a container reader
	// does, within the budget.
	var res *Resolver
	err := budget(t, 256*mib, func() error {
		w, err := ParseSchema(text)
		if err != nil {
			return err
		}
		res, err = c.Resolve(w)
		return err
	})
	wantClass(t, err, nil, "")
	// One datum: field fN = N, written in reverse order.
	var datum []byte
	for i := n; i >= 1; i-- {
		datum = appendLong(datum, int64(i))
	}
	m := dynamicpb.NewMessage(md)
	if err := res.Unmarshal(datum, m); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{1, 777, n} {
		fd := md.Fields().ByNumber(protowire.Number(i))
		if got := m.Get(fd).Int(); got != int64(i) {
			t.Fatalf("field %d = %d", i, got)
		}
	}
	wire, err := res.TranscodeToProto(nil, datum)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := (proto.MarshalOptions{Deterministic: true}).Marshal(m.Interface()); !bytes.Equal(wire, want) {
		t.Fatal("TranscodeToProto is not in field-number order")
	}
}

// BenchmarkReversedFieldsHeader parses a container header's schema of
// 100,000 fields in reverse order and resolves it against the message of
// those fields, as a container reader does before the first record.
func BenchmarkReversedFieldsHeader(b *testing.B) {
	const n = 100_000
	c, err := Options{}.Codec(wideMessage(b, n))
	if err != nil {
		b.Fatal(err)
	}
	text := reversedWideSchema(n)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		w, err := ParseSchema(text)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Resolve(w); err != nil {
			b.Fatal(err)
		}
	}
}

// reversedWideSchema returns the schema of the record hostile.Wide with the
// long fields fN..f1, in that order.
func reversedWideSchema(n int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"type":"record","name":"Wide","namespace":"hostile","fields":[`)
	for i := n; i >= 1; i-- {
		if i < n {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"name":"f%d","type":"long"}`, i)
	}
	sb.WriteString("]}")
	return []byte(sb.String())
}

// wideMessage builds a proto3 message hostile.Wide of n int64 fields f1..fn.
func wideMessage(t testing.TB, n int) protoreflect.MessageDescriptor {
	msg := &descriptorpb.DescriptorProto{Name: proto.String("Wide")}
	for i := 1; i <= n; i++ {
		msg.Field = append(msg.Field, &descriptorpb.FieldDescriptorProto{
			Name: proto.String(fmt.Sprintf("f%d", i)), Number: proto.Int32(int32(i)),
			Type:  descriptorpb.FieldDescriptorProto_TYPE_INT64.Enum(),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
		})
	}
	fdp := &descriptorpb.FileDescriptorProto{Name: proto.String("wide.proto"), Package: proto.String("hostile"),
		Syntax: proto.String("proto3"), MessageType: []*descriptorpb.DescriptorProto{msg}}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().Get(0)
}

// TestHostileZeroSizeWork: items that take no bytes are bounded per datum
// and per container block (5.3 KB of arrays of empty records decoded into
// 2.0 GB).
func TestHostileZeroSizeWork(t *testing.T) {
	h := hostileMsg(t, "H")
	header := rawHeader(schemaEntry(hSchema(t)))
	record := func(items int64) []byte {
		b := appendLong(nil, 1)
		b = appendLong(b, items)
		b = append(b, 0) // end of items
		return append(b, 0, 0, 0, 0, 0)
	}
	var bomb []byte
	for range 480 {
		bomb = append(bomb, record(1<<20)...)
	}
	limit := func(size int) int64 { return emptyItemsLimit(size) }
	// 5.3 KB of blocks, each of one record at the block limit: the work
	// of the file stays linear in its size.
	if n := len(record(limit(10))); n != 10 {
		t.Fatalf("record of %d bytes", n)
	}
	tinyBlocks, nTiny := header, 0
	for len(tinyBlocks) < len(header)+5300 {
		tinyBlocks = rawBlock(tinyBlocks, 1, record(limit(10)))
		nTiny++
	}
	tinyBlocks = rawBlock(tinyBlocks, 1, record(limit(10)+1))
	if len(bomb) > 6<<10 {
		t.Fatalf("%d bytes", len(bomb))
	}
	checkFiles(t, h, []fileCase{
		{name: "one datum at the block limit", file: rawBlock(header, 1, record(limit(10))), records: 1},
		{name: "one datum over the block limit", file: rawBlock(header, 1, record(limit(10)+1)), class: ErrMalformed, contains: "per container block"},
		{name: "5.3 KB of arrays of empty records", file: rawBlock(header, 480, bomb), class: ErrMalformed, contains: "zero-size items"},
		{name: "5.3 KB of blocks of arrays of empty records", file: tinyBlocks, class: ErrMalformed, contains: "per container block", records: nTiny},
		{name: "two datums over the block limit", file: rawBlock(header, 2, append(record(40_000), record(40_000)...)), class: ErrMalformed, contains: "per container block", records: 1},
		{name: "two blocks each at the limit", file: rawBlock(rawBlock(header, 1, record(limit(10))), 1, record(limit(10))), records: 2},
		{name: "records of zero bytes claimed", file: rawBlock(header, math.MaxInt64, hDatum(1)), class: ErrMalformed, contains: "zero-size items"},
		{name: "2^40 records in 7 bytes", file: rawBlock(header, 1<<40, hDatum(1)), class: ErrMalformed, contains: "zero-size items"},
	})
	t.Run("per datum through a codec", func(t *testing.T) {
		c := mustCodecFor(t, Options{}, h)
		err := budget(t, 64*mib, func() error { _, err := c.TranscodeToProto(nil, record(1<<20+1)); return err })
		wantClass(t, err, ErrMalformed, "per datum")
	})
}

// TestHostileBombs: blocks that decompress beyond MaxBlockDataSize are
// refused having materialised a few MiB, not 64 (245-290 MB peak before).
func TestHostileBombs(t *testing.T) {
	h := hostileMsg(t, "H")
	own := hSchema(t)
	const over = 64<<20 + 4096
	zeros := make([]byte, 1<<20)
	deflateBomb := func() []byte {
		var buf bytes.Buffer
		w, _ := flate.NewWriter(&buf, flate.BestCompression)
		for n := 0; n < over; n += len(zeros) {
			w.Write(zeros)
		}
		w.Close()
		return buf.Bytes()
	}()
	zstdStream := func() []byte { // a frame without content size
		var buf bytes.Buffer
		w, _ := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
		for n := 0; n < over; n += len(zeros) {
			w.Write(zeros)
		}
		w.Close()
		return buf.Bytes()
	}()
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	zstdFCS := enc.EncodeAll(make([]byte, over), nil)
	snappyClaim := func(n uint64, body []byte) []byte {
		b := binary.AppendUvarint(nil, n)
		b = append(b, body...)
		return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(nil))
	}
	// A legitimate block of 20 MiB that compresses about 1000×: records
	// with a name of 1000 bytes.
	var legit []byte
	rec := appendAvroBytes([]byte{0, 0}, bytes.Repeat([]byte("a"), 1000))
	rec = append(rec, 0, 0, 0, 0)
	for len(legit) < 20<<20 {
		legit = append(legit, rec...)
	}
	nLegit := len(legit) / len(rec)
	compress := func(c Compression, data []byte) []byte {
		out, err := c.Compress(nil, data)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, c := range []struct {
		name    string
		codec   string
		block   []byte
		count   int64
		class   error
		alloc   uint64
		records int
	}{
		{"deflate bomb", "deflate", deflateBomb, 1, ErrMalformed, 40 * mib, 0},
		{"zstd bomb without content size", "zstandard", zstdStream, 1, ErrMalformed, 24 * mib, 0},
		{"zstd bomb with content size", "zstandard", zstdFCS, 1, ErrMalformed, 16 * mib, 0},
		{"snappy claiming 1 GiB", "snappy", snappyClaim(1<<30, []byte{0}), 1, ErrMalformed, 16 * mib, 0},
		{"snappy claiming 60 MiB in 10 bytes", "snappy", snappyClaim(60<<20, make([]byte, 10)), 1, ErrMalformed, 16 * mib, 0},
		{"null block over the limit", "null", nil, 1, ErrMalformed, 16 * mib, 0},
		{"deflate garbage", "deflate", []byte("\xff\xfe\xfd garbage"), 1, ErrMalformed, 16 * mib, 0},
		{"zstd garbage", "zstandard", []byte("\x28\xb5\x2f\xfd garbage"), 1, ErrMalformed, 16 * mib, 0},
		{"snappy bad checksum", "snappy", append(compress(CompressionSnappy, hDatum(1))[:len(compress(CompressionSnappy, hDatum(1)))-1], 0), 1, ErrMalformed, 16 * mib, 0},
		{"deflate: a block of no records holding data", "deflate", compress(CompressionDeflate, hDatum(1)), 0, ErrMalformed, 16 * mib, 0},
		{"zstd: a block of no records holding data", "zstandard", compress(CompressionZstd, hDatum(1)), 0, ErrMalformed, 16 * mib, 0},
		{"deflate 20 MiB at 1000x", "deflate", compress(CompressionDeflate, legit), int64(nLegit), nil, 200 * mib, nLegit},
		{"zstd 20 MiB at 1000x", "zstandard", compress(CompressionZstd, legit), int64(nLegit), nil, 200 * mib, nLegit},
	} {
		t.Run(c.name, func(t *testing.T) {
			var file []byte
			if c.block == nil { // a null block over the limit: its size alone
				file = appendLong(rawHeader(schemaEntry(own), codecEntry(c.codec)), 1)
				file = appendLong(file, over)
			} else {
				file = rawBlock(rawHeader(schemaEntry(own), codecEntry(c.codec)), c.count, c.block)
			}
			var n int
			err := budget(t, c.alloc, func() (err error) { n, err = readContainer(file, h); return err })
			wantClass(t, err, c.class, "")
			sameParallel(t, file, h)
			if n != c.records {
				t.Fatalf("%d records, want %d", n, c.records)
			}
		})
	}
}

// TestHostileCounts: overflowing counts and sizes in blocks and datums.
func TestHostileCounts(t *testing.T) {
	h := hostileMsg(t, "H")
	header := rawHeader(schemaEntry(hSchema(t)))
	c := mustCodecFor(t, Options{}, h)
	datum := func(f func(b []byte) []byte) []byte { return f(appendLong(nil, 1)) }
	for _, tc := range []struct {
		name     string
		file     []byte // a container file, or nil: data is a datum
		data     []byte
		class    error
		contains string
	}{
		{name: "block count negative", file: rawBlock(header, -1, hDatum(1)), class: ErrMalformed},
		{name: "block size negative", file: append(appendLong(appendLong(bytes.Clone(header), 1), -7), hostileSync[:]...), class: ErrMalformed},
		{name: "block size 2^62", file: appendLong(appendLong(bytes.Clone(header), 1), 1<<62), class: ErrMalformed, contains: "MaxBlock"},
		{name: "block count of 11-byte varint", file: append(bytes.Clone(header), bytes.Repeat([]byte{0x80}, 11)...), class: ErrMalformed},
		{name: "block sync marker wrong", file: append(rawBlock(header, 1, hDatum(1))[:len(header)+9], bytes.Repeat([]byte{'x'}, 16)...), class: ErrMalformed, contains: "sync"},
		{name: "bytes left after the block's records", file: rawBlock(header, 1, append(hDatum(1), 7)), class: ErrMalformed, contains: "left after"},
		{name: "fewer bytes than records", file: rawBlock(header, 2, hDatum(1)), class: ErrTruncated},
		{name: "a block of no records holding data", file: rawBlock(rawBlock(header, 1, hDatum(1)), 0, hDatum(2)), class: ErrMalformed, contains: "0 records holds"},
		{name: "array count MaxInt64", data: datum(func(b []byte) []byte { return appendLong(b, math.MaxInt64) }), class: ErrMalformed},
		{name: "array count MinInt64", data: datum(func(b []byte) []byte { return appendLong(b, math.MinInt64) }), class: ErrMalformed},
		{name: "array count negative, size MaxInt64", data: datum(func(b []byte) []byte { return appendLong(appendLong(b, -3), math.MaxInt64) }), class: ErrTruncated, contains: "block size"},
		{name: "array count negative, size negative", data: datum(func(b []byte) []byte { return appendLong(appendLong(b, -3), -1) }), class: ErrMalformed, contains: "negative block size"},
		{name: "long list count MaxInt64", data: datum(func(b []byte) []byte {
			return appendLong(append(b, 0, 0, 0, 0), math.MaxInt64)
		}), class: ErrTruncated, contains: "exceeds"},
		{name: "string length MaxInt64", data: datum(func(b []byte) []byte { return appendLong(append(b, 0), math.MaxInt64) }), class: ErrTruncated, contains: "exceeds"},
		{name: "string length negative", data: datum(func(b []byte) []byte { return appendLong(append(b, 0), -1) }), class: ErrMalformed, contains: "negative"},
		{name: "map count MaxInt64", data: datum(func(b []byte) []byte { return appendLong(append(b, 0, 0), math.MaxInt64) }), class: ErrTruncated},
		{name: "map key length huge", data: datum(func(b []byte) []byte { return appendLong(appendLong(append(b, 0, 0), 1), 1<<40) }), class: ErrTruncated},
		{name: "enum index huge", data: datum(func(b []byte) []byte { return appendLong(append(b, 0, 0, 0), 1<<40) }), class: ErrMalformed, contains: "enum"},
		{name: "union index huge", data: datum(func(b []byte) []byte { return appendLong(append(b, 0, 0, 0, 0, 0), 1<<40) }), class: ErrMalformed, contains: "union"},
		{name: "varint overflowing 64 bits", data: append(bytes.Repeat([]byte{0xff}, 9), 0x7f), class: ErrMalformed, contains: "varint"},
		{name: "varint of 11 bytes", data: bytes.Repeat([]byte{0x80}, 11), class: ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := budget(t, 64*mib, func() error {
				if tc.file != nil {
					_, err := readContainer(tc.file, h)
					return err
				}
				if _, err := c.TranscodeToProto(nil, tc.data); err != nil {
					return err
				}
				return c.Unmarshal(tc.data, dynamicpb.NewMessage(h))
			})
			wantClass(t, err, tc.class, tc.contains)
			if tc.file != nil {
				sameParallel(t, tc.file, h)
			}
		})
	}
}

// TestHostileTruncations reads every prefix of valid files of each codec:
// each gives the records of its complete blocks and then io.EOF when it
// ends between blocks, else an error wrapping ErrTruncated (ErrNotContainer
// inside the magic).
func TestHostileTruncations(t *testing.T) {
	msgs := sampleFoos(24)
	md := msgs[0].ProtoReflect().Descriptor()
	for _, comp := range allCompressions {
		t.Run(string(comp), func(t *testing.T) {
			file := containerBytes(t, comp, 300, msgs)
			// Block boundaries and their cumulative record counts.
			bs := testutil.BlockSpans(t, file)
			ends := map[int64]int{bs[0].Offset: 0}
			total := 0
			for _, b := range bs {
				total += int(b.Count)
				ends[b.End] = total
			}
			if len(ends) < 4 {
				t.Fatalf("%d blocks", len(ends)-1)
			}
			var worst time.Duration
			var worstAlloc uint64
			for cut := 0; cut < len(file); cut++ {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				start := time.Now()
				n, err := readContainer(file[:cut], md)
				worst = max(worst, time.Since(start))
				runtime.ReadMemStats(&after)
				worstAlloc = max(worstAlloc, after.TotalAlloc-before.TotalAlloc)
				if cut%7 == 0 || cut > len(file)-400 {
					sameParallel(t, file[:cut], md)
				}
				want, atEnd := ends[int64(cut)]
				switch {
				case atEnd && err == nil && n == want:
				case !atEnd && cut < 4 && errors.Is(err, ErrNotContainer):
				case !atEnd && errors.Is(err, ErrTruncated):
					if be := blockBefore(ends, cut); n != be {
						t.Fatalf("prefix %d: %d records before the error, want %d", cut, n, be)
					}
					if len(err.Error()) > 2048 || !safetext.Safe(err.Error()) {
						t.Fatalf("prefix %d: error %q", cut, err)
					}
				default:
					t.Fatalf("prefix %d of %d: %d records, error %v", cut, len(file), n, err)
				}
			}
			// The work a prefix costs, counted as the bytes it allocates
			// (under 1 MiB for these files of about 13 KB): a prefix that
			// made a reader decompress or buffer beyond the bytes it holds
			// would allocate for it. Its time is logged, not asserted: a
			// loaded machine takes seconds for what takes milliseconds.
			if worstAlloc > 16*mib {
				t.Fatalf("worst prefix allocated %d KiB (and took %v)", worstAlloc>>10, worst)
			}
			t.Logf("%d prefixes; worst %v, %d KiB", len(file), worst, worstAlloc>>10)
		})
	}
}

// blockBefore returns the records of the complete blocks before offset cut.
func blockBefore(ends map[int64]int, cut int) int {
	best, n := int64(-1), 0
	for off, c := range ends {
		if off < int64(cut) && off > best {
			best, n = off, c
		}
	}
	return n
}

// TestHostileEmbeddedDescriptors: malicious protoavro.descriptors metadata.
func TestHostileEmbeddedDescriptors(t *testing.T) {
	own := hSchema(t)
	fds := hostileFDS(t)
	set := func(files ...*descriptorpb.FileDescriptorProto) []byte {
		b, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: files})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	fdp := protodesc.ToFileDescriptorProto(hostileFile(t))
	missingDep := proto.Clone(fdp).(*descriptorpb.FileDescriptorProto)
	missingDep.Dependency = []string{"nowhere.proto"}
	badType := proto.Clone(fdp).(*descriptorpb.FileDescriptorProto)
	badType.MessageType[0].Field = append(badType.MessageType[0].Field, &descriptorpb.FieldDescriptorProto{
		Name: proto.String("ghost"), Number: proto.Int32(99), TypeName: proto.String(".hostile.Ghost"),
		Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()})
	dupNumber := proto.Clone(fdp).(*descriptorpb.FileDescriptorProto)
	for _, m := range dupNumber.MessageType {
		if m.GetName() == "H" {
			m.Field[1].Number = proto.Int32(1)
		}
	}
	// Nested DescriptorProtos 20,000 deep: beyond proto.Unmarshal's
	// recursion limit.
	deep := []byte{}
	for range 20_000 {
		inner := protowire.AppendTag(nil, 1, protowire.BytesType)
		inner = protowire.AppendBytes(inner, []byte("M"))
		inner = protowire.AppendTag(inner, 3, protowire.BytesType)
		deep = protowire.AppendBytes(inner, deep)
	}
	deepFile := protowire.AppendTag(nil, 1, protowire.BytesType)
	deepFile = protowire.AppendBytes(deepFile, []byte("deep.proto"))
	deepFile = protowire.AppendTag(deepFile, 4, protowire.BytesType)
	deepFile = protowire.AppendBytes(deepFile, deep)
	deepSet := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), deepFile)
	// 300 messages nested in one another (valid): a deep but finite schema.
	nestedFile := &descriptorpb.FileDescriptorProto{Name: proto.String("n.proto"), Package: proto.String("hostile"), Syntax: proto.String("proto3")}
	{
		var inner *descriptorpb.DescriptorProto
		for i := 300; i >= 0; i-- {
			m := &descriptorpb.DescriptorProto{Name: proto.String(fmt.Sprintf("L%d", i))}
			if inner != nil {
				m.NestedType = []*descriptorpb.DescriptorProto{inner}
			}
			inner = m
		}
		nestedFile.MessageType = []*descriptorpb.DescriptorProto{inner}
	}
	recursive := &descriptorpb.FileDescriptorProto{Name: proto.String("r.proto"), Package: proto.String("hostile"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("H"), Field: []*descriptorpb.FieldDescriptorProto{
			{Name: proto.String("self"), Number: proto.Int32(1), TypeName: proto.String(".hostile.H"),
				Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()}}}}}
	conflict := proto.Clone(recursive).(*descriptorpb.FileDescriptorProto)
	conflict.MessageType[0].Field[0].Name = proto.String("id")
	recSchema := `{"type":"record","name":"H","namespace":"hostile","fields":[{"name":"self","type":["null","H"],"default":null}]}`
	// Messages N0..N29, each with 3 fields of the level below, read from
	// a writer schema of records without unions: every datum takes 0
	// bytes and would expand into 3^30 nested messages.
	fanFile := &descriptorpb.FileDescriptorProto{Name: proto.String("fan.proto"), Package: proto.String("hostile"), Syntax: proto.String("proto3")}
	for d := range 30 {
		m := &descriptorpb.DescriptorProto{Name: proto.String(fmt.Sprintf("N%d", d))}
		for f := range 3 {
			if d == 0 {
				break // N0 is empty; the writer's null fields are skipped
			}
			fp := &descriptorpb.FieldDescriptorProto{Name: proto.String(fmt.Sprintf("f%d", f)), Number: proto.Int32(int32(f + 1)),
				Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_BOOL.Enum()}
			if d > 0 {
				fp.Type = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
				fp.TypeName = proto.String(fmt.Sprintf(".hostile.N%d", d-1))
			}
			m.Field = append(m.Field, fp)
		}
		fanFile.MessageType = append(fanFile.MessageType, m)
	}
	fanSchema := strings.Replace(emptyNest(30, 3), `{"name":"junk","type":{"type":"array","items":`, "", 1)
	fanSchema = strings.Replace(fanSchema[:len(fanSchema)-2], `"name":"N29"`, `"name":"N29","namespace":"hostile"`, 1)
	t.Run("3^30 nested messages from empty records", func(t *testing.T) {
		file := rawHeader(schemaEntry(fanSchema), kv{[]byte(MetaMessage), []byte("hostile.N29")}, kv{[]byte(MetaDescriptors), set(fanFile)})
		file = rawBlock(file, 1, nil)
		err := budget(t, 256*mib, func() error { _, err := readContainer(file, nil); return err })
		wantClass(t, err, ErrMalformed, "zero-size items")
	})
	for _, c := range []struct {
		name, msg string
		fds       []byte
		schema    string
		class     error
		contains  string
	}{
		{"valid", "hostile.H", fds, own, nil, ""},
		{"garbage", "hostile.H", []byte("\xff\xff\xff\x1b[2J"), own, ErrMalformed, MetaDescriptors},
		{"empty set", "hostile.H", []byte{}, own, ErrIncompatible, "no embedded protobuf type"},
		{"message not in the set", "hostile.Nope", fds, own, ErrMalformed, "not in"},
		{"name with terminal escapes", "\x1b]0;owned\x07", fds, own, ErrMalformed, `\x1b]0;owned\a`},
		{"name of an enum", "hostile.E", fds, own, ErrMalformed, "not a message"},
		{"missing dependency", "hostile.H", set(missingDep), own, ErrMalformed, MetaDescriptors},
		{"unresolvable field type", "hostile.H", set(badType), own, ErrMalformed, MetaDescriptors},
		{"duplicate field number", "hostile.H", set(dupNumber), own, ErrMalformed, MetaDescriptors},
		{"the same file twice", "hostile.H", set(fdp, fdp), own, ErrMalformed, MetaDescriptors},
		{"nested 20,000 deep", "M", deepSet, own, ErrMalformed, MetaDescriptors},
		{"300 nested message types", "hostile.L0", set(nestedFile), `{"type":"record","name":"L0","namespace":"hostile","fields":[]}`, nil, ""},
		{"recursive message", "hostile.H", set(recursive), recSchema, nil, ""},
		{"descriptors of another shape than the schema", "hostile.H", set(conflict), own, ErrIncompatible, "cannot be read as record"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := rawHeader(schemaEntry(c.schema), kv{[]byte(MetaMessage), []byte(c.msg)}, kv{[]byte(MetaDescriptors), c.fds})
			err := budget(t, 256*mib, func() error { _, err := readContainer(file, nil); return err })
			wantClass(t, err, c.class, c.contains)
			sameParallel(t, file, nil)
		})
	}
}

// TestHostileEmbeddedPublicImportChain: embedded descriptors of 20,000
// files each importing the one before publicly, on which protodesc would
// follow 2·10⁸ public imports (19 s and gigabytes for the 838 KB set), are
// refused at the header with ErrMalformed naming the file where the bound
// was passed, within an allocation budget of what decoding the set takes.
func TestHostileEmbeddedPublicImportChain(t *testing.T) {
	set, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: testutil.ImportChain(20_000, true)})
	if err != nil {
		t.Fatal(err)
	}
	schema := `{"type":"record","name":"M","namespace":"chain","fields":[{"name":"s","type":"string"}]}`
	file := rawHeader(schemaEntry(schema), kv{[]byte(MetaMessage), []byte("chain.M")}, kv{[]byte(MetaDescriptors), set})
	err = budget(t, 64*mib, func() error { _, err := readContainer(file, nil); return err })
	wantClass(t, err, ErrMalformed, `protoavro.descriptors: descriptor imports beyond the limits: at "f1025.proto"`)
	if !errors.Is(err, protofiles.ErrImportLimit) {
		t.Errorf("error %v does not wrap ErrImportLimit", err)
	}
	sameParallel(t, file, nil)
}

// TestEmbeddedPublicImportChainWithinBound: a file whose message type
// sits at the end of the longest chain of public imports the bound allows
// (1,025 files) is written and read back with its embedded type.
func TestEmbeddedPublicImportChainWithinBound(t *testing.T) {
	reg, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: testutil.ImportChain(1025, true)})
	if err != nil {
		t.Fatal(err)
	}
	d, err := reg.FindDescriptorByName("chain.M")
	if err != nil {
		t.Fatal(err)
	}
	md := d.(protoreflect.MessageDescriptor)
	var buf bytes.Buffer
	cw, err := NewContainerWriter(&buf, md, ContainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"a", "b", "c"} {
		m := dynamicpb.NewMessage(md)
		m.Set(md.Fields().ByName("s"), protoreflect.ValueOfString(s))
		if err := cw.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	cr, err := NewContainerReader(bytes.NewReader(buf.Bytes()), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := cr.MessageType().Descriptor().ParentFile().Path(); got != "f1024.proto" {
		t.Errorf("embedded type from %s, want f1024.proto", got)
	}
	var got []string
	for {
		m := cr.MessageType().New()
		if err := cr.Read(m.Interface()); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.Get(m.Descriptor().Fields().ByName("s")).String())
	}
	if strings.Join(got, ",") != "a,b,c" {
		t.Errorf("read %q, want a, b, c", got)
	}
}

// TestHostileAvroOutput: protobuf input that would expand into more Avro
// than a container block may hold is an error naming the record, never a
// block the reader refuses; a single datum is refused as it grows past the
// limit, within a budget far below what it would take.
func TestHostileAvroOutput(t *testing.T) {
	list := hostileMsg(t, "DoubleList")
	items := list.Fields().ByName("items")
	elems := func(n int) []byte { // n empty Doubles: 2 bytes of wire, 1600 of Avro each
		return bytes.Repeat([]byte{0x0a, 0}, n)
	}
	c := mustCodecFor(t, Options{}, list)
	huge := elems(200_000) // 400 KB of wire, 320 MB of Avro
	dyn := dynamicpb.NewMessage(list)
	if err := proto.Unmarshal(huge, dyn); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		run  func() ([]byte, error)
	}{
		{"TranscodeToAvro", func() ([]byte, error) { return c.TranscodeToAvro(nil, huge) }},
		{"Marshal", func() ([]byte, error) { return c.Marshal(dyn) }},
	} {
		t.Run(f.name, func(t *testing.T) {
			var out []byte
			err := budget(t, 256*mib, func() error { var err error; out, err = f.run(); return err })
			wantClass(t, err, ErrOutOfRange, "exceeds the limit of 33554432 bytes")
			if len(out) != 0 {
				t.Errorf("%d bytes returned with the error", len(out))
			}
		})
	}
	over, under := 25_000, 20_000 // 40 MB and 32 MB of Avro
	for _, c := range []struct {
		name  string
		n     int
		wire  bool
		class error
	}{
		{"WriteWire over the limit", over, true, ErrOutOfRange},
		{"Write over the limit", over, false, ErrOutOfRange},
		{"WriteWire within the limit, read back", under, true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := budget(t, 256*mib, func() error {
				w, err := NewContainerWriter(&buf, list, ContainerOptions{Workers: 1})
				if err != nil {
					return err
				}
				if c.wire {
					err = w.WriteWire(elems(c.n))
				} else {
					m := dynamicpb.NewMessage(list)
					l := m.Mutable(items).List()
					for range c.n {
						l.Append(protoreflect.ValueOfMessage(dynamicpb.NewMessage(items.Message())))
					}
					err = w.Write(m)
				}
				if err == nil {
					err = w.Close()
				}
				return err
			})
			wantClass(t, err, c.class, "")
			if err != nil {
				var re *RecordError
				if !errors.As(err, &re) || re.Index != 0 || !strings.Contains(err.Error(), "DoubleList.items[") {
					t.Fatalf("error %v does not name record 0 and where in it", err)
				}
				return
			}
			n, err := readContainer(buf.Bytes(), list)
			if err != nil || n != 1 {
				t.Fatalf("read back: %d records, %v", n, err)
			}
		})
	}
}

// TestHostileUnmarshalListCount: a 64 MiB datum whose list claims as many
// items as bytes remain. TranscodeToProto allocates nothing for it, and the
// direct struct reader of Codec.Unmarshal (reader_struct.go) does not
// allocate the claimed list: lists grow as their elements are read.
func TestHostileUnmarshalListCount(t *testing.T) {
	msg := sampleFoo()
	c := mustCodec(t, Options{}, &avro2147pb.Foo{})
	// Foo's intArray list: the field after the head, claiming len(rest)
	// items of ints that are all 0x80 (unterminated varints).
	const size = 64 << 20
	for _, list := range []string{"intArray", "fooArray"} {
		head := new(avroBuf)
		fooHead(head)
		data := head.null().null().null().bytes() // string, bytes, enum
		if list == "fooArray" {
			data = append(data, 0) // no intArray items
		}
		count := int64(size - len(data) - 4) // as many items as bytes remain
		data = appendLong(data, count)
		data = append(data, bytes.Repeat([]byte{0x80}, size-len(data))...)
		for _, f := range []struct {
			name string
			run  func() error
		}{
			{"TranscodeToProto", func() error { _, err := c.TranscodeToProto(nil, data); return err }},
			{"Unmarshal", func() error { return c.Unmarshal(data, proto.Clone(msg)) }},
		} {
			t.Run(list+"/"+f.name, func(t *testing.T) {
				err := budget(t, 256*mib, f.run)
				if err == nil {
					t.Fatal("no error")
				}
			})
		}
	}
}

// TestHostileSchemaText: untrusted schema text in errors is bounded and
// escaped.
func TestHostileSchemaText(t *testing.T) {
	// Records nested 30 deep whose record fields default to {}: the parser
	// checks the defaults without walking their 3^30 paths.
	defaults := `{"type":"record","name":"R30","fields":[{"name":"x","type":"int","default":7}]}`
	for i := 29; i >= 0; i-- {
		defaults = fmt.Sprintf(`{"type":"record","name":"R%d","fields":[{"name":"x","type":"int","default":7},{"name":"a","type":%s,"default":{}},{"name":"b","type":"R%d","default":{}},{"name":"c","type":"R%d","default":{}}]}`, i, defaults, i+1, i+1)
	}
	for _, c := range []struct {
		name, text, contains string
	}{
		{"unknown type with escapes", `{"type":"record","name":"R","fields":[{"name":"a","type":"\u001b[2J` + strings.Repeat("x", 100000) + `"}]}`, "invalid Avro schema"},
		{"garbage with escapes", "\x1b]0;title\x07" + strings.Repeat("\x1b[31m", 100000), "invalid Avro schema"},
		{"invalid UTF-8", "{\"type\":\"\xff\xfe\"}", "invalid Avro schema"},
		{"name of 1 MB", `{"type":"record","name":"` + strings.Repeat("n", mib) + `","fields":[]}`, ""},
		{"enum of 200,000 symbols", `{"type":"enum","name":"E","symbols":[` + strings.TrimSuffix(strings.Repeat(`"S",`, 200000), ",") + `]}`, "invalid Avro schema"},
		{"deep unions", strings.Repeat(`["null",`, 300) + `"long"` + strings.Repeat("]", 300), "nested more than"},
		{"defaults that expand 3^30 times", defaults, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := budget(t, 256*mib, func() error { _, err := ParseSchema([]byte(c.text)); return err })
			if c.contains == "" {
				if err != nil {
					wantClass(t, err, ErrInvalidSchema, "")
				}
				return
			}
			wantClass(t, err, ErrInvalidSchema, c.contains)
		})
	}
}

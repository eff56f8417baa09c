package protoavro

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/typepb"

	"github.com/protoavro/protoavro/protoavro/ocf"
)

// nullablePerson is a writer schema of Person as Spark and avsc write
// one: the name is a union with null, which a proto3 string cannot take.
const nullablePerson = `{"type":"record","name":"Person","namespace":"protoavro.test.evolution","fields":[
  {"name":"name","type":["null","string"],"default":null},
  {"name":"age","type":"long"},
  {"name":"tags","type":{"type":"array","items":"string"}}]}`

// personDatum is a datum of nullablePerson: name nil is null.
func personDatum(name []byte, age int64, tags ...string) []byte {
	var b []byte
	if name == nil {
		b = appendLong(b, 0)
	} else {
		b = appendLong(appendLong(b, 1), int64(len(name)))
		b = append(b, name...)
	}
	b = appendLong(b, age)
	if len(tags) > 0 {
		b = appendLong(b, int64(len(tags)))
		for _, s := range tags {
			b = append(appendLong(b, int64(len(s))), s...)
		}
	}
	return appendLong(b, 0)
}

// goodPerson is record i of a nullablePerson file when it is sound.
func goodPerson(i int) []byte {
	tags := []string{"a", "bb", "ccc"}[:i%4%3]
	return personDatum(fmt.Appendf(nil, "p%d", i), int64(i), tags...)
}

// badRecords of datumFile: the records that do not decode, each skipped
// alone, by index, with the error class of each.
var badRecords = map[int]struct {
	datum []byte
	class error
}{
	10:  {personDatum(nil, 10), ErrIncompatible},                 // a null for a string
	11:  {personDatum([]byte("p\xff11"), 11, "x"), ErrMalformed}, // invalid UTF-8
	49:  {personDatum([]byte("p49"), 1<<40), ErrOutOfRange},      // a uint32 beyond 32 bits; last of block 0
	50:  {personDatum(nil, 50, "y", "z"), ErrIncompatible},       // first of block 1
	120: {personDatum(nil, 120), ErrIncompatible},                // before the damage of block 2
	199: {personDatum([]byte("p199\xc0"), 199), ErrMalformed},    // last of block 3, before its trailing bytes
	249: {personDatum(nil, 249, "last"), ErrIncompatible},        // the file's last record
}

// Where datumFile is damaged: record 130 claims a name longer than its
// block (its end cannot be found: the rest of block 2 goes with it), and
// block 3 has bytes after its records.
const (
	damagedRecord = 130
	trailingBlock = 3
)

// datumFile is a container file of nullablePerson written by the ocf
// writer: 250 records in blocks of 50, badRecords among them, damaged as
// damagedRecord and trailingBlock say. It returns the file and what Resync
// is to skip: the bytes of the bad datums, the rest of block 2 and block
// 3's trailing bytes, in file order.
func datumFile(t testing.TB, codec ocf.Codec) (file []byte, skipped [][]byte) {
	t.Helper()
	var buf bytes.Buffer
	ow, err := ocf.NewWriter(&buf, ocf.WriterOptions{Schema: []byte(nullablePerson), Codec: codec})
	if err != nil {
		t.Fatal(err)
	}
	for b := range 5 {
		var data, rest []byte
		for i := b * 50; i < b*50+50; i++ {
			d := goodPerson(i)
			if bad, ok := badRecords[i]; ok {
				d = bad.datum
				skipped = append(skipped, d)
			}
			if i == damagedRecord {
				// A name of 2^40 bytes: neither the decoder nor the writer
				// schema's skipper finds its end.
				d = appendLong(appendLong(nil, 1), 1<<40)
			}
			if i >= damagedRecord && b == damagedRecord/50 {
				rest = append(rest, d...)
			}
			data = append(data, d...)
		}
		if rest != nil {
			skipped = append(skipped, rest)
		}
		if b == trailingBlock {
			data = append(data, 0xde, 0xad, 0x00)
			skipped = append(skipped, data[len(data)-3:])
		}
		if err := ow.WriteBlock(50, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := ow.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), skipped
}

// readOn is what reading a whole file with Resync after each error gave.
type readOn struct {
	records [][]byte // wire bytes, in order
	errs    []error  // the errors Resync recovered from, in order
	skips   []Skipped
	rejects []byte // what Resync copied
	count   int64  // Records at the end
	end     error  // nil, or the error of NewContainerReader or Resync that ended the reading
}

// readResyncing reads file into mt with workers to its end, with ReadWire
// or, with delimited, NextDelimited, calling Resync after each error.
func readResyncing(t *testing.T, file []byte, mt protoreflect.MessageType, workers int, delimited bool) readOn {
	t.Helper()
	var s readOn
	cr, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{Message: mt, Workers: workers})
	if err != nil {
		s.end = err
		return s
	}
	var rejects bytes.Buffer
	err = readEach(cr, delimited, &s.records, func(err error) (bool, error) {
		if err != io.EOF {
			s.errs = append(s.errs, err)
			var sk Skipped
			sk, err = cr.Resync(&rejects)
			s.skips = append(s.skips, sk)
		}
		if err != nil && err != io.EOF {
			s.end = err
		}
		return err != nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.rejects, s.count = rejects.Bytes(), cr.Records()
	return s
}

// TestResyncSkipsBadDatumAlone reads a file whose records hold values the
// reader's type cannot take (a null for a string, invalid UTF-8, a number
// out of a uint32's range), at the start, middle and end of blocks, with
// a record whose end cannot be found and a block with bytes after its
// records: Resync skips each bad datum alone, and reads every other
// record; the rest of a block only after the damaged record, and the
// trailing bytes alone. The sequential and parallel readers, by ReadWire
// and NextDelimited, report the same errors, skips and copied bytes.
func TestResyncSkipsBadDatumAlone(t *testing.T) {
	md := loadPersonVariant(t, "v2", "int64 age = 2;", "uint32 age = 2;")
	mt := dynamicpb.NewMessageType(md)
	fd := md.Fields()
	for _, codec := range []ocf.Codec{ocf.Null, ocf.Deflate} {
		file, wantSkipped := datumFile(t, codec)
		// The records read are the sound ones, in order.
		var want []int
		for i := range 250 {
			if _, bad := badRecords[i]; !bad && (i < damagedRecord || i >= 150) {
				want = append(want, i)
			}
		}
		// Each error, the record's index (-1: block 3's trailing bytes),
		// and what Resync skips after it.
		type step struct {
			index int64
			skip  Skipped
		}
		var steps []step
		for _, i := range []int{10, 11, 49, 50, 120, damagedRecord, 199, -1, 249} {
			switch {
			case i == damagedRecord:
				steps = append(steps, step{int64(i), Skipped{Records: 150 - damagedRecord}})
			case i < 0:
				steps = append(steps, step{-1, Skipped{}})
			default:
				steps = append(steps, step{int64(i), Skipped{Records: 1}})
			}
		}
		for k := range steps {
			steps[k].skip.Bytes = int64(len(wantSkipped[k]))
		}
		for _, workers := range []int{1, 2, 4} {
			for _, delimited := range []bool{false, true} {
				name := fmt.Sprintf("%s/workers=%d/delimited=%v", codec, workers, delimited)
				got := readResyncing(t, file, mt, workers, delimited)
				if got.end != nil {
					t.Fatalf("%s: %v", name, got.end)
				}
				if len(got.records) != len(want) {
					t.Errorf("%s: %d records read, want %d", name, len(got.records), len(want))
				}
				for k, w := range got.records[:min(len(got.records), len(want))] {
					m := dynamicpb.NewMessage(md)
					if err := proto.Unmarshal(w, m); err != nil {
						t.Fatal(err)
					}
					i := want[k]
					if age, nm := m.Get(fd.ByName("age")).Uint(), m.Get(fd.ByName("name")).String(); age != uint64(i) || nm != fmt.Sprintf("p%d", i) ||
						m.Get(fd.ByName("tags")).List().Len() != i%4%3 {
						t.Fatalf("%s: record %d read is age %d, name %q; want record %d", name, k, age, nm, i)
					}
				}
				if len(got.errs) != len(steps) {
					t.Fatalf("%s: %d errors, want %d: %v", name, len(got.errs), len(steps), got.errs)
				}
				for k, s := range steps {
					err := got.errs[k]
					var re *RecordError
					var ce *ContainerError
					switch {
					case s.index < 0:
						if !errors.As(err, &ce) || ce.Block != trailingBlock || !strings.Contains(err.Error(), "3 bytes left after the block's records") {
							t.Errorf("%s: error %d: %v, want block %d's trailing bytes", name, k, err, trailingBlock)
						}
					case !errors.As(err, &re) || re.Index != s.index:
						t.Errorf("%s: error %d: %v, want one of record %d", name, k, err, s.index)
					case s.index == damagedRecord:
						if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrMalformed) {
							t.Errorf("%s: record %d: %v, want damaged data", name, s.index, err)
						}
					case !errors.Is(err, badRecords[int(s.index)].class):
						t.Errorf("%s: record %d: %v, want %v", name, s.index, err, badRecords[int(s.index)].class)
					}
					if got.skips[k] != s.skip {
						t.Errorf("%s: Resync after %v skipped %+v, want %+v", name, err, got.skips[k], s.skip)
					}
				}
				if want := slices.Concat(wantSkipped...); !bytes.Equal(got.rejects, want) {
					t.Errorf("%s: Resync copied %x, want %x", name, got.rejects, want)
				}
				if got.count != 250 {
					t.Errorf("%s: Records %d, want 250 (read and skipped)", name, got.count)
				}
			}
		}
	}
}

// manyBadFile is a container file of nullablePerson in two blocks: the
// first of 3 × maxSegments + 10 records, every third one holding a null
// for the name (more bad records than the parallel reader's workers decode
// past in one block), its last record damaged (its end cannot be found);
// the second of 20 sound records with bytes after them. It returns the
// file and the indexes of the records read sound.
func manyBadFile(t testing.TB, codec ocf.Codec) (file []byte, sound []int) {
	t.Helper()
	var buf bytes.Buffer
	ow, err := ocf.NewWriter(&buf, ocf.WriterOptions{Schema: []byte(nullablePerson), Codec: codec})
	if err != nil {
		t.Fatal(err)
	}
	first := 3*maxSegments + 10
	var data []byte
	for i := range first {
		switch {
		case i == first-1:
			data = append(data, appendLong(appendLong(nil, 1), 1<<40)...)
		case i%3 == 1:
			data = append(data, personDatum(nil, int64(i))...)
		default:
			data = append(data, goodPerson(i)...)
			sound = append(sound, i)
		}
	}
	if err := ow.WriteBlock(int64(first), data); err != nil {
		t.Fatal(err)
	}
	data = nil
	for i := first; i < first+20; i++ {
		data = append(data, goodPerson(i)...)
		sound = append(sound, i)
	}
	if err := ow.WriteBlock(20, append(data, 0x02)); err != nil {
		t.Fatal(err)
	}
	if err := ow.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), sound
}

// TestResyncManyBadRecordsInBlock reads manyBadFile, whose first block
// holds more bad records than the workers decode past, with 1, 2 and 4
// workers, by ReadWire and NextDelimited: every sound record, in order;
// each bad record an error of its own index that Resync skips alone; the
// damaged last record and the second block's trailing byte skipped with
// what follows them in their block; the same errors, skips and copied
// bytes as the sequential reader.
func TestResyncManyBadRecordsInBlock(t *testing.T) {
	md := loadPersonVariant(t, "v2", "int64 age = 2;", "uint32 age = 2;")
	mt := dynamicpb.NewMessageType(md)
	age := md.Fields().ByName("age")
	for _, codec := range []ocf.Codec{ocf.Null, ocf.Deflate} {
		file, sound := manyBadFile(t, codec)
		want := readResyncing(t, file, mt, 1, false)
		bad := (3*maxSegments + 9) / 3
		if want.end != nil || len(want.errs) != bad+2 || len(want.records) != len(sound) {
			t.Fatalf("%s: sequential: end %v, %d errors, %d records; want none, %d, %d", codec, want.end, len(want.errs), len(want.records), bad+2, len(sound))
		}
		for k := range bad {
			var re *RecordError
			if !errors.As(want.errs[k], &re) || re.Index != int64(3*k+1) || !errors.Is(re, ErrIncompatible) || want.skips[k].Records != 1 {
				t.Fatalf("%s: sequential: error %d: %v, skipped %+v; want record %d incompatible, skipped alone", codec, k, want.errs[k], want.skips[k], 3*k+1)
			}
		}
		for k, w := range want.records {
			m := dynamicpb.NewMessage(md)
			if err := proto.Unmarshal(w, m); err != nil || m.Get(age).Uint() != uint64(sound[k]) {
				t.Fatalf("%s: sequential: record %d read is %v (%v), want age %d", codec, k, m, err, sound[k])
			}
		}
		for _, workers := range []int{2, 4} {
			for _, delimited := range []bool{false, true} {
				got := readResyncing(t, file, mt, workers, delimited)
				if !slices.EqualFunc(got.records, want.records, bytes.Equal) || fmt.Sprint(got.errs) != fmt.Sprint(want.errs) ||
					!slices.Equal(got.skips, want.skips) || !bytes.Equal(got.rejects, want.rejects) || got.count != want.count || got.end != nil {
					t.Errorf("%s/workers=%d/delimited=%v: %d records, %d errors, Records %d, end %v; sequential: %d records, %d errors, Records %d",
						codec, workers, delimited, len(got.records), len(got.errs), got.count, got.end, len(want.records), len(want.errs), want.count)
				}
			}
		}
	}
}

// FuzzResyncDatum reads damaged variants of datumFile (records that do not
// decode for their values, damage and trailing bytes) with 1 and 3
// workers, by ReadWire and NextDelimited: the same records, errors, skips,
// copied bytes and end.
func FuzzResyncDatum(f *testing.F) {
	for _, codec := range []ocf.Codec{ocf.Null, ocf.Deflate} {
		file, _ := datumFile(f, codec)
		f.Add(file)
		f.Add(file[:len(file)*2/3])
		bad := bytes.Clone(file)
		bad[len(bad)/3] ^= 0x01
		f.Add(bad)
		many, _ := manyBadFile(f, codec)
		f.Add(many)
	}
	var mt protoreflect.MessageType
	f.Fuzz(func(t *testing.T, file []byte) {
		if mt == nil {
			mt = dynamicpb.NewMessageType(loadPersonVariant(t, "v2", "int64 age = 2;", "uint32 age = 2;"))
		}
		want := readResyncing(t, file, mt, 1, false)
		for _, delimited := range []bool{false, true} {
			got := readResyncing(t, file, mt, 3, delimited)
			if !slices.EqualFunc(got.records, want.records, bytes.Equal) || fmt.Sprint(got.errs) != fmt.Sprint(want.errs) ||
				!slices.Equal(got.skips, want.skips) || !bytes.Equal(got.rejects, want.rejects) || got.count != want.count ||
				fmt.Sprint(got.end) != fmt.Sprint(want.end) {
				t.Fatalf("delimited=%v: %d records, errors %v, skips %+v, Records %d, end %v;\nsequential: %d records, errors %v, skips %+v, Records %d, end %v",
					delimited, len(got.records), got.errs, got.skips, got.count, got.end,
					len(want.records), want.errs, want.skips, want.count, want.end)
			}
		}
	})
}

// TestReaderNamesFileOptions reads files written with mapping options
// into their message type with the reader's own options: the
// incompatibility, at NewContainerReader or on a record, stays
// ErrIncompatible and names the file's options, escaped, and
// ReaderOptions.FileOptions, with which the files read back. A reader
// whose options are the file's, or a file that records none, gets no such
// note.
func TestReaderNamesFileOptions(t *testing.T) {
	packed, err := anypb.New(&timestamppb.Timestamp{Seconds: 1, Nanos: 5})
	if err != nil {
		t.Fatal(err)
	}
	typ := &typepb.Type{Name: "T", Options: []*typepb.Option{{Name: "o", Value: packed}}}
	st, err := structpb.NewStruct(map[string]any{"a": 1.0, "b": []any{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opts Options
		m    proto.Message
		// meta replaces the file's MetaOptions when set.
		meta string
		// open says that the error comes from NewContainerReader.
		open bool
	}{
		{"engine-ready, on a record", EngineReady(), typ, "", false},
		{"dynamic as JSON, on a record", Options{DynamicAsJSON: true}, typ, "", false},
		{"JSON carrier, at open", Options{RecursionDepth: 1, RecursionCarrier: CarrierJSON}, st, "", true},
		{"options with a line break", Options{RecursionDepth: 1, RecursionCarrier: CarrierJSON}, st, "recursion=1\ncarrier=json\u2028", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := writeContainer(t, c.m.ProtoReflect().Descriptor(), ContainerOptions{Options: c.opts}, c.m)
			meta := c.opts.String()
			if c.meta != "" {
				file, meta = withMetaOptions(t, file, c.meta), c.meta
			}
			mt := c.m.ProtoReflect().Type()
			err := readOne(file, ReaderOptions{Message: mt}, c.m)
			if !errors.Is(err, ErrIncompatible) {
				t.Fatalf("read with the default options: %v, want ErrIncompatible", err)
			}
			var ce *ContainerError
			if errors.As(err, &ce) != c.open || c.open && ce.Block != -1 {
				t.Errorf("%v: want an error at open %v", err, c.open)
			}
			var re *RecordError
			if !c.open && (!errors.As(err, &re) || re.Index != 0) {
				t.Errorf("%v: want an error of record 0", err)
			}
			quoted := strings.NewReplacer("\n", `\n`, "\u2028", `\u2028`).Replace(meta)
			note := ` (the file was written with options "` + quoted + `"; ReaderOptions.FileOptions reads it with them)`
			if !strings.HasSuffix(err.Error(), note) {
				t.Errorf("error %q does not end with %q", err, note)
			}
			if err := readOne(file, ReaderOptions{Message: mt, FileOptions: true}, c.m); err != nil {
				t.Errorf("with FileOptions: %v", err)
			}
			// The reader's options the file's: no note (the file reads).
			if err := readOne(file, ReaderOptions{Message: mt, Options: c.opts}, c.m); err != nil {
				t.Errorf("with the file's options: %v", err)
			}
		})
	}
	// An incompatibility of a file that records no options, or the
	// reader's: not about options.
	md := loadPerson(t, "v2")
	other := loadPersonVariant(t, "v2", "string name = 1;", "int32 name = 1;")
	m := person(t, md, map[string]any{"name": "n"})
	file := writeContainer(t, md, ContainerOptions{}, m)
	for _, f := range [][]byte{file, withMetaOptions(t, file, "")} {
		err := readOne(f, ReaderOptions{Message: dynamicpb.NewMessageType(other)}, m)
		if !errors.Is(err, ErrIncompatible) || strings.Contains(err.Error(), "FileOptions") {
			t.Errorf("a string read as int32: %v, want ErrIncompatible without a note on options", err)
		}
	}
}

// withMetaOptions returns file with its MetaOptions replaced by meta, or
// removed when meta is "".
func withMetaOptions(t *testing.T, file []byte, meta string) []byte {
	t.Helper()
	or, err := ocf.NewReader(bytes.NewReader(file), ocf.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := or.Header()
	md := map[string][]byte{}
	for k, v := range h.Metadata {
		if !strings.HasPrefix(k, "avro.") && k != MetaOptions {
			md[k] = v
		}
	}
	if meta != "" {
		md[MetaOptions] = []byte(meta)
	}
	var out bytes.Buffer
	ow, err := ocf.NewWriter(&out, ocf.WriterOptions{Schema: h.Schema, Codec: h.Codec, Metadata: md})
	if err != nil {
		t.Fatal(err)
	}
	copyBlocks(t, or, ow)
	return out.Bytes()
}

// readOne reads the one record of file with opts and compares it with
// want.
func readOne(file []byte, opts ReaderOptions, want proto.Message) error {
	cr, err := NewContainerReader(bytes.NewReader(file), opts)
	if err != nil {
		return err
	}
	m := cr.NewMessage()
	if err := cr.Read(m); err != nil {
		return err
	}
	b, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	got := want.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(b, got); err != nil || !proto.Equal(got, want) {
		return fmt.Errorf("read %v, want %v (%v)", got, want, err)
	}
	if err := cr.Read(m); err != io.EOF {
		return fmt.Errorf("after the record: %v, want io.EOF", err)
	}
	return nil
}

// TestContainerWriterRefusesNegativeBlockSize: a negative BlockSize is
// ErrInvalidOptions naming it, not the default; 0 is the default.
func TestContainerWriterRefusesNegativeBlockSize(t *testing.T) {
	md := (&typepb.Type{}).ProtoReflect().Descriptor()
	for _, size := range []int{-1, -1 << 40} {
		_, err := NewContainerWriter(io.Discard, md, ContainerOptions{BlockSize: size})
		if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), fmt.Sprintf("ContainerOptions.BlockSize %d is negative", size)) {
			t.Errorf("BlockSize %d: %v, want ErrInvalidOptions naming it", size, err)
		}
	}
	w, err := NewContainerWriter(io.Discard, md, ContainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

package protoavro

// FuzzBinaryReadersAgree, the differential fuzz target of the readers of
// Avro binary data, which all read through internal/avrobin: the codec
// (TranscodeToProto), avrojson (AppendJSON, as the CLI's tojson and cat
// read a datum) with avrobin's Skipper (which tojson uses to find where
// records end), and container files (ocf's framing of blocks, read
// through ContainerReader). It checks that they accept and refuse the same
// datums, with the same error classes, and read the same values.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avrojson"
	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/limits"
	"github.com/protoavro/protoavro/internal/testpb/legacypb"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// agreeType is one message type under test, with each reader of its
// schema (the default profile's).
type agreeType struct {
	md     protoreflect.MessageDescriptor
	mt     protoreflect.MessageType
	c      *Codec
	schema []byte           // the schema JSON, as a container header holds it
	node   *avroschema.Node // schema, parsed as tojson parses a header's
	conv   *avrojson.Schema // node, compiled as tojson compiles it
	skip   *avrobin.Skipper // node, compiled as tojson compiles it
	name   string           // md's full name, for messages
}

var (
	agreeTypesOnce sync.Once
	agreeTypesAll  []*agreeType
	agreeTypesErr  error
)

// agreeTypes returns the message types of the test protos (testutil's
// Messages), the zero-size records of legacy/zerosize.proto, and
// google.protobuf.FieldMask, Empty and Struct, each with its readers.
func agreeTypes(t testing.TB) []*agreeType {
	t.Helper()
	agreeTypesOnce.Do(func() {
		mds := append(testutil.Messages(),
			(&legacypb.Nothing{}).ProtoReflect().Descriptor(),
			(&legacypb.Marker{}).ProtoReflect().Descriptor(),
			(&legacypb.Markers{}).ProtoReflect().Descriptor(),
			(&fieldmaskpb.FieldMask{}).ProtoReflect().Descriptor(),
			(&emptypb.Empty{}).ProtoReflect().Descriptor(),
			(&structpb.Struct{}).ProtoReflect().Descriptor())
		for _, md := range mds {
			at, err := newAgreeType(md)
			if err != nil {
				agreeTypesErr = fmt.Errorf("%s: %w", md.FullName(), err)
				return
			}
			agreeTypesAll = append(agreeTypesAll, at)
		}
	})
	if agreeTypesErr != nil {
		t.Fatal(agreeTypesErr)
	}
	return agreeTypesAll
}

func newAgreeType(md protoreflect.MessageDescriptor) (*agreeType, error) {
	c, err := Options{}.Codec(md)
	if err != nil {
		return nil, err
	}
	schema, err := c.Schema().MarshalJSON()
	if err != nil {
		return nil, err
	}
	node, err := avroschema.Parse(schema)
	if err != nil {
		return nil, err
	}
	return &agreeType{
		md: md, mt: testutil.NewMessage(md, false).ProtoReflect().Type(), c: c, schema: schema, node: node,
		conv: avrojson.Limits{}.Compile(node), skip: avrobin.NewSkipper(node, avrojson.DefaultMaxDepth),
		name: string(md.FullName()),
	}, nil
}

// agreeCase picks the message type and block codec of an input index: the
// type is index modulo the number of types, the codec the quotient modulo
// the number of codecs.
func agreeCase(types []*agreeType, index uint) (*agreeType, Compression) {
	n := uint(len(types))
	return types[index%n], allCompressions[(index/n)%uint(len(allCompressions))]
}

// agreeIndex is the input index of the type named name and the codec comp.
func agreeIndex(t testing.TB, types []*agreeType, name string, comp Compression) uint {
	t.Helper()
	ti := slices.IndexFunc(types, func(at *agreeType) bool { return at.name == name })
	ci := slices.Index(allCompressions, comp)
	if ti < 0 || ci < 0 {
		t.Fatalf("no test type %s or codec %s", name, comp)
	}
	return uint(ti) + uint(ci)*uint(len(types))
}

// byteMutations returns single-byte mutations of b: at a few places spread
// over it, the byte set to 0x00, to 0xff and to 0x80 (a varint that goes on).
func byteMutations(b []byte) [][]byte {
	var out [][]byte
	for k := range min(len(b), 3) {
		i := (k*len(b))/3 + k%len(b)
		if i >= len(b) {
			i = len(b) - 1
		}
		for _, v := range []byte{0x00, 0xff, 0x80} {
			if b[i] != v {
				c := bytes.Clone(b)
				c[i] = v
				out = append(out, c)
			}
		}
	}
	return out
}

// agreeSeeds adds the seed corpus of FuzzBinaryReadersAgree: datums of
// random messages of every type (each under one block codec, in turn),
// with truncations, bit flips and single-byte mutations of them, and
// hand-written datums (hostileAgreeSeeds).
func agreeSeeds(f *testing.F, types []*agreeType) {
	n := 0
	for _, at := range types {
		key := testutil.SeedKey("readers-agree/" + at.name)
		for i := range 2 {
			m := testutil.RandMessage(at.md, false, key, i, sampleConfig)
			data, err := at.c.Marshal(m)
			if err != nil {
				f.Fatalf("%s: Marshal: %v", at.name, err)
			}
			comp := allCompressions[n%len(allCompressions)]
			n++
			index := agreeIndex(f, types, at.name, comp)
			for _, d := range append(mutations(data), byteMutations(data)...) {
				f.Add(index, d)
			}
		}
	}
	for _, s := range hostileAgreeSeeds(f, types) {
		f.Add(agreeIndex(f, types, s.typ, CompressionNull), s.data)
	}
}

// agreeSeed is a hand-written datum of the type named typ.
type agreeSeed struct {
	typ  string
	data []byte
}

// hostileAgreeSeeds are datums written by hand where the readers could
// part: block headers that lie, limits reached exactly and passed by one,
// values that only the codec refuses (it reads protobuf's types), and
// values that the codec reads into protobuf differently from how they are
// written (oneofs of several members, enum aliases, maps of unsorted and
// repeated keys).
func hostileAgreeSeeds(f *testing.F, types []*agreeType) []agreeSeed {
	byName := map[string]*agreeType{}
	for _, at := range types {
		byName[at.name] = at
	}
	fromJSON := func(typ, text string) agreeSeed {
		at := byName[typ]
		if at == nil {
			f.Fatalf("no test type %s", typ)
		}
		data, _, err := at.conv.AppendDatum(nil, []byte(text))
		if err != nil {
			f.Fatalf("%s: %s: %v", typ, text, err)
		}
		return agreeSeed{typ, data}
	}
	const (
		fieldMask = "google.protobuf.FieldMask"
		tree      = "protoavro.test.kitchen.Tree"
		oneofs    = "protoavro.test.kitchen.Oneofs"
		maps      = "protoavro.test.kitchen.Maps"
		scalars   = "protoavro.test.kitchen.Scalars"
		repeateds = "protoavro.test.kitchen.Repeateds"
		markers   = "protoavro.test.legacy.Markers"
		optional  = "protoavro.test.kitchen.OptionalScalars"
	)
	// A chain of n Trees through parent: label, children, parent (union
	// branch 1) of each, then the last one's, then each one's named map.
	treeChain := func(n int) []byte {
		b := bytes.Repeat([]byte{0, 0, 2}, n)
		b = append(b, 0, 0, 0, 0)
		return append(b, bytes.Repeat([]byte{0}, n)...)
	}
	// Markers of a block of count zero-size records, and after.
	markersOf := func(count int64) []byte {
		b := binary.AppendVarint(nil, count)
		return append(b, 0, 0) // the end of the array; after: null
	}
	seeds := []agreeSeed{
		// paths: a block of one item whose byte size (100) exceeds the
		// bytes left; with its true size (2); with a smaller size (1),
		// which the readers do not check against the items.
		{fieldMask, []byte{0x01, 0xc8, 0x01, 0x02, 0x61, 0x00}},
		{fieldMask, []byte{0x01, 0x04, 0x02, 0x61, 0x00}},
		{fieldMask, []byte{0x01, 0x02, 0x02, 0x61, 0x00}},
		// A block count of MinInt64, and a count beyond the bytes left.
		{fieldMask, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00}},
		{fieldMask, []byte{0x7e, 0x02, 0x61, 0x00}},
		// A negative block size, and a negative length.
		{fieldMask, []byte{0x01, 0x01, 0x02, 0x61, 0x00}},
		{fieldMask, []byte{0x02, 0x01, 0x61, 0x00}},
		// A varint of 11 bytes, and one that overflows 64 bits.
		{fieldMask, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}},
		{fieldMask, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}},
		// Bytes after the datum.
		{fieldMask, []byte{0x00, 0x00}},
		// Union indexes in varints of more bytes than they need: null,
		// the branch, an index out of range (OptionalScalars: 16 nullable
		// fields, double_field first).
		{optional, append([]byte{0x80, 0x00}, make([]byte, 15)...)},
		{optional, append([]byte{0x82, 0x80, 0x00}, make([]byte, 8+15)...)},
		{optional, append([]byte{0x84, 0x00}, make([]byte, 8+15)...)},
		// Records nested as deep as the readers allow (1,001 Trees, 1,000
		// of them nested), and one more.
		{tree, treeChain(600)},
		{tree, treeChain(1000)},
		{tree, treeChain(1001)},
		// Zero-size records, each Marker two (itself and its Nothing):
		// within a container block's bound, beyond it (65,536 + 64 per
		// byte of the block) and within a datum's (1,048,576), beyond a
		// datum's at the first Nothing; and a negative block count
		// without its byte size.
		{markers, markersOf(1000)},
		{markers, markersOf(40_000)},
		{markers, markersOf(limits.DatumEmptyItems)},
		{markers, markersOf(-3)},
		// Repeateds (32 arrays, packed_double first): an item of
		// packed_double, with its 8 bytes, and a block of one item with
		// one byte left, without and with a byte size.
		{repeateds, append(append([]byte{0x02}, make([]byte, 8)...), make([]byte, 32)...)},
		{repeateds, []byte{0x02, 0x00}},
		{repeateds, []byte{0x01, 0x02, 0x00}},
		// Values only the codec refuses: a string of invalid UTF-8, a
		// uint32 beyond 32 bits, a map key that is not an integer's
		// canonical text.
		fromJSON(oneofs, `{"string_choice":{"string":"\u00ff"}}`),
		fromJSON(scalars, `{"uint32_field":4294967296}`),
		fromJSON(maps, `{"int32_to_string":{"012":"x"}}`),
		// Values the codec reads differently from how they are written:
		// two members of a oneof, an enum alias, map keys out of order and
		// repeated.
		fromJSON(oneofs, `{"first_point":{"protoavro.test.kitchen.Point":{"x":1,"y":2}},"second_point":{"protoavro.test.kitchen.Point":{"x":3,"y":4}},"int_choice":{"int":5},"string_choice":{"string":"s"},"double_choice":{"double":"NaN"}}`),
		fromJSON("protoavro.test.kitchen.KitchenSink", `{"status":"STATUS_RUNNING"}`),
		fromJSON(repeateds, `{"statuses":["STATUS_HALTED","STATUS_ACTIVE","STATUS_RUNNING"]}`),
		fromJSON(maps, `{"int32_to_string":{"7":"a","-1":"b"},"string_to_message":{"z":{"x":1,"y":0},"a":{"x":2,"y":0}}}`),
	}
	// A map with a key twice: the JSON form cannot hold it, so it is
	// written as the block of the map with the key once, doubled.
	dup := fromJSON(maps, `{"string_to_string":{"k":"v"}}`)
	entry := []byte{0x02, 0x02, 'k', 0x02, 'v'} // count 1, "k", "v"
	if bytes.Count(dup.data, entry) != 1 {
		f.Fatalf("the entry %x is not once in %x", entry, dup.data)
	}
	dup.data = bytes.Replace(dup.data, entry, []byte{0x04, 0x02, 'k', 0x02, 'v', 0x02, 'k', 0x02, 'w'}, 1)
	return append(seeds, dup)
}

// refusal is the class of a reader's refusal, as its callers tell them
// apart with errors.Is: truncated, malformed, limit (zero-size items, and
// avrojson's nesting), depth (the codec's nesting).
func refusal(err error) string {
	switch {
	case errors.Is(err, ErrTooDeep):
		return "depth"
	case errors.Is(err, ocf.ErrLimit): // before ErrMalformed, which a DataError of ErrLimit matches too
		return "limit"
	case errors.Is(err, ErrTruncated):
		return "truncated"
	case errors.Is(err, ErrMalformed):
		return "malformed"
	}
	return "other"
}

// codecOnly reports a refusal of the codec of a value that is a sound Avro
// value of the schema but not one of the protobuf field: a string that is
// not UTF-8, a map key that is not the canonical text of the key type, an
// integer beyond the field's type, an enum symbol or union branch the
// field cannot take. avrojson, which reads Avro alone, accepts them.
func codecOnly(err error) bool {
	if errors.Is(err, ErrOutOfRange) || errors.Is(err, ErrUnknownEnum) || errors.Is(err, ErrIncompatible) {
		return true
	}
	var de *DataError
	if !errors.As(err, &de) || !errors.Is(err, ErrMalformed) || errors.Is(err, ocf.ErrLimit) {
		return false
	}
	detail := strings.TrimPrefix(de.Err.Error(), ErrMalformed.Error()+": ")
	return strings.HasPrefix(detail, "string is not valid UTF-8") || strings.HasPrefix(detail, "map key ")
}

// endDependent reports a refusal of the codec that depends on where the
// input ends: ErrTruncated, bytes left after the datum, and zero-size
// items, whose bound in a container is the block's. Placed in a longer
// buffer, such a datum can read on.
func endDependent(err error) bool {
	var de *DataError
	return errors.Is(err, ErrTruncated) || errors.Is(err, ocf.ErrLimit) ||
		errors.As(err, &de) && strings.Contains(de.Err.Error(), " bytes left after the datum")
}

// FuzzBinaryReadersAgree reads arbitrary bytes as a datum of one of the
// test types (index modulo their number; the quotient picks a block codec)
// with each reader of Avro binary data of the module, all of which read
// through internal/avrobin, and checks that they decide alike:
//
//   - The codec (TranscodeToProto) and avrojson (AppendJSON, the datum
//     reader of tojson and cat) accept and refuse the same datums, but for
//     values that are sound Avro and not sound protobuf, which the codec
//     alone refuses (codecOnly). When both refuse, their errors are of the
//     same class (the codec's ErrTooDeep is avrojson's ErrLimit); where in
//     the datum they stop is not compared. avrojson's Skipper decides as
//     AppendJSON does, with the same error.
//   - When both accept, both read the whole datum and read the same
//     values (sameDatum).
//   - The datum alone in a container block, and twice in a block of two
//     records, is read by ContainerReader as by the codec (checkContainer).
func FuzzBinaryReadersAgree(f *testing.F) {
	types := agreeTypes(f)
	agreeSeeds(f, types)
	f.Fuzz(func(t *testing.T, index uint, data []byte) {
		at, comp := agreeCase(types, index)
		wire, cerr := at.c.TranscodeToProto(nil, data)
		if cerr != nil {
			checkDataError(t, at.name+": TranscodeToProto", cerr, at.c, data)
		}
		js, jerr := readJSON(t, at, data)
		switch {
		case jerr != nil && cerr == nil:
			t.Fatalf("%s: the codec accepts %.256x, avrojson refuses it: %v", at.name, data, jerr)
		case jerr == nil && cerr != nil && !codecOnly(cerr):
			t.Fatalf("%s: avrojson accepts %.256x, the codec refuses it: %v", at.name, data, cerr)
		case jerr != nil && !codecOnly(cerr):
			cc, jc := refusal(cerr), refusal(jerr)
			if cc == "depth" {
				cc = "limit"
			}
			if cc != jc {
				t.Fatalf("%s: the codec and avrojson refuse %.256x with different classes:\ncodec (%s): %.500v\navrojson (%s): %.500v", at.name, data, cc, cerr, jc, jerr)
			}
		case cerr == nil:
			if err := sameDatum(at, wire, js); err != nil {
				t.Fatalf("%s: the codec and avrojson read %.256x differently: %v", at.name, data, err)
			}
		}
		checkContainer(t, at, comp, data, wire, cerr)
	})
}

// readJSON reads data, one whole datum, with avrojson's AppendJSON and
// with the Skipper, and checks that they decide alike: the same end, or
// the same error. It returns the JSON, or the error: AppendJSON's, or,
// when the datum ends before the input, an error of ErrMalformed as the
// CLI gives bytes after the last record.
func readJSON(t *testing.T, at *agreeType, data []byte) ([]byte, error) {
	t.Helper()
	js, n, jerr := at.conv.AppendJSON(nil, data)
	r := avrobin.Reader{Buf: data}
	serr := at.skip.Skip(&r)
	switch {
	case jerr == nil && serr == nil:
		if r.Pos != n {
			t.Fatalf("%s: %.256x: the skipper ends at byte %d, AppendJSON at %d", at.name, data, r.Pos, n)
		}
	case jerr == nil || serr == nil || jerr.Error() != serr.Error():
		t.Fatalf("%s: %.256x: the skipper: %.500v; AppendJSON: %.500v", at.name, data, serr, jerr)
	}
	if jerr != nil {
		var e *avrobin.Error
		if !errors.As(jerr, &e) || e.Offset < 0 || e.Offset > len(data) || refusal(jerr) == "other" {
			t.Fatalf("%s: %.256x: AppendJSON's error is not an *avrobin.Error of a class at a byte of the input: %.500v", at.name, data, jerr)
		}
		return nil, jerr
	}
	if n != len(data) {
		return nil, avrobin.Errorf(avrobin.ErrMalformed, n, "%d bytes left after the datum", len(data)-n)
	}
	return js, nil
}

// sameDatum checks that the codec and avrojson read the same values from
// one datum: wire, the codec's protobuf, decoded into a message and
// written back as Avro with the codec's Marshal, must give the JSON js of
// avrojson when avrojson reads it, up to what the protobuf message cannot
// keep of an Avro datum that the codec's writers would not write
// (sameValues). Comparing the JSON of values, not bytes, lets the
// datum use another encoding of the same values (varints of more bytes
// than needed, blocks of other sizes, with byte sizes or not). The
// comparison is exact otherwise: every value of both JSON texts is
// compared, numbers as written (-0.0 is not 0), so a value either reader
// reads wrong, drops or adds is a difference (TestSameValues).
func sameDatum(at *agreeType, wire, js []byte) error {
	m := at.mt.New().Interface()
	if err := proto.Unmarshal(wire, m); err != nil {
		return fmt.Errorf("proto.Unmarshal of the codec's output %.256x: %w", wire, err)
	}
	again, err := at.c.Marshal(m)
	if err != nil {
		return fmt.Errorf("Marshal of the message read: %w", err)
	}
	js2, n, err := at.conv.AppendJSON(nil, again)
	if err != nil || n != len(again) {
		return fmt.Errorf("AppendJSON of the message written back, %.256x: %d of %d bytes, %w", again, n, len(again), err)
	}
	a, err := testutil.DecodeJSON(js)
	if err != nil {
		return fmt.Errorf("JSON of the datum: %w", err)
	}
	b, err := testutil.DecodeJSON(js2)
	if err != nil {
		return fmt.Errorf("JSON written back: %w", err)
	}
	if err := sameValues(at.node, at.md, nil, a, b, at.node.Name); err != nil {
		return fmt.Errorf("%w\nJSON of the datum: %.2000s\nJSON written back: %.2000s", err, js, js2)
	}
	return nil
}

// valueField returns the field whose values fd holds: the value field of a
// map field, fd itself otherwise.
func valueField(fd protoreflect.FieldDescriptor) protoreflect.FieldDescriptor {
	if fd.IsMap() {
		return fd.MapValue()
	}
	return fd
}

// sameValues compares a and b, the JSON values (testutil.DecodeJSON) of
// the Avro value of schema n read from a datum (a) and from the datum that
// the codec writes back from its reading (b). fd is the protobuf field of
// the value (nil for the top-level record, of type md). The values must be
// equal, but where the protobuf message cannot keep what the datum says:
//
//   - A map's entries are compared as a set of keys, each with its last
//     value: protobuf maps have no order, the codec writes keys in order,
//     and of a key that the datum repeats, protobuf keeps the last value
//     (as testutil.DecodeJSON keeps the last of a JSON object's repeated
//     keys).
//   - Of the members of a oneof (each a nullable field), protobuf keeps
//     one: when the datum sets several, b sets exactly one of them, to
//     its value in a.
//   - An enum symbol is compared by its number: the codec reads an alias
//     as its number, written back as the first symbol of that number.
func sameValues(n *avroschema.Node, md protoreflect.MessageDescriptor, fd protoreflect.FieldDescriptor, a, b any, path string) error {
	n = n.Deref()
	switch n.Type {
	case avroschema.Record:
		if fd != nil {
			md = valueField(fd).Message()
		}
		if md == nil {
			return fmt.Errorf("%s: record %s of no protobuf message", path, n.Name)
		}
		ao, aok := a.(map[string]any)
		bo, bok := b.(map[string]any)
		if !aok || !bok || len(ao) != len(n.Fields) || len(bo) != len(n.Fields) {
			return fmt.Errorf("%s: %v and %v are not both records of %d fields", path, a, b, len(n.Fields))
		}
		oneofs := map[protoreflect.OneofDescriptor][]int{}
		for i := range n.Fields {
			f := &n.Fields[i]
			ffd := md.Fields().ByName(protoreflect.Name(f.Name))
			if ffd == nil {
				return fmt.Errorf("%s: field %s of record %s is no field of %s", path, f.Name, n.Name, md.FullName())
			}
			if od := ffd.ContainingOneof(); od != nil && !od.IsSynthetic() {
				oneofs[od] = append(oneofs[od], i)
				continue
			}
			if err := sameValues(f.Type, nil, ffd, ao[f.Name], bo[f.Name], path+"."+f.Name); err != nil {
				return err
			}
		}
		for od, members := range oneofs {
			var inA, inB []int
			for _, i := range members {
				if ao[n.Fields[i].Name] != nil {
					inA = append(inA, i)
				}
				if bo[n.Fields[i].Name] != nil {
					inB = append(inB, i)
				}
			}
			switch {
			case len(inA) <= 1 && !slices.Equal(inA, inB),
				len(inA) > 1 && (len(inB) != 1 || !slices.Contains(inA, inB[0])):
				return fmt.Errorf("%s: oneof %s: members %v set in the datum, %v written back", path, od.Name(), inA, inB)
			}
			for _, i := range inB {
				f := &n.Fields[i]
				if err := sameValues(f.Type, nil, md.Fields().ByName(protoreflect.Name(f.Name)), ao[f.Name], bo[f.Name], path+"."+f.Name); err != nil {
					return err
				}
			}
		}
		return nil
	case avroschema.Union:
		if a == nil && b == nil {
			return nil
		}
		ao, aok := a.(map[string]any)
		bo, bok := b.(map[string]any)
		if !aok || !bok || len(ao) != 1 || len(bo) != 1 {
			return fmt.Errorf("%s: %v and %v are not both one branch of a union", path, a, b)
		}
		for _, br := range n.Branches {
			name := avrojson.BranchName(br)
			av, aok := ao[name]
			bv, bok := bo[name]
			if aok || bok {
				if !aok || !bok {
					return fmt.Errorf("%s: branches %v and %v", path, a, b)
				}
				return sameValues(br, md, fd, av, bv, path+"<"+name+">")
			}
		}
		return fmt.Errorf("%s: %v and %v take no branch of the union", path, a, b)
	case avroschema.Array:
		as, aok := a.([]any)
		bs, bok := b.([]any)
		if !aok || !bok || len(as) != len(bs) {
			return fmt.Errorf("%s: %v and %v are not arrays of one length", path, a, b)
		}
		for i := range as {
			if err := sameValues(n.Items, md, fd, as[i], bs[i], fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case avroschema.Map:
		ao, aok := a.(map[string]any)
		bo, bok := b.(map[string]any)
		if !aok || !bok || len(ao) != len(bo) {
			return fmt.Errorf("%s: %v and %v are not maps of as many keys", path, a, b)
		}
		for k, av := range ao {
			bv, ok := bo[k]
			if !ok {
				return fmt.Errorf("%s: key %q of the datum not written back", path, k)
			}
			if err := sameValues(n.Values, md, fd, av, bv, fmt.Sprintf("%s[%q]", path, k)); err != nil {
				return err
			}
		}
		return nil
	case avroschema.Enum:
		as, aok := a.(string)
		bs, bok := b.(string)
		if !aok || !bok {
			return fmt.Errorf("%s: %v and %v are not both enum symbols", path, a, b)
		}
		var ed protoreflect.EnumDescriptor
		if fd != nil {
			ed = valueField(fd).Enum()
		}
		if ed == nil {
			return fmt.Errorf("%s: enum %s of no protobuf enum", path, n.Name)
		}
		av, bv := ed.Values().ByName(protoreflect.Name(as)), ed.Values().ByName(protoreflect.Name(bs))
		if av == nil || bv == nil || av.Number() != bv.Number() {
			return fmt.Errorf("%s: enum symbols %s and %s of %s", path, as, bs, ed.FullName())
		}
		return nil
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Errorf("%s: %v (%T) and %v (%T)", path, a, a, b, b)
	}
	return nil
}

// checkContainer writes data in a container file of two blocks, alone
// in the first and twice in the second, with the block codec comp, and
// reads the file with ocf's Reader (the blocks' framing must read back as
// written) and with ContainerReader, which must read each block as the
// codec reads data (wire, cerr):
//
//   - A datum the codec accepts is read as the same protobuf bytes, in
//     both blocks, but where the block holds more zero-size items than a
//     container block may (limits.BlockEmpty): then refused with
//     ocf.ErrLimit. The bound of a block differs from a datum's (it grows
//     with the block's bytes), so the Skipper, with the block's bound,
//     tells which.
//   - A datum the codec refuses is refused alone in a block, with the
//     codec's class, or with ocf.ErrLimit where the Skipper with the
//     block's bound refuses it so. (A datum refused for its zero-size
//     items may be read when the block's bound exceeds a datum's.)
//   - Twice in a block, a datum the codec refuses is refused too, where
//     the refusal does not depend on where the datum ends (endDependent):
//     else the first record can read on into the second copy.
func checkContainer(t *testing.T, at *agreeType, comp Compression, data, wire []byte, cerr error) {
	t.Helper()
	blocks := [][]byte{data, bytes.Repeat(data, 2)}
	results := readAgreeFile(t, at, comp, blocks)
	for b, block := range blocks {
		count := b + 1
		got, err := results[b].records, results[b].err
		what := fmt.Sprintf("%s: %.256x in a %s block of %d records", at.name, data, comp, count)
		budgetErr := skipBlock(at, count, block)
		switch {
		case cerr == nil && budgetErr != nil:
			if refusal(budgetErr) != "limit" {
				t.Fatalf("%s: the skipper with the block's bound refuses a datum the codec reads: %v", what, budgetErr)
			}
			if refusal(err) != "limit" {
				t.Fatalf("%s: the block holds more zero-size items than a block may (%v); ContainerReader: %v", what, budgetErr, err)
			}
		case cerr == nil:
			if err != nil {
				t.Fatalf("%s: the codec reads the datum, ContainerReader refuses the block: %v", what, err)
			}
			if len(got) != count {
				t.Fatalf("%s: ContainerReader read %d records", what, len(got))
			}
			for i, w := range got {
				if !bytes.Equal(w, wire) {
					t.Fatalf("%s: record %d read as %.256x, the codec reads %.256x", what, i, w, wire)
				}
			}
		case count == 1:
			if refusal(cerr) == "limit" && limits.BlockEmpty(len(block)) > limits.DatumEmptyItems {
				break // the block's bound may hold what a datum's does not
			}
			if err == nil {
				t.Fatalf("%s: the codec refuses the datum (%v), ContainerReader reads the block", what, cerr)
			}
			if refusal(err) != refusal(cerr) && !(refusal(err) == "limit" && refusal(budgetErr) == "limit") {
				t.Fatalf("%s: the codec and ContainerReader refuse with different classes:\ncodec: %.500v\nContainerReader: %.500v", what, cerr, err)
			}
		case !endDependent(cerr):
			if err == nil {
				t.Fatalf("%s: the codec refuses the datum (%v), ContainerReader reads the block", what, cerr)
			}
		}
	}
}

// skipBlock skips count datums of the container block data with the
// Skipper, counting their zero-size items against the bound of a block as
// ContainerReader counts them (the records beyond one per byte, and the
// items inside them), and returns its error, or one when bytes are left.
func skipBlock(at *agreeType, count int, data []byte) error {
	r := avrobin.Reader{Buf: data, Empty: avrobin.Budget{
		N: limits.BlockRecords(int64(count), len(data)), Max: limits.BlockEmpty(len(data)), Per: "container block"}}
	for range count {
		if err := at.skip.Skip(&r); err != nil {
			return err
		}
	}
	if r.Pos != len(data) {
		return avrobin.Errorf(avrobin.ErrMalformed, r.Pos, "%d bytes left after the block's records", len(data)-r.Pos)
	}
	return nil
}

// blockRead is what ContainerReader read of one block: the protobuf bytes
// of its records, and its first error.
type blockRead struct {
	records [][]byte
	err     error
	// alone says that Resync skipped the record of the last error alone,
	// and the block's next record was read on.
	alone bool
}

// readAgreeFile writes a container file with ocf's Writer and the block
// codec comp, block i holding i+1 records in blocks[i], checks that ocf's
// Reader reads the blocks back as written, and reads the file with
// ContainerReader, block by block: after an error in a block, Resync skips
// the record alone, or the rest of the block, and reading goes on.
func readAgreeFile(t *testing.T, at *agreeType, comp Compression, blocks [][]byte) []blockRead {
	t.Helper()
	var file bytes.Buffer
	ow, err := ocf.NewWriter(&file, ocf.WriterOptions{Schema: at.schema, Codec: comp})
	if err != nil {
		t.Fatal(err)
	}
	for i, data := range blocks {
		if err := ow.WriteBlock(int64(i+1), data); err != nil {
			t.Fatalf("%s: WriteBlock of %d records in %d bytes: %v", at.name, i+1, len(data), err)
		}
	}
	if err := ow.Close(); err != nil {
		t.Fatal(err)
	}
	or, err := ocf.NewReader(bytes.NewReader(file.Bytes()), ocf.ReaderOptions{})
	if err != nil {
		t.Fatalf("%s: ocf.NewReader: %v", at.name, err)
	}
	for i, data := range blocks {
		b, err := or.Next()
		if err != nil || b.Count != int64(i+1) || !bytes.Equal(b.Data, data) {
			t.Fatalf("%s: ocf's Reader reads the %s block of %d records in %.256x as %d records in %.256x, %v", at.name, comp, i+1, data, b.Count, b.Data, err)
		}
	}
	if _, err := or.Next(); err != io.EOF {
		t.Fatalf("%s: after the blocks, ocf's Reader gives %v, want io.EOF", at.name, err)
	}

	cr, err := NewContainerReader(bytes.NewReader(file.Bytes()), ReaderOptions{Message: at.mt})
	if err != nil {
		t.Fatalf("%s: NewContainerReader: %v", at.name, err)
	}
	// Block i holds records i*(i+1)/2 on; Resync counts the records it
	// skips as read.
	first := func(i int) int64 { return int64(i * (i + 1) / 2) }
	reads := make([]blockRead, len(blocks))
	for {
		w, err := cr.ReadWire(nil)
		if err == io.EOF {
			return reads
		}
		// The block of the record read, or of the error: a record's error
		// names the record, a block's error the block.
		var b int
		var re *RecordError
		var ce *ContainerError
		switch {
		case err == nil:
			b = blockOfRecord(cr.Records()-1, first)
		case errors.As(err, &re):
			b = blockOfRecord(re.Index, first)
		case errors.As(err, &ce) && ce.Block >= 0:
			b = int(ce.Block)
		default:
			t.Fatalf("%s: ContainerReader: an error of no record or block: %v", at.name, err)
		}
		if b >= len(blocks) || reads[b].err != nil && !reads[b].alone {
			t.Fatalf("%s: ContainerReader: a read of block %d after the error that skipped its rest, or beyond the blocks: %v", at.name, b, err)
		}
		if err == nil {
			reads[b].records = append(reads[b].records, w)
			continue
		}
		if reads[b].err == nil {
			reads[b].err = err
		}
		sk, rerr := cr.Resync(nil)
		if rerr == io.EOF {
			return reads
		} else if rerr != nil {
			t.Fatalf("%s: Resync after %v: %v", at.name, err, rerr)
		}
		reads[b].alone = re != nil && sk == Skipped{Records: 1, Bytes: sk.Bytes}
	}
}

// blockOfRecord returns the block of record index, block i starting at
// record first(i).
func blockOfRecord(index int64, first func(int) int64) int {
	b := 0
	for index >= first(b+1) {
		b++
	}
	return b
}

// TestSameValues: the comparison of FuzzBinaryReadersAgree takes the
// datums that a protobuf message reads alike for the same (map entries in
// another order, one of several members of a oneof, an enum alias) and
// finds every other difference.
func TestSameValues(t *testing.T) {
	byName := map[string]*agreeType{}
	for _, at := range agreeTypes(t) {
		byName[at.name] = at
	}
	// value is the JSON of the datum of text, as FuzzBinaryReadersAgree
	// reads it.
	value := func(at *agreeType, text string) any {
		data, _, err := at.conv.AppendDatum(nil, []byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		js, _, err := at.conv.AppendJSON(nil, data)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return testutil.JSONValue(t, js)
	}
	const (
		p1 = `{"protoavro.test.kitchen.Point":{"x":1,"y":2}}`
		p2 = `{"protoavro.test.kitchen.Point":{"x":3,"y":4}}`
	)
	for _, c := range []struct {
		typ, a, b string
		same      bool
	}{
		{"protoavro.test.kitchen.Maps", `{"int32_to_string":{"7":"a","-1":"b"}}`, `{"int32_to_string":{"-1":"b","7":"a"}}`, true},
		{"protoavro.test.kitchen.Maps", `{"int32_to_string":{"7":"a"}}`, `{"int32_to_string":{"7":"b"}}`, false},
		{"protoavro.test.kitchen.Maps", `{"int32_to_string":{"7":"a","8":"a"}}`, `{"int32_to_string":{"7":"a"}}`, false},
		{"protoavro.test.kitchen.Maps", `{"string_to_message":{"k":{"x":1,"y":2}}}`, `{"string_to_message":{"k":{"x":1,"y":3}}}`, false},
		{"protoavro.test.kitchen.Oneofs", `{"first_point":` + p1 + `,"second_point":` + p2 + `}`, `{"second_point":` + p2 + `}`, true},
		{"protoavro.test.kitchen.Oneofs", `{"first_point":` + p1 + `,"second_point":` + p2 + `}`, `{"first_point":` + p1 + `}`, true},
		{"protoavro.test.kitchen.Oneofs", `{"first_point":` + p1 + `,"second_point":` + p2 + `}`, `{"first_point":` + p2 + `}`, false},
		{"protoavro.test.kitchen.Oneofs", `{"first_point":` + p1 + `,"second_point":` + p2 + `}`, `{"first_point":` + p1 + `,"second_point":` + p2 + `}`, false},
		{"protoavro.test.kitchen.Oneofs", `{"first_point":` + p1 + `,"second_point":` + p2 + `}`, `{}`, false},
		{"protoavro.test.kitchen.Oneofs", `{"first_point":` + p1 + `}`, `{"second_point":` + p1 + `}`, false},
		{"protoavro.test.kitchen.Oneofs", `{"first_point":` + p1 + `}`, `{"first_point":` + p1 + `,"int_choice":{"int":0}}`, false},
		{"protoavro.test.kitchen.Oneofs", `{"int_choice":{"int":0},"string_choice":{"string":""}}`, `{"string_choice":{"string":""}}`, true},
		{"protoavro.test.kitchen.Oneofs", `{"int_choice":{"int":0},"string_choice":{"string":""}}`, `{"string_choice":{"string":"x"}}`, false},
		{"protoavro.test.kitchen.Oneofs", `{"after":"a"}`, `{"after":"b"}`, false},
		{"protoavro.test.kitchen.KitchenSink", `{"status":"STATUS_RUNNING"}`, `{"status":"STATUS_ACTIVE"}`, true},
		{"protoavro.test.kitchen.KitchenSink", `{"status":"STATUS_RUNNING"}`, `{"status":"STATUS_STOPPED"}`, false},
		{"protoavro.test.kitchen.Scalars", `{"double_field":1.5}`, `{"double_field":1.25}`, false},
		{"protoavro.test.kitchen.Scalars", `{"double_field":-0.0}`, `{"double_field":0}`, false},
		{"protoavro.test.kitchen.Scalars", `{"bytes_field":"\u0000"}`, `{"bytes_field":""}`, false},
		{"protoavro.test.kitchen.Repeateds", `{"packed_double":[1,2]}`, `{"packed_double":[2,1]}`, false},
		{"protoavro.test.kitchen.Repeateds", `{"points":[{"x":1,"y":2}]}`, `{"points":[{"x":1,"y":2},{"x":1,"y":2}]}`, false},
	} {
		at := byName[c.typ]
		err := sameValues(at.node, at.md, nil, value(at, c.a), value(at, c.b), at.node.Name)
		if (err == nil) != c.same {
			t.Errorf("%s: %s and %s: %v, want same %v", c.typ, c.a, c.b, err, c.same)
		}
	}
}

package protoavro

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testutil"
)

// protoavroClasses are the error classes every error of a reader of
// untrusted bytes wraps.
var protoavroClasses = []error{ErrTruncated, ErrMalformed, ErrUnknownEnum, ErrOutOfRange, ErrMissingRequired,
	ErrTooDeep, ErrIncompatible, ErrInvalidSchema, ErrUnsupported, ErrNotContainer, ErrInvalidOptions}

// checkReaderError fails t unless err wraps one of protoavro's classes and
// its message is short and safe to print.
func checkReaderError(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	if len(msg) > 4096 || !safetext.Safe(msg) {
		t.Fatalf("error message of %d bytes, safe %v: %.300q", len(msg), safetext.Safe(msg), msg)
	}
	for _, c := range protoavroClasses {
		if errors.Is(err, c) {
			return
		}
	}
	t.Fatalf("error %v (%T) wraps none of the classes", err, err)
}

// FuzzContainerReader reads whole container files into a typed message
// (Foo), so that header, metadata, schema resolution and blocks are all
// fuzzed: records then io.EOF, or an error of one of the classes.
func FuzzContainerReader(f *testing.F) {
	msgs := sampleFoos(40)
	for _, comp := range allCompressions {
		file := containerBytes(f, comp, 512, msgs)
		f.Add(file)
		f.Add(file[:len(file)-9])
		bad := bytes.Clone(file)
		bad[len(bad)-40] ^= 0x5a
		f.Add(bad)
	}
	// A foreign writer schema: Foo with a field dropped and one added.
	foreign := rawHeader(schemaEntry(`{"type":"record","name":"Foo","fields":[{"name":"int32","type":["null","long"]},{"name":"extra","type":{"type":"array","items":"double"}}]}`))
	f.Add(rawBlock(foreign, 2, []byte{2, 4, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}))
	f.Add(rawBlock(foreign, 1, []byte{0, 0}))
	f.Add([]byte("Obj\x01\x00"))
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	mt := dynamicpb.NewMessageType(md)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, typed := range []protoreflect.MessageType{(&avro2147pb.Foo{}).ProtoReflect().Type(), mt} {
			cr, err := NewContainerReader(bytes.NewReader(data), ReaderOptions{Message: typed, MaxBlockSize: 1 << 20})
			if err != nil {
				checkReaderError(t, err)
				continue
			}
			m := cr.NewMessage()
			for n := 0; ; n++ {
				if err = cr.Read(m); err != nil {
					break
				}
				if n > 1<<16 {
					break // the bounds themselves are the hostile suite's
				}
			}
			if err != io.EOF {
				checkReaderError(t, err)
			}
		}
	})
}

// FuzzSingleObject decodes single-object encoded input.
func FuzzSingleObject(f *testing.F) {
	c := mustCodec(f, Options{}, &avro2147pb.Foo{})
	for _, m := range sampleFoos(8) {
		b, err := c.MarshalSingleObject(nil, m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)-1])
	}
	f.Add([]byte{0xc3, 0x01})
	f.Add([]byte{0xc3, 0x01, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		m := &avro2147pb.Foo{}
		if err := c.UnmarshalSingleObject(data, m); err != nil {
			checkReaderError(t, err)
			return
		}
		// What decodes re-encodes to a datum that decodes the same.
		b, err := c.MarshalSingleObject(nil, m)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		m2 := &avro2147pb.Foo{}
		if err := c.UnmarshalSingleObject(b, m2); err != nil || !proto.Equal(m, m2) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// The reader message of FuzzResolve, and the variants of it that random
// foreign writers use.
const resolveProto = `
syntax = "proto3";
package reader;
enum E { E0 = 0; E1 = 1; E2 = 2; }
message Sub { int64 x = 1; string y = 2; double z = 3; }
message R {
  int64 a = 1;
  double b = 2;
  string c = 3;
  bytes d = 4;
  repeated int64 e = 5;
  map<string, int64> f = 6;
  Sub g = 7;
  E h = 8;
  optional int32 i = 9;
  repeated Sub j = 10;
  bool k = 11;
  float l = 12;
  repeated double m = 13;
  map<string, Sub> n = 14;
  optional double o = 15;
}
`

// narrower lists the writer types each reader type resolves from by Avro's
// promotions (int→long→float→double, string↔bytes).
var narrower = map[descriptorpb.FieldDescriptorProto_Type][]descriptorpb.FieldDescriptorProto_Type{
	descriptorpb.FieldDescriptorProto_TYPE_INT64:  {descriptorpb.FieldDescriptorProto_TYPE_INT32},
	descriptorpb.FieldDescriptorProto_TYPE_DOUBLE: {descriptorpb.FieldDescriptorProto_TYPE_FLOAT, descriptorpb.FieldDescriptorProto_TYPE_INT64, descriptorpb.FieldDescriptorProto_TYPE_INT32},
	descriptorpb.FieldDescriptorProto_TYPE_FLOAT:  {descriptorpb.FieldDescriptorProto_TYPE_INT32, descriptorpb.FieldDescriptorProto_TYPE_INT64},
	descriptorpb.FieldDescriptorProto_TYPE_STRING: {descriptorpb.FieldDescriptorProto_TYPE_BYTES},
}

var extraTypes = []descriptorpb.FieldDescriptorProto_Type{
	descriptorpb.FieldDescriptorProto_TYPE_INT64, descriptorpb.FieldDescriptorProto_TYPE_STRING,
	descriptorpb.FieldDescriptorProto_TYPE_DOUBLE, descriptorpb.FieldDescriptorProto_TYPE_BOOL,
	descriptorpb.FieldDescriptorProto_TYPE_BYTES, descriptorpb.FieldDescriptorProto_TYPE_FIXED32,
}

// writerVariant derives a foreign writer message from the reader's file:
// fields dropped, added, reordered, renumbered, and narrowed to types that
// promote to the reader's.
func writerVariant(reader *descriptorpb.FileDescriptorProto, seed uint64) (protoreflect.MessageDescriptor, error) {
	r := rand.New(rand.NewPCG(seed, seed>>7^0x9e3779b97f4a7c15))
	fdp := proto.Clone(reader).(*descriptorpb.FileDescriptorProto)
	fdp.Name = proto.String("variant.proto")
	fdp.Package = proto.String("variant")
	var walk func(m *descriptorpb.DescriptorProto)
	walk = func(m *descriptorpb.DescriptorProto) {
		for _, n := range m.NestedType {
			walk(n)
		}
		entry := m.GetOptions().GetMapEntry()
		var fields []*descriptorpb.FieldDescriptorProto
		for _, fd := range m.Field {
			if fd.TypeName != nil {
				*fd.TypeName = ".variant" + (*fd.TypeName)[len(".reader"):]
			}
			if entry {
				if fd.GetName() == "value" {
					if n := narrower[fd.GetType()]; len(n) > 0 && r.IntN(2) == 0 {
						fd.Type = n[r.IntN(len(n))].Enum()
					}
				}
				fields = append(fields, fd)
				continue
			}
			if r.IntN(5) == 0 {
				continue // dropped
			}
			if fd.GetLabel() != descriptorpb.FieldDescriptorProto_LABEL_REPEATED {
				if n := narrower[fd.GetType()]; len(n) > 0 && r.IntN(2) == 0 {
					fd.Type = n[r.IntN(len(n))].Enum()
				}
			}
			fields = append(fields, fd)
		}
		if entry {
			return
		}
		for i := range r.IntN(4) {
			fields = append(fields, &descriptorpb.FieldDescriptorProto{
				Name: proto.String(fmt.Sprintf("extra%d", i)), Number: proto.Int32(int32(100 + i)),
				Type: extraTypes[r.IntN(len(extraTypes))].Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()})
		}
		r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
		// Renumber: writer field numbers mean nothing to Avro.
		nums := r.Perm(len(fields))
		for i, fd := range fields {
			fd.Number = proto.Int32(int32(nums[i] + 1))
		}
		// Keep the synthetic oneofs of proto3 optional fields that remain,
		// declared in the order of their fields.
		var decls []*descriptorpb.OneofDescriptorProto
		for _, fd := range fields {
			if fd.OneofIndex != nil {
				fd.OneofIndex = proto.Int32(int32(len(decls)))
				decls = append(decls, &descriptorpb.OneofDescriptorProto{Name: proto.String("_" + fd.GetName())})
			}
		}
		m.OneofDecl = decls
		m.Field = fields
	}
	for _, m := range fdp.MessageType {
		walk(m)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		return nil, err
	}
	return fd.Messages().ByName("R"), nil
}

// sameResolved checks that the reader message got, field by field, what
// the writer message holds after promotion; fields the writer lacks stay
// unset.
func sameResolved(t *testing.T, path string, got, w protoreflect.Message) {
	t.Helper()
	fields := got.Descriptor().Fields()
	for i := range fields.Len() {
		rf := fields.Get(i)
		wf := w.Descriptor().Fields().ByName(rf.Name())
		p := path + "." + string(rf.Name())
		if wf == nil {
			if got.Has(rf) {
				t.Fatalf("%s: set, but the writer has no such field", p)
			}
			continue
		}
		switch {
		case rf.IsMap():
			gm, wm := got.Get(rf).Map(), w.Get(wf).Map()
			if gm.Len() != wm.Len() {
				t.Fatalf("%s: %d entries, writer %d", p, gm.Len(), wm.Len())
			}
			wm.Range(func(k protoreflect.MapKey, wv protoreflect.Value) bool {
				gv := gm.Get(k)
				sameValue(t, p+"["+k.String()+"]", rf.MapValue(), gv, wv)
				return true
			})
		case rf.IsList():
			gl, wl := got.Get(rf).List(), w.Get(wf).List()
			if gl.Len() != wl.Len() {
				t.Fatalf("%s: %d items, writer %d", p, gl.Len(), wl.Len())
			}
			for j := range gl.Len() {
				sameValue(t, fmt.Sprintf("%s[%d]", p, j), rf, gl.Get(j), wl.Get(j))
			}
		default:
			if rf.HasPresence() && got.Has(rf) != w.Has(wf) {
				t.Fatalf("%s: presence %v, writer %v", p, got.Has(rf), w.Has(wf))
			}
			if rf.Kind() == protoreflect.MessageKind && !got.Has(rf) {
				continue
			}
			sameValue(t, p, rf, got.Get(rf), w.Get(wf))
		}
	}
}

func sameValue(t *testing.T, p string, rf protoreflect.FieldDescriptor, gv, wv protoreflect.Value) {
	t.Helper()
	var want any
	switch x := wv.Interface().(type) {
	case protoreflect.Message:
		sameResolved(t, p, gv.Message(), x)
		return
	case int32:
		want = int64(x)
	case int64:
		want = x
	case uint32:
		want = int64(x)
	case float32:
		want = float64(x)
	case float64:
		want = x
	case string:
		want = x
	case []byte:
		want = string(x)
	case bool:
		want = x
	case protoreflect.EnumNumber:
		want = int64(x)
	}
	var have any
	switch rf.Kind() {
	case protoreflect.Int64Kind, protoreflect.Int32Kind:
		have = gv.Int()
	case protoreflect.DoubleKind, protoreflect.FloatKind:
		have = gv.Float()
		if i, ok := want.(int64); ok {
			want = float64(i)
			if rf.Kind() == protoreflect.FloatKind {
				want = float64(float32(i))
			}
		}
		if hf, wf := have.(float64), want.(float64); math.IsNaN(hf) && math.IsNaN(wf) {
			return
		}
	case protoreflect.StringKind:
		have = gv.String()
	case protoreflect.BytesKind:
		have = string(gv.Bytes())
	case protoreflect.BoolKind:
		have = gv.Bool()
	case protoreflect.EnumKind:
		have = int64(gv.Enum())
	}
	if have != want {
		t.Fatalf("%s: %v (%T), writer %v (%T)", p, have, have, want, want)
	}
}

// FuzzResolve resolves data written by random foreign writers against the
// reader message R: each writer schema is a variant of R (fields dropped,
// added, reordered, renumbered, narrowed to types that promote), random
// messages are written with it and read back resolved; they must match
// field by field. With flip bytes the data is corrupted, and reading must
// then fail cleanly or succeed.
func FuzzResolve(f *testing.F) {
	rmd := compileMessage(f, resolveProto, "reader.R")
	reader := protodesc.ToFileDescriptorProto(rmd.ParentFile())
	rc, err := Options{}.Codec(rmd)
	if err != nil {
		f.Fatal(err)
	}
	for i := range uint64(12) {
		f.Add(i, i*31, []byte(nil))
		f.Add(i*977, i, []byte{byte(i), 0x55})
	}
	cfg := testutil.Config{MaxDepth: 3, MaxLen: 3}
	f.Fuzz(func(t *testing.T, schemaSeed, msgSeed uint64, flip []byte) {
		wmd, err := writerVariant(reader, schemaSeed)
		if err != nil {
			t.Skipf("variant: %v", err) // an invalid descriptor: not a writer
		}
		wc, err := Options{}.Codec(wmd)
		if err != nil {
			t.Fatalf("writer codec: %v", err)
		}
		// The writer schema travels as text, as in a container header.
		js, err := wc.Schema().JSON()
		if err != nil {
			t.Fatal(err)
		}
		ws, err := ParseSchema(js)
		if err != nil {
			t.Fatalf("parse the writer schema: %v", err)
		}
		res, err := rc.Resolve(ws)
		if err != nil {
			t.Fatalf("resolve %s: %v", js, err)
		}
		wm := testutil.RandMessage(wmd, true, msgSeed, 0, cfg)
		data, err := wc.Marshal(wm)
		if err != nil {
			t.Fatalf("write: %v", err)
		}
		for i, b := range flip {
			if len(data) > 0 {
				data[(i*7919+int(b))%len(data)] ^= b | 1
			}
		}
		got := dynamicpb.NewMessage(rmd)
		err = res.Unmarshal(data, got)
		wire, werr := res.TranscodeToProto(nil, data)
		if (err == nil) != (werr == nil) {
			t.Fatalf("Unmarshal %v, TranscodeToProto %v", err, werr)
		}
		if err != nil {
			if len(flip) == 0 && !(errors.Is(err, ErrMalformed) && strings.Contains(err.Error(), "not valid UTF-8")) {
				// Only bytes written where the reader has a string may fail.
				t.Fatalf("read: %v", err)
			}
			checkReaderError(t, err)
			return
		}
		if len(flip) == 0 {
			sameResolved(t, "R", got.ProtoReflect(), wm.ProtoReflect())
		}
		// TranscodeToProto gives the same message in proto.Marshal's order.
		m2 := dynamicpb.NewMessage(rmd)
		if err := proto.Unmarshal(wire, m2); err != nil || !proto.Equal(got, m2) {
			t.Fatalf("TranscodeToProto differs from Unmarshal: %v", err)
		}
	})
}

package protoavro

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// onceIn fails t unless err's text says want exactly once.
func onceIn(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one saying %q", want)
	}
	if n := strings.Count(err.Error(), want); n != 1 {
		t.Errorf("error %q says %q %d times, want once", err, want, n)
	}
}

// A writer union branch the reader cannot take fails, when the data uses
// it, with ErrIncompatible at the field, saying the class once.
func TestResolveUnionBranchErrorText(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p; message M { int64 a = 1; }`, "p.M")
	datum := appendLong(nil, 1) // branch 1, the string
	datum = appendLong(datum, 1)
	datum = append(datum, 'x')
	_, err := resolveDatum(t, md, `{"type":"record","name":"M","fields":[{"name":"a","type":["int","string"]}]}`, datum)
	wantDataError(t, err, ErrIncompatible, "M.a", 1)
	onceIn(t, err, "incompatible schemas")
}

// A bad record of a container file, read by the sequential and by the
// parallel reader, is a RecordError that names the block and says
// "protoavro:" once, with the block's file offset and the datum's offset
// in the block as fields.
func TestContainerRecordErrorText(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p; message B { bool b = 1; }`, "p.B")
	m := dynamicpb.NewMessage(md)
	m.Set(md.Fields().ByName("b"), protoreflect.ValueOfBool(true))
	data, _ := writeRecords(t, md, ContainerOptions{}, 10, func(w *ContainerWriter, _ int) error { return w.Write(m) })
	// One block of ten 1-byte datums, then the 16-byte sync marker: record
	// 5 gets a boolean byte of 7.
	data[len(data)-16-10+5] = 7
	for _, workers := range []int{1, 2} {
		cr, err := NewContainerReader(bytes.NewReader(data), ReaderOptions{Message: dynamicpb.NewMessageType(md), Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		for {
			err = cr.Read(cr.NewMessage())
			if err != nil {
				break
			}
		}
		var re *RecordError
		if !errors.As(err, &re) || re.Index != 5 || !errors.Is(err, ErrMalformed) {
			t.Fatalf("workers %d: %v, want a RecordError of record 5, ErrMalformed", workers, err)
		}
		onceIn(t, err, "protoavro:")
		onceIn(t, err, "block 0 at byte")
		if block := int64(len(data) - 16 - 10 - 2); re.BlockOffset != block || re.DatumOffset != 5 {
			t.Errorf("workers %d: block at byte %d, datum byte %d; want %d and 5", workers, re.BlockOffset, re.DatumOffset, block)
		}
	}
}

// Marshal of a dynamic message that proto.Marshal refuses (a proto3 string
// of invalid UTF-8) is a DataError of class ErrMalformed, as on the struct
// path, naming the field, with no offset.
func TestMarshalDynamicInvalidUTF8(t *testing.T) {
	md := compileMessage(t, `syntax = "proto3"; package p; message S { string s = 1; }`, "p.S")
	c := mustCodec(t, Options{}, dynamicpb.NewMessage(md))
	m := dynamicpb.NewMessage(md)
	m.Set(md.Fields().ByName("s"), protoreflect.ValueOfString("a\xffb"))
	_, err := c.Marshal(m)
	de := wantDataError(t, err, ErrMalformed, "S.s", -1)
	if !strings.Contains(de.Error(), "UTF-8") {
		t.Errorf("error %q does not say UTF-8", de)
	}
	onceIn(t, err, "protoavro:")
	if _, err := proto.Marshal(m); err == nil {
		t.Fatal("test premise: proto.Marshal takes invalid UTF-8")
	}
}

package protoavro

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// TestContainerWriteInput: records given to WriteInputAt are converted by
// ContainerOptions.Input on the workers; the file is the one WriteDatum
// writes of their datums, block for block, also mixed with WriteWire; a
// record Input refuses is a bad record holding the input as given, at its
// index and offset, in record order with the others.
func TestContainerWriteInput(t *testing.T) {
	msgs := sampleFoos(300)
	var lines [][]byte
	for _, m := range msgs {
		js, err := protojson.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, js)
	}
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	input := func(dst, record []byte) ([]byte, error) {
		m := &avro2147pb.Foo{}
		if err := protojson.Unmarshal(record, m); err != nil {
			return dst, err
		}
		return proto.MarshalOptions{Deterministic: true}.MarshalAppend(dst, m)
	}
	sync := ContainerOptions{BlockSize: 2 << 10, Workers: 3, Compression: CompressionDeflate, Input: input}
	write := func(opts ContainerOptions, add func(cw *ContainerWriter, i int) error) ([]byte, *ContainerWriter, error) {
		file, cw, err := containerRecords(md, opts, len(lines), add)
		if err != nil {
			return nil, cw, err
		}
		return noSync(file), cw, nil
	}
	viaDatum, want, err := write(sync, func(cw *ContainerWriter, i int) error {
		d, err := cw.Codec().Marshal(msgs[i])
		if err == nil {
			err = cw.WriteDatum(d)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	viaInput, got, err := write(sync, func(cw *ContainerWriter, i int) error { return cw.WriteInputAt(lines[i], int64(i)) })
	if err != nil {
		t.Fatal(err)
	}
	if want.Blocks() < 5 || !bytes.Equal(viaInput, viaDatum) || got.Blocks() != want.Blocks() {
		t.Errorf("WriteInputAt: %d bytes in %d blocks, WriteDatum %d in %d: want the same file of several blocks", len(viaInput), got.Blocks(), len(viaDatum), want.Blocks())
	}

	// Mixed with WriteWire, records keep their order.
	mixed, _, err := write(sync, func(cw *ContainerWriter, i int) error {
		if i%100 < 50 {
			return cw.WriteInputAt(lines[i], int64(i))
		}
		wire, _ := proto.Marshal(msgs[i])
		return cw.WriteWireAt(wire, int64(i))
	})
	if err != nil {
		t.Fatal(err)
	}
	readFoos(t, mustReader(t, mixed), msgs)

	// Bad records: skipped with OnBadRecord, in order, with the input.
	bad := map[int]bool{3: true, 150: true, 299: true}
	var seen []string
	opts := sync
	opts.OnBadRecord = func(re *RecordError) error {
		seen = append(seen, fmt.Sprintf("%d@%d:%s", re.Index, re.Offset, re.Record))
		return nil
	}
	var kept []*avro2147pb.Foo
	file, _, err := write(opts, func(cw *ContainerWriter, i int) error {
		if bad[i] {
			return cw.WriteInputAt([]byte(fmt.Sprintf(`{"bad":%d}`, i)), int64(10*i))
		}
		kept = append(kept, msgs[i])
		return cw.WriteInputAt(lines[i], int64(10*i))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(seen); got != `[3@30:{"bad":3} 150@1500:{"bad":150} 299@2990:{"bad":299}]` {
		t.Errorf("bad records %s", got)
	}
	readFoos(t, mustReader(t, file), kept)
	// Without OnBadRecord, the first stops the writer.
	_, _, err = write(sync, func(cw *ContainerWriter, i int) error {
		if i == 7 {
			return cw.WriteInputAt([]byte(`{"bad":7}`), 70)
		}
		return cw.WriteInputAt(lines[i], int64(10*i))
	})
	var re *RecordError
	if !errors.As(err, &re) || re.Index != 7 || re.Offset != 70 || string(re.Record) != `{"bad":7}` {
		t.Errorf("a bad record without OnBadRecord: %v", err)
	}
	// Without Input, WriteInputAt is refused.
	cw, err := NewContainerWriter(io.Discard, md, ContainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cw.WriteInputAt(lines[0], 0); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("WriteInputAt without Input: %v, want ErrInvalidOptions", err)
	}
}

// noSync returns a container file with its sync marker, its last 16
// bytes, zeroed wherever it occurs.
func noSync(f []byte) []byte {
	return bytes.ReplaceAll(f, bytes.Clone(f[len(f)-16:]), make([]byte, 16))
}

func mustReader(t *testing.T, file []byte) *ContainerReader {
	t.Helper()
	r, err := NewContainerReader(bytes.NewReader(file), ReaderOptions{Message: (&avro2147pb.Foo{}).ProtoReflect().Type()})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

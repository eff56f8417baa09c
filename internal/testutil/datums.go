package testutil

import (
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
)

// ReferenceDatum is one datum of testdata/reference/avro2147/datums.txt: a
// protoavro.avro2147.Foo message's protobuf encoding and the Avro datum
// Apache Avro Java's ProtobufDatumWriter wrote for it.
type ReferenceDatum struct {
	Name        string
	Proto, Avro []byte
}

// ReferenceDatums parses testdata/reference/avro2147/datums.txt (its README
// describes the format). Every datum has both encodings.
func ReferenceDatums() ([]ReferenceDatum, error) {
	path := RepoPath("testdata", "reference", "avro2147", "datums.txt")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []ReferenceDatum
	for n, line := range strings.Split(string(b), "\n") {
		var dst *[]byte
		switch {
		case strings.HasPrefix(line, "# "):
			out = append(out, ReferenceDatum{Name: line[2:]})
			continue
		case strings.HasPrefix(line, "proto_hex: ") && len(out) > 0:
			dst = &out[len(out)-1].Proto
		case strings.HasPrefix(line, "avro_hex: ") && len(out) > 0:
			dst = &out[len(out)-1].Avro
		default:
			continue
		}
		_, h, _ := strings.Cut(line, ": ")
		if *dst, err = hex.DecodeString(h); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no datums", path)
	}
	for _, d := range out {
		if d.Proto == nil || d.Avro == nil {
			return nil, fmt.Errorf("%s: datum %s is incomplete", path, d.Name)
		}
	}
	return out, nil
}

// AVRO2147Datum is the AVRO-2147 datum of
// testdata/reference/avro2147/figures.md, the message the benchmarks of the
// root module and of bench/ measure. Each call returns a new message.
func AVRO2147Datum() *avro2147pb.Foo {
	return &avro2147pb.Foo{
		Int32: proto.Int32(0), Int64: proto.Int64(2), Uint32: proto.Uint32(3), Uint64: proto.Uint64(4),
		Sint32: proto.Int32(5), Sint64: proto.Int64(6), Fixed32: proto.Uint32(7), Fixed64: proto.Uint64(8),
		Sfixed32: proto.Int32(9), Sfixed64: proto.Int64(10), Float: proto.Float32(1), Double: proto.Float64(2),
		Bool: proto.Bool(true), String_: proto.String("foo"), Bytes: []byte("bar"),
		Enum: avro2147pb.A_X.Enum(), IntArray: []int32{27}, Syms: []avro2147pb.A{avro2147pb.A_Y},
		Bar: &avro2147pb.MessageWithLargeEnum{Enum: avro2147pb.LargeEnum_AA.Enum()},
	}
}

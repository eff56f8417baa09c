package testutil

import (
	"encoding/hex"
	"fmt"
	"os"
	"strings"
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

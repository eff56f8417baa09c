package serde_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
)

// TestProtoInSchemaLimits decodes records whose registered protobuf schema
// is beyond the schema limits (1,000 mutually recursive messages; a cycle
// of 2,000): the decoder returns an error wrapping protoavro.ErrSchemaLimit
// that names the schema ID and the limit, every time it is asked, and
// never crashes.
func TestProtoInSchemaLimits(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	enc := serde.NewProtoEncoder(reg)
	dec := serde.NewProtoDecoder(reg, protoavro.Options{})
	for _, c := range []struct {
		subject, text string
	}{
		{"mesh-value", testutil.HostileProto(testutil.Mesh, 1_000)},
		{"ring-value", testutil.HostileProto(testutil.Ring, 2_000)},
	} {
		id, err := enc.Register(ctx, c.subject, c.text, nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			_, err = dec.Decode(ctx, serde.AppendProtoHeader(nil, id, []int{0}))
			if !errors.Is(err, protoavro.ErrSchemaLimit) || !strings.Contains(err.Error(), "Limits.MaxDepth") || !strings.Contains(err.Error(), fmt.Sprintf("schema %d: ", id)) {
				t.Fatalf("%s: err = %v, want ErrSchemaLimit", c.subject, err)
			}
		}
		t.Logf("%s: %v", c.subject, err)
	}
}

// TestProtoInDeepSource registers protobuf schema text whose option
// aggregate nests 30,000 deep: the decoder refuses it with ErrBadSchema
// naming the file, the line and the limit, before it reaches the compiler.
func TestProtoInDeepSource(t *testing.T) {
	_, reg := kafkatest.Registry(t)
	text := `syntax = "proto2";
import "google/protobuf/descriptor.proto";
message Agg { optional Agg a = 1; }
extend google.protobuf.MessageOptions { optional Agg agg = 50000; }
message M {
  option (agg) = {` + strings.Repeat(" a {", 30_000) + strings.Repeat("}", 30_000) + `};
}
`
	id, err := serde.NewProtoEncoder(reg).Register(ctx, "deep-value", text, nil)
	if err == nil {
		_, err = serde.NewProtoDecoder(reg, protoavro.Options{}).Decode(ctx, serde.AppendProtoHeader(nil, id, []int{1}))
	}
	t.Logf("%v", err)
	if !errors.Is(err, serde.ErrBadSchema) || !strings.Contains(err.Error(), ".proto:6: ") || !strings.Contains(err.Error(), "more than 100 levels") {
		t.Fatalf("err = %v, want ErrBadSchema naming the line and the limit", err)
	}
}

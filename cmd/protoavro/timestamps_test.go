package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// TestEncodeDecodeKeepsNanoseconds: encode then decode of messages whose
// Timestamps have nanoseconds gives back the same bytes under the default
// options, and under --preset engine (with what random messages need: the
// dynamic types as records and protobuf bytes below the recursion bound) the
// summary counts the values rounded.
func TestEncodeDecodeKeepsNanoseconds(t *testing.T) {
	t.Parallel()
	name := "protoavro.test.kitchen.KitchenSink"
	md := testutil.FindMessage(testutil.Files[1], protoreflectName(name))
	cfg := testutil.DefaultConfig
	cfg.Timestamps = testutil.Nanos
	var delim []byte
	for i := range 50 {
		m := testutil.RandMessage(md, false, testutil.SeedKey("nanos/"+name), i, cfg)
		wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		delim = append(protowire.AppendVarint(delim, uint64(len(wire))), wire...)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.delimited")
	if err := os.WriteFile(in, delim, 0o644); err != nil {
		t.Fatal(err)
	}
	types := []string{"-I", "../../testdata/proto", "-m", name, "kitchen/kitchen.proto"}
	out := filepath.Join(dir, "default.avro")
	r := runIO(t, nil, append(append([]string{"encode"}, types...), "--in", in, "--out", out)...)
	if r.code != 0 || strings.Contains(r.stderr, "rounded") {
		t.Fatalf("encode: exit %d: %s", r.code, r.stderr)
	}
	if r := runIO(t, nil, "decode", "--in", out); r.code != 0 || r.stdout != string(delim) {
		t.Fatalf("decode: exit %d, same bytes %v: %s", r.code, r.stdout == string(delim), r.stderr)
	}
	r = runIO(t, nil, append(append([]string{"encode"}, types...), "--in", in, "--out", filepath.Join(dir, "engine.avro"), "--preset", "engine", "--dynamic", "record", "--recursion-carrier", "bytes")...)
	if r.code != 0 || !strings.Contains(r.stderr, " values rounded to the precision of the mapping") {
		t.Fatalf("encode --preset engine: exit %d: %s", r.code, r.stderr)
	}
}

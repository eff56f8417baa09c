package main

import (
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protoavro/protoavro/internal/testutil"
)

// writeHostileSet writes the descriptor set of a hostile file into dir.
func writeHostileSet(t *testing.T, dir string, fdp *descriptorpb.FileDescriptorProto) string {
	t.Helper()
	b, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{fdp}})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"hostile.binpb": string(b)})
	return filepath.Join(dir, "hostile.binpb")
}

// TestSchemaLimitsCommands runs schema, encode and decode on hostile
// descriptors: each is refused with exit status 1 and one line naming the
// limit and the path of types, and --schema-limits raises the limits.
func TestSchemaLimitsCommands(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, map[string]string{"mesh.proto": testutil.HostileProto(testutil.Mesh, 1_000), "empty.jsonl": ""})
	chain := writeHostileSet(t, dir, testutil.HostileFile(testutil.Chain, 20_000))
	const limitPath = "records nested more than 63 deep (Limits.MaxDepth), at hostile.M0 > hostile.M1 > hostile.M2 > (58 more) > hostile.M61 > hostile.M62 > hostile.M63"
	empty := filepath.Join(dir, "empty.jsonl")
	for _, args := range [][]string{
		{"schema", "-m", "hostile.M0", "-I", dir, "mesh.proto"},
		{"schema", "-m", "hostile.M0", "--descriptor-set", chain},
		{"schema", "--canonical", "--descriptor-set", chain},
		{"encode", "-m", "hostile.M0", "--descriptor-set", chain, "--in", empty, "--out", filepath.Join(dir, "x.avro")},
	} {
		r := runIO(t, nil, args...)
		wantRun(t, r, 1, limitPath)
	}
	// Raised, the chain derives; its schema, too deep to indent, is
	// written compact on one line.
	r := runIO(t, nil, "schema", "-m", "hostile.M0", "--descriptor-set", chain, "--schema-limits", "depth=20000,types=20000")
	if r.code != 0 || strings.Count(r.stdout, "\n") != 1 || strings.Count(r.stdout, `"type":"record"`) != 20_000 {
		t.Errorf("raised limits: exit code %d, %d lines, stderr %q", r.code, strings.Count(r.stdout, "\n"), r.stderr)
	}
	wantRun(t, runIO(t, nil, "schema", "-m", "hostile.M0", "--descriptor-set", chain, "--schema-limits", "depth=0"), 2, "--schema-limits")
	wantRun(t, runIO(t, nil, "schema", "-m", "hostile.M0", "--descriptor-set", chain, "--schema-limits", "width=3"), 2, "--schema-limits")
}

// TestSchemaLimitsContainerHeader decodes a container file whose header
// embeds a type beyond the default limits (12,000 record types, written
// with the limits raised): the reader refuses it with one line, exit
// status 1, and decodes it with them raised too.
func TestSchemaLimitsContainerHeader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	set := writeHostileSet(t, dir, testutil.HostileFile(testutil.Star, 12_000))
	writeFiles(t, dir, map[string]string{"empty.jsonl": ""})
	empty := filepath.Join(dir, "empty.jsonl")
	avro := filepath.Join(dir, "wide.avro")
	r := runIO(t, nil, "encode", "-m", "hostile.M0", "--descriptor-set", set, "--schema-limits", "types=20000", "--in", empty, "--out", avro)
	if r.code != 0 {
		t.Fatalf("encode with raised limits: %d %s", r.code, r.stderr)
	}
	r = runIO(t, nil, "decode", "--schema-limits", "types=20000", avro)
	if r.code != 0 {
		t.Errorf("decode with raised limits: exit code %d: %s", r.code, r.stderr)
	}
	r = runIO(t, nil, "decode", avro)
	if r.code != 1 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "more than 10000 records and enums (Limits.MaxTypes), at hostile.M0 > hostile.M") {
		t.Errorf("decode: exit code %d, stderr %q; want 1 and one line", r.code, r.stderr)
	}
	t.Logf("decode: %s", r.stderr)
}

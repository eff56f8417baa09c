package main

import (
	"bytes"
	encbinary "encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protoavro/protoavro/beam/internal/beamtest"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/realworld"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/protoload"
)

// shardJSON reads the container files with protoavro's reader of the
// embedded type, as protoavro decode --format jsonl reads them without
// .proto files (the Any values resolved by the reader's AnyResolver), and
// returns their records as protojson, normalized (compactJSON).
func shardJSON(t *testing.T, files []string) []string {
	t.Helper()
	var out []string
	for _, name := range files {
		beamtest.Each(t, name, func(cr *protoavro.ContainerReader, m proto.Message) {
			j, err := protojson.MarshalOptions{Resolver: cr.AnyResolver()}.Marshal(m)
			if err != nil {
				t.Fatalf("%s: record %d without the .proto files: %v", filepath.Base(name), cr.Records()-1, err)
			}
			out = append(out, compactJSON(t, j))
		})
	}
	return out
}

// compactJSON returns the JSON text j re-encoded (keys sorted, no spaces),
// so that equal values compare equal whatever protojson's spacing.
func compactJSON(t *testing.T, j []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(j, &v); err != nil {
		t.Fatalf("%s: %v", j, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRealWorldAnyShardsReadAlone: Cloud Logging LogEntry records whose
// proto_payload Any packs a Cloud Audit AuditLog (the googleapis protos
// under third_party/, loaded at run time), given as length-delimited
// protobuf with the .proto files and as JSON Lines with a descriptor set,
// convert into shards that carry the packed type: read as protoavro
// decode reads them, with no .proto file or descriptor set, every shard
// gives its records as JSON, and together they are the input's records,
// each once.
func TestRealWorldAnyShardsReadAlone(t *testing.T) {
	rt := realworld.Types[0]
	if rt.Name != "google.logging.v2.LogEntry" || rt.AnyType != "google.cloud.audit.AuditLog" {
		t.Fatalf("the corpus's first type is %s packing %s, not LogEntry packing AuditLog", rt.Name, rt.AnyType)
	}
	md, types := rt.Load(t, "../../..")
	dir := t.TempDir()
	var delimited, jsonl []byte
	var want []string
	packed := 0
	for i := range 300 {
		m := realworld.Message(t, md, types.Resolver(), rt.AnyType, testutil.SeedKey("beam/realworld-any"), i, testutil.DefaultConfig)
		wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		delimited = protowire.AppendBytes(delimited, wire)
		j, err := protojson.MarshalOptions{Resolver: types.Resolver()}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		jsonl = append(append(jsonl, j...), '\n')
		want = append(want, compactJSON(t, j))
		if bytes.Contains(j, []byte(`"@type":"type.googleapis.com/google.cloud.audit.AuditLog"`)) ||
			bytes.Contains(j, []byte(`"@type": "type.googleapis.com/google.cloud.audit.AuditLog"`)) {
			packed++
		}
	}
	if packed < 30 {
		t.Fatalf("%d of the 300 records pack an AuditLog: the test does not test Any", packed)
	}
	slices.Sort(want)
	setPath := filepath.Join(dir, "logging.pb")
	var set descriptorpb.FileDescriptorSet
	for _, f := range protoload.WithImports(types.Files()...) {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
	}
	b, err := proto.Marshal(&set)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"in.delimited": delimited, "in.jsonl": jsonl, "logging.pb": b} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	googleapis := filepath.Join("..", rt.ImportPath)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"protos", append([]string{"-I", googleapis, "--input", filepath.Join(dir, "in.delimited")}, rt.Protos...)},
		{"descriptor-set", []string{"--descriptor-set", setPath, "--format", "jsonl", "--input", filepath.Join(dir, "in.jsonl")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			outDir := t.TempDir()
			out := filepath.Join(outDir, "logs")
			args := append([]string{"-m", string(rt.Name), "--output", out, "--shards", "2", "--codec", "snappy"}, c.args...)
			if code, stderr := runCLI(t, args...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got := shardJSON(t, []string{out + "-00000-of-00002.avro", out + "-00001-of-00002.avro"})
			slices.Sort(got)
			if len(got) != len(want) || !slices.Equal(got, want) {
				t.Errorf("the shards hold %d records, not the %d of the input (or other ones)", len(got), len(want))
			}
		})
	}
}

// TestOTLPSize32: OpenTelemetry traces as the Collector's file exporter
// writes them (each TracesData after its size as 4 bytes, big-endian)
// convert with --format size32, every record once. Without --format the
// same file, whose bytes are also valid length-delimited input (three
// empty records before each small message), is refused for its first two
// zero bytes, naming the file, record 0 and byte 0 and the way out, and
// leaves no shard.
func TestOTLPSize32(t *testing.T) {
	const spans = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"AAECAwQFBgcICQoLDA0ODw==","spanId":"AAECAwQFBgc=","name":"%s","kind":"SPAN_KIND_SERVER"}]}]}]}`
	files, err := protoload.Load(t.Context(), protoload.Input{
		Protos:      []string{"opentelemetry/proto/trace/v1/trace.proto"},
		ImportPaths: []string{"../../../third_party/opentelemetry-proto"},
	})
	if err != nil {
		t.Fatal(err)
	}
	md, err := files.FindMessage("opentelemetry.proto.trace.v1.TracesData")
	if err != nil {
		t.Fatal(err)
	}
	var in []byte
	var want []string
	for _, name := range []string{"GET /cart", "POST /checkout", "charge"} {
		mt, err := files.Resolver().FindMessageByName(md.FullName())
		if err != nil {
			t.Fatal(err)
		}
		td := mt.New().Interface()
		if err := protojson.Unmarshal(fmt.Appendf(nil, spans, name), td); err != nil {
			t.Fatal(err)
		}
		wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(td)
		if err != nil {
			t.Fatal(err)
		}
		if len(wire) >= 128 {
			t.Fatalf("a record of %d bytes: its size32 framing would not read as varint records", len(wire))
		}
		in = append(encbinary.BigEndian.AppendUint32(in, uint32(len(wire))), wire...)
		want = append(want, string(wire))
	}
	slices.Sort(want)
	path := filepath.Join(t.TempDir(), "traces.pb")
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	otlp := "../third_party/opentelemetry-proto"
	args := []string{"-I", otlp, "-m", "opentelemetry.proto.trace.v1.TracesData", "--input", path, "opentelemetry/proto/trace/v1/trace.proto"}

	outDir := t.TempDir()
	out := filepath.Join(outDir, "traces")
	code, stderr := runCLI(t, append(args, "--output", out)...)
	cause := `protoavrobeam: bad input: "` + path + `": record 0 (input byte 0): the input starts with two zero bytes`
	if code != 1 || !strings.HasPrefix(lastLine(stderr), cause) || !strings.Contains(lastLine(stderr), "--format size32") {
		t.Errorf("without --format: exit %d, want 1 and, last, %q with the way out:\n%s", code, cause, stderr)
	}
	if left := dirNames(t, outDir); len(left) > 0 {
		t.Errorf("without --format: %q left in the output directory", left)
	}

	if code, stderr := runCLI(t, append(args, "--output", out, "--format", "size32")...); code != 0 {
		t.Fatalf("--format size32: exit %d: %s", code, stderr)
	}
	var shards []string
	for _, name := range dirNames(t, outDir) {
		shards = append(shards, filepath.Join(outDir, name))
	}
	got := beamtest.Wires(t, shards...)
	if !slices.Equal(got, want) {
		t.Errorf("--format size32: the shards hold %d records, not the %d of the input (or other ones)", len(got), len(want))
	}
}

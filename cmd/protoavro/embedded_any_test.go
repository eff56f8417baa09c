package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
)

// embeddedAnyProtos are the .proto files of testutil.EmbeddedAnyProtos:
// ev.Event with an Any field, and ev.audit.AuditLog it packs.
var embeddedAnyProtos = testutil.EmbeddedAnyProtos()

// embeddedAnyJSONL are records of ev.Event packing types of both files.
const embeddedAnyJSONL = testutil.EmbeddedAnyJSONL

// TestDecodeResolvesEmbeddedAnyTypes: the records' Any values pack a type
// of another .proto file given to encode, and one of the message's own
// file. Encode embeds the files given on its command line, and decode
// without any .proto resolves the packed types by the embedded descriptors:
// --format jsonl gives the records back, whatever the descriptor mode and
// with Any carried as JSON (--dynamic json, --preset engine).
func TestDecodeResolvesEmbeddedAnyTypes(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, embeddedAnyProtos)
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(embeddedAnyJSONL), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		flags []string
	}{
		{"record", nil},
		{"full", []string{"--descriptors", "full"}},
		{"minimal", []string{"--descriptors", "minimal"}},
		{"dynamic-json", []string{"--dynamic", "json"}},
		{"engine", []string{"--preset", "engine"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			avroPath := filepath.Join(dir, c.name+".avro")
			args := append([]string{"encode", "-I", dir, "-m", "ev.Event", "ev/event.proto", "ev/payload.proto", "--in", in, "--out", avroPath}, c.flags...)
			if r := runCmd(t, args...); r.code != 0 {
				t.Fatalf("encode: %s", r.stderr)
			}
			for _, format := range []string{"jsonl", "delimited"} {
				out := filepath.Join(dir, c.name+"."+format)
				r := runCmd(t, "decode", "--format", format, "--in", avroPath, "--out", out)
				if r.code != 0 {
					t.Fatalf("decode --format %s: %s", format, r.stderr)
				}
				if format != "jsonl" {
					continue
				}
				got, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if !sameJSONLines(string(got), embeddedAnyJSONL) {
					t.Errorf("decode --format jsonl:\n got %s\nwant %s", got, embeddedAnyJSONL)
				}
			}
		})
	}
}

// TestDecodeDynamicJSONOwnFileAny: a --dynamic json file whose Any packs a
// type of the message's own file (embedded with it) decodes without -I or
// .proto files, to delimited protobuf and to JSON Lines.
func TestDecodeDynamicJSONOwnFileAny(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, embeddedAnyProtos)
	in := filepath.Join(dir, "in.jsonl")
	const records = `{"id":"b","payload":{"@type":"type.googleapis.com/ev.Local","note":"n"}}
`
	if err := os.WriteFile(in, []byte(records), 0o644); err != nil {
		t.Fatal(err)
	}
	avroPath := filepath.Join(dir, "own.avro")
	// Only the message's file: the packed type is in it.
	if r := runCmd(t, "encode", "-I", dir, "-m", "ev.Event", "ev/event.proto", "--dynamic", "json", "--in", in, "--out", avroPath); r.code != 0 {
		t.Fatalf("encode: %s", r.stderr)
	}
	if r := runCmd(t, "decode", "--in", avroPath, "--out", filepath.Join(dir, "own.bin")); r.code != 0 {
		t.Fatalf("decode: %s", r.stderr)
	}
	out := filepath.Join(dir, "own.jsonl")
	if r := runCmd(t, "decode", "--format", "jsonl", "--in", avroPath, "--out", out); r.code != 0 {
		t.Fatalf("decode --format jsonl: %s", r.stderr)
	}
	if got, err := os.ReadFile(out); err != nil || !sameJSONLines(string(got), records) {
		t.Errorf("decode --format jsonl: got %q (%v), want %q", got, err, records)
	}
}

// sameJSONLines reports whether a and b hold the same JSON values, line by
// line (protojson's spacing varies).
func sameJSONLines(a, b string) bool {
	al, bl := strings.Split(strings.TrimSpace(a), "\n"), strings.Split(strings.TrimSpace(b), "\n")
	if len(al) != len(bl) {
		return false
	}
	for i := range al {
		var x, y any
		if json.Unmarshal([]byte(al[i]), &x) != nil || json.Unmarshal([]byte(bl[i]), &y) != nil || !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testutil"
)

// TestJSONLinesMatchDelimited encodes the same random messages as
// length-delimited protobuf and as JSON Lines (protojson's output, with
// its whitespace), and checks that the container files hold the records
// (for JSON Lines: what protojson reads from the lines, which differs
// only in NaN payloads), and that decode --format jsonl writes lines that
// protojson reads back as the messages.
func TestJSONLinesMatchDelimited(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"protoavro.test.kitchen.Maps", "protoavro.test.kitchen.Repeateds", "protoavro.test.kitchen.Oneofs"} {
		md := testutil.FindMessage(testutil.Files[1], protoreflectName(name))
		dir := t.TempDir()
		// viaJSON is what protojson reads from the lines, marshalled
		// deterministically: the records the JSON Lines must give.
		var delim, lines, viaJSON []byte
		var msgs []proto.Message
		for i := range 150 {
			m := testutil.RandMessage(md, false, testutil.SeedKey("jsonl/"+name), i, testutil.DefaultConfig)
			wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			text, err := protojson.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			back := dynamicpb.NewMessage(md)
			if err := protojson.Unmarshal(text, back); err != nil {
				t.Fatal(err)
			}
			bw, err := proto.MarshalOptions{Deterministic: true}.Marshal(back)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(bw, wire) && !bytes.Contains(text, []byte(`"NaN"`)) {
				t.Fatalf("%s: message %d changes through protojson, without a NaN", name, i)
			}
			viaJSON = protowire.AppendVarint(viaJSON, uint64(len(bw)))
			viaJSON = append(viaJSON, bw...)
			delim = protowire.AppendVarint(delim, uint64(len(wire)))
			delim = append(delim, wire...)
			lines = append(append(lines, text...), '\n')
			msgs = append(msgs, m)
		}
		files := map[string][]byte{"in.delimited": delim, "in.jsonl": lines}
		for f, b := range files {
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		types := []string{"-I", "../../testdata/proto", "-m", name, "kitchen/kitchen.proto"}
		for _, format := range []string{"delimited", "jsonl"} {
			args := append(append([]string{"encode"}, types...), "--in", filepath.Join(dir, "in."+format), "--out", filepath.Join(dir, format+".avro"))
			if r := runIO(t, nil, args...); r.code != 0 {
				t.Fatalf("%s: encode %s: %s", name, format, r.stderr)
			}
			for _, workers := range []string{"1", "2"} {
				want := delim
				if format == "jsonl" {
					want = viaJSON
				}
				r := runIO(t, nil, "decode", "--in", filepath.Join(dir, format+".avro"), "--workers", workers)
				if r.code != 0 || r.stdout != string(want) {
					t.Fatalf("%s: the records encoded from %s differ (workers %s): %s", name, format, workers, r.stderr)
				}
				r = runIO(t, nil, "decode", "--in", filepath.Join(dir, format+".avro"), "--format", "jsonl", "--workers", workers)
				if r.code != 0 {
					t.Fatalf("%s: decode --format jsonl: %s", name, r.stderr)
				}
				sc := bufio.NewScanner(bytes.NewReader([]byte(r.stdout)))
				sc.Buffer(nil, 1<<24)
				i := 0
				for ; sc.Scan(); i++ {
					got := dynamicpb.NewMessage(md)
					if err := protojson.Unmarshal(sc.Bytes(), got); err != nil {
						t.Fatalf("%s: line %d: %v", name, i+1, err)
					}
					want := dynamicpb.NewMessage(md)
					wire, _ := proto.Marshal(msgs[i])
					if err := proto.Unmarshal(wire, want); err != nil {
						t.Fatal(err)
					}
					if !proto.Equal(got, want) && !bytes.Contains(sc.Bytes(), []byte(`"NaN"`)) {
						t.Fatalf("%s: line %d reads back as another message", name, i+1)
					}
				}
				if i != len(msgs) {
					t.Fatalf("%s: %d lines, want %d", name, i, len(msgs))
				}
			}
		}
	}
}

// protoreflectName is a full message name.
func protoreflectName(s string) protoreflect.FullName { return protoreflect.FullName(s) }

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/protoavro/protoload"
)

// discardLine is a JSON record of drift.Log for --discard-unknown; fast
// says that the fast path takes it.
type discardLine struct {
	line string
	fast bool
}

// discardLines are records with members that name no field, with values
// of every JSON kind, at every depth of the messages that the fast path
// reads itself; records without such members; the values that
// --discard-unknown refuses; and skipped values that are not JSON. Then
// those of driftLines, whose first four the fast path takes (the others
// have members in an Any or an Empty, or naming an extension).
var discardLines = append([]discardLine{
	{`{"name":"n","severity":"INFO","at":"2024-01-02T03:04:05Z","nothing":{},"payload":{"@type":"type.googleapis.com/drift.Detail","reason":"r"},"u":[1,"two",{"three":[true,false,null]}]}`, true},
	{`{"u":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00 é","v":-1.5e3,"w":{},"x":[],"name":"escapes"}`, true},
	{`{"unkn\u006fwn":{},"n\u0061me":"escaped names"}`, true},
	{`{"http_request":{"status":200,"zz":null},"by_host":{"h":{"method":"PUT","zz":{"deep":[[[[[[[[[[1]]]]]]]]]]}}}}`, true},
	{`{"entries":[{"text":"a","labels":{"k":"v"},"u":false},{"u":true}],"name":"lists"}`, true},
	{`{"name":"clean","severity":1}`, true},
	{`{}`, true},
	{`{"severity":"CRITICAL","extra":1}`, false},
	{`{"payload":{"reason":"r"},"extra":1}`, false},
	{`{"payload":{"@type":"type.googleapis.com/drift.Nope"},"extra":1}`, false},
	{`{"name":"a","extra":[1,]}`, false},
	{`{"name":"a","extra":"\ud800"}`, false},
	{`{"extra":1e}`, false},
	{`{"extra":1,"name":5}`, false},
	{"{\"extra\":\"\xff\"}", false},
}, func() (out []discardLine) {
	for i, c := range driftLines {
		out = append(out, discardLine{c.line, i < 4})
	}
	return out
}()...)

// TestJSONDiscardUnknownFastPath: the fast path of encode --discard-unknown
// writes the records that it takes (the members that name no field at
// every depth of the messages it reads itself) with the bytes of the slow
// path, protojson, and marks the same records as having had unknown
// fields dropped; the records it declines are read or refused by the slow
// path. The command's output and its count of such records are those of
// protojson with DiscardUnknown.
func TestJSONDiscardUnknownFastPath(t *testing.T) {
	t.Parallel()
	dir := tempFiles(t, driftProtos)
	types, err := protoload.Load(context.Background(), protoload.Input{Protos: []string{"drift/log.proto"}, ImportPaths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	md, err := types.FindMessage("drift.Log")
	if err != nil {
		t.Fatal(err)
	}
	e := &encoder{discardUnknown: true, resolver: types.Resolver()}
	e.initJSON(md)
	var in, want strings.Builder
	records, dropped := 0, 0
	for _, c := range discardLines {
		line := []byte(c.line)
		_, _, took := e.json.AppendWireDiscardUnknown(nil, line)
		if took != c.fast {
			t.Errorf("the fast path takes %s: %v, want %v", line, took, c.fast)
		}
		got, err := e.jsonToWire([]byte("prefix"), append(line, '\n'))
		slow, slowErr := e.protojsonToWire([]byte("prefix"), line)
		if fmt.Sprint(err) != fmt.Sprint(slowErr) || !bytes.Equal(got, slow) {
			t.Errorf("jsonToWire(%s) = %x, %v; protojson gives %x, %v", line, got, err, slow, slowErr)
		}
		if err != nil {
			continue
		}
		// What protojson reads with DiscardUnknown, and whether it reads
		// the record without it.
		m := dynamicpb.NewMessage(md)
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true, Resolver: e.resolver}).Unmarshal(line, m); err != nil {
			t.Fatalf("protojson with DiscardUnknown refuses %s: %v", line, err)
		}
		if (protojson.UnmarshalOptions{Resolver: e.resolver}).Unmarshal(line, dynamicpb.NewMessage(md)) != nil {
			dropped++
		}
		kept, err := (protojson.MarshalOptions{Resolver: e.resolver}).Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		in.WriteString(c.line + "\n")
		want.Write(append(kept, '\n'))
		records++
	}
	inPath, out := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.avro")
	if err := os.WriteFile(inPath, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, append(driftArgs(dir), "--discard-unknown", "--in", inPath, "--out", out)...)
	wantRun(t, r, 0, fmt.Sprintf("encoded %d records", records))
	if !strings.HasSuffix(r.stderr, fmt.Sprintf("; 0 skipped; %d records had unknown fields dropped\n", dropped)) {
		t.Errorf("summary %q: want %d records counted", r.stderr, dropped)
	}
	got := runCmd(t, "decode", "--format", "jsonl", "--in", out, "--out", "-")
	if got.code != 0 || !sameJSONLines(got.stdout, want.String()) {
		t.Errorf("decode: %s\n got %s\nwant %s", got.stderr, got.stdout, want.String())
	}
}

// BenchmarkEncodeDiscardUnknown measures encode --format jsonl
// --discard-unknown, one worker, on the JSON Lines of the AVRO-2147
// records × 20 as they are (clean) and with members that name no field
// in each line (unknown): two at the root, one of them an object, and a
// null one in a nested message.
//
//	go test -run '^$' -bench EncodeDiscardUnknown -benchmem -count 5 ./cmd/protoavro | tee discard.txt
//	benchstat discard.txt
func BenchmarkEncodeDiscardUnknown(b *testing.B) {
	in := avro2147Input(b)
	clean, err := os.ReadFile(in.path("in.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	var unknown []byte
	nested := 0
	for line := range bytes.Lines(clean) {
		line = bytes.Replace(line, []byte(`"bar":{"`), []byte(`"bar":{"note":null,"`), 1)
		if bytes.Contains(line, []byte(`"note":null`)) {
			nested++
		}
		unknown = append(unknown, `{"requestId":"0af7651916cd43dd8448eb211c80319c","tags":{"env":"prod","zones":["a","b"],"retries":3},`...)
		unknown = append(unknown, line[1:]...)
	}
	if nested == 0 {
		b.Fatal("no nested message to add a member to")
	}
	if err := os.WriteFile(in.path("unknown.jsonl"), unknown, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, file string }{{"clean", "in.jsonl"}, {"unknown", "unknown.jsonl"}} {
		args := append(append([]string{"encode"}, in.types...), "--in", in.path(c.file), "--format", "jsonl",
			"--discard-unknown", "--workers", "1", "--codec", "null", "--out", in.path("out.avro"))
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				benchRun(b, args)
			}
			b.ReportMetric(float64(in.records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

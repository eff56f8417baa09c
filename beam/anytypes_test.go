package protoavrobeam

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// TestTypeAnyTypes: the Any values of the records resolve to the types that
// travel with the Type: a DoFn's codec built from a Type whose AnyTypes
// (WithAnyTypes) hold a message writes and reads an Any of it as JSON
// (EngineReady), and its JSON Lines reader reads one.
func TestTypeAnyTypes(t *testing.T) {
	md := (&kitchenpb.WellKnown{}).ProtoReflect().Descriptor()
	typ, err := TypeOf(md, protoavro.EngineReady())
	if err != nil {
		t.Fatal(err)
	}
	// The packed type: one whose file WellKnown's does not import, so
	// that only AnyTypes can hold it.
	packed := &avro2147pb.MessageWithLargeEnum{}
	typ, err = typ.WithAnyTypes(packed.ProtoReflect().Descriptor().ParentFile())
	if err != nil {
		t.Fatal(err)
	}
	c, err := typ.compile()
	if err != nil {
		t.Fatal(err)
	}
	a, err := anypb.New(packed)
	if err != nil {
		t.Fatal(err)
	}
	wire, err := proto.Marshal(&kitchenpb.WellKnown{Any: a})
	if err != nil {
		t.Fatal(err)
	}
	datum, err := c.codec.TranscodeToAvro(nil, wire)
	if err != nil {
		t.Fatalf("an Any of an AnyTypes message: %v", err)
	}
	back, err := c.codec.TranscodeToProto(nil, datum)
	if err != nil {
		t.Fatal(err)
	}
	got := &kitchenpb.WellKnown{}
	if err := proto.Unmarshal(back, got); err != nil || !proto.Equal(got, &kitchenpb.WellKnown{Any: a}) {
		t.Errorf("read back %v (%v)", got, err)
	}
	if _, err := c.resolver.FindMessageByURL(a.TypeUrl); err != nil {
		t.Errorf("the resolver lacks %s: %v", a.TypeUrl, err)
	}
	// Without AnyTypes, the type is unknown.
	typ.AnyTypes = nil
	if c, err = typ.compile(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.codec.TranscodeToAvro(nil, wire); !errors.Is(err, protoavro.ErrUnknownAnyType) {
		t.Errorf("without AnyTypes: %v, want ErrUnknownAnyType", err)
	}
}

// embeddedAnyProtos are a message with an Any field (ev/event.proto, which
// also declares a type it may pack) and a type it packs from another file
// (ev/payload.proto), imported by neither.
var embeddedAnyProtos = map[string]string{
	"ev/event.proto": `syntax = "proto3";
package ev;
import "google/protobuf/any.proto";
message Event { string id = 1; google.protobuf.Any payload = 2; }
message Local { string note = 1; }
`,
	"ev/payload.proto": `syntax = "proto3";
package ev.audit;
message AuditLog { string method = 1; int64 count = 2; }
`,
}

// embeddedAnyJSON are records of ev.Event packing ev.audit.AuditLog (from
// the other file) and ev.Local (from the message's own file).
var embeddedAnyJSON = []string{
	`{"id":"a","payload":{"@type":"type.googleapis.com/ev.audit.AuditLog","method":"Get","count":"3"}}`,
	`{"id":"b","payload":{"@type":"type.googleapis.com/ev.Local","note":"n"}}`,
	`{"id":"c"}`,
}

// TestShardsEmbedAnyTypes: the shards of a message that reaches an Any embed
// the files of the Type's AnyTypes, as protoavro encode embeds the .proto
// files of its command line, whether a bundle's file is renamed to a shard
// or several are merged into one: protoavro's reader of the embedded type
// (protoavro decode) and ReadAvro without a Type resolve the packed types
// from the shard alone, and give the records back as JSON. A message that
// reaches no Any embeds its own files only.
func TestShardsEmbedAnyTypes(t *testing.T) {
	files := testcompile.Sources(t, embeddedAnyProtos, "ev/event.proto", "ev/payload.proto")
	md := files[0].Messages().ByName("Event")
	typ, err := TypeOf(md, protoavro.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if typ, err = typ.WithAnyTypes(files...); err != nil {
		t.Fatal(err)
	}
	c, err := typ.compile()
	if err != nil {
		t.Fatal(err)
	}
	var batches []Records
	for i, line := range embeddedAnyJSON {
		m := dynamicpb.NewMessage(md)
		if err := (protojson.UnmarshalOptions{Resolver: c.resolver}).Unmarshal([]byte(line), m); err != nil {
			t.Fatal(err)
		}
		wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		batches = append(batches, delimitedRecords(fmt.Sprintf("in-%d.jsonl", i), [][]byte{wire}))
	}
	for _, shards := range []int{0, 1} { // renamed, merged
		dir := t.TempDir()
		prefix := filepath.Join(dir, "ev")
		fn := &writeAvroFn{typed: typed{Type: typ}, Prefix: prefix, Codec: string(protoavro.CompressionDeflate), Run: randomID()}
		temps := writeBundles(t, fn, batches...)
		fin := &finalizeFn{Type: typ, Prefix: prefix, Shards: shards, Suffix: ".avro", Codec: fn.Codec, Avro: true, Run: fn.Run}
		var outs []string
		if err := fin.ProcessElement(context.Background(), nil, iterOf(temps...), func(s string) { outs = append(outs, s) }); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, name := range outs {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			cr, err := protoavro.NewContainerReader(bytes.NewReader(data), protoavro.ReaderOptions{})
			if err != nil {
				t.Fatalf("shards %d: %s: %v", shards, filepath.Base(name), err)
			}
			// ReadAvro without a Type compiles the embedded type, whose
			// resolver must know the packed type.
			ro, err := (&readAvroFn{}).readerOptions(&ocf.Header{Metadata: cr.Metadata()})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ro.Options.AnyResolver.FindMessageByURL("type.googleapis.com/ev.audit.AuditLog"); err != nil {
				t.Errorf("shards %d: ReadAvro of %s: %v", shards, filepath.Base(name), err)
			}
			for {
				m := cr.NewMessage()
				if err := cr.Read(m); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				j, err := protojson.MarshalOptions{Resolver: cr.AnyResolver()}.Marshal(m)
				if err != nil {
					t.Fatalf("shards %d: %s: %v", shards, filepath.Base(name), err)
				}
				got = append(got, string(j))
			}
		}
		if !sameJSON(got, embeddedAnyJSON) {
			t.Errorf("shards %d: read back %q, want %q", shards, got, embeddedAnyJSON)
		}
	}

	// A message that reaches no Any: the AnyTypes are not embedded.
	foo, err := fooType(t).WithAnyTypes(files[1])
	if err != nil {
		t.Fatal(err)
	}
	fc, err := foo.compile()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fc.meta[protoavro.MetaDescriptors], fooType(t).Descriptors) {
		t.Error("the shards of Foo, which reaches no Any, embed more than its own files")
	}
}

// sameJSON reports whether got and want hold the same JSON values, in any
// order.
func sameJSON(got, want []string) bool {
	norm := func(lines []string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			var v any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				return nil
			}
			b, _ := json.Marshal(v)
			out[i] = string(b)
		}
		slices.Sort(out)
		return out
	}
	g, w := norm(got), norm(want)
	return g != nil && slices.Equal(g, w)
}

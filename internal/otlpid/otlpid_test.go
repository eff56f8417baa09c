package otlpid

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testutil/testcompile"
)

// spanProto declares spans with OTLP's ID fields, reached through a list,
// a map and a plain field, and fields that are no IDs: bytes of other
// names, a string named like an ID, a list of bytes named like one.
const spanProto = `syntax = "proto3";
package otlp;
message Span { bytes trace_id = 1; bytes span_id = 2; bytes parent_span_id = 3; string name = 4; }
message Batch {
  repeated Span spans = 1;
  map<string, Span> by_name = 2;
  Span root = 3;
  bytes payload = 4;
  string request_trace_id = 5;
  repeated bytes old_span_id = 6;
  repeated Batch children = 7;
}
message Plain { bytes data = 1; string trace_id = 2; }
`

func types(t *testing.T) (batch, plain protoreflect.MessageDescriptor) {
	t.Helper()
	f := testcompile.Sources(t, map[string]string{"otlp.proto": spanProto}, "otlp.proto")[0]
	return f.Messages().ByName("Batch"), f.Messages().ByName("Plain")
}

// decode reads the protojson text j into a message of md.
func decode(t *testing.T, md protoreflect.MessageDescriptor, j string) protoreflect.Message {
	t.Helper()
	m := dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal([]byte(j), m); err != nil {
		t.Fatalf("%s: %v", j, err)
	}
	return m
}

// Fields finds the bytes fields named like OTLP IDs that a message
// reaches, each once however often it is reached, and nothing else.
func TestFieldsAreTheBytesIDs(t *testing.T) {
	batch, plain := types(t)
	var got []string
	for _, fd := range Fields(batch) {
		got = append(got, string(fd.FullName()))
	}
	want := "otlp.Span.trace_id otlp.Span.span_id otlp.Span.parent_span_id otlp.Batch.old_span_id"
	if strings.Join(got, " ") != want {
		t.Errorf("Fields(Batch) = %q, want %q", got, want)
	}
	if ids := Fields(plain); ids != nil {
		t.Errorf("Fields(Plain) = %v, want nil", ids)
	}
}

// A 32-digit trace ID and a 16-digit span ID in hex, read as base64, are
// refused wherever the span is (plain field, list, map, nested list),
// naming the field's path and its sizes, with the hint; base64 IDs, empty
// IDs and other bytes fields pass.
func TestCheckRefusesHexIDs(t *testing.T) {
	batch, _ := types(t)
	ids := Fields(batch)
	const (
		traceHex = "5b8efff798038103d269b633813fc60c"
		spanHex  = "eee19b7ec3c1b174"
		traceB64 = "W47/95gDgQPSabYzgT/GDA=="
		spanB64  = "7uGbfsPBsXQ="
	)
	for _, c := range []struct{ json, want string }{
		{`{"root":{"traceId":"` + traceHex + `"}}`, "field root.trace_id holds 24 bytes, not 16: hex digits read as base64 (" + Hint + ")"},
		{`{"spans":[{"traceId":"` + traceB64 + `"},{"spanId":"` + spanHex + `"}]}`, "field spans[1].span_id holds 12 bytes, not 8: hex digits read as base64 ("},
		{`{"byName":{"a\nb":{"parentSpanId":"` + spanHex + `"}}}`, `field by_name["a\nb"].parent_span_id holds 12 bytes, not 8`},
		{`{"children":[{},{"spans":[{"spanId":"` + spanHex + `"}]}]}`, "field children[1].spans[0].span_id holds 12 bytes"},
		// 15 hex digits are base64 of 11 bytes.
		{`{"root":{"spanId":"eee19b7ec3c1b17"}}`, "field root.span_id holds 11 bytes, not 8"},
		{`{"root":{"traceId":"` + traceB64 + `","spanId":"` + spanB64 + `"}}`, ""},
		{`{"root":{"traceId":"","spanId":""},"payload":"` + traceHex + `","requestTraceId":"` + traceHex + `"}`, ""},
		// A list of bytes is not an ID, whatever its name.
		{`{"oldSpanId":["` + spanHex + `"]}`, ""},
	} {
		err := Check(decode(t, batch, c.json), ids)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want no error", c.json, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an error with %q", c.json, err, c.want)
		}
	}
	if err := Check(decode(t, batch, `{"root":{"traceId":"`+traceHex+`"}}`), nil); err != nil {
		t.Errorf("no ID fields: %v", err)
	}
}

// Of several bad IDs in map entries, the one of the smallest key is
// reported, every time, and a key is quoted, escaped and cut.
func TestCheckMapKeysInOrder(t *testing.T) {
	batch, _ := types(t)
	ids := Fields(batch)
	bad := `{"spanId":"eee19b7ec3c1b174"}`
	long := strings.Repeat("é", 40) // 80 bytes
	m := decode(t, batch, `{"byName":{"m":`+bad+`,"c":`+bad+`,"x":`+bad+`,"k":`+bad+`,"d":`+bad+`}}`)
	for range 20 {
		if err := Check(m, ids); err == nil || !strings.Contains(err.Error(), `field by_name["c"].span_id`) {
			t.Fatalf("%v, want the error of the key \"c\"", err)
		}
	}
	err := Check(decode(t, batch, `{"byName":{"`+long+`\u202e":`+bad+`}}`), ids)
	want := `field by_name["` + strings.Repeat("é", 32) + `"… (83 bytes)].span_id`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a long key: %v, want %q", err, want)
	}
}

// Suspect flags exactly the values that Check refuses: an ID field's bytes
// that are hex digits read as base64; not an ID's size, not another field.
func TestSuspect(t *testing.T) {
	batch, _ := types(t)
	ids := Fields(batch)
	span := batch.Fields().ByName("root").Message()
	traceID, spanID := span.Fields().ByName("trace_id"), span.Fields().ByName("span_id")
	payload := batch.Fields().ByName("payload")
	b64 := func(s string) []byte {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	hexTrace := b64("5b8efff798038103d269b633813fc60c") // 24 bytes
	realTrace, _ := hex.DecodeString("5b8efff798038103d269b633813fc60c")
	for _, c := range []struct {
		fd   protoreflect.FieldDescriptor
		b    []byte
		want bool
	}{
		{traceID, hexTrace, true},
		{spanID, b64("eee19b7ec3c1b174"), true},
		{traceID, realTrace, false},
		{spanID, realTrace[:8], false},
		{traceID, nil, false},
		{traceID, []byte{0xff, 0xfe, 0xfd}, false}, // not hex as base64
		{payload, hexTrace, false},
	} {
		if got := Suspect(c.fd, c.b, ids); got != c.want {
			t.Errorf("Suspect(%s, %x) = %v, want %v", c.fd.Name(), c.b, got, c.want)
		}
	}
	if Suspect(traceID, hexTrace, nil) {
		t.Error("Suspect with no ID fields")
	}
}

// ErrorHint adds the hint to protojson's error on an ID field, named by
// its JSON or its proto name, and nothing to another error.
func TestErrorHint(t *testing.T) {
	batch, _ := types(t)
	ids := Fields(batch)
	m := dynamicpb.NewMessage(batch)
	err := protojson.Unmarshal([]byte(`{"spans":[{"spanId":"eee19b7ec3c1b"}]}`), m) // 13 digits: not base64
	if err == nil {
		t.Fatal("13 hex digits read as base64")
	}
	if got := ErrorHint(err.Error(), ids); got != " ("+Hint+")" {
		t.Errorf("ErrorHint(%q) = %q", err, got)
	}
	if got := ErrorHint("invalid value for bytes field span_id: x", ids); got != " ("+Hint+")" {
		t.Errorf("by the proto name: %q", got)
	}
	for _, msg := range []string{"invalid value for bytes field payload: x", "unknown field \"spanIds\""} {
		if got := ErrorHint(msg, ids); got != "" {
			t.Errorf("ErrorHint(%q) = %q, want none", msg, got)
		}
	}
	if got := ErrorHint(err.Error(), nil); got != "" {
		t.Errorf("no ID fields: %q", got)
	}
}

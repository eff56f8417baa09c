package anytype

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/typepb"

	"github.com/protoavro/protoavro/internal/testutil/testcompile"
)

// TestInMessage finds the unknown Any in a list, in a map and inside a
// known Any, names its path, and finds nothing when every type is known.
func TestInMessage(t *testing.T) {
	known, err := anypb.New(durationpb.New(5))
	if err != nil {
		t.Fatal(err)
	}
	unknown := &anypb.Any{TypeUrl: "type.googleapis.com/nowhere.Gone", Value: []byte{8, 1}}
	// google.protobuf.Type: options[i].value is an Any.
	typ := &typepb.Type{Name: "t", Options: []*typepb.Option{{Name: "a", Value: known}, {Name: "b", Value: unknown}}}
	if u, ok := InMessage(typ.ProtoReflect(), nil); !ok || u.Path != "options[1].value" || u.URL != unknown.TypeUrl {
		t.Errorf("InMessage = %+v, %v", u, ok)
	}
	wrapped, err := anypb.New(&typepb.Type{Options: []*typepb.Option{{Value: unknown}}})
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := InMessage(wrapped.ProtoReflect(), protoregistry.GlobalTypes); !ok || u.Path != "options[0].value" || u.Describe() != `"type.googleapis.com/nowhere.Gone" at options[0].value` {
		t.Errorf("inside a known Any: %+v, %v", u, ok)
	}
	if u, ok := InMessage(unknown.ProtoReflect(), nil); !ok || u.Path != "" || u.Describe() != `"type.googleapis.com/nowhere.Gone"` {
		t.Errorf("the Any itself: %+v, %v", u, ok)
	}
	typ.Options[1].Value = known
	if u, ok := InMessage(typ.ProtoReflect(), nil); ok {
		t.Errorf("all known: %+v", u)
	}
}

// TestInJSON finds the unknown "@type" in protojson text by JSON names,
// walking the text by its message type: it skips known types, members that
// are no fields and the JSON of a Struct or Value (whose "@type" key is
// data), and finds nothing in text that is not JSON.
func TestInJSON(t *testing.T) {
	typ := (&typepb.Type{}).ProtoReflect().Descriptor()
	anyMD := (&anypb.Any{}).ProtoReflect().Descriptor()
	const gone = `{"@type":"x.io/nowhere.Gone"}`
	for _, c := range []struct {
		text string
		md   protoreflect.MessageDescriptor
		path string
		ok   bool
	}{
		{`{"options":[{"value":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1s"}},{"value":` + gone + `}]}`, typ, "options[1].value", true},
		{`{"options":[{"name":"n","value":` + gone + `}]}`, typ, "options[0].value", true},
		{gone, anyMD, "", true},
		{`{"@type":"type.googleapis.com/google.protobuf.Any","value":` + gone + `}`, anyMD, "value", true},
		{`{"@type":"type.googleapis.com/google.protobuf.Type","options":[{"value":` + gone + `}]}`, anyMD, "options[0].value", true},
		{`{"@type":"type.googleapis.com/google.protobuf.Struct","value":{"k":` + gone + `}}`, anyMD, "", false},
		{`{"@type":"type.googleapis.com/google.protobuf.Value","value":` + gone + `}`, anyMD, "", false},
		{`{"a":` + gone + `}`, typ, "", false},
		{`{"options":[{"value":{}}]}`, typ, "", false},
		{`{"a":`, typ, "", false},
	} {
		u, ok := InJSON([]byte(c.text), c.md, nil)
		if ok != c.ok || (ok && (u.Path != c.path || u.URL != "x.io/nowhere.Gone")) {
			t.Errorf("InJSON(%s) = %+v, %v; want path %q, %v", c.text, u, ok, c.path, c.ok)
		}
	}
	m := newAnyMap(t, nil).Descriptor()
	if u, ok := InJSON([]byte(`{"m":{"b":{},"k\u001b":`+gone+`}}`), m, nil); !ok || u.Path != `m."k\x1b"` {
		t.Errorf("in a map: %+v, %v; want the key quoted and escaped", u, ok)
	}
}

// FuzzInJSON: any text is answered without a panic, and what is found is
// the value of an "@type" member, which the text must name.
func FuzzInJSON(f *testing.F) {
	for _, s := range []string{`{"@type":"a/b.C"}`, `{"options":[{"value":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1s"}}]}`, `[[[[`, `{"@type":1}`, ``} {
		f.Add([]byte(s))
	}
	typ := (&typepb.Type{}).ProtoReflect().Descriptor()
	anyMD := (&anypb.Any{}).ProtoReflect().Descriptor()
	f.Fuzz(func(t *testing.T, text []byte) {
		for _, md := range []protoreflect.MessageDescriptor{typ, anyMD} {
			if _, ok := InJSON(text, md, nil); ok && !strings.Contains(string(text), "@type") && !strings.Contains(string(text), `\u`) {
				t.Errorf("found an Any in %q, which has no \"@type\"", text)
			}
		}
	})
}

// FuzzInMessage: any Any bytes are walked without a panic.
func FuzzInMessage(f *testing.F) {
	st, _ := structpb.NewStruct(map[string]any{"a": 1})
	inner, _ := anypb.New(st)
	seed, _ := proto.Marshal(&typepb.Type{Options: []*typepb.Option{{Value: inner}}})
	f.Add("type.googleapis.com/google.protobuf.Type", seed)
	f.Add("type.googleapis.com/google.protobuf.Struct", []byte{0x0a, 0x03, 0x0a, 0x01, 0x61})
	f.Fuzz(func(t *testing.T, url string, value []byte) {
		InMessage((&anypb.Any{TypeUrl: url, Value: value}).ProtoReflect(), nil)
	})
}

// TestEmptyAnyIsNotUnknown: an Any with no type URL is not of an unknown
// type (empty, protojson writes it as {}; with a value, protojson refuses
// it as malformed), so the walk goes on to the Any that is, and an empty
// "@type" in JSON is passed over the same way.
func TestEmptyAnyIsNotUnknown(t *testing.T) {
	unknown := &anypb.Any{TypeUrl: "type.googleapis.com/other.T"}
	for name, typ := range map[string]*typepb.Type{
		"empty":        {Options: []*typepb.Option{{Name: "a", Value: &anypb.Any{}}, {Name: "b", Value: unknown}}},
		"with a value": {Options: []*typepb.Option{{Name: "a", Value: &anypb.Any{Value: []byte{8, 1}}}, {Name: "b", Value: unknown}}},
	} {
		if u, ok := InMessage(typ.ProtoReflect(), nil); !ok || u.Path != "options[1].value" || u.URL != unknown.TypeUrl {
			t.Errorf("%s: InMessage = %+v, %v; want %q at options[1].value", name, u, ok, unknown.TypeUrl)
		}
	}
	if u, ok := InMessage((&typepb.Type{Options: []*typepb.Option{{Value: &anypb.Any{}}}}).ProtoReflect(), nil); ok {
		t.Errorf("an empty Any alone: %+v", u)
	}
	ab := clashFile(t).Messages().ByName("AB")
	if u, ok := InJSON([]byte(`{"a":{"@type":""},"b":{"@type":"x.io/other.T"}}`), ab, nil); !ok || u.Path != "b" || u.URL != "x.io/other.T" {
		t.Errorf(`InJSON with an empty "@type" first = %+v, %v; want x.io/other.T at b`, u, ok)
	}
}

// TestPathKeysQuoted: a map entry is named by its key, quoted and escaped
// (`m."k"`), and entries are walked in key order as protojson writes
// them.
func TestPathKeysQuoted(t *testing.T) {
	unknown := structpb.NewStringValue("x")
	a, err := anypb.New(unknown)
	if err != nil {
		t.Fatal(err)
	}
	a.TypeUrl = "x.io/nowhere.Gone"
	known, err := anypb.New(durationpb.New(1))
	if err != nil {
		t.Fatal(err)
	}
	m := newAnyMap(t, map[string]*anypb.Any{"z\x1b": a, "b": known, "y\u202e": a})
	u, ok := InMessage(m, nil)
	if !ok || u.Path != `m."y\u202e"` {
		t.Errorf("InMessage = %+v, %v; want the first unknown by key order, at m.\"y\\u202e\"", u, ok)
	}
}

// TestClashInMessage finds the Any that packs a message with a set field
// whose JSON name is "@type", and passes over the same type with the field
// unset, a well-known type and an unknown type.
func TestClashInMessage(t *testing.T) {
	p := clashType(t)
	withX := dynamicpb.NewMessage(p)
	withX.Set(p.Fields().ByName("x"), protoreflect.ValueOfInt32(5))
	set, err := anypb.New(withX)
	if err != nil {
		t.Fatal(err)
	}
	unset, err := anypb.New(dynamicpb.NewMessage(p))
	if err != nil {
		t.Fatal(err)
	}
	wkt, err := anypb.New(structpb.NewStringValue("@type"))
	if err != nil {
		t.Fatal(err)
	}
	r := new(protoregistry.Types)
	for _, mt := range []protoreflect.MessageType{dynamicpb.NewMessageType(p), (&structpb.Value{}).ProtoReflect().Type()} {
		if err := r.RegisterMessage(mt); err != nil {
			t.Fatal(err)
		}
	}
	gone := &anypb.Any{TypeUrl: "x.io/nowhere.Gone"}
	typ := &typepb.Type{Options: []*typepb.Option{{Value: gone}, {Value: unset}, {Value: wkt}, {Value: set}}}
	c, ok := ClashInMessage(typ.ProtoReflect(), r)
	if !ok || c.Path != "options[3].value" || c.URL != set.TypeUrl || c.Field != "clash.P.x" {
		t.Errorf("ClashInMessage = %+v, %v", c, ok)
	}
	if d := c.Describe(); !strings.Contains(d, "clash.P.x") || !strings.Contains(d, `"@type"`) || !strings.Contains(d, "options[3].value") {
		t.Errorf("Describe = %s", d)
	}
	typ.Options = typ.Options[:3]
	if c, ok := ClashInMessage(typ.ProtoReflect(), r); ok {
		t.Errorf("no field set: %+v", c)
	}
	if c, ok := ClashInMessage(set.ProtoReflect(), r); !ok || c.Path != "" {
		t.Errorf("the Any itself: %+v, %v", c, ok)
	}

	// Watch notes the type when protojson looks it up, not before.
	w := &Watch{FullResolver: r}
	if _, err := (protojson.MarshalOptions{Resolver: w}).Marshal(&typepb.Type{Options: []*typepb.Option{{Value: wkt}}}); err != nil || w.Seen() {
		t.Errorf("a well-known type: seen %v (%v)", w.Seen(), err)
	}
	if _, err := (protojson.MarshalOptions{Resolver: w}).Marshal(unset); err != nil || !w.Seen() {
		t.Errorf("the type, its field unset: seen %v (%v)", w.Seen(), err)
	}
}

// clashFile compiles the types of the tests: P, whose field x has the JSON
// name "@type", AnyMap, with a map<string, Any> m, and AB, with Any fields
// a and b.
func clashFile(t *testing.T) protoreflect.FileDescriptor {
	t.Helper()
	return testcompile.Sources(t, map[string]string{"clash.proto": `syntax = "proto3";
package clash;
import "google/protobuf/any.proto";
message P { int32 x = 1 [json_name = "@type"]; }
message AnyMap { map<string, google.protobuf.Any> m = 1; }
message AB { google.protobuf.Any a = 1; google.protobuf.Any b = 2; }
`}, "clash.proto")[0]
}

// clashType returns clash.P.
func clashType(t *testing.T) protoreflect.MessageDescriptor {
	return clashFile(t).Messages().ByName("P")
}

// newAnyMap returns a clash.AnyMap holding entries.
func newAnyMap(t *testing.T, entries map[string]*anypb.Any) protoreflect.Message {
	md := clashFile(t).Messages().ByName("AnyMap")
	m := dynamicpb.NewMessage(md)
	mp := m.Mutable(md.Fields().ByName("m")).Map()
	for k, v := range entries {
		mp.Set(protoreflect.ValueOfString(k).MapKey(), protoreflect.ValueOfMessage(v.ProtoReflect()))
	}
	return m
}

package anytype

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/typepb"
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
// skips known ones, and finds nothing in text that is not JSON.
func TestInJSON(t *testing.T) {
	for _, c := range []struct {
		text, path string
		ok         bool
	}{
		{`{"options":[{"value":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1s"}},{"value":{"@type":"x.io/nowhere.Gone"}}]}`, "options[1].value", true},
		{`{"@type":"x.io/nowhere.Gone"}`, "", true},
		{`{"a":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1s"}}`, "", false},
		{`{"a":`, "", false},
		{`[1,2,{"b":[{"@type":"x.io/nowhere.Gone"}]}]`, "[2].b[0]", true},
	} {
		u, ok := InJSON([]byte(c.text), nil)
		if ok != c.ok || (ok && (u.Path != c.path || u.URL != "x.io/nowhere.Gone")) {
			t.Errorf("InJSON(%s) = %+v, %v; want path %q, %v", c.text, u, ok, c.path, c.ok)
		}
	}
}

// FuzzInJSON: any text is answered without a panic, and what is found is
// the value of an "@type" member, which the text must name.
func FuzzInJSON(f *testing.F) {
	for _, s := range []string{`{"@type":"a/b.C"}`, `{"x":[{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1s"}]}`, `[[[[`, `{"@type":1}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if _, ok := InJSON(text, nil); ok && !strings.Contains(string(text), "@type") && !strings.Contains(string(text), `\u`) {
			t.Errorf("found an Any in %q, which has no \"@type\"", text)
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

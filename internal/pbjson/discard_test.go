package pbjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/anytype"
	"github.com/protoavro/protoavro/internal/testutil"
)

// wantWireDiscard is what protojson.Unmarshal with DiscardUnknown reads
// from text, as deterministic proto.Marshal writes it.
func wantWireDiscard(md protoreflect.MessageDescriptor, text []byte) ([]byte, error) {
	m := dynamicpb.NewMessage(md)
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(text, m); err != nil {
		return nil, err
	}
	return deterministic.Marshal(m)
}

// slowDiscard is the slow path of AppendWireDiscardUnknown in the
// protoavro command (encode --discard-unknown): protojson reads text; when
// it refuses it, text is read again with DiscardUnknown if what it refuses
// is members that name no field alone (anytype.UnknownInJSON), and dropped
// says so. An Any of a type the resolver does not know, an enum value
// name that the enum lacks or an Any without "@type" is refused.
func slowDiscard(md protoreflect.MessageDescriptor, text []byte) (wire []byte, dropped bool, err error) {
	if wire, err := wantWire(md, text); err == nil {
		return wire, false, nil
	}
	u := anytype.UnknownInJSON(text, md, nil)
	switch {
	case u.AnyFound:
		return nil, false, fmt.Errorf("an Any of an unknown type at %s", u.Any.Path)
	case u.Field.Kind == 0:
		_, err := wantWire(md, text)
		return nil, false, err
	case u.Other.Kind != 0:
		return nil, false, fmt.Errorf("a value that DiscardUnknown drops at %s", u.Other.Path)
	}
	wire, err = wantWireDiscard(md, text)
	return wire, err == nil, err
}

// checkWireDiscard checks AppendWireDiscardUnknown on text against
// protojson with DiscardUnknown and against the command's slow path
// (slowDiscard): when the fast path accepts text, both accept it with the
// same wire bytes, and dropped is what the slow path says. It also checks
// that the fast path keeps dst, and that it agrees with AppendWire: that
// takes the texts with no member skipped, with the same bytes, and
// declines the others. It returns whether the fast path accepted, and
// dropped.
func checkWireDiscard(t testing.TB, p *Plan, md protoreflect.MessageDescriptor, text []byte) (ok, dropped bool) {
	t.Helper()
	prefix := []byte("prefix[")
	got, dropped, ok := p.AppendWireDiscardUnknown(bytes.Clone(prefix), text)
	if !bytes.HasPrefix(got, prefix) {
		t.Fatalf("%s: AppendWireDiscardUnknown lost dst", md.FullName())
	}
	plain, plainOK := p.AppendWire(bytes.Clone(prefix), text)
	if !ok {
		if len(got) != len(prefix) || dropped {
			t.Fatalf("%s: AppendWireDiscardUnknown declined %s but changed dst or said dropped", md.FullName(), short(text))
		}
		if plainOK {
			t.Fatalf("%s: AppendWireDiscardUnknown declines %s, AppendWire accepts it", md.FullName(), short(text))
		}
		return false, false
	}
	got = got[len(prefix):]
	if dropped == plainOK || !dropped && !bytes.Equal(plain[len(prefix):], got) {
		t.Fatalf("%s: AppendWireDiscardUnknown(%s) = %s, dropped %v; AppendWire gives %s, %v", md.FullName(), short(text), shortHex(got), dropped, shortHex(plain), plainOK)
	}
	want, err := wantWireDiscard(md, text)
	if err != nil {
		t.Fatalf("%s: AppendWireDiscardUnknown accepts %s, protojson with DiscardUnknown rejects it: %v", md.FullName(), short(text), err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: AppendWireDiscardUnknown(%s)\n got %s\nwant %s", md.FullName(), short(text), shortHex(got), shortHex(want))
	}
	slow, slowDropped, err := slowDiscard(md, text)
	if err != nil {
		t.Fatalf("%s: AppendWireDiscardUnknown accepts %s, the slow path refuses it: %v", md.FullName(), short(text), err)
	}
	if !bytes.Equal(got, slow) || dropped != slowDropped {
		t.Fatalf("%s: AppendWireDiscardUnknown(%s) = %s, dropped %v; the slow path gives %s, dropped %v", md.FullName(), short(text), shortHex(got), dropped, shortHex(slow), slowDropped)
	}
	return true, dropped
}

// nest returns n opening brackets, inner, and the n closing brackets.
func nest(n int, inner string) string {
	return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
}

// nestParents returns a protoavro.test.kitchen.Tree n parents deep whose
// innermost one holds the members inner.
func nestParents(n int, inner string) string {
	return strings.Repeat(`{"parent":`, n) + "{" + inner + "}" + strings.Repeat("}", n)
}

// TestDiscardUnknownForms checks AppendWireDiscardUnknown on JSON texts of
// protoavro.test.kitchen.KitchenSink with members that name no field, in
// messages at every depth and of every kind of JSON value: it takes them
// and writes the bytes of the text without them, as protojson with
// DiscardUnknown and the command's slow path (checkWireDiscard). It
// declines what the slow path refuses, what is not JSON (a skipped value
// is checked as protojson checks it), and what it leaves to protojson.
func TestDiscardUnknownForms(t *testing.T) {
	md := kitchen(t)
	p := Compile(md, Options{})
	const point = `"@type":"type.googleapis.com/protoavro.test.kitchen.Point"`
	taken := []struct{ name, text, kept string }{
		{"object", `{"id":"a","u":{"x":[1,{"y":null}],"z":"s"}}`, `{"id":"a"}`},
		{"array", `{"u":[1,"two",[3],{"four":4},true,false,null],"id":"a"}`, `{"id":"a"}`},
		{"string", `{"id":"a","u":"text"}`, `{"id":"a"}`},
		{"number", `{"id":"a","u":-12.5e-3,"v":0,"w":1E+400}`, `{"id":"a"}`},
		{"true", `{"u":true,"id":"a"}`, `{"id":"a"}`},
		{"false", `{"u":false,"id":"a"}`, `{"id":"a"}`},
		{"null", `{"u":null,"id":"a"}`, `{"id":"a"}`},
		{"empty object and array", `{"u":{},"v":[],"id":"a"}`, `{"id":"a"}`},
		{"escapes", `{"u":"\"\\\/\b\f\n\r\t\u0000\u00e9\uFFFF\ud83d\ude00\uDBFF\uDFFF","id":"a"}`, `{"id":"a"}`},
		{"escapes in keys", `{"u":{"\u0041\ud83d\ude00\n":1},"id":"a"}`, `{"id":"a"}`},
		{"UTF-8", `{"u":"é😀\u007f","id":"a"}`, `{"id":"a"}`},
		{"escaped name", `{"unkn\u006fwn":1,"id":"a"}`, `{"id":"a"}`},
		{"escaped field name", `{"\u0069d":"a","u":1}`, `{"id":"a"}`},
		{"proto name", `{"old_name":"x","u":1,"customJsonName":3}`, `{"oldName":"x","customJsonName":3}`},
		{"@type", `{"@type":"type.googleapis.com/protoavro.test.kitchen.KitchenSink","id":"a"}`, `{"id":"a"}`},
		{"spaces", " { \"u\" :\t[ 1 , { } ] ,\r\n\"id\" : \"a\" } ", `{"id":"a"}`},
		{"unknown alone", `{"u":1,"v":2}`, `{}`},
		{"unknown twice", `{"u":1,"u":[2],"id":"a"}`, `{"id":"a"}`},
		{"no unknown", `{"id":"a","color":"COLOR_RED"}`, `{"id":"a","color":"COLOR_RED"}`},
		{"nested messages",
			`{"scalars":{"u":1,"int32Field":5},"outer":{"middle":{"inner":{"deepest":{"value":"v","u":[]},"u":null},"u":{}}}}`,
			`{"scalars":{"int32Field":5},"outer":{"middle":{"inner":{"deepest":{"value":"v"}}}}}`},
		{"lists",
			`{"repeateds":{"points":[{"x":1,"u":1},{"u":{"a":1}},{}],"strings":["a"],"u":"x"},"scalarsList":[{"u":true}]}`,
			`{"repeateds":{"points":[{"x":1},{},{}],"strings":["a"]},"scalarsList":[{}]}`},
		{"maps",
			`{"maps":{"stringToMessage":{"k":{"x":1,"u":1}},"int32ToMessage":{"7":{"u":"s"}},"stringToString":{"u":"a key"},"uint64ToNestedMessage":{"1":{"inner":{"u":0}}}}}`,
			`{"maps":{"stringToMessage":{"k":{"x":1}},"int32ToMessage":{"7":{}},"stringToString":{"u":"a key"},"uint64ToNestedMessage":{"1":{"inner":{}}}}}`},
		{"oneof", `{"oneofs":{"intChoice":3,"u":1,"after":"z"}}`, `{"oneofs":{"intChoice":3,"after":"z"}}`},
		{"recursive messages",
			`{"tree":{"label":"r","children":[{"label":"c","u":1,"named":{"n":{"u":[],"label":"n"}}}],"parent":{"u":null}},"mutual":{"b":{"a":{"u":1,"name":"m"}}}}`,
			`{"tree":{"label":"r","children":[{"label":"c","named":{"n":{"label":"n"}}}],"parent":{}},"mutual":{"b":{"a":{"name":"m"}}}}`},
		{"well-known types",
			`{"wellKnown":{"timestamp":"2024-01-02T03:04:05Z","u":1,"struct":{"u":1},"value":{"u":[1]},"listValue":[{"u":1}],"any":{` + point + `,"x":1},"empty":{}}}`,
			`{"wellKnown":{"timestamp":"2024-01-02T03:04:05Z","struct":{"u":1},"value":{"u":[1]},"listValue":[{"u":1}],"any":{` + point + `,"x":1},"empty":{}}}`},
		{"enum values", `{"color":"COLOR_BLUE","status":2,"u":1,"outerEnum":1}`, `{"color":"COLOR_BLUE","status":2,"outerEnum":1}`},
		{"deep value", `{"u":` + nest(maxDepth-2, `{"a":"b"}`) + `,"id":"a"}`, `{"id":"a"}`},
		{"deep message", `{"tree":` + nestParents(40, `"label":"l","u":`+nest(20, "1")) + `}`, `{"tree":` + nestParents(40, `"label":"l"`) + `}`},
	}
	for _, c := range taken {
		t.Run(c.name, func(t *testing.T) {
			want, ok := p.AppendWire(nil, []byte(c.kept))
			if !ok {
				t.Fatalf("AppendWire declines the text without its unknown members, %s", c.kept)
			}
			ok, dropped := checkWireDiscard(t, p, md, []byte(c.text))
			if !ok {
				t.Fatalf("AppendWireDiscardUnknown declined %s", c.text)
			}
			got, _, _ := p.AppendWireDiscardUnknown(nil, []byte(c.text))
			if !bytes.Equal(got, want) || dropped != (c.text != c.kept) {
				t.Errorf("AppendWireDiscardUnknown(%s) = %x, dropped %v; want %x (the bytes of %s), dropped %v", c.text, got, dropped, want, c.kept, c.text != c.kept)
			}
		})
	}

	// Declined: why says which path takes the text then. refused: the
	// command's slow path refuses it (protojson with DiscardUnknown
	// accepts some of these); invalid: protojson rejects it even with
	// DiscardUnknown; slow: the slow path drops what the fast path leaves
	// to protojson.
	const refused, invalid, slow = "refused", "invalid", "slow"
	declined := []struct{ why, text string }{
		{refused, `{"color":"COLOR_NOPE","u":1}`},
		{refused, `{"color":"COLOR_NOPE"}`},
		{refused, `{"repeateds":{"packedEnum":["COLOR_RED","NOPE"]},"u":1}`},
		{refused, `{"maps":{"stringToEnum":{"k":"NOPE"}},"u":1}`},
		{refused, `{"outer":{"middle":{"middleEnum":"NOPE","u":1}}}`},
		{refused, `{"wellKnown":{"any":{"x":1}},"u":1}`},
		{refused, `{"wellKnown":{"any":{"@type":"type.googleapis.com/nope.Nope"}},"u":1}`},
		{refused, `{"u":1e}`},
		{refused, `{"u":1e+}`},
		{slow, `{"wellKnown":{"any":{` + point + `,"x":1,"u":2}}}`},
		{slow, `{"wellKnown":{"empty":{"u":1}}}`},
		{slow, `{"[protoavro.test.kitchen.nope]":1,"id":"a"}`},
		{slow, `{"[]":1}`},
		{slow, `{"id":"a","u":1,"[protoavro.test.kitchen.nope]":1}`},
		{slow, `{"u":` + nest(maxDepth+1, "") + `}`},
		{slow, `{"u":"\ud83d\ude00","\u0069\ud83d\ude00":1}`},
	}
	for _, v := range []string{`[1,]`, `[1 2]`, `[,1]`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a":1,}`, `{"a":1 "b":2}`, `{1:2}`,
		`01`, `-01`, `1.`, `.5`, `+1`, `-`, `0x10`, `1.5.5`, `--1`, `tru`, `truee`, `nul`, `nulll`, `falsy`, `NaN`, `Infinity`, `'s'`, ``,
		`"abc`, `"\x"`, `"\u12"`, `"\u12G4"`, `"\ud800"`, `"\ud800x"`, `"\ud800\u0041"`, `"\udc00\ud800"`, `"\ud800\ud800"`, `"\ud800\n"`,
		"\"a\tb\"", "\"a\nb\"", "\"\x00\"", "\"\xff\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xe2\x82\"", "\"\xf4\x90\x80\x80\"",
		`{"\ud800":1}`, "{\"\xff\":1}", `[`, `{`, `[{"a":[}]`} {
		declined = append(declined, struct{ why, text string }{invalid, `{"id":"a","u":` + v + `,"v":1}`})
	}
	for _, text := range []string{`{"u":1`, `{"u":1}}`, `{"u":1}x`, `{"u":1 "id":"a"}`, `{"u":1,}`, `{"u" 1}`, `{"u"}`, `{u:1}`,
		`{"u":1,"id":"a","id":"b"}`, `{"scalars":{"u":1,"int32Field":"x"}}`, `{"repeateds":{"points":[{"u":1},1]}}`} {
		declined = append(declined, struct{ why, text string }{invalid, text})
	}
	for _, c := range declined {
		text := []byte(c.text)
		if ok, _ := checkWireDiscard(t, p, md, text); ok {
			t.Errorf("AppendWireDiscardUnknown accepts %q", text)
		}
		_, protojsonErr := wantWireDiscard(md, text)
		_, dropped, slowErr := slowDiscard(md, text)
		switch {
		case c.why == invalid && protojsonErr == nil:
			t.Errorf("protojson with DiscardUnknown accepts %q", text)
		case c.why == refused && slowErr == nil:
			t.Errorf("the slow path accepts %q", text)
		case c.why == slow && (slowErr != nil || !dropped):
			t.Errorf("the slow path does not drop members of %q: %v", text, slowErr)
		}
	}
}

// unknownValues are the values of the members that withUnknown adds: JSON
// of every kind, with escapes, and nested.
var unknownValues = []string{
	`{"a":[1,{"b":null}],"c":"\u00e9\"\\"}`, `[1,"x",true,false,null,{},[]]`, `"s \ud83d\ude00 \n\t\/ é"`,
	`-1.5e+10`, `0`, `true`, `false`, `null`, `{}`, `[]`, nest(20, `{"k":"v"}`), `"\u0075nknown"`,
}

// withUnknown returns text, protojson's JSON of a message of type md, with
// members that name no field added to the object of every message that
// AppendWire reads itself (those of the well-known types excluded): at
// the root, in fields, lists and map values, at any depth. Their values
// are unknownValues in turn, from the one at start.
func withUnknown(t testing.TB, md protoreflect.MessageDescriptor, text []byte, start int) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("protojson wrote JSON that is not JSON: %v", err)
	}
	n := start
	var add func(v any, md protoreflect.MessageDescriptor)
	add = func(v any, md protoreflect.MessageDescriptor) {
		obj, ok := v.(map[string]any)
		if !ok || isWKT(md) {
			return
		}
		for k, fv := range obj {
			fd := md.Fields().ByJSONName(k)
			if fd == nil {
				fd = md.Fields().ByTextName(k)
			}
			switch {
			case fd == nil:
			case fd.IsMap():
				if vmd := fd.MapValue().Message(); vmd != nil {
					m, _ := fv.(map[string]any)
					for _, e := range m {
						add(e, vmd)
					}
				}
			case fd.Message() == nil:
			case fd.IsList():
				l, _ := fv.([]any)
				for _, e := range l {
					add(e, fd.Message())
				}
			default:
				add(fv, fd.Message())
			}
		}
		obj[fmt.Sprintf("unknown-%d", n)] = json.RawMessage(unknownValues[n%len(unknownValues)])
		n++
	}
	add(v, md)
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDiscardUnknownRandomMessages adds members that name no field to every
// message object of the JSON of random and edge-value messages of every
// test type (withUnknown), and checks AppendWireDiscardUnknown on them
// against protojson and the slow path (checkWireDiscard). Where AppendWire
// takes a message's JSON, AppendWireDiscardUnknown takes it with the
// members added, says that it dropped some, and writes the same bytes.
func TestDiscardUnknownRandomMessages(t *testing.T) {
	n := 10
	if testing.Short() {
		n = 4
	}
	for _, md := range testTypes(t) {
		t.Run(string(md.FullName()), func(t *testing.T) {
			p := Compile(md, Options{})
			took, clean := 0, 0
			for i, m := range testutil.Corpus(md, testutil.CorpusConfig{Edges: 2, Random: n}, testutil.Nanos, "pbjson-discard") {
				for j, opts := range []protojson.MarshalOptions{{}, {UseProtoNames: true}} {
					text, err := opts.Marshal(m)
					if err != nil {
						continue // an Any of a type not linked in
					}
					with := withUnknown(t, md, text, i+j)
					ok, dropped := checkWireDiscard(t, p, md, with)
					want, cleanOK := p.AppendWire(nil, text)
					if !cleanOK {
						continue
					}
					clean++
					if !ok || !dropped {
						t.Fatalf("AppendWireDiscardUnknown(%s) declined or dropped nothing (%v); AppendWire takes it without the members that name no field", short(with), ok)
					}
					if got, _, _ := p.AppendWireDiscardUnknown(nil, with); !bytes.Equal(got, want) {
						t.Fatalf("AppendWireDiscardUnknown(%s)\n got %s\nwant %s, the bytes of %s", short(with), shortHex(got), shortHex(want), short(text))
					}
					took++
				}
			}
			t.Logf("took %d of the %d messages that AppendWire takes (supported: %v)", took, clean, p.Supported())
		})
	}
}

// FuzzAppendWireDiscardUnknown checks AppendWireDiscardUnknown against
// protojson with DiscardUnknown and the command's slow path on any input,
// for each test type (checkWireDiscard): the fast path may decline, but
// what it accepts, they accept with the same wire bytes, and dropped is
// whether the slow path dropped members.
func FuzzAppendWireDiscardUnknown(f *testing.F) {
	mds, plans := fuzzTypes(f, 1, func(m proto.Message) ([]byte, error) {
		text, err := protojson.Marshal(m)
		if err != nil {
			return nil, err
		}
		return withUnknown(f, m.ProtoReflect().Descriptor(), text, len(text)), nil
	})
	k := kitchen(f)
	for i, text := range jsonCases(k)[:200] {
		if i%2 == 0 {
			text = strings.Replace(text, "{", `{"unknown":`+unknownValues[i%len(unknownValues)]+",", 1)
		}
		f.Add(uint8(indexOf(mds, k)), []byte(text))
	}
	f.Fuzz(func(t *testing.T, typ uint8, text []byte) {
		i := int(typ) % len(mds)
		checkWireDiscard(t, plans[i], mds[i], text)
	})
}

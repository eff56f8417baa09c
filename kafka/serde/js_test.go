package serde_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/protoavro/protoavro/internal/testutil"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Confluent's JavaScript serdes, @confluentinc/schemaregistry from npm (the
// serdes of confluent-kafka-javascript), pinned in kafka/js/package.json and
// installed by `npm ci --prefix kafka/js`; kafka/js/serdes.js runs them.

// confluentJS returns node and serdes.js, skipping the test when either node
// or the npm package is missing (failing it under PROTOAVRO_INTEROP=require).
func confluentJS(t *testing.T) (node, script, version string) {
	t.Helper()
	node, err := exec.LookPath("node")
	testutil.Need(t, err == nil, "node not found (npm ci --prefix kafka/js needs node and npm)")
	dir := filepath.Join(kafkatest.RepoRoot(), "kafka", "js")
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@confluentinc", "schemaregistry", "package.json"))
	var pkg struct{ Version string }
	testutil.Need(t, err == nil && json.Unmarshal(b, &pkg) == nil,
		"@confluentinc/schemaregistry not installed: npm ci --prefix kafka/js")
	return node, filepath.Join(dir, "serdes.js"), pkg.Version
}

// runJS runs serdes.js MODE URL TOPIC EXTRA... with the lines on stdin and
// returns its output lines.
func runJS(t *testing.T, node, script, mode, url, topic string, lines []string, extra ...string) []string {
	t.Helper()
	cmd := exec.Command(node, append([]string{script, mode, url, topic}, extra...)...)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node serdes.js %s: %v\n%s", mode, err, stderr.String())
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) != len(lines) {
		t.Fatalf("node serdes.js %s: %d lines out for %d in", mode, len(got), len(lines))
	}
	return got
}

// jsPeople returns the n test Persons of md: kafkatest.NewPerson, with every
// fifth address unset (the null branch of its union).
func jsPeople(md protoreflect.MessageDescriptor, n int) []*dynamicpb.Message {
	ms := make([]*dynamicpb.Message, n)
	for i := range ms {
		ms[i] = kafkatest.NewPerson(md, i)
		if i%5 == 4 {
			ms[i].Clear(md.Fields().ByName("address"))
		}
	}
	return ms
}

// jsValue is the value the Go side expects avsc (under the Confluent serdes'
// default options) to hold for m's Avro record, built from the message's
// fields and not from protoavro's codec: records are objects by field name,
// enums their symbol, unset messages and unset fields with presence null
// (unions of null and one type are not wrapped), repeated fields arrays,
// floats the float32's value, bytes hex (as serdes.js prints them).
func jsValue(m protoreflect.Message) map[string]any {
	out := map[string]any{}
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		name := string(fd.Name())
		switch {
		case fd.IsMap():
			panic("jsValue: maps are not used by this test: " + fd.FullName())
		case fd.IsList():
			l := m.Get(fd).List()
			a := make([]any, l.Len())
			for j := range a {
				a[j] = jsScalar(fd, l.Get(j))
			}
			out[name] = a
		case fd.HasPresence() && !m.Has(fd):
			out[name] = nil
		case fd.Message() != nil:
			out[name] = jsValue(m.Get(fd).Message())
		default:
			out[name] = jsScalar(fd, m.Get(fd))
		}
	}
	return out
}

func jsScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return jsValue(v.Message())
	case protoreflect.EnumKind:
		return string(fd.Enum().Values().ByNumber(v.Enum()).Name())
	case protoreflect.BytesKind:
		return hex.EncodeToString(v.Bytes())
	case protoreflect.FloatKind:
		return float64(float32(v.Float()))
	}
	return v.Interface()
}

// normalJSON decodes JSON with integers as int64 and other numbers as
// float64, so that values are compared by value, not by their text.
func normalJSON(t *testing.T, b []byte) any {
	t.Helper()
	return normalNumbers(testutil.JSONValue(t, b))
}

func normalNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return n
		}
		f, _ := strconv.ParseFloat(string(v), 64)
		return f
	case map[string]any:
		for k, e := range v {
			v[k] = normalNumbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = normalNumbers(e)
		}
	}
	return v
}

// diffJSON names the first path at which got and want differ, or "".
func diffJSON(path string, got, want any) string {
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if gok && wok {
		keys := map[string]bool{}
		for k := range gm {
			keys[k] = true
		}
		for k := range wm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if d := diffJSON(path+"."+k, gm[k], wm[k]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("%s: got %#v, want %#v", path, got, want)
	}
	return ""
}

// TestConfluentJavaScript has Confluent's JavaScript serdes read the framed
// Avro records protoavro's Serializer writes (through the registry, by the
// ID in each record), compared value by value with the messages written; and
// write records of the schema protoavro registered, which protoavro's
// Deserializer reads back into the messages they came from. Both versions of
// the evolution Person: int and float (v1), long and double, an optional
// bool (v2), enums, a nested record or null, arrays.
func TestConfluentJavaScript(t *testing.T) {
	node, script, version := confluentJS(t)
	const n = 100
	for _, v := range []string{"v1", "v2"} {
		t.Run(v, func(t *testing.T) {
			fake, reg := kafkatest.Registry(t)
			topic := "people-" + v
			md := kafkatest.Person(t, v)
			ser := serde.NewSerializer(reg, serde.SerializerOptions{})
			codec, err := ser.Codec(md)
			if err != nil {
				t.Fatal(err)
			}
			msgs := jsPeople(md, n)
			framed := make([]string, n)
			for i, m := range msgs {
				var b []byte
				if i%2 == 0 {
					b, err = ser.Encode(ctx, nil, topic, m)
				} else {
					b, err = ser.EncodeWire(ctx, nil, topic, codec, kafkatest.Wire(t, m))
				}
				if err != nil {
					t.Fatal(err)
				}
				framed[i] = hex.EncodeToString(b)
			}
			id, err := ser.ID(ctx, topic, codec)
			if err != nil {
				t.Fatal(err)
			}

			// Ours to theirs: AvroDeserializer.
			read := runJS(t, node, script, "read", fake.URL(), topic, framed)
			want := make([]string, n)
			for i, m := range msgs {
				w, err := json.Marshal(jsValue(m))
				if err != nil {
					t.Fatal(err)
				}
				want[i] = string(w)
				if d := diffJSON("record", normalJSON(t, []byte(read[i])), normalJSON(t, w)); d != "" {
					t.Fatalf("record %d read by @confluentinc/schemaregistry %s: %s\ngot  %s\nwant %s", i, version, d, read[i], w)
				}
			}

			// Theirs to ours: AvroSerializer with the latest version of
			// <topic>-value, the schema protoavro registered.
			written := runJS(t, node, script, "write", fake.URL(), topic, want)
			de, err := serde.NewDeserializer(reg, md, protoavro.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i, h := range written {
				b, err := hex.DecodeString(h)
				if err != nil {
					t.Fatalf("record %d written by @confluentinc/schemaregistry: %v: %q", i, err, h)
				}
				gotID, _, err := serde.ParseHeader(b)
				if err != nil || gotID != id {
					t.Fatalf("record %d written by @confluentinc/schemaregistry: schema ID %d (%v), want %d", i, gotID, err, id)
				}
				got := dynamicpb.NewMessage(md)
				if err := de.Decode(ctx, b, got); err != nil {
					t.Fatalf("record %d written by @confluentinc/schemaregistry: %v", i, err)
				}
				if !proto.Equal(got, msgs[i]) {
					t.Fatalf("record %d written by @confluentinc/schemaregistry: got %v, want %v", i, got, msgs[i])
				}
				// Avro's binary encoding is canonical: the same bytes.
				if h != framed[i] {
					t.Errorf("record %d: @confluentinc/schemaregistry wrote %s, protoavro %s", i, h, framed[i])
				}
			}
			t.Logf("@confluentinc/schemaregistry %s: %d records read, %d written, schema ID %d", version, n, n, id)
		})
	}
}

// TestConfluentJavaScriptProtobuf: Confluent's JavaScript ProtobufSerializer
// registers a file and its import as base64 serialized FileDescriptorProtos
// (srfake stores and returns them so; Confluent's registry returns them so
// with ?format=serialized, as its clients ask); protoavro's ProtoDecoder
// compiles them and reads the records it wrote into the messages sent.
func TestConfluentJavaScriptProtobuf(t *testing.T) {
	node, script, version := confluentJS(t)
	fake, reg := kafkatest.Registry(t)
	common := `syntax = "proto3"; package acme.common; message Money { string currency = 1; int64 units = 2; }`
	order := `syntax = "proto3"; package acme; import "acme/common.proto"; import "google/protobuf/timestamp.proto";
message Other { int32 x = 1; }
message Order {
  enum State { STATE_UNSPECIFIED = 0; STATE_OPEN = 1; STATE_PAID = 2; }
  message Line { string sku = 1; uint32 count = 2; }
  string id = 1; acme.common.Money total = 2; google.protobuf.Timestamp at = 3;
  State state = 4; repeated Line lines = 5; optional double discount = 6;
}`
	fd, err := serde.Compile(ctx, "acme/order.proto", map[string]string{"acme/common.proto": common, "acme/order.proto": order})
	if err != nil {
		t.Fatal(err)
	}
	var set descriptorpb.FileDescriptorSet
	for _, f := range []protoreflect.FileDescriptor{fd.Imports().Get(1).FileDescriptor, fd.Imports().Get(0).FileDescriptor, fd} {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
	}
	setFile := filepath.Join(t.TempDir(), "order.binpb")
	b, err := proto.Marshal(&set)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(setFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	md := fd.Messages().ByName("Order")
	const n = 50
	msgs := make([]*dynamicpb.Message, n)
	lines := make([]string, n)
	for i := range msgs {
		m := dynamicpb.NewMessage(md)
		f := md.Fields()
		m.Set(f.ByName("id"), protoreflect.ValueOfString(fmt.Sprintf("order-%d", i)))
		total := m.Mutable(f.ByName("total")).Message()
		total.Set(total.Descriptor().Fields().ByName("currency"), protoreflect.ValueOfString("EUR"))
		total.Set(total.Descriptor().Fields().ByName("units"), protoreflect.ValueOfInt64(int64(i)*1001))
		if i%3 != 0 {
			at := m.Mutable(f.ByName("at")).Message()
			at.Set(at.Descriptor().Fields().ByName("seconds"), protoreflect.ValueOfInt64(1_700_000_000+int64(i)))
		}
		m.Set(f.ByName("state"), protoreflect.ValueOfEnum(protoreflect.EnumNumber(i%3)))
		l := m.Mutable(f.ByName("lines")).List()
		for j := range i % 4 {
			line := l.NewElement().Message()
			line.Set(line.Descriptor().Fields().ByName("sku"), protoreflect.ValueOfString(fmt.Sprintf("sku-%d", j)))
			line.Set(line.Descriptor().Fields().ByName("count"), protoreflect.ValueOfUint32(uint32(j+1)))
			l.Append(protoreflect.ValueOfMessage(line))
		}
		if i%2 == 0 {
			m.Set(f.ByName("discount"), protoreflect.ValueOfFloat64(float64(i)/8))
		}
		msgs[i] = m
		lines[i] = hex.EncodeToString(kafkatest.Wire(t, m))
	}
	written := runJS(t, node, script, "proto-write", fake.URL(), "orders", lines, setFile, "acme.Order")
	dec := serde.NewProtoDecoder(reg, protoavro.Options{})
	for i, h := range written {
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatalf("record %d written by @confluentinc/schemaregistry: %v: %q", i, err, h)
		}
		rec, err := dec.Decode(ctx, b)
		if err != nil {
			t.Fatalf("record %d written by @confluentinc/schemaregistry: %v", i, err)
		}
		if i == 0 {
			// The test is of the serialized form: the registry holds it.
			s, err := reg.SchemaByID(ctx, int(rec.ID))
			if err != nil {
				t.Fatal(err)
			}
			if fdp, err := serde.ParseSchemaFile("main", s.Text); fdp == nil || err != nil || len(s.References) != 1 {
				t.Fatalf("schema %d as registered: %v, references %v:\n%s", rec.ID, err, s.References, s.Text)
			}
		}
		got := rec.Codec.Schema().Descriptor()
		if got.FullName() != md.FullName() || !slices.Equal(rec.Indexes, []int{1}) {
			t.Fatalf("record %d: %s at indexes %v", i, got.FullName(), rec.Indexes)
		}
		// Read with the registry's descriptor, compared field by field with
		// the message sent (the two descriptors are equal, not the same).
		m := dynamicpb.NewMessage(got)
		if err := proto.Unmarshal(rec.Wire, m); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if g, w := protojson.Format(m), protojson.Format(msgs[i]); g != w {
			t.Fatalf("record %d: got %s, want %s", i, g, w)
		}
	}
	t.Logf("@confluentinc/schemaregistry %s: %d protobuf records written, read by ProtoDecoder", version, n)
}

// TestKnownTypesUpToDate: knowntypes.binpb, the files Confluent's serializers
// treat as built in, is what kafka/js/knowntypes.js writes from the installed
// @confluentinc/schemaregistry.
func TestKnownTypesUpToDate(t *testing.T) {
	node, script, _ := confluentJS(t)
	out := filepath.Join(t.TempDir(), "knowntypes.binpb")
	if b, err := exec.Command(node, filepath.Join(filepath.Dir(script), "knowntypes.js"), out).CombinedOutput(); err != nil {
		t.Fatalf("knowntypes.js: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("knowntypes.binpb")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("serde/knowntypes.binpb is out of date: run node kafka/js/knowntypes.js")
	}
}

package protoavro

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testutil"
	twmbavro "github.com/twmb/avro"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

var update = flag.Bool("update", false, "rewrite the golden .avsc files in testdata/golden")

// goldenVariants are the option sets with golden files: both profiles for
// every message, and the non-default choices of the default profile.
var goldenVariants = []struct {
	dir  string
	opts Options
	only []protoreflect.FullName // nil: every message
}{
	{"default", Options{}, nil},
	{"java", Options{Profile: JavaProfile}, nil},
	{"engine", EngineReady(), nil},
	{"timestamp-millis", Options{Timestamps: TimestampMillis}, []protoreflect.FullName{"protoavro.test.kitchen.WellKnown"}},
	{"timestamp-nanos", Options{Timestamps: TimestampNanos}, []protoreflect.FullName{"protoavro.test.kitchen.WellKnown"}},
	{"uint64-decimal", Options{Uint64: Uint64AsDecimal}, []protoreflect.FullName{"protoavro.test.kitchen.Scalars", "protoavro.test.kitchen.Maps", "protoavro.test.kitchen.WellKnown"}},
	{"map-entries", Options{MapKeys: MapAsEntryArray}, []protoreflect.FullName{"protoavro.test.kitchen.Maps", "protoavro.test.kitchen.WellKnown"}},
}

func TestGoldenSchemas(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range goldenVariants {
		for _, md := range testutil.Messages() {
			if v.only != nil && !contains(v.only, md.FullName()) {
				continue
			}
			path := filepath.Join("testdata", "golden", v.dir, string(md.FullName())+".avsc")
			seen[path] = true
			t.Run(v.dir+"/"+string(md.FullName()), func(t *testing.T) {
				s := mustSchema(t, v.opts, md)
				got, err := s.JSON()
				if err != nil {
					t.Fatal(err)
				}
				checkParses(t, s, got)
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./protoavro -run TestGoldenSchemas -update)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("schema differs from %s (rerun with -update after checking the change):\n%s", path, got)
				}
			})
		}
	}
	if *update {
		return
	}
	// Every golden file belongs to a message that still exists.
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*", "*.avsc"))
	for _, f := range files {
		if !seen[f] {
			t.Errorf("stale golden file %s", f)
		}
	}
}

func contains(list []protoreflect.FullName, n protoreflect.FullName) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

// checkParses checks that the schema JSON parses with an independent Avro
// implementation (github.com/twmb/avro) and with ParseSchema, that both give
// the derived canonical form, and that every default survives the JSON.
func checkParses(t *testing.T, s *Schema, avsc []byte) {
	t.Helper()
	independent, err := twmbavro.Parse(string(avsc))
	if err != nil {
		t.Fatalf("twmb/avro rejects the schema: %v\n%s", err, avsc)
	}
	if got := string(independent.Canonical()); got != s.Canonical() {
		t.Errorf("twmb/avro's canonical form differs:\nparsed:  %s\nderived: %s", got, s.Canonical())
	}
	parsed, err := ParseSchema(avsc)
	if err != nil {
		t.Fatalf("ParseSchema rejects the schema: %v", err)
	}
	if got := parsed.Canonical(); got != s.Canonical() {
		t.Errorf("canonical form after parsing differs:\nparsed:  %s\nderived: %s", got, s.Canonical())
	}
	if parsed.Fingerprint() != s.Fingerprint() {
		t.Errorf("fingerprint after parsing %x, derived %x", parsed.Fingerprint(), s.Fingerprint())
	}
	if _, err := twmbavro.Parse(s.Canonical()); err != nil {
		t.Errorf("canonical form does not parse: %v", err)
	}
	// Defaults survive the JSON: bytes defaults in particular are written
	// as the specification says, not base64, and longs beyond 2^53 exactly.
	for i, f := range parsed.root.Fields {
		want := s.root.Fields[i]
		if (f.Default == nil) != (want.Default == nil) || !sameJSON(f.Default, want.Default) {
			t.Errorf("field %s: default after parsing %s, derived %s", f.Name, f.Default, want.Default)
		}
	}
}

// sameJSON reports whether two JSON texts hold the same value, numbers
// compared exactly.
func sameJSON(a, b []byte) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	va, vb := decodeJSON(a), decodeJSON(b)
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}

func decodeJSON(b []byte) any {
	v, err := testutil.DecodeJSON(b)
	if err != nil {
		return err.Error()
	}
	return normalizeNumbers(v)
}

// normalizeNumbers rewrites JSON numbers in one form (0.0 and 0 are equal).
func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(t.String()); ok {
			return r.RatString()
		}
	case []any:
		for i := range t {
			t[i] = normalizeNumbers(t[i])
		}
	case map[string]any:
		for k := range t {
			t[k] = normalizeNumbers(t[k])
		}
	}
	return v
}

// TestDescriptorProtoDerives derives every message of descriptor.proto, a
// large real-world schema with deep mutual recursion, in both profiles.
func TestDescriptorProtoDerives(t *testing.T) {
	for _, o := range []Options{{Cache: NewCache()}, {Profile: JavaProfile, Cache: NewCache()}} {
		for _, md := range testutil.AllMessages(descriptorpb.File_google_protobuf_descriptor_proto) {
			s, err := o.Schema(md)
			if err != nil {
				t.Errorf("%v %s: %v", o.Profile, md.FullName(), err)
				continue
			}
			avsc, err := s.JSON()
			if err != nil {
				t.Fatal(err)
			}
			checkParses(t, s, avsc)
		}
	}
}

// TestJavaProfileMatchesReference compares the Java profile's schema of Foo
// with the output of Apache Avro Java's ProtobufData.
func TestJavaProfileMatchesReference(t *testing.T) {
	s := mustSchema(t, Options{Profile: JavaProfile}, (&avro2147pb.Foo{}).ProtoReflect().Descriptor())
	ref := filepath.Join("..", "testdata", "reference", "avro2147")
	canon, err := os.ReadFile(filepath.Join(ref, "java_schema.canonical.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Canonical() != string(canon) {
		t.Errorf("canonical form differs from Java's:\ngot  %s\nwant %s", s.Canonical(), canon)
	}
	fp, err := os.ReadFile(filepath.Join(ref, "java_fingerprint.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(fp), "parsingFingerprint64_hex: "+hex16(s.Fingerprint())) {
		t.Errorf("fingerprint %016x not in %s", s.Fingerprint(), fp)
	}

	// The full JSON: same field defaults and string properties as Java's,
	// once both are parsed (the remaining differences are listed in
	// docs/mapping.md: formatting, split namespace, 0.0 written as 0).
	javaJSON, err := os.ReadFile(filepath.Join(ref, "java_schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	javaSchema, err := ParseSchema(javaJSON)
	if err != nil {
		t.Fatal(err)
	}
	oursParsed := reparsed(t, s)
	jf, of := javaSchema.root.Fields, oursParsed.root.Fields
	if len(jf) != len(of) {
		t.Fatalf("%d fields, Java has %d", len(of), len(jf))
	}
	for i := range jf {
		if (jf[i].Default == nil) != (of[i].Default == nil) {
			t.Errorf("field %s: has default %v, Java %v", of[i].Name, of[i].Default != nil, jf[i].Default != nil)
			continue
		}
		if !sameJSON(jf[i].Default, of[i].Default) {
			t.Errorf("field %s: default %s, Java %s", of[i].Name, of[i].Default, jf[i].Default)
		}
		if jt, ot := jf[i].Type.JSON(), of[i].Type.JSON(); !bytes.Equal(jt, ot) {
			t.Errorf("field %s: type %s, Java %s", of[i].Name, ot, jt)
		}
	}
}

func hex16(v uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[:])
}

// TestDocsFromSourceInfo compiles kitchen.proto with source info: leading
// comments become doc on records, enums and fields.
func TestDocsFromSourceInfo(t *testing.T) {
	md := compiledKitchen(t).Messages().ByName("KitchenSink")
	s := mustSchema(t, Options{Cache: NewCache()}, md)
	if s.root.Doc == "" {
		t.Error("record has no doc")
	}
	withDoc := 0
	for _, f := range s.root.Fields {
		if f.Doc != "" {
			withDoc++
		}
	}
	if withDoc == 0 {
		t.Error("no field has a doc")
	}
	js := mustSchema(t, Options{Profile: JavaProfile, Cache: NewCache()}, md)
	if js.root.Doc != "" {
		t.Error("the Java profile emits docs; ProtobufData does not")
	}
	// Docs do not change the canonical form.
	g := mustSchema(t, Options{}, (&kitchenpb.KitchenSink{}).ProtoReflect().Descriptor())
	if g.Canonical() != s.Canonical() {
		t.Error("source info changed the canonical form")
	}
}

package protoavro

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"github.com/hamba/avro/v2"
	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testutil"
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
	{"timestamp-millis", Options{Timestamps: TimestampMillis}, []protoreflect.FullName{"protoavro.test.kitchen.WellKnown"}},
	{"timestamp-nanos", Options{Timestamps: TimestampNanos}, []protoreflect.FullName{"protoavro.test.kitchen.WellKnown"}},
	{"uint64-decimal", Options{Uint64: Uint64AsDecimal}, []protoreflect.FullName{"protoavro.test.kitchen.Scalars", "protoavro.test.kitchen.Maps", "protoavro.test.kitchen.WellKnown"}},
	{"map-entries", Options{MapKeys: MapAsEntryArray}, []protoreflect.FullName{"protoavro.test.kitchen.Maps", "protoavro.test.kitchen.WellKnown"}},
}

func TestGoldenSchemas(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range goldenVariants {
		for _, fd := range testutil.Files {
			for _, md := range testutil.AllMessages(fd) {
				if v.only != nil && !contains(v.only, md.FullName()) {
					continue
				}
				path := filepath.Join("testdata", "golden", v.dir, string(md.FullName())+".avsc")
				seen[path] = true
				t.Run(v.dir+"/"+string(md.FullName()), func(t *testing.T) {
					s, err := v.opts.Schema(md)
					if err != nil {
						t.Fatal(err)
					}
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

// checkParses checks that the schema JSON parses with hamba/avro and that the
// parsed schema has the same canonical form as the derived one.
func checkParses(t *testing.T, s *Schema, avsc []byte) {
	t.Helper()
	parsed, err := avro.ParseBytesWithCache(avsc, "", &avro.SchemaCache{})
	if err != nil {
		t.Fatalf("avro.Parse rejects the schema: %v\n%s", err, avsc)
	}
	if got := CanonicalForm(parsed); got != s.Canonical() {
		t.Errorf("canonical form after parsing differs:\nparsed:  %s\nderived: %s", got, s.Canonical())
	}
	if _, err := avro.ParseWithCache(s.Canonical(), "", &avro.SchemaCache{}); err != nil {
		t.Errorf("canonical form does not parse: %v", err)
	}
	// Defaults survive the JSON: bytes defaults in particular are written
	// as the specification says, not base64.
	for i, f := range parsed.(*avro.RecordSchema).Fields() {
		want := s.Avro().Fields()[i]
		if v, ok := want.Default().(int64); ok && (v > 1<<53 || v < -(1<<53)) {
			continue // hamba parses JSON numbers as float64: exact only to 2^53
		}
		got, _ := json.Marshal(f.Default())
		exp, _ := json.Marshal(want.Default())
		if f.HasDefault() != want.HasDefault() || !bytes.Equal(got, exp) {
			t.Errorf("field %s: default after parsing %s, derived %s", f.Name(), got, exp)
		}
	}
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
	s, err := Options{Profile: JavaProfile}.Schema((&avro2147pb.Foo{}).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
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
	javaSchema, err := avro.ParseBytesWithCache(javaJSON, "", &avro.SchemaCache{})
	if err != nil {
		t.Fatal(err)
	}
	ours, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	oursParsed, err := avro.ParseBytesWithCache(ours, "", &avro.SchemaCache{})
	if err != nil {
		t.Fatal(err)
	}
	jf, of := javaSchema.(*avro.RecordSchema).Fields(), oursParsed.(*avro.RecordSchema).Fields()
	if len(jf) != len(of) {
		t.Fatalf("%d fields, Java has %d", len(of), len(jf))
	}
	for i := range jf {
		if jf[i].HasDefault() != of[i].HasDefault() {
			t.Errorf("field %s: has default %v, Java %v", of[i].Name(), of[i].HasDefault(), jf[i].HasDefault())
			continue
		}
		jd, _ := json.Marshal(jf[i].Default())
		od, _ := json.Marshal(of[i].Default())
		if !bytes.Equal(jd, od) {
			t.Errorf("field %s: default %s, Java %s", of[i].Name(), od, jd)
		}
		jt, _ := json.Marshal(jf[i].Type())
		ot, _ := json.Marshal(of[i].Type())
		if !bytes.Equal(jt, ot) {
			t.Errorf("field %s: type %s, Java %s", of[i].Name(), ot, jt)
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
	c := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{"../testdata/proto"}}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	files, err := c.Compile(context.Background(), "kitchen/kitchen.proto")
	if err != nil {
		t.Fatal(err)
	}
	md := files[0].Messages().ByName("KitchenSink")
	s, err := Options{Cache: NewCache()}.Schema(md)
	if err != nil {
		t.Fatal(err)
	}
	if s.Avro().Doc() == "" {
		t.Error("record has no doc")
	}
	withDoc := 0
	for _, f := range s.Avro().Fields() {
		if f.Doc() != "" {
			withDoc++
		}
	}
	if withDoc == 0 {
		t.Error("no field has a doc")
	}
	js, err := Options{Profile: JavaProfile, Cache: NewCache()}.Schema(md)
	if err != nil {
		t.Fatal(err)
	}
	if js.Avro().Doc() != "" {
		t.Error("the Java profile emits docs; ProtobufData does not")
	}
	// Docs do not change the canonical form.
	g, err := Options{}.Schema((&kitchenpb.KitchenSink{}).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	if g.Canonical() != s.Canonical() {
		t.Error("source info changed the canonical form")
	}
}

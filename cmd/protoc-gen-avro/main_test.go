package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/protoavro/protoavro/internal/avsc"
	"github.com/protoavro/protoavro/internal/protofiles"
	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
	"github.com/protoavro/protoavro/protoavro"
)

const (
	protoDir  = "../../testdata/proto"
	goldenDir = "../../protoavro/testdata/golden"
)

// protocFiles are the test protos protoc (3.21, Debian's) compiles; it
// predates editions, which TestEditions covers in-process.
var protocFiles = []string{"avro2147.proto", "kitchen/kitchen.proto", "legacy/legacy.proto"}

// protocPackages are the packages of protocFiles, to select their golden files.
var protocPackages = []string{"protoavro.avro2147.", "protoavro.test.kitchen.", "protoavro.test.legacy."}

// protoc returns the protoc executable, skipping the test without it
// unless PROTOAVRO_INTEROP=require.
func protoc(t *testing.T) string {
	t.Helper()
	exe, err := exec.LookPath("protoc")
	testutil.Need(t, err == nil, "protoc not installed: apt-get install protobuf-compiler libprotobuf-dev")
	return exe
}

// buildPlugin builds protoc-gen-avro into a temporary directory.
func buildPlugin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "protoc-gen-avro")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runProtoc runs protoc with the plugin over protocFiles with the
// parameter and returns the output directory.
func runProtoc(t *testing.T, exe, plugin, param string) string {
	t.Helper()
	out := t.TempDir()
	args := []string{"-I", protoDir, "--plugin=protoc-gen-avro=" + plugin, "--avro_out=" + out}
	if param != "" {
		args = append(args, "--avro_opt="+param)
	}
	cmd := exec.Command(exe, append(args, protocFiles...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("protoc %s: %v\n%s", param, err, b)
	}
	return out
}

// goldenFiles returns the golden files of variant dir for protocFiles.
func goldenFiles(t *testing.T, dir string) []string {
	t.Helper()
	return testutil.DirNamesWithPrefix(t, filepath.Join(goldenDir, dir), protocPackages...)
}

// TestProtocGolden runs the plugin through protoc and compares its files
// with the golden ones, byte for byte: every message in both profiles, and
// the variants of the other mapping options.
func TestProtocGolden(t *testing.T) {
	exe := protoc(t)
	plugin := buildPlugin(t)
	for _, c := range []struct{ param, golden string }{
		{"docs=false", "default"},
		{"profile=java", "java"},
		{"docs=false,timestamps=millis", "timestamp-millis"},
		{"docs=false,timestamps=nanos", "timestamp-nanos"},
		{"docs=false,uint64=decimal", "uint64-decimal"},
		{"docs=false,mapkeys=entries", "map-entries"},
	} {
		out := runProtoc(t, exe, plugin, c.param)
		golden := goldenFiles(t, c.golden)
		got := testutil.DirNames(t, out)
		if c.golden == "default" || c.golden == "java" {
			if !slices.Equal(got, golden) {
				t.Errorf("%s: files %q, want %q", c.param, got, golden)
			}
		}
		for _, name := range golden {
			want, _ := os.ReadFile(filepath.Join(goldenDir, c.golden, name))
			have, err := os.ReadFile(filepath.Join(out, name))
			if err != nil || !bytes.Equal(have, want) {
				t.Errorf("%s: %s differs from the golden file (%v)", c.param, name, err)
			}
		}
		t.Logf("%s: %d files equal to %s/", c.param, len(golden), c.golden)
	}
}

// TestProtocDocs checks the default output: the golden schemas with the
// leading comments of the protos as doc attributes.
func TestProtocDocs(t *testing.T) {
	exe := protoc(t)
	out := runProtoc(t, exe, buildPlugin(t), "")
	docs := 0
	for _, name := range goldenFiles(t, "default") {
		want, _ := os.ReadFile(filepath.Join(goldenDir, "default", name))
		have, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		docs += strings.Count(string(have), `"doc": `)
		a, errA := protoavro.ParseSchema(have)
		b, errB := protoavro.ParseSchema(want)
		if errA != nil || errB != nil || a.Canonical() != b.Canonical() {
			t.Errorf("%s: canonical form differs from the golden file (%v, %v)", name, errA, errB)
		}
		if got, want := stripDocs(t, have), stripDocs(t, want); got != want {
			t.Errorf("%s differs from the golden file in more than its docs", name)
		}
	}
	if docs < 50 {
		t.Errorf("%d doc attributes; the test protos' comments should give more", docs)
	}
}

// stripDocs returns schema JSON without its "doc" attributes, compact.
func stripDocs(t *testing.T, text []byte) string {
	t.Helper()
	v := testutil.JSONValue(t, text)
	testutil.EachJSONObject(v, func(m map[string]any) { delete(m, "doc") })
	b, _ := json.Marshal(v)
	return string(b)
}

// request builds the CodeGeneratorRequest protoc would send for files,
// with protocompile.
func request(t *testing.T, param string, files ...string) *pluginpb.CodeGeneratorRequest {
	t.Helper()
	compiled := testcompile.Protos(t, protoDir, files...)
	req := &pluginpb.CodeGeneratorRequest{FileToGenerate: files, Parameter: proto.String(param)}
	req.ProtoFile = protofiles.Protos(compiled...) // imports first, as protoc sends them
	return req
}

// TestEditions runs the plugin in-process on the editions test proto,
// which Debian's protoc cannot compile.
func TestEditions(t *testing.T) {
	for _, c := range []struct{ param, golden string }{{"docs=false", "default"}, {"profile=java", "java"}} {
		resp := generate(request(t, c.param, "editions/editions.proto"))
		if resp.Error != nil {
			t.Fatal(*resp.Error)
		}
		if len(resp.File) != 8 {
			t.Errorf("%d files", len(resp.File))
		}
		for _, f := range resp.File {
			want, err := os.ReadFile(filepath.Join(goldenDir, c.golden, f.GetName()))
			if err != nil || f.GetContent() != string(want) {
				t.Errorf("%s: %s differs from the golden file (%v)", c.param, f.GetName(), err)
			}
		}
	}
}

// TestRunErrors checks errors in the response and on the streams.
func TestRunErrors(t *testing.T) {
	for _, c := range []struct{ param, want string }{
		{"bogus=1", `unknown option "bogus=1"`},
		{"profile=scala", `unknown profile "scala"`},
		{"docs=maybe", `want docs=true or docs=false, not "docs=maybe"`},
	} {
		resp := generate(request(t, c.param, "avro2147.proto"))
		if resp.Error == nil || !strings.Contains(*resp.Error, c.want) || len(resp.File) != 0 {
			t.Errorf("%s: error %v, want %q", c.param, resp.Error, c.want)
		}
	}
	var out bytes.Buffer
	if err := run(strings.NewReader("\xff\xff"), &out); err == nil || !strings.Contains(err.Error(), "read request") {
		t.Errorf("garbage request: %v", err)
	}
	// A well-formed request through run.
	in, _ := proto.Marshal(request(t, "", "avro2147.proto"))
	if err := run(bytes.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var resp pluginpb.CodeGeneratorResponse
	if err := proto.Unmarshal(out.Bytes(), &resp); err != nil || len(resp.File) != 2 || resp.GetSupportedFeatures()&uint64(pluginpb.CodeGeneratorResponse_FEATURE_PROTO3_OPTIONAL) == 0 {
		t.Errorf("response: %v, %d files", err, len(resp.File))
	}
}

// runMeasured runs the plugin on the serialized request and returns its
// response and the bytes allocated while it ran.
func runMeasured(t *testing.T, req *pluginpb.CodeGeneratorRequest) (*pluginpb.CodeGeneratorResponse, uint64) {
	t.Helper()
	in, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	alloc := testutil.Allocated(func() { err = run(bytes.NewReader(in), &out) })
	resp := new(pluginpb.CodeGeneratorResponse)
	if err != nil || proto.Unmarshal(out.Bytes(), resp) != nil {
		t.Fatalf("run on a request of %d bytes: %v", len(in), err)
	}
	return resp, alloc
}

// TestHostileRequests runs the plugin on requests of hostile descriptors:
// each gets an error response naming the limit, not a crash, within a
// budget of allocation.
func TestHostileRequests(t *testing.T) {
	for _, c := range []struct {
		name string
		fdp  *descriptorpb.FileDescriptorProto
		want string
	}{
		{"chain of 20,000", testutil.HostileFile(testutil.Chain, 20_000), "Limits.MaxDepth), at hostile.M0 > hostile.M1 > hostile.M2 > (58 more)"},
		{"ring of 20,000", testutil.HostileFile(testutil.Ring, 20_000), "Limits.MaxDepth)"},
		{"1,000 mutually recursive", testutil.HostileFile(testutil.Mesh, 1_000), "Limits.MaxDepth)"},
		{"200,000 fields", testutil.HostileFile(testutil.Wide, 200_000), "Limits.MaxFields)"},
		{"wheel of 2,000", testutil.HostileFile(testutil.Wheel, 2_000), "more than 16777216 bytes together"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, alloc := runMeasured(t, &pluginpb.CodeGeneratorRequest{FileToGenerate: []string{c.fdp.GetName()}, ProtoFile: []*descriptorpb.FileDescriptorProto{c.fdp}})
			t.Logf("%s: %.1f MiB allocated: %.300s", c.name, float64(alloc)/(1<<20), resp.GetError())
			if !strings.Contains(resp.GetError(), c.want) || !strings.Contains(resp.GetError(), "schema limit exceeded") || len(resp.File) != 0 {
				t.Errorf("error %q, %d files; want one naming %q", resp.GetError(), len(resp.File), c.want)
			}
			if alloc > 1<<30 {
				t.Errorf("allocated %d bytes, want at most 1 GiB", alloc)
			}
		})
	}
}

// TestRequestPublicImportChain: a request of 20,000 files each importing
// the one before publicly, on which protodesc would follow 2·10⁸ public
// imports, gets an error response naming the file where the bound was
// passed, within the allocation of decoding the request.
func TestRequestPublicImportChain(t *testing.T) {
	resp, alloc := runMeasured(t, &pluginpb.CodeGeneratorRequest{FileToGenerate: []string{"f19999.proto"}, ProtoFile: testutil.ImportChain(20_000, true)})
	if want := `descriptors: descriptor imports beyond the limits: at "f1025.proto"`; !strings.Contains(resp.GetError(), want) || len(resp.File) != 0 {
		t.Errorf("error %q, %d files; want one with %q", resp.GetError(), len(resp.File), want)
	}
	if alloc > 64<<20 {
		t.Errorf("allocated %d bytes, want at most 64 MiB", alloc)
	}
}

// TestCommandLine: -h prints the help on standard output and exits 0; any
// other argument is refused with exit status 2 and a hint; no argument runs
// the plugin on standard input.
func TestCommandLine(t *testing.T) {
	for _, h := range []string{"-h", "-help", "--help"} {
		var out, errOut bytes.Buffer
		if code := cli([]string{h}, strings.NewReader(""), &out, &errOut); code != 0 || !strings.Contains(out.String(), "--avro_out") || errOut.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", h, code, out.String(), errOut.String())
		}
	}
	for _, args := range [][]string{{"--avro_out=x"}, {"-h", "x"}} {
		var out, errOut bytes.Buffer
		if code := cli(args, strings.NewReader(""), &out, &errOut); code != 2 || out.Len() != 0 || !strings.Contains(errOut.String(), "run it through protoc") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := cli(nil, strings.NewReader(""), &out, &errOut); code != 0 || errOut.Len() != 0 {
		t.Fatalf("empty request: exit %d, stderr %q", code, errOut.String())
	}
	resp := &pluginpb.CodeGeneratorResponse{}
	if err := proto.Unmarshal(out.Bytes(), resp); err != nil || resp.Error != nil || len(resp.File) != 0 {
		t.Errorf("empty request: %v, %v", resp, err)
	}
}

// kitchenFile returns the content of the file named name that the plugin
// writes for kitchen.proto with param, failing the test on an error
// response.
func kitchenFile(t *testing.T, param, name string) string {
	t.Helper()
	resp := generate(request(t, param, "kitchen/kitchen.proto"))
	if resp.Error != nil {
		t.Fatalf("%s: %s", param, resp.GetError())
	}
	for _, f := range resp.File {
		if f.GetName() == name {
			return f.GetContent()
		}
	}
	t.Fatalf("%s: no file %s", param, name)
	return ""
}

// TestParameterPresetAppliesFirst: preset=engine applies before the other
// options wherever it stands in the parameter, as --preset does on the
// command line, so an option given with it overrides it in any order.
func TestParameterPresetAppliesFirst(t *testing.T) {
	const name = "protoavro.test.kitchen.WellKnown.avsc"
	for _, param := range []string{"preset=engine,timestamps=millis", "timestamps=millis,preset=engine", " timestamps=millis , preset=engine ,"} {
		text := kitchenFile(t, param, name)
		if !strings.Contains(text, `"timestamp-millis"`) || strings.Contains(text, `"timestamp-micros"`) || !strings.Contains(text, `"sqlType": "JSON"`) {
			t.Errorf("%q: %s is not the engine preset with timestamp-millis", param, name)
		}
	}
}

// TestParameterRefused: a key given twice, docs without true or false, and
// an option the Java profile ignores are refused with an error response
// naming them; input text in the error is escaped.
func TestParameterRefused(t *testing.T) {
	for _, c := range []struct{ param, want string }{
		{"profile=java,profile=default", `option "profile" given twice`},
		{"timestamps=millis,uint64=decimal,timestamps=micros", `option "timestamps" given twice`},
		{"docs=false,docs=true", `option "docs" given twice`},
		{"docs=false,docs=false", `option "docs" given twice`},
		{"docs", `want docs=true or docs=false, not "docs"`},
		{"docs=", `want docs=true or docs=false, not "docs="`},
		{"docs=\x1b]0;pwn\a\nx", `not "docs=\x1b]0;pwn\a\nx"`},
		{"profile=java,timestamps=millis", `"timestamps=millis" applies to the default profile only; profile=java ignores it`},
		{"uint64=decimal,profile=java", `"uint64=decimal" applies to the default profile only`},
		{"profile=java,preset=engine", `"preset=engine" applies to the default profile only`},
		{"docs=true,profile=java", `"docs=true": profile=java writes no "doc" attributes`},
	} {
		resp := generate(request(t, c.param, "avro2147.proto"))
		if !strings.Contains(resp.GetError(), c.want) || len(resp.File) != 0 || !safetext.Safe(resp.GetError()) {
			t.Errorf("%q: error %q, %d files; want one with %q", c.param, resp.GetError(), len(resp.File), c.want)
		}
	}
	for _, param := range []string{"profile=java", "profile=java,enums=default,docs=false", "docs=true", "docs=false"} {
		if resp := generate(request(t, param, "avro2147.proto")); resp.Error != nil || len(resp.File) != 2 {
			t.Errorf("%q: error %q, %d files", param, resp.GetError(), len(resp.File))
		}
	}
}

// TestErrorsEscapeInput: the names of files in the request, which protoc
// prints in the response's error, are escaped there.
func TestErrorsEscapeInput(t *testing.T) {
	const evil = "a\x1b[2J\nb\u202e.proto"
	req := request(t, "", "avro2147.proto")
	req.FileToGenerate = []string{evil}
	resp := generate(req)
	if want := `file to generate "a\x1b[2J\nb\u202e.proto"`; !strings.Contains(resp.GetError(), want) || !safetext.Safe(resp.GetError()) {
		t.Errorf("error %q, want one with %q", resp.GetError(), want)
	}
	// A file of that name in the set.
	f := &descriptorpb.FileDescriptorProto{Name: proto.String(evil), Syntax: proto.String("proto4")}
	resp = generate(&pluginpb.CodeGeneratorRequest{FileToGenerate: []string{evil}, ProtoFile: []*descriptorpb.FileDescriptorProto{f}})
	if resp.Error == nil || !safetext.Safe(resp.GetError()) {
		t.Errorf("error %q, want one, escaped", resp.GetError())
	}
}

// TestEditionsOutsideRangeRefused: a file of an edition after the one the
// plugin advertises as its maximum (or of no edition) is refused with an
// error naming the file and the edition, whether it is to generate or
// imported.
func TestEditionsOutsideRangeRefused(t *testing.T) {
	file := func(name string, e descriptorpb.Edition, deps ...string) *descriptorpb.FileDescriptorProto {
		return &descriptorpb.FileDescriptorProto{Name: proto.String(name), Package: proto.String("p"), Syntax: proto.String("editions"),
			Edition: e.Enum(), Dependency: deps, MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("M" + strings.TrimSuffix(name, ".proto"))}}}
	}
	for _, c := range []struct {
		files []*descriptorpb.FileDescriptorProto
		want  string
	}{
		{[]*descriptorpb.FileDescriptorProto{file("a.proto", descriptorpb.Edition_EDITION_2024)}, `"a.proto": edition 2024 is not supported`},
		{[]*descriptorpb.FileDescriptorProto{file("a.proto", descriptorpb.Edition_EDITION_99999_TEST_ONLY)}, `"a.proto": edition 99999_TEST_ONLY is not supported`},
		{[]*descriptorpb.FileDescriptorProto{file("a.proto", descriptorpb.Edition_EDITION_UNKNOWN)}, `"a.proto": edition UNKNOWN is not supported`},
		{[]*descriptorpb.FileDescriptorProto{file("b.proto", descriptorpb.Edition_EDITION_2024), file("a.proto", descriptorpb.Edition_EDITION_2023, "b.proto")}, `"b.proto": edition 2024 is not supported`},
	} {
		resp := generate(&pluginpb.CodeGeneratorRequest{FileToGenerate: []string{"a.proto"}, ProtoFile: c.files})
		if !strings.Contains(resp.GetError(), c.want) || len(resp.File) != 0 {
			t.Errorf("error %q, %d files; want one with %q", resp.GetError(), len(resp.File), c.want)
		}
		if resp.GetMaximumEdition() != int32(descriptorpb.Edition_EDITION_2023) {
			t.Errorf("maximum edition %d, want 2023", resp.GetMaximumEdition())
		}
	}
	resp := generate(&pluginpb.CodeGeneratorRequest{FileToGenerate: []string{"a.proto"}, ProtoFile: []*descriptorpb.FileDescriptorProto{file("a.proto", descriptorpb.Edition_EDITION_2023)}})
	if resp.Error != nil || len(resp.File) != 1 {
		t.Errorf("edition 2023: error %q, %d files", resp.GetError(), len(resp.File))
	}
}

// TestNamesDifferingInCaseRefused: messages whose files' names differ only
// in case, which would overwrite each other on a case-insensitive file
// system, are refused with an error naming the files.
func TestNamesDifferingInCaseRefused(t *testing.T) {
	msgs := []*descriptorpb.DescriptorProto{{Name: proto.String("Foo")}, {Name: proto.String("foo")}, {Name: proto.String("Bar")}, {Name: proto.String("FOO")},
		{Name: proto.String("BAR")}}
	f := &descriptorpb.FileDescriptorProto{Name: proto.String("a.proto"), Package: proto.String("p"), Syntax: proto.String("proto3"), MessageType: msgs}
	resp := generate(&pluginpb.CodeGeneratorRequest{FileToGenerate: []string{"a.proto"}, ProtoFile: []*descriptorpb.FileDescriptorProto{f}})
	if want := `files "p.Foo.avsc", "p.foo.avsc", "p.FOO.avsc" differ only in case (and 1 more such sets)`; !strings.Contains(resp.GetError(), want) || len(resp.File) != 0 {
		t.Errorf("error %q, %d files; want one with %q", resp.GetError(), len(resp.File), want)
	}
	// A nested message and a top-level one.
	f.MessageType = []*descriptorpb.DescriptorProto{{Name: proto.String("A"), NestedType: []*descriptorpb.DescriptorProto{{Name: proto.String("B")}}}, {Name: proto.String("a")}}
	resp = generate(&pluginpb.CodeGeneratorRequest{FileToGenerate: []string{"a.proto"}, ProtoFile: []*descriptorpb.FileDescriptorProto{f}})
	if want := `files "p.A.avsc", "p.a.avsc" differ only in case`; !strings.Contains(resp.GetError(), want) {
		t.Errorf("error %q, want one with %q", resp.GetError(), want)
	}
}

// TestStandardFilesGiveNoDocs: the comments protoc sends for the standard
// google/protobuf files do not become doc attributes, as in "protoavro
// schema", which has those files built in; the comments of the other files
// do.
func TestStandardFilesGiveNoDocs(t *testing.T) {
	files := testcompile.Sources(t, map[string]string{"w.proto": `syntax = "proto3";
package w;
import "google/protobuf/field_mask.proto";
// W is the user's message.
message W { google.protobuf.FieldMask mask = 1; }
`}, "w.proto")
	req := &pluginpb.CodeGeneratorRequest{FileToGenerate: []string{"w.proto"}, ProtoFile: protofiles.Protos(files...)}
	for _, f := range req.ProtoFile {
		if f.GetName() == "google/protobuf/field_mask.proto" {
			// What protoc sends: the file's comments.
			f.SourceCodeInfo = &descriptorpb.SourceCodeInfo{Location: []*descriptorpb.SourceCodeInfo_Location{
				{Path: []int32{4, 0}, Span: []int32{0, 0, 1}, LeadingComments: proto.String(" FieldMask's own comment.\n")}}}
		}
	}
	resp := generate(req)
	if resp.Error != nil || len(resp.File) != 1 {
		t.Fatalf("error %q, %d files", resp.GetError(), len(resp.File))
	}
	text := resp.File[0].GetContent()
	if strings.Contains(text, "FieldMask's own comment.") || !strings.Contains(text, `"doc": "W is the user's message."`) {
		t.Errorf("want the doc of W only:\n%s", text)
	}
	// The same schema as without the comments, as schema --out-dir writes.
	s, err := protoavro.Options{Cache: protoavro.NewCache()}.Schema(files[0].Messages().Get(0))
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := s.JSON(); text != string(want) {
		t.Errorf("plugin:\n%s\nschema:\n%s", text, want)
	}
}

// TestStandardFilesAreProtocompiles: the standard files are those that
// protocompile, which "protoavro schema" compiles with, has built in.
func TestStandardFilesAreProtocompiles(t *testing.T) {
	std := protocompile.WithStandardImports(protocompile.ResolverFunc(func(string) (protocompile.SearchResult, error) {
		return protocompile.SearchResult{}, fs.ErrNotExist
	}))
	for name := range standardFiles {
		if _, err := std.FindFileByPath(name); err != nil {
			t.Errorf("%s: not a standard import of protocompile: %v", name, err)
		}
	}
	protoregistry.GlobalFiles.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		if _, err := std.FindFileByPath(f.Path()); err == nil && !standardFiles[f.Path()] {
			t.Errorf("%s: a standard import of protocompile, not in standardFiles", f.Path())
		}
		return true
	})
}

// TestProtocOutputIsSchemas: with the default parameter, protoc gives the
// plugin the comments of every file, the standard ones included, and the
// plugin writes the schemas "protoavro schema --out-dir" writes from the
// same files, byte for byte.
func TestProtocOutputIsSchemas(t *testing.T) {
	exe := protoc(t)
	out := runProtoc(t, exe, buildPlugin(t), "")
	files := testcompile.Protos(t, protoDir, protocFiles...)
	schemas, err := avsc.Schemas(avsc.Messages(files), protoavro.Options{Cache: protoavro.NewCache()})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range schemas {
		want, err := s.Schema.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(out, s.Name)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from the schema of schema --out-dir (%v)", s.Name, err)
		}
	}
	if got := testutil.DirNames(t, out); len(got) != len(schemas) {
		t.Errorf("%d files, want %d", len(got), len(schemas))
	}
}

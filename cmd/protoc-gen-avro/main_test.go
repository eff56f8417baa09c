package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/protoavro/protoavro/internal/protofiles"
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
		{"docs=maybe", "docs=maybe: want true or false"},
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

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
)

// kitchenArgs are the type flags of protoavro.test.kitchen.KitchenSink,
// which has every construct the mapping flags change: uint64 fields, maps
// with integer keys, Timestamps, Struct values and the recursive Tree.
var kitchenArgs = []string{"-I", "../../testdata/proto", "-m", "protoavro.test.kitchen.KitchenSink", "kitchen/kitchen.proto"}

// TestMappingFlagsReachTheSchema: each mapping flag of schema changes the
// derived schema as its option does.
func TestMappingFlagsReachTheSchema(t *testing.T) {
	t.Parallel()
	base := runCmd(t, append([]string{"schema"}, kitchenArgs...)...)
	if base.code != 0 {
		t.Fatalf("schema: exit %d: %s", base.code, base.stderr)
	}
	for _, want := range []string{`"timestamp-nanos"`, `"protoavro.test.kitchen.Tree"`} {
		if !strings.Contains(base.stdout, want) {
			t.Fatalf("default schema lacks %s", want)
		}
	}
	tests := []struct {
		flags   []string
		want    []string
		notWant []string
	}{
		{[]string{"--profile", "java"}, []string{`"avro.java.string": "String"`}, nil},
		{[]string{"--timestamps", "millis"}, []string{`"timestamp-millis"`}, []string{`"timestamp-nanos"`}},
		{[]string{"--timestamps", "micros"}, []string{`"timestamp-micros"`}, []string{`"timestamp-nanos"`}},
		{[]string{"--timestamps", "record"}, []string{`"name": "google.protobuf.Timestamp"`}, []string{`"timestamp-nanos"`}},
		{[]string{"--uint64", "decimal"}, []string{`"logicalType": "decimal"`, `"precision": 20`}, nil},
		{[]string{"--map-keys", "entries"}, []string{`"protoavro.test.kitchen.Maps.Int32ToStringEntry"`}, nil},
		{[]string{"--recursion-depth", "2"}, []string{`"protoavro.test.kitchen.Tree_depth1"`}, []string{`Tree_depth2`, `"sqlType"`}},
		{[]string{"--recursion-depth", "2", "--recursion-carrier", "json"}, []string{`"protoavro.test.kitchen.Tree_depth1"`, `"sqlType": "JSON"`}, []string{`Tree_depth2`}},
		{[]string{"--dynamic", "json"}, []string{`"sqlType": "JSON"`}, []string{`"google.protobuf.Struct"`, `"google.protobuf.ListValue"`}},
		{[]string{"--preset", "engine"}, []string{`"sqlType": "JSON"`, `"logicalType": "decimal"`, `"timestamp-micros"`}, []string{`Tree_depth1`, `"google.protobuf.Struct"`}},
		{[]string{"--preset", "engine", "--timestamps", "millis", "--recursion-depth", "2"}, []string{`"timestamp-millis"`, `"logicalType": "decimal"`, `Tree_depth1`}, []string{`"timestamp-micros"`}},
	}
	for _, tc := range tests {
		r := runCmd(t, append(append([]string{"schema"}, kitchenArgs...), tc.flags...)...)
		if r.code != 0 {
			t.Errorf("%v: exit %d: %s", tc.flags, r.code, r.stderr)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v: schema lacks %s", tc.flags, w)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(r.stdout, w) {
				t.Errorf("%v: schema has %s", tc.flags, w)
			}
		}
	}
	// --unknown-enums is a codec policy: the schema stays the default one.
	if r := runCmd(t, append(append([]string{"schema"}, kitchenArgs...), "--unknown-enums", "default")...); r.code != 0 || r.stdout != base.stdout {
		t.Errorf("--unknown-enums changed the schema (exit %d): %s", r.code, r.stderr)
	}
	// Bad values are usage errors that name the flag and the choices.
	for _, bad := range [][]string{{"--timestamps", "hours"}, {"--uint64", "int"}, {"--recursion-depth", "33"}, {"--preset", "warehouse"}, {"--dynamic", "yaml"}} {
		r := runCmd(t, append(append([]string{"schema"}, kitchenArgs...), bad...)...)
		if r.code != 2 || !strings.Contains(r.stderr, bad[0]) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming the flag", bad, r.code, r.stderr)
		}
	}
}

// TestMappingFlagsHelp: encode, decode and schema list every mapping flag.
func TestMappingFlagsHelp(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"encode", "decode", "schema"} {
		r := runCmd(t, cmd, "--help")
		for _, f := range mappingFlagNames {
			if !strings.Contains(r.stdout+r.stderr, "--"+f.flag+" ") {
				t.Errorf("%s --help does not list --%s", cmd, f.flag)
			}
		}
	}
}

// TestMappingFlagsRecorded: encode records the mapping options in the file,
// inspect shows them, and decode reads the file back with them (no flags),
// giving the input's messages.
func TestMappingFlagsRecorded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var in bytes.Buffer
	for i := range 5 {
		s, err := structpb.NewStruct(map[string]any{"n": float64(i), "list": []any{"a", true}})
		if err != nil {
			t.Fatal(err)
		}
		m := &kitchenpb.KitchenSink{
			Id:        strings.Repeat("x", i),
			Scalars:   &kitchenpb.Scalars{Uint64Field: 1<<64 - 1 - uint64(i)},
			Maps:      &kitchenpb.Maps{Int32ToString: map[int32]string{int32(-i): "v"}},
			WellKnown: &kitchenpb.WellKnown{Timestamp: &timestamppb.Timestamp{Seconds: 1764547200 + int64(i), Nanos: 123456000}, Struct: s},
			Tree:      &kitchenpb.Tree{Label: "root", Children: []*kitchenpb.Tree{{Label: "c", Children: []*kitchenpb.Tree{{Label: "gc"}}}}},
		}
		// Deterministic, as decode writes: map entries in key order.
		if _, err := (protodelim.MarshalOptions{MarshalOptions: proto.MarshalOptions{Deterministic: true}}).MarshalTo(&in, m); err != nil {
			t.Fatal(err)
		}
	}
	inPath := filepath.Join(dir, "in.delimited")
	if err := os.WriteFile(inPath, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--preset", "engine"}, "profile=default timestamps=micros uint64=decimal mapkeys=text recursion=1 carrier=json dynamic=json empty=placeholder googletypes=logical"},
		{[]string{"--timestamps", "nanos", "--map-keys", "entries", "--recursion-depth", "2", "--recursion-carrier", "bytes", "--unknown-enums", "default"},
			"profile=default timestamps=nanos uint64=long mapkeys=entries recursion=2 carrier=bytes enums=default"},
	} {
		out := filepath.Join(dir, "out.avro")
		if r := runCmd(t, append(append([]string{"encode"}, kitchenArgs...), append(tc.flags, "--in", inPath, "--out", out)...)...); r.code != 0 {
			t.Fatalf("%v: encode: exit %d: %s", tc.flags, r.code, r.stderr)
		}
		if r := runCmd(t, "inspect", out); r.code != 0 || !strings.Contains(r.stdout, "options:     "+tc.want+"\n") {
			t.Errorf("%v: inspect (exit %d) does not show %q:\n%s%s", tc.flags, r.code, tc.want, r.stdout, r.stderr)
		}
		back := filepath.Join(dir, "back.delimited")
		if r := runCmd(t, "decode", out, "--out", back); r.code != 0 {
			t.Fatalf("%v: decode: exit %d: %s", tc.flags, r.code, r.stderr)
		}
		got, err := os.ReadFile(back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, in.Bytes()) {
			t.Errorf("%v: decode of the file is not the input", tc.flags)
		}
	}
}

// TestMappingFlagsJavaRefusesDefaultProfileFlags: with the Java profile, a
// mapping flag (or --options key) that applies to the default profile only,
// which the profile would ignore, is a usage error naming both, in either
// order; --unknown-enums applies to both profiles.
func TestMappingFlagsJavaRefusesDefaultProfileFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd   string
		flags []string
		want  []string
	}{
		{"schema", []string{"--profile", "java", "--timestamps", "millis"}, []string{"--timestamps millis", "--profile java"}},
		{"schema", []string{"--timestamps", "millis", "--profile", "java"}, []string{"--timestamps millis", "--profile java"}},
		{"schema", []string{"--profile", "java", "--preset", "engine"}, []string{"--preset engine", "--profile java"}},
		{"schema", []string{"--profile", "java", "--recursion-depth", "0"}, []string{"--recursion-depth 0", "--profile java"}},
		{"schema", []string{"--options", "profile=java", "--uint64", "decimal"}, []string{"--uint64 decimal", "--options profile=java"}},
		{"schema", []string{"--options", "mapkeys=entries", "--profile", "java"}, []string{"--options mapkeys=entries", "--profile java"}},
		{"schema", []string{"--options", "profile=java googletypes=logical"}, []string{`"googletypes=logical" applies to the default profile only`}},
		{"encode", []string{"--profile", "java", "--dynamic", "json"}, []string{"--dynamic json", "--profile java"}},
	} {
		r := runCmd(t, append(append([]string{c.cmd}, kitchenArgs...), c.flags...)...)
		if r.code != 2 {
			t.Errorf("%s %v: exit %d, want 2: %s", c.cmd, c.flags, r.code, r.stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s %v: stderr %q does not name %q", c.cmd, c.flags, r.stderr, w)
			}
		}
	}
	if r := runCmd(t, append(append([]string{"schema"}, kitchenArgs...), "--profile", "java", "--unknown-enums", "default")...); r.code != 0 {
		t.Errorf("--profile java --unknown-enums default: exit %d: %s", r.code, r.stderr)
	}
}

// TestMappingFlagsOverOptionsAndPreset: the preset applies first, whether
// a flag or a key of --options gives it, and every other flag or key over
// it; a flag replaces the --options key it sets.
func TestMappingFlagsOverOptionsAndPreset(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		flags         []string
		want, notWant string
	}{
		{[]string{"--options", "timestamps=millis", "--preset", "engine"}, `"timestamp-millis"`, `"timestamp-micros"`},
		{[]string{"--options", "preset=engine", "--timestamps", "millis"}, `"timestamp-millis"`, `"timestamp-micros"`},
		{[]string{"--options", "timestamps=millis preset=engine"}, `"timestamp-millis"`, `"timestamp-micros"`},
		{[]string{"--options", "timestamps=millis", "--timestamps", "micros"}, `"timestamp-micros"`, `"timestamp-millis"`},
	} {
		r := runCmd(t, append(append([]string{"schema"}, kitchenArgs...), c.flags...)...)
		if r.code != 0 || !strings.Contains(r.stdout, c.want) || strings.Contains(r.stdout, c.notWant) {
			t.Errorf("%v: exit %d (%s); want a schema with %s, without %s", c.flags, r.code, r.stderr, c.want, c.notWant)
		}
		if strings.Contains(strings.Join(c.flags, " "), "engine") && !strings.Contains(r.stdout, `"logicalType": "decimal"`) {
			t.Errorf("%v: not the engine preset", c.flags)
		}
	}
	if r := runCmd(t, append(append([]string{"schema"}, kitchenArgs...), "--options", "uint64=long uint64=decimal")...); r.code != 2 || !strings.Contains(r.stderr, `option "uint64" given twice`) {
		t.Errorf("--options with a key twice: exit %d, stderr %q", r.code, r.stderr)
	}
}

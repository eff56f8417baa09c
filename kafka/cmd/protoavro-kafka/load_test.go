package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
)

// personSet writes the person.proto of version as a serialized
// FileDescriptorSet, as protoc -o writes it, and returns its path.
func personSet(t *testing.T, version string) string {
	t.Helper()
	data, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{
		protodesc.ToFileDescriptorProto(kafkatest.Person(t, version).ParentFile()),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(protoDir(t, map[string]string{"person.binpb": string(data)}), "person.binpb")
}

// TestDescriptorSet registers and checks a message type taken from a
// descriptor set instead of a .proto file: the schema is the one the .proto
// gives, and check finds v2 compatible with it.
func TestDescriptorSet(t *testing.T) {
	fake, reg := kafkatest.Registry(t)
	v1 := personSet(t, "v1")
	code, stdout, stderr := runCLI(t, "register", "--registry", fake.URL(), "--topic", "people", "--descriptor-set", v1, "--message", person)
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	subject, id, version := registered(t, stdout)
	if subject != "people-value" || version != 1 {
		t.Fatalf("registered under %s version %d, want people-value version 1", subject, version)
	}
	got, err := reg.SchemaByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if want := kafkatest.AvroSchema(t, kafkatest.EvolutionSource(t, "v1")); got.Type != serde.TypeAvro || got.Text != want {
		t.Fatalf("schema %d is %s %s\nwant AVRO %s", id, got.Type, got.Text, want)
	}
	// The same type from the .proto file is the same schema: no new version.
	dir := protoDir(t, map[string]string{"person.proto": kafkatest.EvolutionSource(t, "v1")})
	code, stdout, _ = runCLI(t, "register", "--registry", fake.URL(), "--topic", "people", "-I", dir, "-m", person, filepath.Join(dir, "person.proto"))
	if _, id2, v2 := registered(t, stdout); code != 0 || id2 != id || v2 != 1 {
		t.Errorf("register from the .proto: exit %d, id %d version %d, want id %d version 1", code, id2, v2, id)
	}
	// Two sets: the first that defines a file wins.
	code, stdout, stderr = runCLI(t, "check", "--registry", fake.URL(), "--topic", "people", "--descriptor-set", personSet(t, "v2"), "--descriptor-set", v1, "-m", person)
	if code != 0 || !strings.Contains(stdout, "compatible: subject people-value") {
		t.Fatalf("check of v2: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	// --proto needs the source, which a descriptor set does not hold.
	code, _, stderr = runCLI(t, "register", "--registry", fake.URL(), "--topic", "people", "--proto", "--descriptor-set", v1, "-m", person)
	if code != 1 || !strings.Contains(stderr, "a descriptor set does not hold") {
		t.Errorf("register --proto from a descriptor set: exit %d, stderr %q", code, stderr)
	}
}

// TestTypeErrors: a message name that is wrong, or inputs that cannot be
// loaded, are usage errors (exit 2) worded as protoavro words them; a .proto
// file and a descriptor set together are fine.
func TestTypeErrors(t *testing.T) {
	fake, _ := kafkatest.Registry(t)
	set := personSet(t, "v1")
	dir := protoDir(t, map[string]string{"person.proto": kafkatest.EvolutionSource(t, "v1"), "bad.proto": "syntax = \"proto3\";\nmessage {\n"})
	file := filepath.Join(dir, "person.proto")
	base := []string{"check", "--registry", fake.URL(), "--topic", "t"}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--descriptor-set", set, "-m", "protoavro.test.evolution.Persn"},
			`protoavro-kafka check: unknown message "protoavro.test.evolution.Persn"; did you mean "protoavro.test.evolution.Person", "protoavro.test.evolution.Person.Address"?`},
		{[]string{"-I", dir, "-m", "Person", file},
			`unknown message "Person"; did you mean "protoavro.test.evolution.Person"?`},
		{[]string{"--descriptor-set", set, "-m", "protoavro.test.evolution.Person.Role"},
			"-m protoavro.test.evolution.Person.Role is an enum, not a message"},
		{[]string{"--descriptor-set", filepath.Join(dir, "nope.binpb"), "-m", person}, "--descriptor-set: open "},
		{[]string{"--descriptor-set", file, "-m", person}, "not a serialized FileDescriptorSet"},
		{[]string{"-I", dir, "-m", person, filepath.Join(dir, "bad.proto")}, "bad.proto:2:"},
		{[]string{"-I", dir, "--descriptor-set", set, "-m", person, file}, ""}, // both kinds of input at once
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append(append([]string{}, base...), tc.args...)...)
			if tc.stderr == "" {
				if code != 0 {
					t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
				}
				return
			}
			if code != 2 || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tc.stderr)
			}
		})
	}
}

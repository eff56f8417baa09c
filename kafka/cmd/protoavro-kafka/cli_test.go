package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/kafkaconf"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// runCLI runs the command as main does, with a timeout, and returns its exit
// status and outputs.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	code = run(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// protoDir writes files (name → text) into a new directory and returns it.
func protoDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var registeredRE = regexp.MustCompile(`registered (AVRO|PROTOBUF) .*under (\S+): id (\d+)(?:, version (\d+))?`)

// registered parses register's last line: the subject and ID (and version).
func registered(t *testing.T, stdout string) (subject string, id, version int) {
	t.Helper()
	m := registeredRE.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no registration in output:\n%s", stdout)
	}
	id, _ = strconv.Atoi(m[3])
	version, _ = strconv.Atoi(m[4])
	return m[2], id, version
}

const person = "protoavro.test.evolution.Person"

func TestRegisterStrategies(t *testing.T) {
	fake, reg := kafkatest.Registry(t)
	v1 := kafkatest.EvolutionSource(t, "v1")
	dir := protoDir(t, map[string]string{"person.proto": v1})
	want := kafkatest.AvroSchema(t, v1)
	base := []string{"register", "--registry", fake.URL(), "-I", dir, "-m", person, filepath.Join(dir, "person.proto")}
	ctx := context.Background()
	for _, tc := range []struct {
		flags   []string
		subject string
	}{
		{[]string{"--topic", "people"}, "people-value"},
		{[]string{"--topic", "people", "--strategy", "TopicNameStrategy", "--key"}, "people-key"},
		{[]string{"--strategy", "record"}, person},
		{[]string{"--topic", "people", "--strategy", "topic-record"}, "people-" + person},
		{[]string{"--subject", "hand-named"}, "hand-named"},
	} {
		t.Run(tc.subject, func(t *testing.T) {
			args := append(append([]string{}, base[:len(base)-1]...), tc.flags...)
			args = append(args, base[len(base)-1])
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if !strings.Contains(stdout, "compatible: subject "+tc.subject+", level BACKWARD, a new subject (no versions): nothing to check against\n") {
				t.Errorf("no gate report for a new subject:\n%s", stdout)
			}
			subject, id, version := registered(t, stdout)
			if subject != tc.subject || version != 1 {
				t.Fatalf("registered under %s version %d, want %s version 1", subject, version, tc.subject)
			}
			got, err := reg.SchemaByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if got.Type != serde.TypeAvro || got.Text != want {
				t.Fatalf("schema %d is %s %s\nwant AVRO %s", id, got.Type, got.Text, want)
			}
			vs, err := reg.Versions(ctx, tc.subject)
			if err != nil || len(vs) != 1 || vs[0].Schema.ID != id {
				t.Fatalf("versions of %s: %+v, %v", tc.subject, vs, err)
			}
			// Registering the same schema again is a no-op with the same ID.
			code, stdout, _ = runCLI(t, args...)
			if _, id2, v2 := registered(t, stdout); code != 0 || id2 != id || v2 != 1 {
				t.Errorf("second register: exit %d, id %d version %d, want id %d version 1", code, id2, v2, id)
			}
		})
	}
}

// registerOrder runs register --proto of shop.Order in order.proto, which
// imports common.proto, on the registry at url, and returns its output.
func registerOrder(t *testing.T, url, common, order string) string {
	t.Helper()
	dir := protoDir(t, map[string]string{"common.proto": common, "order.proto": order})
	code, stdout, stderr := runCLI(t, "register", "--registry", url, "-I", dir, "-m", "shop.Order",
		"--proto", "--topic", "orders", filepath.Join(dir, "order.proto"))
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	return stdout
}

func TestRegisterProto(t *testing.T) {
	fake, reg := kafkatest.Registry(t)
	common := "syntax = \"proto3\";\npackage shop;\nmessage Money {\n  string currency = 1;\n  int64 units = 2;\n}\n"
	order := "syntax = \"proto3\";\npackage shop;\nimport \"common.proto\";\nimport \"google/protobuf/timestamp.proto\";\n" +
		"message Order {\n  string id = 1;\n  Money total = 2;\n  google.protobuf.Timestamp at = 3;\n}\n"
	stdout := registerOrder(t, fake.URL(), common, order)
	subject, id, _ := registered(t, stdout)
	if subject != "orders-value" || !strings.Contains(stdout, "registered PROTOBUF order.proto") {
		t.Fatalf("output %q", stdout)
	}
	ctx := context.Background()
	got, err := reg.SchemaByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	// The import is a reference registered under its path; the standard
	// import is built into every registry and is not.
	wantRefs := []serde.Reference{{Name: "common.proto", Subject: "common.proto", Version: 1}}
	if got.Type != serde.TypeProtobuf || got.Text != order || fmt.Sprint(got.References) != fmt.Sprint(wantRefs) {
		t.Fatalf("schema %d: %s, references %v\n%s", id, got.Type, got.References, got.Text)
	}
	ref, err := reg.SchemaByVersion(ctx, "common.proto", 1)
	if err != nil || ref.Text != common {
		t.Fatalf("reference common.proto: %q, %v", ref.Text, err)
	}
	// What was registered is what protobuf producers frame records with:
	// the decoder compiles it back from the registry and finds Order.
	c, err := serde.NewProtoDecoder(reg, protoavro.Options{}).Codec(ctx, uint32(id), []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Schema().FullName(); n != "shop.Order" {
		t.Errorf("decoded type %s, want shop.Order", n)
	}
}

func TestCheckAndGate(t *testing.T) {
	fake, reg := kafkatest.Registry(t)
	v1 := kafkatest.EvolutionSource(t, "v1")
	v2 := kafkatest.EvolutionSource(t, "v2")
	// name becomes a long: neither version reads the other's.
	broken := strings.Replace(v1, "string name = 1;", "int64 name = 1;", 1)
	if broken == v1 {
		t.Fatal("v1 has no string name = 1")
	}
	dirs := map[string]string{}
	for name, text := range map[string]string{"v1": v1, "v2": v2, "broken": broken} {
		dirs[name] = protoDir(t, map[string]string{"person.proto": text})
	}
	cmd := func(verb, version string, flags ...string) []string {
		args := []string{verb, "--registry", fake.URL(), "--topic", "people", "-I", dirs[version], "-m", person}
		return append(append(args, flags...), filepath.Join(dirs[version], "person.proto"))
	}
	ctx := context.Background()
	versions := func() []int {
		vs, err := reg.Versions(ctx, "people-value")
		if err != nil {
			t.Fatal(err)
		}
		var n []int
		for _, v := range vs {
			n = append(n, v.Version)
		}
		return n
	}
	// check of a subject the registry does not hold says so, and registers
	// nothing.
	code, stdout, stderr := runCLI(t, cmd("check", "v1")...)
	if want := "compatible: subject people-value, level BACKWARD, a new subject (no versions): nothing to check against\n"; code != 0 || stdout != want {
		t.Fatalf("check of a new subject: exit %d\nstdout: %q, want %q\nstderr: %s", code, stdout, want, stderr)
	}
	if fake.SubjectExists("people-value") {
		t.Fatal("check registered the subject")
	}
	if code, stdout, stderr := runCLI(t, cmd("register", "v1")...); code != 0 {
		t.Fatalf("register v1: exit %d\n%s%s", code, stdout, stderr)
	}

	for _, tc := range []struct {
		name, version string
		flags         []string
		code          int
		want          []string // in stdout
	}{
		// v2 reads v1's data (int → long, float → double, a removed field).
		{"v2 backward", "v2", nil, 0, []string{"compatible: subject people-value, level BACKWARD, checked against versions [1]"}},
		{"v2 forward", "v2", []string{"--level", "forward"}, 1, []string{
			"INCOMPATIBLE: subject people-value, level FORWARD",
			"version 1, old reads new: Person.age: writer long cannot be read as reader int",
		}},
		{"broken backward", "broken", nil, 1, []string{
			"INCOMPATIBLE: subject people-value, level BACKWARD, 1 problems:",
			"version 1, new reads old: Person.name: writer string cannot be read as reader long",
		}},
		{"broken full", "broken", []string{"--level", "FULL_TRANSITIVE"}, 1, []string{
			"level FULL_TRANSITIVE, 2 problems:", "new reads old: Person.name: writer string cannot be read as reader long",
			"old reads new: Person.name: writer long cannot be read as reader string",
		}},
	} {
		t.Run("check "+tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, cmd("check", tc.version, tc.flags...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			if stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
		})
	}
	// check registers nothing.
	if vs := versions(); fmt.Sprint(vs) != "[1]" {
		t.Fatalf("versions after check: %v", vs)
	}

	// register refuses the incompatible version and leaves the subject as
	// it was; --no-check registers it (srfake accepts anything).
	code, stdout, stderr = runCLI(t, cmd("register", "broken")...)
	if code != 1 || !strings.Contains(stderr, "not BACKWARD compatible") || !strings.Contains(stderr, "Person.name") {
		t.Fatalf("register broken: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if vs := versions(); fmt.Sprint(vs) != "[1]" {
		t.Fatalf("versions after a refused register: %v", vs)
	}
	code, stdout, stderr = runCLI(t, cmd("register", "v2")...)
	if _, _, v := registered(t, stdout); code != 0 || v != 2 {
		t.Fatalf("register v2: exit %d, version %d\n%s", code, v, stderr)
	}
	code, stdout, stderr = runCLI(t, cmd("register", "broken", "--no-check")...)
	_, id, v := registered(t, stdout)
	if code != 0 || v != 3 || strings.Contains(stdout, "compatible") {
		t.Fatalf("register --no-check: exit %d, version %d\n%s%s", code, v, stdout, stderr)
	}
	if got, err := reg.SchemaByID(ctx, id); err != nil || got.Text != kafkatest.AvroSchema(t, broken) {
		t.Fatalf("schema %d: %q, %v", id, got.Text, err)
	}
	// The subject's own level is what check uses without --level.
	if err := reg.SetCompatibility(ctx, "people-value", serde.LevelNone); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := runCLI(t, cmd("check", "v1")...); code != 0 || stdout != "compatible: subject people-value, level NONE, nothing checked: NONE accepts any schema\n" {
		t.Fatalf("check under NONE: exit %d\n%s", code, stdout)
	}
}

// TestCheckExitStatus: check exits 1 only when the gate ran and found the
// schema incompatible (the report on stdout, nothing on stderr), and 3,
// with one line on stderr and nothing on stdout, when it could not check:
// nothing listening at the registry's address, a registry answering 503
// (its store down), a registry refusing the credentials. Its help says
// which status is which.
func TestCheckExitStatus(t *testing.T) {
	fake, _ := kafkatest.Registry(t)
	v1 := kafkatest.EvolutionSource(t, "v1")
	broken := strings.Replace(v1, "string name = 1;", "int64 name = 1;", 1)
	v1Dir := protoDir(t, map[string]string{"person.proto": v1})
	brokenDir := protoDir(t, map[string]string{"person.proto": broken})
	cmd := func(verb, dir, url string) []string {
		return []string{verb, "--registry", url, "--topic", "people", "-I", dir, "-m", person, filepath.Join(dir, "person.proto")}
	}
	if code, stdout, stderr := runCLI(t, cmd("register", v1Dir, fake.URL())...); code != 0 {
		t.Fatalf("register v1: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr := runCLI(t, cmd("check", brokenDir, fake.URL())...)
	if code != 1 || !strings.Contains(stdout, "INCOMPATIBLE: subject people-value, level BACKWARD") || stderr != "" {
		t.Fatalf("check of an incompatible schema: exit %d, want 1 and the report\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}

	down, _ := kafkatest.Registry(t)
	kafkatest.RegistryDown(down)
	locked := srfake.New(srfake.WithAuth("Basic " + base64.StdEncoding.EncodeToString([]byte("ci:"+registryPass))))
	t.Cleanup(locked.Close)
	t.Setenv("PROTOAVRO_REGISTRY_PASSWORD", registryPass+"-wrong")
	for _, tc := range []struct {
		name, url, want string
		flags           []string
	}{
		{"nothing listening", "http://" + kafkatest.DeadAddr(t), "schema registry unavailable", nil},
		{"registry answering 503", down.URL(), "schema registry unavailable: store unavailable", nil},
		{"credentials refused", locked.URL(), "access refused", []string{"--registry-user", "ci"}},
	} {
		for _, dir := range []string{v1Dir, brokenDir} {
			code, stdout, stderr := runCLI(t, append(cmd("check", dir, tc.url), tc.flags...)...)
			checkNoSecret(t, tc.name, stdout, stderr)
			if code != 3 || stdout != "" {
				t.Errorf("check, %s: exit %d, want 3 and nothing on stdout\nstdout: %s\nstderr: %s", tc.name, code, stdout, stderr)
				continue
			}
			oneLine(t, "check, "+tc.name, stderr, "protoavro-kafka check: ", tc.want)
		}
	}

	_, _, help := runCLI(t, "check", "-h")
	if !strings.Contains(help, "1 when it is incompatible") || !strings.Contains(help, "3 when the check could not run") {
		t.Errorf("check -h does not give the exit statuses:\n%s", help)
	}
}

func TestUsageErrors(t *testing.T) {
	fake, _ := kafkatest.Registry(t)
	dir := protoDir(t, map[string]string{"person.proto": kafkatest.EvolutionSource(t, "v1")})
	file := filepath.Join(dir, "person.proto")
	reg := []string{"--registry", fake.URL()}
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string // in stderr ("" for none at all)
		stdout string
	}{
		{nil, 2, "usage: protoavro-kafka COMMAND", ""},
		{[]string{"help"}, 0, "", "Commands:"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`, ""},
		{[]string{"register", "-h"}, 0, "usage: protoavro-kafka register", ""},
		{[]string{"register", "--no-such-flag"}, 2, "flag provided but not defined: -no-such-flag", ""},
		{append([]string{"register", "--topic", "t", "-I", dir}, append(reg, file)...), 2, "missing -m: name the message type", ""},
		{append([]string{"register", "--topic", "t", "-I", dir, "-m", person}, reg...), 2, "no input: give .proto files or --descriptor-set", ""},
		{append([]string{"check", "--topic", "t", "-I", dir, "-m", "no.Such"}, append(reg, file)...), 2, `unknown message "no.Such"`, ""},
		{append([]string{"check", "-I", dir, "-m", person}, append(reg, file)...), 2, "--topic or --subject is required", ""},
		{append([]string{"check", "--topic", "t", "--strategy", "alphabetical", "-I", dir, "-m", person}, append(reg, file)...), 2, `unknown subject-name strategy "alphabetical"`, ""},
		{append([]string{"check", "--topic", "t", "--level", "LENIENT", "-I", dir, "-m", person}, append(reg, file)...), 2, `unknown compatibility level "LENIENT"`, ""},
		{append([]string{"check", "--topic", "t", "--options", "profile=nonsense", "-I", dir, "-m", person}, append(reg, file)...), 2, "--options", ""},
		{append([]string{"check", "--topic", "t", "-I", dir, "-m", person}, append(reg, filepath.Join(dir, "missing.proto"))...), 2, "missing.proto: no such file or directory", ""},
		{[]string{"check", "--registry", "http://127.0.0.1:1", "--topic", "t", "-I", dir, "-m", person, file}, 3, "schema registry unavailable", ""},
		{[]string{"register", "--registry", "http://127.0.0.1:1", "--topic", "t", "-I", dir, "-m", person, file}, 1, "schema registry unavailable", ""},
		{[]string{"bridge", "--out", "o"}, 2, "--in and --out are required", ""},
		{[]string{"bridge", "--in", "i", "--out", "o", "--strategy", "x"}, 2, "--strategy", ""},
		{[]string{"bridge", "--in", "i", "--out", "o", "--unknown-id-ttl", "-1s"}, 2, "--unknown-id-ttl -1s: must not be negative", ""},
		{[]string{"bridge", "--in", "i", "--out", "o", "--unknown-id-ttl", "soon"}, 2, `invalid value "soon" for flag -unknown-id-ttl`, ""},
		{[]string{"dev", "--kafka-port", "ninety"}, 2, `invalid value "ninety" for flag -kafka-port`, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) || tc.stderr == "" && stderr != "" {
				t.Errorf("stderr %q, want %q", stderr, tc.stderr)
			}
			if !strings.Contains(stdout, tc.stdout) || tc.stdout == "" && stdout != "" {
				t.Errorf("stdout %q, want %q", stdout, tc.stdout)
			}
		})
	}
}

// TestTopUsage: the program's help names every environment variable the
// commands read (kafkaconf.EnvVars), in lines of at most 80 bytes, and the
// connection flags it says each command takes are those the command has:
// the brokers' TLS and SASL flags on bridge only, the registry's and
// --config on bridge, register and check. Each command's help writes its
// flags as its synopsis does: two dashes before a name longer than a
// letter.
func TestTopUsage(t *testing.T) {
	code, stdout, _ := runCLI(t, "help")
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	for _, v := range kafkaconf.EnvVars {
		if !strings.Contains(stdout, v) {
			t.Errorf("the help does not name $%s:\n%s", v, stdout)
		}
	}
	for _, line := range strings.Split(stdout, "\n") {
		if len(line) > 80 {
			t.Errorf("help line of %d bytes: %q", len(line), line)
		}
	}
	if !strings.Contains(stdout, "register and check talk to the schema\nregistry only") {
		t.Errorf("the help does not say that register and check talk to the registry only:\n%s", stdout)
	}
	for _, cmd := range []string{"bridge", "register", "check"} {
		_, _, help := runCLI(t, cmd, "-h")
		if one := regexp.MustCompile(`(?m)^  -\w\w.*`).FindString(help); one != "" {
			t.Errorf("%s -h: flag written with one dash: %q", cmd, one)
		}
		for _, f := range []string{"--config", "--registry", "--registry-user", "--registry-ca", "--tls", "--sasl-mechanism"} {
			has := strings.Contains(help, "\n  "+f+" ") || strings.Contains(help, "\n  "+f+"\n")
			if want := cmd == "bridge" || !strings.Contains(f, "tls") && !strings.Contains(f, "sasl"); has != want {
				t.Errorf("%s -h: flag %s present %v, want %v", cmd, f, has, want)
			}
		}
	}
}

// TestDev runs dev on free ports, reads the addresses it prints and uses
// them: a client produces and consumes on the broker, register and the
// bridge use the registry, and the end of the context stops both.
func TestDev(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	exited := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"dev", "--kafka-port", "0", "--registry-port", "0", "--topics", "in,out,dlq", "--partitions", "3"}, pw, &stderr)
		pw.Close()
		exited <- code
	}()
	var broker, registry string
	sc := bufio.NewScanner(pr)
	for sc.Scan() && (broker == "" || registry == "") {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "kafka broker:"); ok {
			broker = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "schema registry:"); ok {
			registry = strings.TrimSpace(v)
		}
	}
	go io.Copy(io.Discard, pr) //nolint:errcheck // drains the rest
	if broker == "" || registry == "" {
		t.Fatalf("dev printed no addresses (broker %q, registry %q); stderr %s", broker, registry, stderr.String())
	}
	if !strings.HasPrefix(broker, "127.0.0.1:") || !strings.HasPrefix(registry, "http://127.0.0.1:") {
		t.Errorf("addresses %s and %s, want loopback", broker, registry)
	}

	// The broker: the seeded topic has 3 partitions, records go through.
	cl := kafkatest.Client(t, []string{broker})
	var recs []*kgo.Record
	for i := range 30 {
		recs = append(recs, &kgo.Record{Topic: "in", Key: []byte("k" + strconv.Itoa(i)), Value: []byte("raw")})
	}
	kafkatest.Produce(t, cl, recs)
	parts := map[int32]bool{}
	for _, r := range kafkatest.ConsumeAll(t, []string{broker}, "in", 30, time.Minute) {
		parts[r.Partition] = true
		if r.Partition >= 3 {
			t.Errorf("record on partition %d of a 3-partition topic", r.Partition)
		}
	}
	if len(parts) < 2 {
		t.Errorf("30 keyed records on partitions %v only", parts)
	}

	// The registry: register through the CLI, read back with a client.
	v2 := kafkatest.EvolutionSource(t, "v2")
	dir := protoDir(t, map[string]string{"person.proto": v2})
	code, stdout, errOut := runCLI(t, "register", "--registry", registry, "--proto", "--topic", "in", "-I", dir, "-m", person, filepath.Join(dir, "person.proto"))
	if code != 0 {
		t.Fatalf("register on dev: exit %d\n%s%s", code, stdout, errOut)
	}
	_, id, _ := registered(t, stdout)
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, registry)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := reg.SchemaByID(ctx, id); err != nil || s.Text != v2 {
		t.Fatalf("schema %d from the dev registry: %q, %v", id, s.Text, err)
	}

	// Both at once: a few framed records through the bridge.
	md := kafkatest.PersonFrom(t, v2)
	enc := serde.NewProtoEncoder(reg)
	recs = recs[:0]
	for i := range 10 {
		recs = append(recs, &kgo.Record{Topic: "in", Key: []byte("p" + strconv.Itoa(i)), Value: enc.Append(nil, uint32(id), md, kafkatest.Wire(t, kafkatest.NewPerson(md, i)))})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut = runCLI(t, "bridge", "--brokers", broker, "--registry", registry, "--in", "in", "--out", "out",
		"--dlq", "dlq", "--max-records", "40", "--progress", "0")
	if code != 0 || !strings.Contains(stdout, "40 records (30 dead-lettered)") {
		t.Fatalf("bridge on dev: exit %d\n%s%s", code, stdout, errOut)
	}
	de, err := serde.NewDeserializer(reg, md, protoavro.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := kafkatest.ConsumeAll(t, []string{broker}, "out", 10, time.Minute)
	if len(out) != 10 {
		t.Fatalf("%d records out, want 10", len(out))
	}
	for _, r := range out {
		i, _ := strconv.Atoi(strings.TrimPrefix(string(r.Key), "p"))
		got := newMessage(md)
		if err := de.Decode(ctx, r.Value, got); err != nil || !protoEqual(got, kafkatest.NewPerson(md, i)) {
			t.Fatalf("record %s: %v, %v", r.Key, got, err)
		}
	}

	// The end of the context (SIGINT in main) stops both, with status 0.
	cancel()
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("dev exited %d: %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("dev did not stop")
	}
	for _, addr := range []string{broker, strings.TrimPrefix(registry, "http://")} {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections after dev stopped", addr)
		}
	}
}

func TestDevPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	code, stdout, stderr := runCLI(t, "dev", "--kafka-port", "0", "--registry-port", port)
	if code != 1 || !strings.Contains(stderr, "starting the registry") || stdout != "" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, "dev", "--kafka-port", port, "--registry-port", "0")
	if code != 1 || !strings.Contains(stderr, "starting the broker") {
		t.Fatalf("broker port taken: exit %d\nstderr: %s", code, stderr)
	}
}

// TestRegisterProtoOlderImport: the reference to an import names the version
// that holds the import's text as given, not the subject's latest: a
// .proto registered against an older import (rolled back, or not updated)
// must compile against that import.
func TestRegisterProtoOlderImport(t *testing.T) {
	fake, reg := kafkatest.Registry(t)
	ctx := context.Background()
	common := "syntax = \"proto3\";\npackage shop;\nmessage Money {\n  string currency = 1;\n  int64 units = 2;\n}\n"
	newer := "syntax = \"proto3\";\npackage shop;\nmessage Money {\n  string currency = 1;\n  int64 units = 2;\n  int32 nanos = 3;\n}\n"
	for _, text := range []string{common, newer} {
		if _, _, err := reg.Register(ctx, "common.proto", serde.Schema{Type: serde.TypeProtobuf, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	order := "syntax = \"proto3\";\npackage shop;\nimport \"common.proto\";\nmessage Order {\n  Money total = 1;\n}\n"
	stdout := registerOrder(t, fake.URL(), common, order)
	_, id, _ := registered(t, stdout)
	got, err := reg.SchemaByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if want := []serde.Reference{{Name: "common.proto", Subject: "common.proto", Version: 1}}; fmt.Sprint(got.References) != fmt.Sprint(want) {
		t.Fatalf("references %v, want %v (the version holding the local common.proto)", got.References, want)
	}
	// Compiled back from the registry, Money has the local file's fields.
	c, err := serde.NewProtoDecoder(reg, protoavro.Options{}).Codec(ctx, uint32(id), []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Schema().Descriptor().Fields().ByName("total").Message().Fields().Len(); n != 2 {
		t.Errorf("Money compiled from the registry has %d fields, want 2", n)
	}
}

// TestRegistryPasswordFromEnv: the password in $PROTOAVRO_REGISTRY_PASSWORD
// is used, and never printed: not by -h, not in the usage a flag mistake
// prints (which CI logs keep).
func TestRegistryPasswordFromEnv(t *testing.T) {
	const secret = "s3cret-Pa55"
	t.Setenv("PROTOAVRO_REGISTRY_PASSWORD", secret)
	fake := srfake.New(srfake.WithAuth("Basic " + base64.StdEncoding.EncodeToString([]byte("ci:"+secret))))
	t.Cleanup(fake.Close)
	for _, args := range [][]string{{"register", "-h"}, {"register", "--no-such-flag"}, {"bridge", "-h"}, {"check", "--level"}} {
		_, stdout, stderr := runCLI(t, args...)
		if strings.Contains(stdout+stderr, secret) {
			t.Errorf("%v prints the password:\n%s%s", args, stdout, stderr)
		}
	}
	dir := protoDir(t, map[string]string{"person.proto": kafkatest.EvolutionSource(t, "v1")})
	code, stdout, stderr := runCLI(t, "register", "--registry", fake.URL(), "--registry-user", "ci", "--topic", "people",
		"-I", dir, "-m", person, filepath.Join(dir, "person.proto"))
	if code != 0 {
		t.Fatalf("register with the password from the environment: exit %d\n%s%s", code, stdout, stderr)
	}
}

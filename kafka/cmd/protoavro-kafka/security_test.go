package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The users of the secure cluster and registry. No output of any test may
// hold a password.
var (
	saslUsers = []struct{ mech, user, pass string }{
		{"PLAIN", "alice", "PlainPw-7f3a9"},
		{"SCRAM-SHA-256", "bob", "Scram256Pw-c41e"},
		{"SCRAM-SHA-512", "carol", "Scram512Pw-9d0b"},
	}
	registryUser, registryPass = "ci-registry", "RegistryPw-55e1"
)

// secrets are every password of the secure setup.
func secrets() []string {
	out := []string{registryPass}
	for _, u := range saslUsers {
		out = append(out, u.pass)
	}
	return out
}

// checkNoSecret fails if any output holds a password.
func checkNoSecret(t *testing.T, what string, outputs ...string) {
	t.Helper()
	for _, s := range secrets() {
		for _, o := range outputs {
			if strings.Contains(o, s) {
				t.Errorf("%s: output holds a password:\n%s", what, o)
			}
		}
	}
}

// secure is a kfake cluster with TLS (and SASL or client certificates)
// and an srfake registry behind TLS with basic auth, on loopback.
type secure struct {
	cluster  *kfake.Cluster
	pki      *kafkatest.PKI
	brokers  []string
	registry string // https URL
	md       protoreflect.MessageDescriptor
	protoDir string // -I of the Person type
	protoArg string // its file
}

const secureInput = "raw"

// newSecure starts the cluster (SASL with saslUsers, or, with mtls,
// client certificates instead) and the registry, and produces n raw Person
// records to secureInput.
func newSecure(t *testing.T, mtls bool, n int, topics ...string) *secure {
	t.Helper()
	s := &secure{pki: kafkatest.NewPKI(t), md: kafkatest.Person(t, "v2")}
	s.protoDir = filepath.Join(kafkatest.RepoRoot(), "testdata", "proto")
	s.protoArg = filepath.Join(s.protoDir, "evolution", "v2", "person.proto")
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(2, append([]string{secureInput}, topics...)...),
		kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(2), kfake.GroupMinSessionTimeout(500 * time.Millisecond),
		kfake.TLS(s.pki.ServerTLS(mtls))}
	if !mtls {
		opts = append(opts, kfake.EnableSASL())
		for _, u := range saslUsers {
			opts = append(opts, kfake.Superuser(u.mech, u.user, u.pass))
		}
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	s.cluster, s.brokers = c, c.ListenAddrs()

	fake := srfake.NewRegistry(srfake.WithAuth("Basic " + base64.StdEncoding.EncodeToString([]byte(registryUser+":"+registryPass))))
	srv := httptest.NewUnstartedServer(fake.Handler())
	srv.TLS = s.pki.ServerTLS(false)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	s.registry = srv.URL

	var recs []*kgo.Record
	for i, w := range kafkatest.PersonWires(t, s.md, 0, n) {
		recs = append(recs, &kgo.Record{Topic: secureInput, Key: []byte(strconv.Itoa(i)), Value: w})
	}
	user := 0
	if mtls {
		user = -1
	}
	kafkatest.Produce(t, s.client(t, user), recs)
	return s
}

// client returns a kgo client of the cluster as saslUsers[user] (or with
// the client certificate when the cluster has no SASL: user < 0).
func (s *secure) client(t *testing.T, user int, opts ...kgo.Opt) *kgo.Client {
	opts = append(opts, kgo.DialTLSConfig(s.pki.ClientTLS()))
	if user >= 0 {
		u := saslUsers[user]
		var m sasl.Mechanism
		switch u.mech {
		case "PLAIN":
			m = plain.Auth{User: u.user, Pass: u.pass}.AsMechanism()
		case "SCRAM-SHA-256":
			m = scram.Auth{User: u.user, Pass: u.pass}.AsSha256Mechanism()
		default:
			m = scram.Auth{User: u.user, Pass: u.pass}.AsSha512Mechanism()
		}
		opts = append(opts, kgo.SASL(m))
	}
	return kafkatest.Client(t, s.brokers, opts...)
}

// deserializer returns a deserializer of Person records of the registry,
// over TLS with basic auth.
func (s *secure) deserializer(t *testing.T) *serde.Deserializer {
	t.Helper()
	reg, err := serde.NewRegistry(serde.RegistryOptions{TLS: s.pki.ClientTLS(), Username: registryUser, Password: registryPass}, s.registry)
	if err != nil {
		t.Fatal(err)
	}
	de, err := serde.NewDeserializer(reg, s.md, protoavroOptions)
	if err != nil {
		t.Fatal(err)
	}
	return de
}

// checkOutput reads n records of topic and checks each decodes to the
// Person record of its key.
func (s *secure) checkOutput(t *testing.T, user int, topic string, n int) {
	t.Helper()
	cl := s.client(t, user, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	de := s.deserializer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got := 0
	for got < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: %d records of %d", topic, got, n)
		}
		for _, r := range fs.Records() {
			i, _ := strconv.Atoi(string(r.Key))
			m := newMessage(s.md)
			if err := de.Decode(ctx, r.Value, m); err != nil {
				t.Fatalf("%s: record %d: %v", topic, i, err)
			}
			if !protoEqual(m, kafkatest.NewPerson(s.md, i)) {
				t.Fatalf("%s: record %d: %v", topic, i, m)
			}
			got++
		}
	}
}

// decodeAll reads n records from cl and returns which Person records (by
// the number they were made from) they decode to.
func (s *secure) decodeAll(t *testing.T, cl *kgo.Client, n int) map[int]bool {
	t.Helper()
	de := s.deserializer(t)
	want := map[string]int{}
	for i := range n {
		want[string(kafkatest.Wire(t, kafkatest.NewPerson(s.md, i)))] = i
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	seen := map[int]bool{}
	for got := 0; got < n; {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%d records of %d", got, n)
		}
		for _, r := range fs.Records() {
			m := newMessage(s.md)
			if err := de.Decode(ctx, r.Value, m); err != nil {
				t.Fatalf("record at offset %d: %v", r.Offset, err)
			}
			i, ok := want[string(kafkatest.Wire(t, m))]
			if !ok {
				t.Fatalf("record at offset %d is none of the records sent: %v", r.Offset, m)
			}
			seen[i] = true
			got++
		}
	}
	return seen
}

// bridgeArgs are the bridge's arguments for topic out, the type file
// first and flags after it (any order is accepted).
func (s *secure) bridgeArgs(out string, n int, extra ...string) []string {
	args := []string{"bridge", s.protoArg, "-I", s.protoDir, "-m", person,
		"--in", secureInput, "--out", out, "--group", "g-" + out, "--max-records", strconv.Itoa(n), "--progress", "0"}
	return append(args, extra...)
}

// oneLine fails unless stderr is one line holding each of want.
func oneLine(t *testing.T, what, stderr string, want ...string) {
	t.Helper()
	if strings.Count(stderr, "\n") != 1 {
		t.Errorf("%s: want one line on stderr, got:\n%s", what, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("%s: stderr does not say %q:\n%s", what, w, stderr)
		}
	}
}

// TestSecureBridge runs the bridge against a TLS broker with each SASL
// mechanism kfake has and a TLS registry with basic auth, passwords from
// the environment, and then with a wrong password.
func TestSecureBridge(t *testing.T) {
	const n = 200
	s := newSecure(t, false, n, "avro-plain", "avro-scram-sha-256", "avro-scram-sha-512")
	t.Setenv("PROTOAVRO_REGISTRY_PASSWORD", registryPass)
	for i, u := range saslUsers {
		t.Run(u.mech, func(t *testing.T) {
			out := "avro-" + strings.ToLower(u.mech)
			conn := []string{"--brokers", s.brokers[0], "--tls-ca", s.pki.CAFile, "--sasl-mechanism", u.mech, "--sasl-user", u.user,
				"--registry", s.registry, "--registry-ca", s.pki.CAFile, "--registry-user", registryUser}
			t.Setenv("PROTOAVRO_SASL_PASSWORD", u.pass)
			code, stdout, stderr := runCLI(t, s.bridgeArgs(out, n, conn...)...)
			checkNoSecret(t, u.mech, stdout, stderr)
			if code != 0 {
				t.Fatalf("bridge with %s: exit %d\n%s%s", u.mech, code, stdout, stderr)
			}
			if !strings.Contains(stderr, "SASL_SSL, SASL "+u.mech+` as user "`+u.user+`"`) {
				t.Errorf("the start line does not say how it connects:\n%s", stderr)
			}
			s.checkOutput(t, i, out, n)

			t.Setenv("PROTOAVRO_SASL_PASSWORD", u.pass+"-wrong")
			code, stdout, stderr = runCLI(t, s.bridgeArgs(out+"-x", n, conn...)...)
			checkNoSecret(t, u.mech+" wrong password", stdout, stderr)
			if code != 1 {
				t.Fatalf("bridge with a wrong %s password: exit %d, want 1\n%s%s", u.mech, code, stdout, stderr)
			}
			oneLine(t, "wrong password", stderr, "SASL "+u.mech, u.user, s.brokers[0], "while authenticating")
		})
	}
}

// TestSecureRegisterCheck runs register and check against the TLS
// registry with basic auth: flags with the password from a file, a
// properties file, and a wrong password.
func TestSecureRegisterCheck(t *testing.T) {
	s := newSecure(t, false, 0)
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "registry-password")
	props := filepath.Join(dir, "registry.properties")
	wrongProps := filepath.Join(dir, "wrong.properties")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(pwFile, registryPass+"\n")
	registryProps := func(pass string) string {
		return fmt.Sprintf("# the registry, as Confluent's serializers name it\nschema.registry.url=%s\nbasic.auth.credentials.source=USER_INFO\nbasic.auth.user.info=%s:%s\nschema.registry.ssl.ca.location=%s\n",
			s.registry, registryUser, pass, s.pki.CAFile)
	}
	write(props, registryProps(registryPass))
	write(wrongProps, registryProps(registryPass+"-wrong"))
	typ := []string{"-I", s.protoDir, "-m", person, s.protoArg}
	flags := []string{"--registry", s.registry, "--registry-ca", s.pki.CAFile, "--registry-user", registryUser, "--registry-password-file", pwFile}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"flags", append(append([]string{"register", "--topic", "flags"}, typ...), flags...)},
		{"properties", append([]string{"register", s.protoArg, "--config", props, "--topic", "props"}, typ[:4]...)},
		{"check", append([]string{"check", "--config", props, "--topic", "props"}, typ...)},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		checkNoSecret(t, tc.name, stdout, stderr)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", tc.name, code, stdout, stderr)
		}
	}
	for cmd, want := range map[string]int{"register": 1, "check": 3} {
		code, stdout, stderr := runCLI(t, append([]string{cmd, "--config", wrongProps, "--topic", "props"}, typ...)...)
		checkNoSecret(t, cmd+" wrong password", stdout, stderr)
		if code != want {
			t.Fatalf("%s with a wrong registry password: exit %d, want %d\n%s%s", cmd, code, want, stdout, stderr)
		}
		oneLine(t, cmd+" wrong password", stderr, "access refused", `basic auth as user "`+registryUser+`"`)
	}
	// A password on the command line works, with a warning.
	code, stdout, stderr := runCLI(t, append(append([]string{"check", "--topic", "flags", "--registry-password", registryPass}, typ...), flags[:6]...)...)
	if code != 0 || !strings.Contains(stderr, "visible to other users") {
		t.Fatalf("--registry-password: exit %d, want 0 and a warning\n%s%s", code, stdout, stderr)
	}
}

// TestPropertiesFileBridge configures the bridge with one properties file
// in librdkafka's vocabulary: SASL_SSL with SCRAM-SHA-512, the registry
// over TLS with basic auth; and then with the brokers' part of it (the
// file kcat -F reads) and the registry's flags.
func TestPropertiesFileBridge(t *testing.T) {
	const n = 50
	s := newSecure(t, false, n, "avro-props", "avro-split")
	u := saslUsers[2] // SCRAM-SHA-512
	dir := t.TempDir()
	brokerProps := fmt.Sprintf("bootstrap.servers=%s\nsecurity.protocol=SASL_SSL\nsasl.mechanisms=%s\nsasl.username=%s\nsasl.password=%s\nssl.ca.location=%s\n",
		s.brokers[0], u.mech, u.user, u.pass, s.pki.CAFile)
	full := brokerProps + fmt.Sprintf("schema.registry.url=%s\nbasic.auth.user.info=%s:%s\nschema.registry.ssl.ca.location=%s\n",
		s.registry, registryUser, registryPass, s.pki.CAFile)
	brokerFile, fullFile := filepath.Join(dir, "kafka.properties"), filepath.Join(dir, "client.properties")
	for path, text := range map[string]string{brokerFile: brokerProps, fullFile: full} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI(t, s.bridgeArgs("avro-props", n, "--config", fullFile)...)
	checkNoSecret(t, "bridge --config", stdout, stderr)
	if code != 0 {
		t.Fatalf("bridge --config: exit %d\n%s%s", code, stdout, stderr)
	}
	s.checkOutput(t, 2, "avro-props", n)

	t.Setenv("PROTOAVRO_REGISTRY_PASSWORD", registryPass)
	code, stdout, stderr = runCLI(t, s.bridgeArgs("avro-split", n, "--config", brokerFile, "--registry", s.registry,
		"--registry-ca", s.pki.CAFile, "--registry-user", registryUser)...)
	checkNoSecret(t, "bridge --config with registry flags", stdout, stderr)
	if code != 0 {
		t.Fatalf("bridge --config with registry flags: exit %d\n%s%s", code, stdout, stderr)
	}
	s.checkOutput(t, 2, "avro-split", n)

	// A key the file does not know is refused, named with its line.
	bad := filepath.Join(dir, "bad.properties")
	if err := os.WriteFile(bad, []byte(brokerProps+"sasl.kerberos.service.name=kafka\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, s.bridgeArgs("avro-bad", n, "--config", bad)...)
	checkNoSecret(t, "unknown key", stdout, stderr)
	if code != 2 || !strings.Contains(stderr, `bad.properties:7: unknown key "sasl.kerberos.service.name"`) {
		t.Fatalf("unknown key: exit %d, want 2 naming the key and line\n%s", code, stderr)
	}
}

// TestMutualTLSBridge runs the bridge against a broker that requires a
// client certificate: with --tls-cert and --tls-key it runs; without, it
// stops with one line. kcat (librdkafka) produces to the same broker with a
// properties file (-F) that the bridge then reads too (--config).
// TestKcatSASLBridge does the same over SASL_SSL, for which the cluster
// advertises SaslHandshake from version 0 to librdkafka
// (advertiseSaslHandshakeV0: kfake has version 1 only, and librdkafka uses
// SASL only when the broker's range includes version 0; it then speaks
// version 1).
func TestMutualTLSBridge(t *testing.T) {
	const n = 50
	s := newSecure(t, true, n, "avro-mtls", "from-kcat", "avro-kcat")
	t.Setenv("PROTOAVRO_REGISTRY_PASSWORD", registryPass)
	reg := []string{"--registry", s.registry, "--registry-ca", s.pki.CAFile, "--registry-cert", s.pki.ClientCertFile,
		"--registry-key", s.pki.ClientKeyFile, "--registry-user", registryUser}
	tlsFlags := []string{"--brokers", s.brokers[0], "--tls-ca", s.pki.CAFile}
	code, stdout, stderr := runCLI(t, s.bridgeArgs("avro-mtls", n, append(append(tlsFlags, "--tls-cert", s.pki.ClientCertFile, "--tls-key", s.pki.ClientKeyFile), reg...)...)...)
	checkNoSecret(t, "mTLS", stdout, stderr)
	if code != 0 {
		t.Fatalf("bridge with a client certificate: exit %d\n%s%s", code, stdout, stderr)
	}
	s.checkOutput(t, -1, "avro-mtls", n)

	code, stdout, stderr = runCLI(t, s.bridgeArgs("avro-nocert", n, append(tlsFlags, reg...)...)...)
	if code != 1 {
		t.Fatalf("bridge without a client certificate: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	oneLine(t, "no client certificate", stderr, "connecting to brokers", "SSL")

	kcat := needTool(t, "kcat")
	dir := t.TempDir()
	props := filepath.Join(dir, "kafka.properties")
	text := fmt.Sprintf("bootstrap.servers=%s\nsecurity.protocol=SSL\nssl.ca.location=%s\nssl.certificate.location=%s\nssl.key.location=%s\n",
		s.brokers[0], s.pki.CAFile, s.pki.ClientCertFile, s.pki.ClientKeyFile)
	if err := os.WriteFile(props, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := kcatProduce(kcat, props, "from-kcat", personFiles(t, s.md, dir, n)); err != nil {
		t.Fatalf("kcat -F -P over mutual TLS: %v\n%s", err, out)
	}
	args := s.bridgeArgs("avro-kcat", n, append([]string{"--config", props}, reg...)...)
	args[slices.Index(args, "--in")+1] = "from-kcat"
	code, stdout, stderr = runCLI(t, args...)
	checkNoSecret(t, "bridge of kcat's records", stdout, stderr)
	if code != 0 {
		t.Fatalf("bridge --config of kcat's records: exit %d\n%s%s", code, stdout, stderr)
	}
	recs := s.client(t, -1, kgo.ConsumeTopics("avro-kcat"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	seen := s.decodeAll(t, recs, n)
	for i := range n {
		if !seen[i] {
			t.Errorf("record %d of kcat's is not in the output", i)
		}
	}
}

// TestRegistryURLPassword: register and check against a registry URL
// holding a password, while nothing listens there: a warning says the
// password is visible to other users, then the error says the registry is
// unavailable, on one line, neither with the password (check exits 3: it
// could not check).
func TestRegistryURLPassword(t *testing.T) {
	addr := kafkatest.DeadAddr(t)
	dir := protoDir(t, map[string]string{"person.proto": kafkatest.EvolutionSource(t, "v1")})
	for cmd, want := range map[string]int{"register": 1, "check": 3} {
		code, stdout, stderr := runCLI(t, cmd, filepath.Join(dir, "person.proto"), "-I", dir, "-m", person,
			"--registry", "http://alice:"+registryPass+"@"+addr, "--topic", "people")
		checkNoSecret(t, cmd, stdout, stderr)
		if code != want {
			t.Fatalf("%s: exit %d, want %d\n%s%s", cmd, code, want, stdout, stderr)
		}
		warning, rest, _ := strings.Cut(stderr, "\n")
		if !strings.Contains(warning, "a password in a --registry URL is visible to other users") {
			t.Errorf("%s: no warning of the password in the URL:\n%s", cmd, stderr)
		}
		oneLine(t, cmd, rest, "schema registry unavailable", "http://"+addr)
	}
}

// TestRegistryURLScheme: register and check with a registry URL whose
// scheme is not http:// or https:// (a typo of https, ftp, a slash
// missing), holding a password or with the password in a properties file:
// a usage error (exit 2) on one line naming the URL without its password,
// and no request reaches the registry's host.
func TestRegistryURLScheme(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		http.Error(w, "no", http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	dir := protoDir(t, map[string]string{"person.proto": kafkatest.EvolutionSource(t, "v1")})
	props := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(props, []byte("schema.registry.url=httpss://"+host+"\nbasic.auth.user.info="+registryUser+":"+registryPass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		shown string
	}{
		{[]string{"--registry", "httpss://" + registryUser + ":" + registryPass + "@" + host}, "httpss://xxxxx@" + host},
		{[]string{"--registry", "ftp://" + registryUser + ":" + registryPass + "@" + host}, "ftp://xxxxx@" + host},
		{[]string{"--registry", "https:/" + registryUser + ":" + registryPass + "@" + host}, "https:/xxxxx@" + host},
		{[]string{"--config", props}, "httpss://" + host},
	} {
		for _, cmd := range []string{"register", "check"} {
			args := append([]string{cmd, filepath.Join(dir, "person.proto"), "-I", dir, "-m", person, "--topic", "people"}, tc.args...)
			code, stdout, stderr := runCLI(t, args...)
			checkNoSecret(t, cmd, stdout, stderr)
			if code != 2 {
				t.Errorf("%s %q: exit %d, want 2\n%s%s", cmd, tc.args, code, stdout, stderr)
			}
			oneLine(t, cmd, stderr, `registry URL "`+tc.shown+`" does not start with http:// or https://`)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the registry's host", n)
	}
}

// advertiseSaslHandshakeV0 has the SASL cluster answer librdkafka's
// ApiVersions requests with kfake's own answer except that SaslHandshake's
// range starts at version 0. kfake serves SaslHandshake version 1 only, and
// librdkafka turns its SASL handshake on only when the broker's range holds
// version 0 (as every real broker's does); it then sends version 1, which
// kfake serves, and SaslAuthenticate. Other clients get kfake's answer
// unchanged. The answer skips kfake's checks of the request (the client
// software name, KIP-1242's cluster and node), which librdkafka's requests
// pass. This is the tests' shim, not part of the product.
func (s *secure) advertiseSaslHandshakeV0(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "protoavro-test", "1"
	own, err := req.RequestWith(ctx, s.client(t, 0))
	if err == nil {
		err = kerr.ErrorForCode(own.ErrorCode)
	}
	if err != nil {
		t.Fatalf("kfake's ApiVersions: %v", err)
	}
	keys := slices.Clone(own.ApiKeys)
	i := slices.IndexFunc(keys, func(k kmsg.ApiVersionsResponseApiKey) bool { return k.ApiKey == int16(kmsg.SASLHandshake) })
	if i < 0 || keys[i].MinVersion != 1 || keys[i].MaxVersion != 1 {
		t.Fatalf("kfake no longer serves SaslHandshake versions 1 to 1 only (%v): the shim is to be revised", keys)
	}
	keys[i].MinVersion = 0
	s.cluster.ControlKey(int16(kmsg.ApiVersions), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		r := kreq.(*kmsg.ApiVersionsRequest)
		// kfake answers a version above its own with version 0 and
		// UNSUPPORTED_VERSION, and the client asks again.
		if r.ClientSoftwareName != "librdkafka" || r.Version > own.Version {
			return nil, nil, false
		}
		s.cluster.KeepControl()
		resp := r.ResponseKind().(*kmsg.ApiVersionsResponse)
		resp.ApiKeys = slices.Clone(keys)
		resp.SupportedFeatures = slices.Clone(own.SupportedFeatures)
		resp.FinalizedFeatures = slices.Clone(own.FinalizedFeatures)
		resp.FinalizedFeaturesEpoch = own.FinalizedFeaturesEpoch
		return resp, nil, true
	})
}

// personFiles writes the wire bytes of Person records 0 to n-1 to files in
// dir and returns their paths.
func personFiles(t *testing.T, md protoreflect.MessageDescriptor, dir string, n int) []string {
	t.Helper()
	var files []string
	for i := range n {
		f := filepath.Join(dir, fmt.Sprintf("rec%02d.bin", i))
		if err := os.WriteFile(f, kafkatest.Wire(t, kafkatest.NewPerson(md, i)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// kcatProduce has kcat, configured by the properties file props (-F),
// send each file as one message to topic, all with the key "kcat", and
// returns its output. A broker kcat cannot reach or authenticate to makes
// it fail within seconds; the context bounds it should it hang.
func kcatProduce(kcat, props, topic string, files []string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"-F", props, "-X", "socket.timeout.ms=10000", "-X", "message.timeout.ms=10000", "-P", "-t", topic, "-k", "kcat"}
	out, err := exec.CommandContext(ctx, kcat, append(args, files...)...).CombinedOutput()
	return string(out), err
}

// TestKcatSASLBridge has kcat (librdkafka) produce raw protobuf records
// over SASL_SSL with each SASL mechanism kfake has, configured by a
// properties file (-F) that the bridge then reads too (--config), and
// the bridge's output decode to the records sent; kcat with a wrong
// password fails. The cluster answers librdkafka's ApiVersions with
// SaslHandshake from version 0 (advertiseSaslHandshakeV0).
func TestKcatSASLBridge(t *testing.T) {
	const n = 20
	kcat := needTool(t, "kcat")
	var topics []string
	for _, u := range saslUsers {
		m := strings.ToLower(u.mech)
		topics = append(topics, "from-kcat-"+m, "avro-kcat-"+m)
	}
	s := newSecure(t, false, 0, topics...)
	s.advertiseSaslHandshakeV0(t)
	dir := t.TempDir()
	files := personFiles(t, s.md, dir, n)
	t.Setenv("PROTOAVRO_REGISTRY_PASSWORD", registryPass)
	for i, u := range saslUsers {
		t.Run(u.mech, func(t *testing.T) {
			m := strings.ToLower(u.mech)
			writeProps := func(name, pass string) string {
				path := filepath.Join(dir, name)
				text := fmt.Sprintf("bootstrap.servers=%s\nsecurity.protocol=SASL_SSL\nsasl.mechanism=%s\nsasl.username=%s\nsasl.password=%s\nssl.ca.location=%s\n",
					s.brokers[0], u.mech, u.user, pass, s.pki.CAFile)
				if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
				return path
			}
			props := writeProps(m+".properties", u.pass)
			out, err := kcatProduce(kcat, props, "from-kcat-"+m, files)
			checkNoSecret(t, "kcat over SASL_SSL", out)
			if err != nil {
				t.Fatalf("kcat -F -P over SASL_SSL with %s: %v\n%s", u.mech, err, out)
			}
			args := s.bridgeArgs("avro-kcat-"+m, n, "--config", props, "--registry", s.registry, "--registry-ca", s.pki.CAFile,
				"--registry-user", registryUser)
			args[slices.Index(args, "--in")+1] = "from-kcat-" + m
			code, stdout, stderr := runCLI(t, args...)
			checkNoSecret(t, "bridge of kcat's records", stdout, stderr)
			if code != 0 {
				t.Fatalf("bridge --config of kcat's records: exit %d\n%s%s", code, stdout, stderr)
			}
			recs := s.client(t, i, kgo.ConsumeTopics("avro-kcat-"+m), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			seen := s.decodeAll(t, recs, n)
			for j := range n {
				if !seen[j] {
					t.Errorf("record %d of kcat's is not in the output", j)
				}
			}

			out, err = kcatProduce(kcat, writeProps(m+"-wrong.properties", u.pass+"-wrong"), "from-kcat-"+m+"-wrong", files)
			checkNoSecret(t, "kcat with a wrong password", out)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() <= 0 {
				t.Fatalf("kcat with a wrong %s password: %v, want a non-zero exit\n%s", u.mech, err, out)
			}
			// kfake closes the connection on a wrong password (a real
			// broker answers SASL_AUTHENTICATION_FAILED); librdkafka
			// names the state it was in.
			if !strings.Contains(out, "in state AUTH_REQ") {
				t.Errorf("kcat with a wrong %s password does not say it failed while authenticating:\n%s", u.mech, out)
			}
		})
	}
}

// TestRegistryInheritsSASLPassword: with basic.auth.credentials.source
// SASL_INHERIT in the properties file, the registry gets the SASL user and
// password the brokers' login uses, wherever they come from:
// $PROTOAVRO_SASL_PASSWORD, --sasl-password-file, --sasl-user. The registry
// (srfake) takes only the SASL user's basic auth; the bridge registers the
// output schema there and writes every record. Without a SASL password the
// bridge stops with a usage error (exit 2) that shows no secret.
func TestRegistryInheritsSASLPassword(t *testing.T) {
	const n = 20
	s := newSecure(t, false, n, "avro-env", "avro-file", "avro-user")
	u := saslUsers[0] // PLAIN
	fake := srfake.New(srfake.WithAuth("Basic " + base64.StdEncoding.EncodeToString([]byte(u.user+":"+u.pass))))
	t.Cleanup(fake.Close)
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	common := fmt.Sprintf("bootstrap.servers=%s\nsecurity.protocol=SASL_SSL\nsasl.mechanism=%s\nssl.ca.location=%s\nschema.registry.url=%s\nbasic.auth.credentials.source=SASL_INHERIT\n",
		s.brokers[0], u.mech, s.pki.CAFile, fake.URL())
	withUser := write("inherit.properties", common+"sasl.username="+u.user+"\n")
	noUser := write("inherit-no-user.properties", common)
	pwFile := write("sasl-password", u.pass+"\n")
	// The registry's own variable does not stand in for the inherited
	// password.
	t.Setenv("PROTOAVRO_REGISTRY_PASSWORD", registryPass)
	for _, tc := range []struct {
		name, out, env string
		flags          []string
	}{
		{"password from the environment", "avro-env", u.pass, []string{"--config", withUser}},
		{"password from --sasl-password-file", "avro-file", "", []string{"--config", withUser, "--sasl-password-file", pwFile}},
		{"user from --sasl-user", "avro-user", u.pass, []string{"--config", noUser, "--sasl-user", u.user}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PROTOAVRO_SASL_PASSWORD", tc.env)
			code, stdout, stderr := runCLI(t, s.bridgeArgs(tc.out, n, tc.flags...)...)
			checkNoSecret(t, tc.name, stdout, stderr)
			if code != 0 {
				t.Fatalf("bridge: exit %d\n%s%s", code, stdout, stderr)
			}
			if !fake.SubjectExists(tc.out + "-value") {
				t.Errorf("subject %s-value is not in the registry", tc.out)
			}
			cl := s.client(t, 0, kgo.ConsumeTopics(tc.out), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			for got := 0; got < n; {
				fs := cl.PollFetches(ctx)
				if ctx.Err() != nil {
					t.Fatalf("%s: %d records of %d", tc.out, got, n)
				}
				got += len(fs.Records())
			}
		})
	}
	t.Setenv("PROTOAVRO_SASL_PASSWORD", "")
	code, stdout, stderr := runCLI(t, s.bridgeArgs("avro-none", n, "--config", withUser)...)
	checkNoSecret(t, "no SASL password", stdout, stderr)
	if code != 2 {
		t.Fatalf("bridge without a SASL password: exit %d, want 2\n%s%s", code, stdout, stderr)
	}
	oneLine(t, "no SASL password", stderr, "basic.auth.credentials.source SASL_INHERIT: no SASL password to inherit for the registry")
}

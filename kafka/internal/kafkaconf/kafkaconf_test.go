package kafkaconf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/sasl"
)

const secret = "Tops3cret-Value"

// noEnv is an empty environment.
func noEnv(string) string { return "" }

// env returns an environment of the given variables.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestParseProperties(t *testing.T) {
	text := `# a client.properties file
bootstrap.servers = b1:9093, b2:9093
security.protocol=sasl_ssl
sasl.mechanisms=SCRAM-SHA-512
sasl.username=alice
sasl.password=` + secret + `
ssl.ca.location=/etc/ca.pem
! a Java-style comment
client.id=protoavro
schema.registry.url=https://reg:8081,https://reg2:8081
basic.auth.credentials.source=USER_INFO
basic.auth.user.info=reg-user:` + secret + `:with-colon
schema.registry.ssl.ca.location=/etc/reg-ca.pem
`
	c, err := ParseProperties("client.properties", text)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Brokers, " "); got != "b1:9093 b2:9093" {
		t.Errorf("brokers %q", got)
	}
	if c.SecurityProtocol != SASLSSL || c.SASL.Mechanism != MechScram512 || c.SASL.Username != "alice" || string(c.SASL.Password) != secret ||
		c.TLS.CAFile != "/etc/ca.pem" || c.ClientID != "protoavro" {
		t.Errorf("brokers' settings: %+v", c)
	}
	r := c.Registry
	if len(r.URLs) != 2 || r.Username != "reg-user" || string(r.Password) != secret+":with-colon" || r.TLS.CAFile != "/etc/reg-ca.pem" {
		t.Errorf("registry settings: %+v", r)
	}
	// Printing the configuration shows no secret.
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(verb, c); strings.Contains(out, secret) {
			t.Errorf("%s of the Config holds the password: %s", verb, out)
		}
	}
	if d := c.Describe(); d != `SASL_SSL, SASL SCRAM-SHA-512 as user "alice"` {
		t.Errorf("Describe: %q", d)
	}

	c, err = ParseProperties("p", "schema.registry.url=http://r\nsasl.username=u\nsasl.password="+secret+"\nbasic.auth.credentials.source=SASL_INHERIT\n")
	if err != nil || !c.Registry.InheritSASL {
		t.Fatalf("SASL_INHERIT: %+v, %v", c.Registry, err)
	}
	if o, _, err := c.RegistryOptions(noEnv); err != nil || o.Username != "u" || o.Password != secret {
		t.Errorf("SASL_INHERIT: registry options %q, %v; want the SASL user and password", o.Username, err)
	}
}

// TestRegistryAuthKeysPrefixed: each key of the registry's credentials is
// read the same with the "schema.registry." prefix (as Confluent's
// serializers' configurations write them) and without.
func TestRegistryAuthKeysPrefixed(t *testing.T) {
	for _, tc := range []struct {
		text  string
		check func(Config) bool
	}{
		{"bearer.auth.credentials.source=STATIC_TOKEN\nbearer.auth.token=" + secret + "\n",
			func(c Config) bool { return string(c.Registry.Token) == secret }},
		{"basic.auth.credentials.source=USER_INFO\nbasic.auth.user.info=u:" + secret + "\n",
			func(c Config) bool { return c.Registry.Username == "u" && string(c.Registry.Password) == secret }},
		{"sasl.username=s\nsasl.password=" + secret + "\nbasic.auth.credentials.source=SASL_INHERIT\n",
			func(c Config) bool {
				c.Registry.URLs = []string{"http://r"}
				o, _, err := c.RegistryOptions(noEnv)
				return c.Registry.InheritSASL && err == nil && o.Username == "s" && o.Password == secret
			}},
	} {
		prefixed := strings.NewReplacer("bearer.", "schema.registry.bearer.", "basic.", "schema.registry.basic.").Replace(tc.text)
		for _, text := range []string{tc.text, prefixed} {
			c, err := ParseProperties("p", text)
			if err != nil || !tc.check(c) {
				t.Errorf("%q: %+v, %v", text, c.Registry, err)
			}
		}
	}
	_, err := ParseProperties("p", "schema.registry.bearer.auth.credentials.source=SASL_OAUTHBEARER_INHERIT\n")
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "p:1: schema.registry.bearer.auth.credentials.source: want STATIC_TOKEN") {
		t.Errorf("another bearer source: %v", err)
	}
}

// TestParsePropertiesJavaFormat: lines as java.util.Properties.load reads
// them: "=", ":" or white space between key and value, white space around
// them, continued lines, escapes, comments, line ends.
func TestParsePropertiesJavaFormat(t *testing.T) {
	for _, tc := range []struct{ text, user, password string }{
		{"sasl.username=alice\nsasl.password=" + secret + "==\n", "alice", secret + "=="},
		{"sasl.username: alice\nsasl.password: " + secret + "==\n", "alice", secret + "=="},
		{"sasl.username:alice\nsasl.password:" + secret + ":x=\n", "alice", secret + ":x="},
		{"sasl.username alice\nsasl.password " + secret + "==\n", "alice", secret + "=="},
		{"sasl.username\talice\nsasl.password\f\t " + secret + " = x\n", "alice", secret + " = x"},
		{"  sasl.username  =  alice  \n\tsasl.password   :  " + secret + "\n", "alice", secret},
		{"sasl.username = = alice\nsasl.password :=" + secret + "\n", "= alice", "=" + secret},
		// Continued lines: the next line's leading white space dropped.
		{"sasl.username=al\\\n    ice\nsasl.password=" + secret[:4] + "\\\n\t" + secret[4:] + "\n", "alice", secret},
		// An even number of backslashes does not continue the line.
		{"sasl.username=alice\\\\\nsasl.password=" + secret + "\n", "alice\\", secret},
		// A "#" in a continued line or after the key is not a comment.
		{"sasl.username=alice\nsasl.password=\\\n#" + secret + "\n", "alice", "#" + secret},
		{"sasl.username=alice\nsasl.password=" + secret + " #x\n", "alice", secret + " #x"},
		// Comments, which do not go on; blank lines; CR and CRLF line ends.
		{"# comment \\\nsasl.username=alice\r\n! other\r\n\r\n  \t\rsasl.password=" + secret + "\r", "alice", secret},
		// Escapes.
		{"sasl\\.username=a\\:l\\=i\\ c\\te\nsasl.password=\\ " + secret + "\\u00e9\\uD83D\\uDE00\\\\\\ \n", "a:l=i c\te", " " + secret + "é😀\\ "},
		{"sasl\\ username alice\nsasl.password " + secret + "\n", "", ""}, // "sasl username" is no key
		// A byte order mark, UTF-8 text.
		{"\ufeffsasl.username=élodie\nsasl.password=" + secret + "\n", "élodie", secret},
	} {
		c, err := ParseProperties("p", tc.text)
		if tc.user == "" {
			if err == nil || !strings.Contains(err.Error(), `unknown key "sasl username"`) || strings.Contains(err.Error(), secret) {
				t.Errorf("%q: %v, want unknown key \"sasl username\"", tc.text, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.text, err)
			continue
		}
		if c.SASL.Username != tc.user || string(c.SASL.Password) != tc.password {
			t.Errorf("%q: user %q, password %q; want %q, %q", tc.text, c.SASL.Username, c.SASL.Password, tc.user, tc.password)
		}
	}
}

func TestParsePropertiesErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"bootstrap.servers=b:1\nsasl.kerberos.service.name=kafka\n", `p:2: unknown key "sasl.kerberos.service.name"`},
		{"ssl.key.password=" + secret + "\n", "encrypted keys are not read"},
		{"ssl.truststore.location=/x.jks\n", "Java key stores are not read"},
		{"k\x1b[2J=v\n", `unknown key "k\x1b[2J"`},
		{"sasl.password=" + secret + "\nsasl.password=" + secret + "x\n", "p:2: sasl.password given twice (first on line 1)"},
		{secret + "\n", `p:1: no "=", ":" or white space after the key`},
		// A key the file does not know, whatever separates it from its
		// value, is shown alone.
		{"sasl.passwd: " + secret + "==\n", `p:1: unknown key "sasl.passwd" (known keys`},
		{"sasl.passwd " + secret + "==\n", `p:1: unknown key "sasl.passwd" (known keys`},
		{"basic.auth.userinfo:alice:" + secret + "=\n", `p:1: unknown key "basic.auth.userinfo" (known keys`},
		{"bearer.auth.tokn\t" + secret + ".eyJh=\n", `p:1: unknown key "bearer.auth.tokn" (known keys`},
		{"sasl.password=\\\n  " + secret + "==\nx=y\n", `p:3: unknown key "x"`},
		{"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n  username=\"alice\" \\\n  password=\"" + secret + "\";\n", `p:1: unknown key "sasl.jaas.config" (give sasl.username and sasl.password)`},
		{"sasl.password=\\u12" + secret + "\n", `p:1: sasl.password: malformed \uXXXX escape`},
		{strings.Repeat("k", 500) + "=" + secret + "\n", `unknown key "kkkk`},
		{"basic.auth.user.info=" + secret + "\n", "p:1: basic.auth.user.info: want USER:PASSWORD"},
		{"basic.auth.credentials.source=SOMETHING\n", "want USER_INFO, URL or SASL_INHERIT"},
		{"ssl.endpoint.identification.algorithm=maybe\n", "want https or none"},
	} {
		_, err := ParseProperties("p", tc.text)
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one saying %q", tc.text, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%q: the error shows the secret: %v", tc.text, err)
		}
		if strings.ContainsAny(err.Error(), "\x1b\n") {
			t.Errorf("%q: the error is not escaped: %q", tc.text, err)
		}
	}
}

func TestProtocol(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string // the protocol, or an error's text
	}{
		{Config{}, Plaintext},
		{Config{UseTLS: true}, SSL},
		{Config{TLS: TLS{CAFile: "ca"}}, SSL},
		{Config{SASL: SASL{Mechanism: MechPlain}}, SASLPlaintext},
		{Config{UseTLS: true, SASL: SASL{Mechanism: MechPlain}}, SASLSSL},
		{Config{SecurityProtocol: SSL, SASL: SASL{Mechanism: MechPlain}}, "needs security.protocol SASL_SSL or SASL_PLAINTEXT"},
		{Config{SecurityProtocol: SASLSSL}, "needs sasl.mechanism"},
		{Config{SecurityProtocol: Plaintext, TLS: TLS{CAFile: "ca"}}, "TLS files given with security.protocol PLAINTEXT"},
		{Config{SecurityProtocol: "TLS"}, "want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"},
	} {
		got, err := tc.c.protocol()
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%+v: %q, want %q", tc.c, got, tc.want)
		}
	}
}

func TestKafkaOptsSASL(t *testing.T) {
	ok := []struct {
		s   SASL
		env func(string) string
	}{
		{SASL{Mechanism: MechPlain, Username: "u", Password: secret}, noEnv},
		{SASL{Mechanism: MechScram256, Username: "u"}, env(EnvSASLPassword, secret)},
		{SASL{Mechanism: "scram-sha-512", Username: "u", Password: secret}, noEnv},
		{SASL{Mechanism: MechOAuthBearer}, env(EnvOAuthToken, secret)},
		{SASL{Mechanism: MechAWSMSKIAM}, env(EnvAWSAccessKey, "AKIA", EnvAWSSecretKey, secret)},
	}
	for _, tc := range ok {
		c := Config{SecurityProtocol: SASLPlaintext, SASL: tc.s}
		if _, err := c.KafkaOpts(tc.env); err != nil {
			t.Errorf("%s: %v", tc.s.Mechanism, err)
		}
		m, err := c.SASL.mechanism(tc.env)
		if err != nil || !strings.EqualFold(m.Name(), tc.s.Mechanism) {
			t.Errorf("%s: mechanism %v, %v", tc.s.Mechanism, m, err)
		}
	}
	bad := []struct {
		s    SASL
		want string
	}{
		{SASL{Mechanism: MechPlain, Username: "u"}, "needs a user"},
		{SASL{Mechanism: MechScram512, Password: secret}, "needs a user"},
		{SASL{Mechanism: MechOAuthBearer}, "needs one token source"},
		{SASL{Mechanism: MechOAuthBearer, OAuthTokenFile: "f", OAuthTokenCommand: "c"}, "needs one token source"},
		{SASL{Mechanism: MechAWSMSKIAM}, "AWS_ACCESS_KEY_ID"},
		{SASL{Mechanism: "GSSAPI"}, `sasl.mechanism "GSSAPI"`},
	}
	for _, tc := range bad {
		c := Config{SecurityProtocol: SASLSSL, SASL: tc.s}
		_, err := c.KafkaOpts(noEnv)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), secret) {
			t.Errorf("%+v: %v, want an error saying %q", tc.s, err, tc.want)
		}
	}
}

// firstMessage returns the first SASL message of m.
func firstMessage(t *testing.T, m sasl.Mechanism) (string, error) {
	t.Helper()
	_, msg, err := m.Authenticate(context.Background(), "127.0.0.1:9092")
	return string(msg), err
}

func TestOAuthToken(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte("  "+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, s := range []SASL{
		{Mechanism: MechOAuthBearer, OAuthTokenFile: file},
		{Mechanism: MechOAuthBearer, OAuthTokenCommand: "cat " + file},
		{Mechanism: MechOAuthBearer, OAuthTokenCommand: "printf '%s' " + secret},
	} {
		m, err := s.mechanism(noEnv)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := firstMessage(t, m)
		if err != nil || !strings.Contains(msg, "auth=Bearer "+secret+"\x01") {
			t.Errorf("%+v: first message %q, %v", s, msg, err)
		}
	}
	// A token read again at each connection: a refreshed file is used.
	m, _ := (&SASL{Mechanism: MechOAuthBearer, OAuthTokenFile: file}).mechanism(noEnv)
	if err := os.WriteFile(file, []byte("refreshed"), 0o600); err != nil {
		t.Fatal(err)
	}
	if msg, _ := firstMessage(t, m); !strings.Contains(msg, "Bearer refreshed") {
		t.Errorf("after the file changed: %q", msg)
	}
	for _, tc := range []struct {
		s    SASL
		want string
	}{
		{SASL{Mechanism: MechOAuthBearer, OAuthTokenFile: filepath.Join(dir, "missing")}, "token file"},
		{SASL{Mechanism: MechOAuthBearer, OAuthTokenCommand: "echo " + secret + "; exit 3"}, "token command: exit status 3"},
		{SASL{Mechanism: MechOAuthBearer, OAuthTokenCommand: "true"}, "token is empty"},
		{SASL{Mechanism: MechOAuthBearer, OAuthTokenCommand: "head -c 70000 /dev/zero | tr '\\0' x"}, "longer than 65536 bytes"},
	} {
		m, err := tc.s.mechanism(noEnv)
		if err != nil {
			t.Fatal(err)
		}
		_, err = firstMessage(t, m)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), secret) {
			t.Errorf("%+v: %v, want an error saying %q", tc.s, err, tc.want)
		}
	}
}

// processGone reports whether the process pid has ended (a zombie left
// for its parent to reap counts as ended).
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil || p.Signal(syscall.Signal(0)) != nil {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...: the state follows the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// readPID returns the PID written in file, or 0.
func readPID(file string) int {
	b, err := os.ReadFile(file)
	pid := 0
	if err == nil {
		fmt.Sscan(string(b), &pid)
	}
	return pid
}

// TestOAuthTokenCommandStopped: a token command stopped by a cancellation,
// the caller's deadline or its own timeout ends with its children, even
// those holding its output, and the run returns; the error says why,
// without the command. The commands would run 60 s; the bounds (30 s) are
// far above what stopping takes.
func TestOAuthTokenCommandStopped(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("token commands run by sh")
	}
	defer func(d time.Duration) { tokenCommandTimeout = d }(tokenCommandTimeout)
	const bound = 30 * time.Second
	pidFile := filepath.Join(t.TempDir(), "pid")
	for _, command := range []string{
		// A child in the background, waited for.
		"sleep 60 & echo $! > %s; wait",
		// A pipeline: the child holds the output, and so does cat.
		"sh -c 'echo $$ > %s; exec sleep 60' | cat",
		// A grandchild, then the token.
		"(sh -c 'echo $$ > %s; exec sleep 60'); echo token",
	} {
		src := tokenSource{command: fmt.Sprintf(command, pidFile) + " # " + secret}
		for _, how := range []string{"cancel", "deadline", "timeout"} {
			os.Remove(pidFile)
			ctx, cancel := context.WithCancel(context.Background())
			tokenCommandTimeout = time.Minute
			switch how {
			case "cancel":
				// Cancelled once the child runs.
				go func() {
					for start := time.Now(); time.Since(start) < bound && readPID(pidFile) == 0; {
						time.Sleep(10 * time.Millisecond)
					}
					cancel()
				}()
			case "deadline":
				ctx, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
			case "timeout":
				tokenCommandTimeout = 300 * time.Millisecond
			}
			start := time.Now()
			_, err := src.token(ctx)
			took := time.Since(start)
			cancel()
			if took > bound {
				t.Errorf("%q, %s: the run returned after %v", command, how, took)
			}
			want := map[string]string{
				"cancel":   "OAUTHBEARER token command: cancelled",
				"deadline": "OAUTHBEARER token command: timed out at the connection's deadline",
				"timeout":  "OAUTHBEARER token command: timed out after 300ms",
			}[how]
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "sleep") {
				t.Errorf("%q, %s: %v, want an error saying %q, without the command", command, how, err, want)
			}
			wantErr := map[string]error{"cancel": context.Canceled, "deadline": context.DeadlineExceeded, "timeout": context.DeadlineExceeded}[how]
			if !errors.Is(err, wantErr) || errors.Is(err, ErrConfig) != (how == "timeout") {
				t.Errorf("%q, %s: %v: want it to wrap %v, and ErrConfig for the command's own timeout only", command, how, err, wantErr)
			}
			pid := readPID(pidFile)
			if pid == 0 {
				if how == "cancel" {
					t.Errorf("%q: the command's child never wrote its PID", command)
				} else {
					// Stopped at 300 ms before its child started: a slow
					// machine, nothing to check.
					t.Logf("%q, %s: stopped before the child started", command, how)
				}
				continue
			}
			gone := processGone(pid)
			for start := time.Now(); !gone && time.Since(start) < bound; gone = processGone(pid) {
				time.Sleep(10 * time.Millisecond)
			}
			if !gone {
				t.Errorf("%q, %s: the command's child (PID %d) still runs", command, how, pid)
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill()
				}
			}
		}
	}
}

func TestRegistryOptions(t *testing.T) {
	c := Config{Registry: Registry{URLs: []string{"http://r"}, Username: "u"}}
	o, urls, err := c.RegistryOptions(env(EnvRegistryPassword, secret))
	if err != nil || o.Username != "u" || o.Password != secret || len(urls) != 1 {
		t.Errorf("password from the environment: %+v %v", o, err)
	}
	o, _, err = (&Config{Registry: Registry{URLs: []string{"http://r"}}}).RegistryOptions(env(EnvRegistryToken, secret))
	if err != nil || o.BearerToken != secret || o.Username != "" {
		t.Errorf("token from the environment: %+v %v", o, err)
	}
	for _, tc := range []struct {
		r    Registry
		want string
	}{
		{Registry{}, "no schema registry URL"},
		// A user name alone may be a token: never printed.
		{Registry{URLs: []string{"http://r"}, Username: secret}, "without a password"},
		{Registry{URLs: []string{"http://r"}, Username: "u", Password: secret, Token: secret}, "give one"},
		{Registry{URLs: []string{"http://r"}, TLS: TLS{CAFile: "ca"}}, "not https://"},
		{Registry{URLs: []string{"https://r"}, TLS: TLS{CAFile: "/no/such/ca.pem"}}, "schema.registry.ssl.ca.location"},
	} {
		_, _, err := (&Config{Registry: tc.r}).RegistryOptions(noEnv)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), secret) {
			t.Errorf("%+v: %v, want an error saying %q", tc.r, err, tc.want)
		}
	}
}

// TestRegistryInheritsFinalSASL: under basic.auth.credentials.source
// SASL_INHERIT the registry's basic auth is the SASL user and password as
// the brokers' login takes them once flags, file and environment are
// merged: a password from $PROTOAVRO_SASL_PASSWORD or set after the file
// was read (--sasl-password-file), a user set after it (--sasl-user). A
// registry user or password of the Config (--registry-user,
// --registry-password-file) wins over the inherited one. A missing user or
// password is an error that shows neither.
func TestRegistryInheritsFinalSASL(t *testing.T) {
	const fromFlag = "Fl4g-Password"
	props := func(t *testing.T, text string) Config {
		t.Helper()
		c, err := ParseProperties("inherit.properties", "schema.registry.url=http://r\nsecurity.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nbasic.auth.credentials.source=SASL_INHERIT\n"+text)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		name       string
		file       string
		set        func(*Config)
		env        func(string) string
		user, pass string
	}{
		{"password from the environment", "sasl.username=alice\n", nil, env(EnvSASLPassword, secret), "alice", secret},
		{"password from a file flag", "sasl.username=alice\n", func(c *Config) { c.SASL.Password = fromFlag }, env(EnvSASLPassword, secret), "alice", fromFlag},
		{"password flag over the file's", "sasl.username=alice\nsasl.password=" + secret + "\n", func(c *Config) { c.SASL.Password = fromFlag }, noEnv, "alice", fromFlag},
		{"file's password over the environment", "sasl.username=alice\nsasl.password=" + secret + "\n", nil, env(EnvSASLPassword, fromFlag), "alice", secret},
		{"user from a flag", "", func(c *Config) { c.SASL.Username = "bob" }, env(EnvSASLPassword, secret), "bob", secret},
		{"user flag over the file's", "sasl.username=alice\n", func(c *Config) { c.SASL.Username = "bob" }, env(EnvSASLPassword, secret), "bob", secret},
		{"registry user flag", "sasl.username=alice\n", func(c *Config) { c.Registry.Username = "reg" }, env(EnvSASLPassword, secret), "reg", secret},
		{"registry password flag", "sasl.username=alice\n", func(c *Config) { c.Registry.Password = fromFlag }, env(EnvSASLPassword, secret, EnvRegistryPassword, "other"), "alice", fromFlag},
		{"SASL password over the registry's variable", "sasl.username=alice\n", nil, env(EnvSASLPassword, secret, EnvRegistryPassword, fromFlag), "alice", secret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := props(t, tc.file)
			if tc.set != nil {
				tc.set(&c)
			}
			o, _, err := c.RegistryOptions(tc.env)
			if err != nil || o.Username != tc.user || o.Password != tc.pass || o.BearerToken != "" {
				t.Errorf("registry basic auth %q, password right: %v, error %v; want user %q and its password", o.Username, o.Password == tc.pass, err, tc.user)
			}
			// The brokers' login takes the same credentials.
			if _, err := c.KafkaOpts(tc.env); err != nil {
				t.Errorf("KafkaOpts: %v", err)
			}
		})
	}
	for _, tc := range []struct {
		name, file string
		env        func(string) string
		want       string
	}{
		{"no password", "sasl.username=" + secret + "\n", env(EnvRegistryPassword, "unused"), "no SASL password to inherit for the registry (sasl.password, $" + EnvSASLPassword + " or --sasl-password-file)"},
		{"no user", "sasl.password=" + secret + "\n", noEnv, "no SASL user to inherit for the registry (sasl.username, --sasl-user)"},
	} {
		c := props(t, tc.file)
		_, _, err := c.RegistryOptions(tc.env)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "basic.auth.credentials.source SASL_INHERIT: "+tc.want) || strings.Contains(err.Error(), secret) {
			t.Errorf("%s: %v; want an ErrConfig saying %q and no secret", tc.name, err, tc.want)
		}
	}
}

// TestEnvVars: the variables KafkaOpts and RegistryOptions read, under
// every SASL mechanism and with the registry's credentials from the
// environment, are EnvVars, which the command's help lists.
func TestEnvVars(t *testing.T) {
	read := map[string]bool{}
	getenv := func(k string) string {
		read[k] = true
		return secret
	}
	for _, mech := range []string{MechPlain, MechScram256, MechScram512, MechOAuthBearer, MechAWSMSKIAM} {
		c := Config{SASL: SASL{Mechanism: mech, Username: "u"}}
		if _, err := c.KafkaOpts(getenv); err != nil {
			t.Errorf("%s: %v", mech, err)
		}
	}
	for _, r := range []Registry{{URLs: []string{"http://r"}}, {URLs: []string{"http://r"}, Username: "u"}} {
		if _, _, err := (&Config{Registry: r}).RegistryOptions(getenv); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
	var got []string
	for k := range read {
		got = append(got, k)
	}
	want := slices.Clone(EnvVars)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("variables read %q, EnvVars %q", got, want)
	}
}

func TestTLSFiles(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	os.WriteFile(notPEM, []byte("hello"), 0o600)
	for _, tc := range []struct {
		tls  TLS
		want string
	}{
		{TLS{CAFile: filepath.Join(dir, "missing.pem")}, "ssl.ca.location"},
		{TLS{CAFile: notPEM}, "no PEM certificate"},
		{TLS{CertFile: notPEM}, "needs both ssl.certificate.location and ssl.key.location"},
		{TLS{CertFile: notPEM, KeyFile: notPEM}, "ssl.certificate.location " + notPEM},
	} {
		_, err := tc.tls.config("ssl", (&Config{}).name)
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.tls, err, tc.want)
		}
	}
	c, err := TLS{ServerName: "broker.example", NoHostnameCheck: true}.config("ssl", (&Config{}).name)
	if err != nil || c.ServerName != "broker.example" || c.VerifyConnection == nil {
		t.Errorf("server name and no host name check: %+v, %v", c, err)
	}
}

// escapeProperty writes s as a properties value, as Java's
// Properties.store does, every white space escaped.
func escapeProperty(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '=', ':', '#', '!', ' ':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// FuzzPropertiesValue: a value written as Java writes it, after any
// separator, reads back as it was.
func FuzzPropertiesValue(f *testing.F) {
	f.Add(secret, "=")
	f.Add(" a:b=c#d!e\\ ", ": ")
	f.Add("\t\r\n\f", " \t")
	f.Fuzz(func(t *testing.T, v, sep string) {
		core := strings.Trim(sep, " \t\f")
		if v == "" || !utf8.ValidString(v) || sep == "" || (core != "" && core != "=" && core != ":") {
			return // not a value, or not a separator
		}
		text := "sasl.password" + sep + escapeProperty(v) + "\n"
		c, err := ParseProperties("p", text)
		if err != nil || string(c.SASL.Password) != v {
			t.Fatalf("%q: password %q, %v; want %q", text, c.SASL.Password, err, v)
		}
	})
}

func FuzzParseProperties(f *testing.F) {
	f.Add("bootstrap.servers=a:1\nsasl.password=x\n")
	f.Add("basic.auth.user.info=u:p\nbasic.auth.credentials.source=SASL_INHERIT\n")
	f.Add("k=v\n=\n\n#c\n")
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseProperties("p", text)
		if err != nil {
			if !errors.Is(err, ErrConfig) || strings.ContainsAny(err.Error(), "\x1b\r\n") {
				t.Fatalf("error %q", err)
			}
			return
		}
		_ = c.Describe()
	})
}

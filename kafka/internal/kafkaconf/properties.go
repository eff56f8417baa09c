package kafkaconf

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/protoavro/protoavro/kafka/internal/safetext"
)

// maxProperties bounds a properties file.
const maxProperties = 1 << 20

// propertyKeys are the keys a properties file may hold, each with what it
// sets. They are librdkafka's and the Java client's names, and Confluent's
// serializers' for the registry, but for sasl.oauthbearer.token.file and
// sasl.oauthbearer.token.command, which are protoavro's.
var propertyKeys = map[string]func(c *Config, p *propState, v string) error{
	"bootstrap.servers":    setBrokers,
	"metadata.broker.list": setBrokers,
	"client.id":            func(c *Config, _ *propState, v string) error { c.ClientID = v; return nil },
	"security.protocol":    func(c *Config, _ *propState, v string) error { c.SecurityProtocol = strings.ToUpper(v); return nil },
	"sasl.mechanism":       setMechanism,
	"sasl.mechanisms":      setMechanism,
	"sasl.username":        func(c *Config, _ *propState, v string) error { c.SASL.Username = v; return nil },
	"sasl.password":        func(c *Config, _ *propState, v string) error { c.SASL.Password = Secret(v); return nil },
	"sasl.oauthbearer.token.file": func(c *Config, _ *propState, v string) error {
		c.SASL.OAuthTokenFile = v
		return nil
	},
	"sasl.oauthbearer.token.command": func(c *Config, _ *propState, v string) error {
		c.SASL.OAuthTokenCommand = v
		return nil
	},
	"ssl.ca.location":          func(c *Config, _ *propState, v string) error { c.TLS.CAFile = v; return nil },
	"ssl.certificate.location": func(c *Config, _ *propState, v string) error { c.TLS.CertFile = v; return nil },
	"ssl.key.location":         func(c *Config, _ *propState, v string) error { c.TLS.KeyFile = v; return nil },
	"ssl.endpoint.identification.algorithm": func(c *Config, _ *propState, v string) error {
		switch strings.ToLower(v) {
		case "https":
			c.TLS.NoHostnameCheck = false
		case "none", "":
			c.TLS.NoHostnameCheck = true
		default:
			return fmt.Errorf("want https or none, not %q", safetext.Escape(v, 64))
		}
		return nil
	},
	"schema.registry.url": func(c *Config, _ *propState, v string) error {
		c.Registry.URLs = splitList(v)
		return nil
	},
	"basic.auth.user.info":                          setUserInfo,
	"schema.registry.basic.auth.user.info":          setUserInfo,
	"basic.auth.credentials.source":                 setCredentialsSource,
	"schema.registry.basic.auth.credentials.source": setCredentialsSource,
	"bearer.auth.token":                             setBearer,
	"schema.registry.bearer.auth.token":             setBearer,
	"bearer.auth.credentials.source": func(_ *Config, _ *propState, v string) error {
		if !strings.EqualFold(v, "STATIC_TOKEN") {
			return fmt.Errorf("want STATIC_TOKEN (bearer.auth.token), not %q", safetext.Escape(v, 64))
		}
		return nil
	},
	"schema.registry.ssl.ca.location":          func(c *Config, _ *propState, v string) error { c.Registry.TLS.CAFile = v; return nil },
	"schema.registry.ssl.certificate.location": func(c *Config, _ *propState, v string) error { c.Registry.TLS.CertFile = v; return nil },
	"schema.registry.ssl.key.location":         func(c *Config, _ *propState, v string) error { c.Registry.TLS.KeyFile = v; return nil },
}

// propState is what the keys of one file leave for after the last line.
type propState struct {
	userInfoUser string
	userInfoPass Secret
	source       string
}

func setBrokers(c *Config, _ *propState, v string) error {
	c.Brokers = splitList(v)
	return nil
}

func setMechanism(c *Config, _ *propState, v string) error {
	c.SASL.Mechanism = strings.ToUpper(v)
	return nil
}

func setUserInfo(_ *Config, p *propState, v string) error {
	user, pass, ok := strings.Cut(v, ":")
	if !ok || user == "" {
		// The value may be a password: it is not shown.
		return fmt.Errorf("want USER:PASSWORD")
	}
	p.userInfoUser, p.userInfoPass = user, Secret(pass)
	return nil
}

func setCredentialsSource(_ *Config, p *propState, v string) error {
	switch s := strings.ToUpper(v); s {
	case "USER_INFO", "URL", "SASL_INHERIT":
		p.source = s
		return nil
	}
	return fmt.Errorf("want USER_INFO, URL or SASL_INHERIT, not %q", safetext.Escape(v, 64))
}

func setBearer(c *Config, _ *propState, v string) error {
	c.Registry.Token = Secret(v)
	return nil
}

// splitList splits a comma-separated list, trimming white space and
// dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// ReadProperties reads a properties file ([ParseProperties]).
func ReadProperties(path string) (Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxProperties+1))
	if err != nil {
		return Config{}, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	if len(b) > maxProperties {
		return Config{}, fmt.Errorf("%w: %s: larger than %d bytes", ErrConfig, path, maxProperties)
	}
	return ParseProperties(path, string(b))
}

// ParseProperties parses the text of a properties file named name: lines
// of key=value (white space around both trimmed), blank lines and comments
// (#, !) skipped. The keys are librdkafka's and the Java client's (the
// file kcat -F and kafka-console-producer --producer.config read) and
// Confluent's serializers' for the registry; see docs/kafka.md. A key it
// does not know, or one given twice, is an error that names it and its
// line; no error shows a value of a secret key.
func ParseProperties(name, text string) (Config, error) {
	var (
		c    Config
		p    propState
		seen = map[string]int{}
	)
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			return Config{}, fmt.Errorf("%w: %s:%d: no \"=\" (want key=value)", ErrConfig, name, n)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		set, ok := propertyKeys[key]
		if !ok {
			return Config{}, fmt.Errorf("%w: %s:%d: unknown key \"%s\"%s", ErrConfig, name, n, safetext.Escape(key, 128), unknownHint(key))
		}
		if prev, ok := seen[key]; ok {
			return Config{}, fmt.Errorf("%w: %s:%d: %s given twice (first on line %d)", ErrConfig, name, n, key, prev)
		}
		seen[key] = n
		if err := set(&c, &p, val); err != nil {
			return Config{}, fmt.Errorf("%w: %s:%d: %s: %w", ErrConfig, name, n, key, err)
		}
	}
	switch p.source {
	case "", "USER_INFO":
		c.Registry.Username, c.Registry.Password = p.userInfoUser, p.userInfoPass
	case "SASL_INHERIT":
		c.Registry.Username, c.Registry.Password = c.SASL.Username, c.SASL.Password
	case "URL":
		// The registry URL holds them; the client takes them from there.
	}
	return c, nil
}

// unknownHint says what to do about an unknown key.
func unknownHint(key string) string {
	switch {
	case key == "ssl.key.password":
		return " (encrypted keys are not read: give an unencrypted PEM key, e.g. openssl pkey -in KEY -out PLAIN)"
	case strings.HasPrefix(key, "ssl.truststore.") || strings.HasPrefix(key, "ssl.keystore."):
		return " (Java key stores are not read: give PEM files in ssl.ca.location, ssl.certificate.location, ssl.key.location)"
	case key == "sasl.jaas.config":
		return " (give sasl.username and sasl.password)"
	}
	return " (known keys: " + strings.Join(KnownKeys(), ", ") + ")"
}

// KnownKeys returns the keys a properties file may hold, sorted.
func KnownKeys() []string {
	keys := make([]string, 0, len(propertyKeys))
	for k := range propertyKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkaconf"
	"github.com/protoavro/protoavro/kafka/internal/safetext"
	"github.com/protoavro/protoavro/kafka/internal/usage"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kgo"
)

// connFlags are the connection flags: --config (a properties file), the
// registry's on every command that reaches it, and the brokers' (bridge).
// A flag given on the command line wins over the file, the file over the
// flag's default; a secret comes from a flag, else the file, else the
// environment (kafkaconf.Env*).
type connFlags struct {
	config string
	// registry
	registry, registryUser, registryPassword, registryPasswordFile, registryTokenFile string
	registryTLS                                                                       kafkaconf.TLS
	// brokers (bridge)
	brokers, clientID, protocol           string
	useTLS                                bool
	tls                                   kafkaconf.TLS
	saslMechanism, saslUser, saslPassFile string
	oauthFile, oauthCommand               string
	metadataMaxAge                        time.Duration
	unknownIDTTL                          time.Duration
	hasBrokers                            bool
}

const (
	defaultBrokers  = "127.0.0.1:9092"
	defaultRegistry = "http://127.0.0.1:8081"
)

// registerRegistry adds --config and the registry's flags to fs.
func (c *connFlags) registerRegistry(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "properties `FILE` in librdkafka's vocabulary (bootstrap.servers, security.protocol, sasl.*, ssl.*, schema.registry.url, basic.auth.user.info, ...; docs/kafka.md); flags override it")
	fs.StringVar(&c.registry, "registry", defaultRegistry, "schema registry `URL` (comma-separated for several)")
	fs.StringVar(&c.registryUser, "registry-user", "", "basic-auth `USER` of the registry")
	// No secret is a flag's default, which the usage text would print.
	fs.StringVar(&c.registryPassword, "registry-password", "", "basic-auth `PASSWORD` of the registry; visible to other users in ps: prefer $"+kafkaconf.EnvRegistryPassword+" or --registry-password-file")
	fs.StringVar(&c.registryPasswordFile, "registry-password-file", "", "`FILE` holding the registry's basic-auth password")
	fs.StringVar(&c.registryTokenFile, "registry-token-file", "", "`FILE` holding a bearer token for the registry (or $"+kafkaconf.EnvRegistryToken+")")
	fs.StringVar(&c.registryTLS.CAFile, "registry-ca", "", "CA certificates (PEM `FILE`) of an https registry (default: the system's)")
	fs.StringVar(&c.registryTLS.CertFile, "registry-cert", "", "client certificate (PEM `FILE`) for an https registry")
	fs.StringVar(&c.registryTLS.KeyFile, "registry-key", "", "client certificate's key (PEM `FILE`, unencrypted)")
}

// registerBrokers adds the brokers' flags to fs.
func (c *connFlags) registerBrokers(fs *flag.FlagSet) {
	c.hasBrokers = true
	fs.StringVar(&c.brokers, "brokers", defaultBrokers, "seed `BROKERS`, comma-separated host:port")
	fs.StringVar(&c.clientID, "client-id", "", "client `ID` sent to the brokers")
	fs.StringVar(&c.protocol, "security-protocol", "", "`PROTOCOL`: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL (default from --tls* and --sasl-mechanism)")
	fs.BoolVar(&c.useTLS, "tls", false, "connect to the brokers with TLS (the system's CA certificates unless --tls-ca)")
	fs.StringVar(&c.tls.CAFile, "tls-ca", "", "CA certificates (PEM `FILE`) of the brokers")
	fs.StringVar(&c.tls.CertFile, "tls-cert", "", "client certificate (PEM `FILE`) for mutual TLS")
	fs.StringVar(&c.tls.KeyFile, "tls-key", "", "client certificate's key (PEM `FILE`, unencrypted)")
	fs.StringVar(&c.tls.ServerName, "tls-server-name", "", "server `NAME` the brokers' certificates must hold (default: the host dialed)")
	fs.StringVar(&c.saslMechanism, "sasl-mechanism", "", "SASL `MECHANISM`: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or AWS_MSK_IAM ($"+kafkaconf.EnvAWSAccessKey+", $"+kafkaconf.EnvAWSSecretKey+", $"+kafkaconf.EnvAWSSessionToken+")")
	fs.StringVar(&c.saslUser, "sasl-user", "", "SASL `USER` (PLAIN, SCRAM)")
	fs.StringVar(&c.saslPassFile, "sasl-password-file", "", "`FILE` holding the SASL password (or $"+kafkaconf.EnvSASLPassword+")")
	fs.StringVar(&c.oauthFile, "oauth-token-file", "", "`FILE` holding the OAUTHBEARER token, read at each connection")
	fs.StringVar(&c.oauthCommand, "oauth-token-command", "", "`COMMAND` (run by sh -c) printing the OAUTHBEARER token, run at each connection")
	fs.DurationVar(&c.metadataMaxAge, "metadata-max-age", bridge.DefaultMetadataMaxAge, "how often (`DURATION`, 1s to 1h) the client refreshes the brokers' metadata: topics (--in-regex) and partitions created while the bridge runs are read, and have lag, from the next refresh on (metadata.max.age.ms)")
}

// maxSecretFile bounds a password or token file.
const maxSecretFile = 64 << 10

// readSecret reads a password or token file, trimmed of surrounding white
// space. Its errors name the flag and file, never the content.
func readSecret(flagName, path string) (kafkaconf.Secret, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", usage.Errorf("--%s: %w", flagName, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return "", fmt.Errorf("--%s %s: %w", flagName, path, err)
	}
	if len(b) > maxSecretFile {
		return "", usage.Errorf("--%s %s: larger than %d bytes", flagName, path, maxSecretFile)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", usage.Errorf("--%s %s: empty", flagName, path)
	}
	return kafkaconf.Secret(s), nil
}

// resolve merges the properties file, the flags given and their defaults;
// a setting a flag gave is named by the flag in messages
// (kafkaconf.Config.Names). It warns on the console of a password given on
// the command line.
func (c *connFlags) resolve(fs *flag.FlagSet, con *console) (kafkaconf.Config, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var cfg kafkaconf.Config
	if c.config != "" {
		var err error
		if cfg, err = kafkaconf.ReadProperties(c.config); err != nil {
			return cfg, usage.Errorf("--config: %w", err)
		}
	}
	cfg.Names = map[string]string{}
	// str sets dst to v when the flag name was given; key is the
	// properties key of the setting, if it has one.
	str := func(name, key string, dst *string, v string) {
		if set[name] {
			*dst = v
			if key != "" {
				cfg.Names[key] = "--" + name
			}
		}
	}
	if set["registry"] || len(cfg.Registry.URLs) == 0 {
		urls, err := splitFlag("registry", "URL", c.registry, false)
		if err != nil {
			return cfg, err
		}
		cfg.Registry.URLs = urls
		if set["registry"] && slices.ContainsFunc(urls, urlHasPassword) {
			con.note(slog.LevelWarn, "warning: a password in a --registry URL is visible to other users of this machine (ps, /proc); prefer --registry-user with $"+kafkaconf.EnvRegistryPassword+" or --registry-password-file",
				"a password in a --registry URL is visible to other users of this machine (ps, /proc)", "prefer", "--registry-user with $"+kafkaconf.EnvRegistryPassword+" or --registry-password-file")
		}
	}
	str("registry-user", "", &cfg.Registry.Username, c.registryUser)
	str("registry-ca", "schema.registry.ssl.ca.location", &cfg.Registry.TLS.CAFile, c.registryTLS.CAFile)
	str("registry-cert", "schema.registry.ssl.certificate.location", &cfg.Registry.TLS.CertFile, c.registryTLS.CertFile)
	str("registry-key", "schema.registry.ssl.key.location", &cfg.Registry.TLS.KeyFile, c.registryTLS.KeyFile)
	if set["registry-password"] {
		con.note(slog.LevelWarn, fmt.Sprintf("warning: --registry-password is visible to other users of this machine (ps, /proc); prefer $%s, --registry-password-file or basic.auth.user.info in a --config file", kafkaconf.EnvRegistryPassword),
			"--registry-password is visible to other users of this machine (ps, /proc)", "prefer", "$"+kafkaconf.EnvRegistryPassword+", --registry-password-file or basic.auth.user.info in a --config file")
		cfg.Registry.Password = kafkaconf.Secret(c.registryPassword)
	}
	if set["registry-password-file"] {
		if set["registry-password"] {
			return cfg, usage.Errorf("--registry-password and --registry-password-file: give one")
		}
		s, err := readSecret("registry-password-file", c.registryPasswordFile)
		if err != nil {
			return cfg, err
		}
		cfg.Registry.Password = s
	}
	if set["registry-token-file"] {
		s, err := readSecret("registry-token-file", c.registryTokenFile)
		if err != nil {
			return cfg, err
		}
		cfg.Registry.Token = s
	}
	if !c.hasBrokers {
		return cfg, nil
	}
	if set["brokers"] || len(cfg.Brokers) == 0 {
		brokers, err := splitFlag("brokers", "host:port", c.brokers, true)
		if err != nil {
			return cfg, err
		}
		cfg.Brokers = brokers
	}
	if set["metadata-max-age"] || cfg.MetadataMaxAge == 0 {
		cfg.MetadataMaxAge = c.metadataMaxAge
		if set["metadata-max-age"] {
			cfg.Names["metadata.max.age.ms"] = "--metadata-max-age"
		}
	}
	str("client-id", "client.id", &cfg.ClientID, c.clientID)
	str("security-protocol", "security.protocol", &cfg.SecurityProtocol, strings.ToUpper(c.protocol))
	if set["tls"] {
		cfg.UseTLS = c.useTLS
	}
	str("tls-ca", "ssl.ca.location", &cfg.TLS.CAFile, c.tls.CAFile)
	str("tls-cert", "ssl.certificate.location", &cfg.TLS.CertFile, c.tls.CertFile)
	str("tls-key", "ssl.key.location", &cfg.TLS.KeyFile, c.tls.KeyFile)
	str("tls-server-name", "", &cfg.TLS.ServerName, c.tls.ServerName)
	str("sasl-mechanism", "sasl.mechanism", &cfg.SASL.Mechanism, strings.ToUpper(c.saslMechanism))
	str("sasl-user", "sasl.username", &cfg.SASL.Username, c.saslUser)
	str("oauth-token-file", "sasl.oauthbearer.token.file", &cfg.SASL.OAuthTokenFile, c.oauthFile)
	str("oauth-token-command", "sasl.oauthbearer.token.command", &cfg.SASL.OAuthTokenCommand, c.oauthCommand)
	if set["sasl-password-file"] {
		s, err := readSecret("sasl-password-file", c.saslPassFile)
		if err != nil {
			return cfg, err
		}
		cfg.SASL.Password = s
	}
	return cfg, nil
}

// urlHasPassword reports whether a registry URL that the client takes
// (http:// or https://) holds a password (https://user:password@host).
func urlHasPassword(v string) bool {
	u, err := url.Parse(v)
	if err != nil || u.User == nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	_, ok := u.User.Password()
	return ok
}

// registryClient returns the registry client of cfg. A registry URL the
// client refuses (serde.ErrRegistryURL: a scheme other than http:// or
// https://, no host) is a usage error of class kafkaconf.ErrConfig.
func (c *connFlags) registryClient(cfg *kafkaconf.Config) (*serde.Registry, error) {
	o, urls, err := cfg.RegistryOptions(os.Getenv)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	o.UnknownIDTTL = c.unknownIDTTL
	reg, err := serde.NewRegistry(o, urls...)
	if errors.Is(err, serde.ErrRegistryURL) {
		// A registry URL the client refuses is a mistake of the
		// command line or the --config file.
		return nil, usage.Wrap(fmt.Errorf("%w: %w", kafkaconf.ErrConfig, err))
	}
	return reg, err
}

// pingTimeout bounds the check that the brokers can be reached.
const pingTimeout = 30 * time.Second

// kafkaOpts returns the brokers' client options of cfg, after checking that
// a broker answers with them: a wrong password, a certificate the broker
// refuses or a broker that is not there is one line naming the brokers and
// the mechanism, instead of a client retrying.
func kafkaOpts(ctx context.Context, cfg *kafkaconf.Config) ([]kgo.Opt, error) {
	opts, err := cfg.KafkaOpts(os.Getenv)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(cfg.Brokers...)}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("brokers %s: %w", strings.Join(cfg.Brokers, ","), err)
	}
	defer cl.Close()
	pctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if err := cl.Ping(pctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var hs *kafkaconf.HandshakeTimeoutError
		switch {
		case errors.As(err, &hs):
			err = hs
		case pctx.Err() != nil:
			err = fmt.Errorf("no answer within %v: %w", pingTimeout, err)
		}
		detail := safetext.Escape(serde.RedactURLs(err.Error()), 512)
		if cfg.SASL.Mechanism != "" && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)) {
			// Brokers that refuse a SASL login may close the connection
			// instead of answering.
			detail = "the broker closed the connection while authenticating (a wrong user or password, or a mechanism it does not take): " + detail
		}
		return nil, &connError{msg: fmt.Sprintf("connecting to brokers %s with %s: %s", strings.Join(cfg.Brokers, ","), cfg.Describe(), detail), err: err}
	}
	return opts, nil
}

// connError is an error of connecting, its cause's text escaped and cut
// to one line.
type connError struct {
	msg string
	err error
}

func (e *connError) Error() string { return e.msg }
func (e *connError) Unwrap() error { return e.err }

// Package kafkaconf builds the connection settings of protoavro-kafka (the
// brokers' TLS and SASL, the schema registry's TLS and credentials) from a
// properties file in the librdkafka and Java client vocabulary
// ([ParseProperties]), command-line flags and environment variables, as
// franz-go client options ([Config.KafkaOpts]) and registry options
// ([Config.RegistryOptions]). It holds no client of its own: TLS is
// crypto/tls, SASL is franz-go's pkg/sasl.
//
// Secrets (passwords, tokens) are [Secret] values, which print as "xxxxx"
// however they are formatted, and no error of this package holds one.
package kafkaconf

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/aws"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/protoavro/protoavro/kafka/serde"
)

// The environment variables secrets are read from when neither a flag nor
// the properties file gives them.
const (
	EnvSASLPassword     = "PROTOAVRO_SASL_PASSWORD"
	EnvRegistryPassword = "PROTOAVRO_REGISTRY_PASSWORD"
	EnvRegistryToken    = "PROTOAVRO_REGISTRY_TOKEN"
	EnvOAuthToken       = "PROTOAVRO_OAUTH_TOKEN"
	// AWS_MSK_IAM reads the AWS SDK's variables.
	EnvAWSAccessKey    = "AWS_ACCESS_KEY_ID"
	EnvAWSSecretKey    = "AWS_SECRET_ACCESS_KEY"
	EnvAWSSessionToken = "AWS_SESSION_TOKEN"
)

// EnvVars are the environment variables the package reads, in the order
// the command's help lists them: the secrets above.
var EnvVars = []string{
	EnvSASLPassword, EnvOAuthToken, EnvRegistryPassword, EnvRegistryToken,
	EnvAWSAccessKey, EnvAWSSecretKey, EnvAWSSessionToken,
}

// ErrConfig is the class of every error of this package: a setting that is
// missing, unknown or inconsistent, or a file it names that cannot be used.
var ErrConfig = errors.New("connection settings")

// Secret is a password or token. It formats as "xxxxx" (empty as ""), so
// that printing a Config or an error that quotes a Secret shows no secret.
type Secret string

// String returns "xxxxx", or "" for an empty secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "xxxxx"
}

// GoString is String, for %#v.
func (s Secret) GoString() string { return s.String() }

// Format prints String for every verb.
func (s Secret) Format(f fmt.State, _ rune) { fmt.Fprint(f, s.String()) }

// The security.protocol values.
const (
	Plaintext     = "PLAINTEXT"
	SSL           = "SSL"
	SASLPlaintext = "SASL_PLAINTEXT"
	SASLSSL       = "SASL_SSL"
)

// The sasl.mechanism values.
const (
	MechPlain       = "PLAIN"
	MechScram256    = "SCRAM-SHA-256"
	MechScram512    = "SCRAM-SHA-512"
	MechOAuthBearer = "OAUTHBEARER"
	MechAWSMSKIAM   = "AWS_MSK_IAM"
)

// TLS names the files of a TLS client: a CA bundle (default: the system's
// roots), a client certificate and its key (PEM, unencrypted) for mutual
// TLS, and the server name to verify (default: the host dialed).
type TLS struct {
	CAFile, CertFile, KeyFile string
	ServerName                string
	// NoHostnameCheck verifies the certificate chain but not that it names
	// the host (ssl.endpoint.identification.algorithm=none).
	NoHostnameCheck bool
}

// set reports whether any file or name is given.
func (t TLS) set() bool {
	return t.CAFile != "" || t.CertFile != "" || t.KeyFile != "" || t.ServerName != ""
}

// SASL is the brokers' SASL authentication.
type SASL struct {
	// Mechanism is one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512,
	// OAUTHBEARER or AWS_MSK_IAM.
	Mechanism string
	// Username and Password are those of PLAIN and SCRAM.
	Username string
	Password Secret
	// OAuthTokenFile and OAuthTokenCommand give OAUTHBEARER's token: read
	// from the file, or the standard output of the command (run by sh -c),
	// at each connection, so that a refreshed token is picked up.
	OAuthTokenFile, OAuthTokenCommand string
	// OAuthToken is a fixed token (from EnvOAuthToken).
	OAuthToken Secret
}

// Registry is how the schema registry is reached.
type Registry struct {
	// URLs are the registry's base URLs, tried in order.
	URLs []string
	// TLS is the TLS of https URLs.
	TLS TLS
	// Username and Password are sent as basic authentication.
	Username string
	Password Secret
	// InheritSASL sends the brokers' SASL user and password as basic
	// authentication (basic.auth.credentials.source=SASL_INHERIT), each
	// where Username or Password is empty. They are taken as
	// [Config.RegistryOptions] resolves them, from the SASL settings as
	// flags, the properties file and the environment left them.
	InheritSASL bool
	// Token is sent as a bearer token instead.
	Token Secret
}

// Config is the connection settings of a command.
type Config struct {
	// Brokers are the seed brokers, host:port.
	Brokers []string
	// ClientID is the client ID sent to the brokers (client.id).
	ClientID string
	// SecurityProtocol is PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL; empty
	// means SSL or SASL_SSL when TLS files are given or UseTLS is set, with
	// SASL when a mechanism is.
	SecurityProtocol string
	// UseTLS turns TLS on with the default settings (--tls).
	UseTLS bool
	TLS    TLS
	SASL   SASL
	// Registry is the schema registry.
	Registry Registry
	// MetadataMaxAge is how often the client refreshes its metadata
	// (metadata.max.age.ms, kgo.MetadataMaxAge): topics and partitions
	// created since are found at the next refresh. 0 leaves the client's
	// default, 5 minutes. It is checked to be within
	// [MinMetadataMaxAge, MaxMetadataMaxAge].
	MetadataMaxAge time.Duration
	// DialTimeout bounds connecting to a broker, the TLS handshake
	// included (0: 10 seconds, kgo's default).
	DialTimeout time.Duration
	// Names maps a setting's properties key to the flag that gave it
	// ("ssl.certificate.location": "--tls-cert"), so that a message names
	// the setting as the user wrote it; a key not in it is named as
	// itself.
	Names map[string]string
}

// The bounds of Config.MetadataMaxAge: kgo refuses a maximum age over an
// hour, and one under a second would have the client ask for metadata
// all the time.
const (
	MinMetadataMaxAge = time.Second
	MaxMetadataMaxAge = time.Hour
)

// kgoMetadataMinAge is kgo's default minimum time between metadata
// requests, which a maximum age must not be below.
const kgoMetadataMinAge = 5 * time.Second

// defaultDialTimeout is Config.DialTimeout's default, kgo's.
const defaultDialTimeout = 10 * time.Second

// name returns how messages name the setting of properties key: the flag
// that gave it, else the key.
func (c *Config) name(key string) string {
	if n, ok := c.Names[key]; ok {
		return n
	}
	return key
}

// protocol returns the security protocol in force, checked against the
// other settings.
func (c *Config) protocol() (string, error) {
	p := strings.ToUpper(c.SecurityProtocol)
	if p == "" {
		tlsOn := c.UseTLS || c.TLS.set()
		switch {
		case tlsOn && c.SASL.Mechanism != "":
			return SASLSSL, nil
		case tlsOn:
			return SSL, nil
		case c.SASL.Mechanism != "":
			return SASLPlaintext, nil
		}
		return Plaintext, nil
	}
	switch p {
	case Plaintext, SSL:
		if c.SASL.Mechanism != "" {
			return "", fmt.Errorf("%w: %s %s needs %s SASL_SSL or SASL_PLAINTEXT, not %s", ErrConfig, c.name("sasl.mechanism"), c.SASL.Mechanism, c.name("security.protocol"), p)
		}
	case SASLPlaintext, SASLSSL:
		if c.SASL.Mechanism == "" {
			return "", fmt.Errorf("%w: %s %s needs %s", ErrConfig, c.name("security.protocol"), p, c.name("sasl.mechanism"))
		}
	default:
		return "", fmt.Errorf("%w: %s %q: want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", ErrConfig, c.name("security.protocol"), c.SecurityProtocol)
	}
	if (p == Plaintext || p == SASLPlaintext) && c.TLS.set() {
		return "", fmt.Errorf("%w: TLS files given with %s %s (want SSL or SASL_SSL)", ErrConfig, c.name("security.protocol"), p)
	}
	return p, nil
}

// Describe says how the brokers are reached, for messages: "SASL_SSL,
// SASL SCRAM-SHA-256 as user alice". It holds no secret.
func (c *Config) Describe() string {
	p, err := c.protocol()
	if err != nil {
		return c.SecurityProtocol
	}
	switch {
	case c.SASL.Mechanism == "":
		return p
	case c.SASL.Username != "" && (c.SASL.Mechanism == MechPlain || strings.HasPrefix(c.SASL.Mechanism, "SCRAM")):
		return fmt.Sprintf("%s, SASL %s as user %q", p, c.SASL.Mechanism, c.SASL.Username)
	}
	return fmt.Sprintf("%s, SASL %s", p, c.SASL.Mechanism)
}

// KafkaOpts returns the franz-go options of the brokers' client ID, TLS,
// SASL, dial timeout and metadata age (not the seed brokers). getenv reads
// the environment (os.Getenv). With TLS, a handshake that gets no answer
// within the dial timeout fails with a *HandshakeTimeoutError.
func (c *Config) KafkaOpts(getenv func(string) string) ([]kgo.Opt, error) {
	p, err := c.protocol()
	if err != nil {
		return nil, err
	}
	var opts []kgo.Opt
	if c.ClientID != "" {
		opts = append(opts, kgo.ClientID(c.ClientID))
	}
	if age := c.MetadataMaxAge; age != 0 {
		if age < MinMetadataMaxAge || age > MaxMetadataMaxAge {
			return nil, fmt.Errorf("%w: %s %v: want from %v to %v", ErrConfig, c.name("metadata.max.age.ms"), age, MinMetadataMaxAge, MaxMetadataMaxAge)
		}
		opts = append(opts, kgo.MetadataMaxAge(age))
		if age < kgoMetadataMinAge {
			opts = append(opts, kgo.MetadataMinAge(age))
		}
	}
	timeout := c.DialTimeout
	if timeout <= 0 {
		timeout = defaultDialTimeout
	}
	if p == SSL || p == SASLSSL {
		tc, err := c.TLS.config("ssl", c.name)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.Dialer(tlsDialer(tc, timeout)))
	} else {
		opts = append(opts, kgo.DialTimeout(timeout))
	}
	if p == SASLPlaintext || p == SASLSSL {
		m, err := c.SASL.mechanism(getenv)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

// mechanism returns the SASL mechanism.
func (s *SASL) mechanism(getenv func(string) string) (sasl.Mechanism, error) {
	mech := strings.ToUpper(s.Mechanism)
	switch mech {
	case MechPlain, MechScram256, MechScram512:
		pw := s.Password
		if pw == "" {
			pw = Secret(getenv(EnvSASLPassword))
		}
		if s.Username == "" || pw == "" {
			return nil, fmt.Errorf("%w: SASL %s needs a user (sasl.username, --sasl-user) and a password (sasl.password, $%s or --sasl-password-file)", ErrConfig, mech, EnvSASLPassword)
		}
		switch mech {
		case MechPlain:
			return plain.Auth{User: s.Username, Pass: string(pw)}.AsMechanism(), nil
		case MechScram256:
			return scram.Auth{User: s.Username, Pass: string(pw)}.AsSha256Mechanism(), nil
		}
		return scram.Auth{User: s.Username, Pass: string(pw)}.AsSha512Mechanism(), nil
	case MechOAuthBearer:
		tok := tokenSource{file: s.OAuthTokenFile, command: s.OAuthTokenCommand, fixed: s.OAuthToken}
		if tok.fixed == "" {
			tok.fixed = Secret(getenv(EnvOAuthToken))
		}
		if err := tok.check(); err != nil {
			return nil, err
		}
		return oauth.Oauth(func(ctx context.Context) (oauth.Auth, error) {
			t, err := tok.token(ctx)
			return oauth.Auth{Token: string(t)}, err
		}), nil
	case MechAWSMSKIAM:
		a := aws.Auth{AccessKey: getenv(EnvAWSAccessKey), SecretKey: getenv(EnvAWSSecretKey), SessionToken: getenv(EnvAWSSessionToken), UserAgent: "protoavro-kafka"}
		if a.AccessKey == "" || a.SecretKey == "" {
			return nil, fmt.Errorf("%w: SASL AWS_MSK_IAM needs $%s and $%s (and $%s for temporary credentials)", ErrConfig, EnvAWSAccessKey, EnvAWSSecretKey, EnvAWSSessionToken)
		}
		return a.AsManagedStreamingIAMMechanism(), nil
	}
	return nil, fmt.Errorf("%w: sasl.mechanism %q: want PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or AWS_MSK_IAM", ErrConfig, s.Mechanism)
}

// RegistryOptions returns the registry's options (TLS and credentials) and
// URLs. The password and token come from the Config, else from the
// environment (EnvRegistryPassword, EnvRegistryToken). With
// Registry.InheritSASL, a user name or password the Registry does not hold
// is the SASL one: the Config's, the password else from EnvSASLPassword,
// as the brokers' SASL login takes it.
func (c *Config) RegistryOptions(getenv func(string) string) (serde.RegistryOptions, []string, error) {
	r := c.Registry
	if r.InheritSASL {
		var err error
		if r, err = c.inheritSASL(getenv); err != nil {
			return serde.RegistryOptions{}, nil, err
		}
	}
	var o serde.RegistryOptions
	if len(r.URLs) == 0 {
		return o, nil, fmt.Errorf("%w: no schema registry URL (schema.registry.url, --registry)", ErrConfig)
	}
	https := false
	for _, u := range r.URLs {
		https = https || strings.HasPrefix(strings.ToLower(u), "https://")
	}
	if r.TLS.set() {
		if !https {
			return o, nil, fmt.Errorf("%w: registry TLS files given for a registry URL that is not https://", ErrConfig)
		}
		tc, err := r.TLS.config("schema.registry.ssl", c.name)
		if err != nil {
			return o, nil, err
		}
		o.TLS = tc
	}
	tok := r.Token
	if tok == "" {
		tok = Secret(getenv(EnvRegistryToken))
	}
	pw := r.Password
	if pw == "" {
		pw = Secret(getenv(EnvRegistryPassword))
	}
	switch {
	case r.Username != "" && r.Token != "":
		return o, nil, fmt.Errorf("%w: both basic auth and a bearer token for the registry: give one", ErrConfig)
	case r.Username != "":
		if pw == "" {
			return o, nil, fmt.Errorf("%w: a registry user name without a password (basic.auth.user.info, $%s); the name is not shown, as a token given as a user name would be", ErrConfig, EnvRegistryPassword)
		}
		o.Username, o.Password = r.Username, string(pw)
	case tok != "":
		o.BearerToken = string(tok)
	}
	return o, r.URLs, nil
}

// inheritSASL returns the Registry with the SASL user and password in
// place of those it does not hold (basic.auth.credentials.source
// SASL_INHERIT). Its errors name the settings, never a user name or
// password.
func (c *Config) inheritSASL(getenv func(string) string) (Registry, error) {
	r := c.Registry
	if r.Username == "" {
		r.Username = c.SASL.Username
	}
	if r.Password == "" {
		r.Password = c.SASL.Password
		if r.Password == "" {
			r.Password = Secret(getenv(EnvSASLPassword))
		}
	}
	switch {
	case r.Username == "":
		return r, fmt.Errorf("%w: basic.auth.credentials.source SASL_INHERIT: no SASL user to inherit for the registry (sasl.username, --sasl-user)", ErrConfig)
	case r.Password == "":
		return r, fmt.Errorf("%w: basic.auth.credentials.source SASL_INHERIT: no SASL password to inherit for the registry (sasl.password, $%s or --sasl-password-file)", ErrConfig, EnvSASLPassword)
	}
	return r, nil
}

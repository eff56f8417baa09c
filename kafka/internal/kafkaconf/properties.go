package kafkaconf

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"

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
	"metadata.max.age.ms":  setMetadataMaxAge,
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
	"basic.auth.user.info":                           setUserInfo,
	"schema.registry.basic.auth.user.info":           setUserInfo,
	"basic.auth.credentials.source":                  setCredentialsSource,
	"schema.registry.basic.auth.credentials.source":  setCredentialsSource,
	"bearer.auth.token":                              setBearer,
	"schema.registry.bearer.auth.token":              setBearer,
	"bearer.auth.credentials.source":                 setBearerSource,
	"schema.registry.bearer.auth.credentials.source": setBearerSource,
	"schema.registry.ssl.ca.location":                func(c *Config, _ *propState, v string) error { c.Registry.TLS.CAFile = v; return nil },
	"schema.registry.ssl.certificate.location":       func(c *Config, _ *propState, v string) error { c.Registry.TLS.CertFile = v; return nil },
	"schema.registry.ssl.key.location":               func(c *Config, _ *propState, v string) error { c.Registry.TLS.KeyFile = v; return nil },
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

// setMetadataMaxAge reads metadata.max.age.ms: milliseconds, within
// [MinMetadataMaxAge, MaxMetadataMaxAge].
func setMetadataMaxAge(c *Config, _ *propState, v string) error {
	ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || ms < MinMetadataMaxAge.Milliseconds() || ms > MaxMetadataMaxAge.Milliseconds() {
		return fmt.Errorf("want milliseconds from %d to %d, not %q", MinMetadataMaxAge.Milliseconds(), MaxMetadataMaxAge.Milliseconds(), safetext.Escape(v, 64))
	}
	c.MetadataMaxAge = time.Duration(ms) * time.Millisecond
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

func setBearerSource(_ *Config, _ *propState, v string) error {
	if !strings.EqualFold(v, "STATIC_TOKEN") {
		return fmt.Errorf("want STATIC_TOKEN (bearer.auth.token), not %q", safetext.Escape(v, 64))
	}
	return nil
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

// ParseProperties parses the text of a properties file named name, in the
// format of Java's java.util.Properties.load (the file Kafka's tools read
// with --command-config or --producer.config):
//
//   - lines end at "\n", "\r" or "\r\n"; a line that ends with an odd
//     number of backslashes goes on with the next line, whose leading
//     white space is dropped;
//   - blank lines and comment lines, whose first character other than
//     white space is "#" or "!", are skipped (a comment does not go on);
//   - the key starts at the first character other than white space (space,
//     tab, form feed) and ends at the first "=", ":" or white space that is
//     not escaped; white space around the separator is dropped, so that
//     "k=v", "k = v", "k: v" and "k v" are the same; the rest of the line is
//     the value, its trailing white space dropped (Java keeps it: write
//     "\ " to keep a trailing space);
//   - in keys and values "\t", "\n", "\r", "\f" and "\uXXXX" are the
//     characters they name and a backslash before any other character is
//     that character ("\=", "\:", "\ ", "\#", "\\").
//
// The text is read as UTF-8 (Java's InputStream form reads ISO 8859-1, so
// non-ASCII text there is written \uXXXX, which reads the same here); a
// leading byte order mark is skipped. A line with a key and no separator
// is an error (Java reads it as a key with an empty value). The keys are
// librdkafka's and the Java client's (the file kcat -F and
// kafka-console-producer --producer.config read) and Confluent's
// serializers' for the registry; see docs/kafka.md. A key it does not
// know, or one given twice, is an error that names it (escaped, cut) and
// its line; no error shows a value.
func ParseProperties(name, text string) (Config, error) {
	var (
		c    Config
		p    propState
		seen = map[string]int{}
	)
	lines := logicalLines(strings.TrimPrefix(text, "\ufeff"))
	for _, l := range lines {
		n := l.n
		rawKey, rawVal, ok := splitProperty(l.text)
		if !ok {
			return Config{}, fmt.Errorf("%w: %s:%d: no \"=\", \":\" or white space after the key (want key=value)", ErrConfig, name, n)
		}
		key, err := unescapeProperty(rawKey)
		if err != nil {
			return Config{}, fmt.Errorf("%w: %s:%d: key: %w", ErrConfig, name, n, err)
		}
		set, ok := propertyKeys[key]
		if !ok {
			return Config{}, fmt.Errorf("%w: %s:%d: unknown key \"%s\"%s", ErrConfig, name, n, safetext.Escape(key, maxKeyText), unknownHint(key))
		}
		if prev, ok := seen[key]; ok {
			return Config{}, fmt.Errorf("%w: %s:%d: %s given twice (first on line %d)", ErrConfig, name, n, key, prev)
		}
		seen[key] = n
		val, err := unescapeProperty(rawVal)
		if err != nil {
			return Config{}, fmt.Errorf("%w: %s:%d: %s: %w", ErrConfig, name, n, key, err)
		}
		if err := set(&c, &p, val); err != nil {
			return Config{}, fmt.Errorf("%w: %s:%d: %s: %w", ErrConfig, name, n, key, err)
		}
	}
	switch p.source {
	case "", "USER_INFO":
		c.Registry.Username, c.Registry.Password = p.userInfoUser, p.userInfoPass
	case "SASL_INHERIT":
		// Taken when the SASL settings are final, flags and environment
		// merged (Config.RegistryOptions).
		c.Registry.InheritSASL = true
	case "URL":
		// The registry URL holds them; the client takes them from there.
	}
	return c, nil
}

// maxKeyText bounds the text of an unknown key in an error.
const maxKeyText = 128

// logicalLine is a line of a properties file with its continuations
// joined, escapes kept, and the number of its first line.
type logicalLine struct {
	n    int
	text string
}

// isPropSpace reports whether b is white space in a properties file.
func isPropSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\f' }

// trimPropSpace returns s without its leading white space.
func trimPropSpace(s string) string {
	for len(s) > 0 && isPropSpace(s[0]) {
		s = s[1:]
	}
	return s
}

// logicalLines returns the logical lines of text other than blank lines
// and comments.
func logicalLines(text string) []logicalLine {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	var (
		out  []logicalLine
		cur  strings.Builder
		goOn bool // cur holds a line that goes on with the next
		from int  // the number of cur's first line
	)
	for i, line := range strings.Split(text, "\n") {
		line = trimPropSpace(line)
		if !goOn {
			if line == "" || line[0] == '#' || line[0] == '!' {
				continue
			}
			from = i + 1
		}
		// An odd number of backslashes at the end: the line goes on.
		k := 0
		for k < len(line) && line[len(line)-1-k] == '\\' {
			k++
		}
		goOn = k%2 == 1
		if goOn {
			line = line[:len(line)-1]
		}
		cur.WriteString(line)
		if !goOn {
			out = append(out, logicalLine{n: from, text: cur.String()})
			cur.Reset()
		}
	}
	if goOn {
		out = append(out, logicalLine{n: from, text: cur.String()})
	}
	return out
}

// splitProperty splits a logical line into its key and value, both still
// escaped, as java.util.Properties.load does; ok is false when no
// separator follows the key. The value's trailing white space, unless
// escaped, is dropped.
func splitProperty(line string) (key, val string, ok bool) {
	escaped := false
	i := 0
	for ; i < len(line); i++ {
		b := line[i]
		if !escaped && (b == '=' || b == ':' || isPropSpace(b)) {
			break
		}
		escaped = b == '\\' && !escaped
	}
	if i == len(line) {
		return line, "", false
	}
	key = line[:i]
	sep := line[i] == '=' || line[i] == ':'
	rest := trimPropSpace(line[i+1:])
	if !sep && rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = trimPropSpace(rest[1:])
	}
	for len(rest) > 0 && isPropSpace(rest[len(rest)-1]) {
		// Kept when escaped: an odd number of backslashes before it.
		k := 0
		for k < len(rest)-1 && rest[len(rest)-2-k] == '\\' {
			k++
		}
		if k%2 == 1 {
			break
		}
		rest = rest[:len(rest)-1]
	}
	return key, rest, true
}

// hex4 returns the rune of the four hexadecimal digits s starts with.
func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	r, err := strconv.ParseUint(s[:4], 16, 32)
	return rune(r), err == nil
}

// errBadUnicodeEscape is the error of a "\u" not followed by four
// hexadecimal digits.
var errBadUnicodeEscape = errors.New(`malformed \uXXXX escape`)

// unescapeProperty returns s with the escapes of a properties file
// replaced by what they stand for.
func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, "\\") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			break // a lone backslash at the end of the file
		}
		switch c = s[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			r, ok := hex4(s[i+1:])
			if !ok {
				return "", errBadUnicodeEscape
			}
			i += 4
			// A UTF-16 surrogate pair, as Java writes a rune past U+FFFF.
			if utf16.IsSurrogate(r) && strings.HasPrefix(s[i+1:], "\\u") {
				if r2, ok := hex4(s[i+3:]); ok {
					if p := utf16.DecodeRune(r, r2); p != unicode.ReplacementChar {
						r = p
						i += 6
					}
				}
			}
			b.WriteRune(r)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
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

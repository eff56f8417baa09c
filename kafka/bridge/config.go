// config.go holds the bridge's configuration: Config, its defaults and
// checks, and the naming of each input topic's output topic.

package bridge

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/safetext"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// TopicPlaceholder, in Config.Output, stands for the input topic's name.
const TopicPlaceholder = "{topic}"

// Config configures a bridge.
type Config struct {
	// Brokers are the seed brokers, host:port.
	Brokers []string
	// Group is the consumer group; instances with one group split the
	// input's partitions.
	Group string
	// InstanceID, when set, is the static group membership ID: a restarted
	// instance takes its partitions back at once.
	InstanceID string
	// Inputs are the topics read. With InputRegex they are regular
	// expressions (Go's RE2 syntax) of the topics read, topics created
	// while the bridge runs included (found, as partitions added to a
	// topic are, at the client's next metadata refresh: every
	// DefaultMetadataMaxAge, or as kgo.MetadataMaxAge in KafkaOpts sets
	// it; until then they have no lag); as with franz-go's ConsumeRegex, an
	// expression matches anywhere in a name ("in" matches "main"): anchor
	// it with ^ and $. A regular expression never reads the dead-letter
	// topic, nor a topic named as Output names them (with "{topic}-avro",
	// no topic ending in "-avro"). An expression that would read nothing,
	// every topic it matches left out so, is an ErrConfig that Run returns
	// before it connects, where the expressions tell it: an Output that is
	// nothing but TopicPlaceholder; TopicPlaceholder after a prefix or
	// before a suffix, with an expression anchored (^, $) to literal text
	// that has that prefix or suffix; an expression of one name (^name$)
	// that is left out.
	Inputs     []string
	InputRegex bool
	// Output names the output topic of each input topic: TopicPlaceholder
	// ("{topic}") in it stands for the input topic's name, as in
	// "{topic}-avro"; without it, every input topic goes to this one topic.
	// An output topic that is also one of the listed input topics (it
	// would read its own output) or the dead-letter topic is an ErrConfig:
	// Run returns it before it connects when the output topic is known
	// without a record (Inputs is a list of topics, or Output has no
	// TopicPlaceholder), else at the first record of an input topic whose
	// output topic is the dead-letter topic (InputRegex: regular
	// expressions never read an output topic). Subjects are named by
	// Strategy from the output topic.
	Output string
	// DeadLetter is the topic for records that cannot be converted, from
	// every input topic; empty means such a record stops the bridge with
	// an error.
	DeadLetter string
	// Registry is the schema registry (required unless PassThrough).
	Registry *serde.Registry
	// Type, when set, makes input records raw protobuf of this type;
	// otherwise they are Confluent-framed protobuf whose schemas are in the
	// registry.
	Type protoreflect.MessageDescriptor
	// Options are the mapping options.
	Options protoavro.Options
	// Strategy names the Avro subjects.
	Strategy serde.Strategy
	// Check runs the compatibility gate before registering a new schema.
	Check bool
	// ExactlyOnce runs each batch in a transaction under TransactionalID.
	ExactlyOnce bool
	// TransactionalID is the transactional ID (ExactlyOnce); default
	// "protoavro-bridge-" + Group + "-" + InstanceID, or without an
	// InstanceID a name unique to the process (host, process ID, random
	// digits), so that instances of one group do not fence each other. A
	// stable ID (InstanceID, or this) lets a restarted instance abort its
	// crashed predecessor's transaction at once instead of after
	// TransactionTimeout.
	TransactionalID string
	// TransactionTimeout is how long the broker lets a transaction stay
	// open (ExactlyOnce; default 30 s). After a crash, a restarted instance
	// with the same TransactionalID may wait up to this long for the crashed
	// one's open transaction to be aborted.
	TransactionTimeout time.Duration
	// PassThrough copies records unchanged (a baseline for benchmarks).
	PassThrough bool
	// MaxRecords, when positive, stops the bridge once that many records
	// have been committed.
	MaxRecords int64
	// BatchSize is the most records polled per batch (default 10000).
	BatchSize int
	// SessionTimeout is the group session timeout (default 45 s).
	SessionTimeout time.Duration
	// Progress, when set, receives a progress line every ProgressEvery
	// (default 5 s): "protoavro-kafka: " and the Summary. LogProgress
	// makes it a record of Logger instead, "progress" at level Info with
	// the Summary's figures (records, dead_lettered, tombstones, elapsed,
	// rate, lag, and fetch_warnings, commit_warnings, registry_wait and
	// registry_error when not zero).
	Progress      io.Writer
	ProgressEvery time.Duration
	LogProgress   bool
	// OnCommit, when set, is called after each committed batch with the
	// running totals.
	OnCommit func(Summary)
	// Logger, when set, receives the bridge's start and stop, its waits on
	// the schema registry, and each error it continues after, at level
	// Warn: an informational fetch error (data loss the client reset past,
	// a group session lost and rejoined, a retriable broker error; see
	// Summary.FetchWarnings) or an offset commit the group refused because
	// it had moved on (at-least-once; see Summary.CommitWarnings). Error
	// text in it is escaped and bounded.
	Logger *slog.Logger
	// Metrics, when set, collects the bridge's figures and serves them with
	// health probes (see Metrics).
	Metrics *Metrics
	// KafkaOpts are extra franz-go client options (TLS, SASL, a client ID,
	// a rack, kgo.MetadataMaxAge, ...), appended after the bridge's own,
	// so that one of them given here overrides the bridge's. Options that
	// change what the bridge relies on (the consumed topics, the group,
	// offset commits, isolation level, transactions) break its delivery
	// guarantees; partition callbacks (kgo.OnPartitionsAssigned, Revoked,
	// Lost) replace the bridge's, which its lag and Metrics' topic labels
	// follow.
	KafkaOpts []kgo.Opt
}

// DefaultMetadataMaxAge is how often a bridge's client refreshes its
// metadata unless KafkaOpts sets it (kgo.MetadataMaxAge): kgo's default
// is 5 minutes, and a request every 30 seconds costs a bridge nothing it
// would notice.
const DefaultMetadataMaxAge = 30 * time.Second

// ErrConfig reports an invalid Config.
var ErrConfig = errors.New("bridge: invalid configuration")

// ErrOutputSchema reports an Avro schema that the registry, or the
// compatibility gate (Config.Check), refuses for an output topic's subject:
// one incompatible with the subject's versions, a subject in read-only
// mode, a subject that holds another schema type. The schema follows from
// a record's message type, not from its data, so such an error stops the
// bridge before its batch is committed, dead-letter topic or not, rather
// than dead-lettering every record of that type. It wraps the registry's
// error (a *serde.RegistryError, or serde.ErrIncompatible from the gate).
var ErrOutputSchema = errors.New("bridge: output schema refused")

// errTextMax bounds error text from outside the bridge (registry answers,
// broker messages) wherever the bridge puts it: errors it returns, dead-letter
// headers, log lines, the progress line, health probes.
const errTextMax = 1024

// safeErr is err's text escaped and bounded for headers, logs and probes.
func safeErr(err error) string { return safetext.Escape(err.Error(), errTextMax) }

// withDefaults checks cfg and fills in its defaults.
func (cfg Config) withDefaults() (Config, error) {
	if len(cfg.Brokers) == 0 || cfg.Group == "" || len(cfg.Inputs) == 0 || cfg.Output == "" {
		return cfg, fmt.Errorf("%w: brokers, group, input and output topics are required", ErrConfig)
	}
	if cfg.Registry == nil && !cfg.PassThrough {
		return cfg, fmt.Errorf("%w: a schema registry is required", ErrConfig)
	}
	for _, in := range cfg.Inputs {
		if in == "" {
			return cfg, fmt.Errorf("%w: an empty input topic", ErrConfig)
		}
		if cfg.InputRegex {
			if _, err := regexp.Compile(in); err != nil {
				return cfg, fmt.Errorf("%w: input pattern %q: %w", ErrConfig, safetext.Escape(in, 256), err)
			}
		} else if in == cfg.DeadLetter {
			return cfg, fmt.Errorf("%w: the dead-letter topic %q is an input topic", ErrConfig, in)
		}
	}
	if err := cfg.checkOutputs(); err != nil {
		return cfg, err
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 10000
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg, nil
}

// checkOutputs refuses, before the bridge connects, the output topics that
// are known without a record: with a list of input topics, each one's
// output topic (Output, its TopicPlaceholder replaced by the topic), which
// must be neither an input topic nor the dead-letter topic; with regular
// expressions and an Output without TopicPlaceholder, that one topic, which
// must not be the dead-letter topic (the expressions never read it:
// excluded). With regular expressions and TopicPlaceholder in Output, the
// output topic depends on the topic a record comes from, and outputs.topic
// checks it at that record.
//
// With regular expressions, an expression all of whose topics are left
// out (readsNothing) is refused too: it would read nothing.
func (cfg Config) checkOutputs() error {
	if cfg.InputRegex {
		if !strings.Contains(cfg.Output, TopicPlaceholder) && cfg.Output == cfg.DeadLetter {
			return fmt.Errorf("%w: the output topic %q is the dead-letter topic", ErrConfig, cfg.Output)
		}
		for _, in := range cfg.Inputs {
			if cfg.readsNothing(in) {
				return fmt.Errorf("%w: the regular expression %q reads no topic: every topic it matches is named as the output topics %q name them, or is the dead-letter topic, and a regular expression never reads those", ErrConfig, in, cfg.Output)
			}
		}
		return nil
	}
	o := newOutputs(cfg)
	for _, in := range cfg.Inputs {
		if _, err := o.topic(in); err != nil {
			return err
		}
	}
	return nil
}

// excluded returns the regular expressions of the topics a bridge reading
// regular expressions leaves out (kgo.ConsumeExcludeTopics): the
// dead-letter topic and the topics named as Output names them.
func (cfg Config) excluded() []string {
	parts := strings.Split(cfg.Output, TopicPlaceholder)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	ex := []string{"^" + strings.Join(parts, ".*") + "$"}
	if cfg.DeadLetter != "" {
		ex = append(ex, "^"+regexp.QuoteMeta(cfg.DeadLetter)+"$")
	}
	return ex
}

// readsNothing reports whether the topics the regular expression expr
// matches are all left out (excluded), where that can be told from the
// expressions alone: an Output that is nothing but TopicPlaceholder (its
// exclusion matches every topic); an Output of TopicPlaceholder after a
// prefix, before a suffix, or both, with expr anchored (^, $) to literal
// text that starts with that prefix and ends with that suffix; an expr
// that matches one topic only (^name$), which an exclusion matches.
func (cfg Config) readsNothing(expr string) bool {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return false
	}
	re = re.Simplify()
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	literal := func(r *syntax.Regexp) (string, bool) {
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 {
			return string(r.Rune), true
		}
		return "", false
	}
	// head is the literal text every topic expr matches starts with (when
	// it is anchored at the start), tail the literal text after head that
	// every such topic ends with (when it is anchored at the end).
	first, head, start := 0, "", len(subs) > 0 && subs[0].Op == syntax.OpBeginText
	if start {
		for first = 1; first < len(subs); first++ {
			s, ok := literal(subs[first])
			if !ok {
				break
			}
			head += s
		}
	}
	last, tail, end := len(subs)-1, "", len(subs) > 0 && subs[len(subs)-1].Op == syntax.OpEndText
	if end {
		for last = len(subs) - 2; last >= first; last-- {
			s, ok := literal(subs[last])
			if !ok {
				break
			}
			tail = s + tail
		}
	}
	if start && end && last < first { // ^name$: the one topic name
		for _, ex := range cfg.excluded() {
			if regexp.MustCompile(ex).MatchString(head) {
				return true
			}
		}
		return false
	}
	parts := strings.Split(cfg.Output, TopicPlaceholder)
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts[1 : len(parts)-1] {
		if p != "" {
			return false
		}
	}
	prefix, suffix := parts[0], parts[len(parts)-1]
	return (prefix == "" || start && strings.HasPrefix(head, prefix)) &&
		(suffix == "" || end && strings.HasSuffix(tail, suffix))
}

// outputs names the output topic of each input topic (Config.Output), and
// refuses an output topic the bridge reads. It is safe for concurrent use.
type outputs struct {
	pattern  string
	dlq      string
	inputs   []string
	regexes  []*regexp.Regexp
	excluded []*regexp.Regexp
	mu       sync.Mutex
	topics   map[string]string
}

func newOutputs(cfg Config) *outputs {
	o := &outputs{pattern: cfg.Output, dlq: cfg.DeadLetter, topics: map[string]string{}}
	if cfg.InputRegex {
		for _, in := range cfg.Inputs {
			o.regexes = append(o.regexes, regexp.MustCompile(in)) // checked by withDefaults
		}
		for _, ex := range cfg.excluded() {
			o.excluded = append(o.excluded, regexp.MustCompile(ex))
		}
	} else {
		o.inputs = cfg.Inputs
	}
	return o
}

// topic returns the output topic of input topic in.
func (o *outputs) topic(in string) (string, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if out, ok := o.topics[in]; ok {
		return out, nil
	}
	out := strings.ReplaceAll(o.pattern, TopicPlaceholder, in)
	if out == o.dlq {
		return "", fmt.Errorf("%w: the output topic %q of input topic %q is the dead-letter topic", ErrConfig, out, in)
	}
	if o.reads(out) {
		return "", fmt.Errorf("%w: the output topic %q of input topic %q is an input topic too: the bridge would read its own output", ErrConfig, out, in)
	}
	o.topics[in] = out
	return out, nil
}

// reads reports whether topic is an input topic.
func (o *outputs) reads(topic string) bool {
	for _, re := range o.excluded {
		if re.MatchString(topic) {
			return false
		}
	}
	for _, re := range o.regexes {
		if re.MatchString(topic) {
			return true
		}
	}
	for _, in := range o.inputs {
		if in == topic {
			return true
		}
	}
	return false
}

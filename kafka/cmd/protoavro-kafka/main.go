// Command protoavro-kafka connects protoavro to Kafka and a Confluent Schema
// Registry. The protoavro CLI runs it for `protoavro kafka ARGS...`.
//
// Usage:
//
//	protoavro-kafka bridge   --brokers H:P --registry URL --group G --in TOPIC --out TOPIC [flags]
//	protoavro-kafka register --registry URL --topic TOPIC [-I DIR]... [--descriptor-set FILE]... -m TYPE [FILE.proto...] [flags]
//	protoavro-kafka check    --registry URL --topic TOPIC [-I DIR]... [--descriptor-set FILE]... -m TYPE [FILE.proto...] [flags]
//	protoavro-kafka dev      [--kafka-port 9092] [--registry-port 8081]
//
// bridge consumes a protobuf topic (Confluent-framed, or raw with -m TYPE) in
// a consumer group and produces Confluent-framed Avro records with registered
// schemas. The message type comes from .proto files compiled in-process (-I,
// as protoc) and serialized descriptor sets (--descriptor-set, protoc -o or
// buf build -o), as in the protoavro command; -m (or --message) names it, and
// an unknown name gets the closest known ones suggested. register derives the
// Avro schema of a message type (or, with --proto, takes the .proto itself),
// runs the local compatibility gate and registers it; check runs the gate only
// and exits 1 when the schema is incompatible, 3 when it could not check (a
// registry that cannot be reached or answers with an error); dev starts an
// in-process Kafka broker and schema registry on loopback for trying things
// out.
//
// Flags and files come in any order. bridge connects to the brokers with TLS
// and SASL (PLAIN, SCRAM-SHA-256/512, OAUTHBEARER, AWS_MSK_IAM) and to a
// registry over TLS with basic or bearer auth; register and check talk to
// the registry only. The settings come from flags (--tls-ca,
// --sasl-mechanism, --registry-ca, ...; register and check have the
// --registry-* ones) or a properties file in librdkafka's vocabulary
// (--config FILE: bootstrap.servers, security.protocol, sasl.username,
// ssl.ca.location, schema.registry.url, basic.auth.user.info, ...), with
// secrets from files or the environment (kafkaconf.EnvVars:
// PROTOAVRO_SASL_PASSWORD, PROTOAVRO_OAUTH_TOKEN,
// PROTOAVRO_REGISTRY_PASSWORD, PROTOAVRO_REGISTRY_TOKEN, AWS_*). See
// docs/kafka.md in the repository.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/kafkaconf"
	"github.com/protoavro/protoavro/kafka/internal/usage"
	"github.com/protoavro/protoavro/kafka/serde"
)

// topUsage is the usage text of the program as a whole. A command-line
// mistake is a usage error ([usage.Error]): exit status 2. The environment
// variables it lists are kafkaconf.EnvVars, those the commands read.
var topUsage = `usage: protoavro-kafka COMMAND [flags]

Commands:
  bridge    consume a protobuf topic, produce a Confluent-framed Avro topic
  register  derive a message type's Avro schema, check it, register it
  check     run the local compatibility gate on a message type's Avro schema
  dev       run a Kafka broker and a schema registry in-process on 127.0.0.1

Flags and files come in any order. register and check talk to the schema
registry only: they take its flags (--registry, --registry-user, --registry-ca,
...) and --config FILE, a properties file in librdkafka's vocabulary
(schema.registry.url, basic.auth.user.info, ...). bridge takes those too, and
the brokers' TLS and SASL flags (--tls, --sasl-mechanism, ...) and keys
(security.protocol, sasl.mechanism, ssl.ca.location, ...). Secrets come from
files or the environment:
` + wrapList(kafkaconf.EnvVars, "  ", 80) + `

Run protoavro-kafka COMMAND -h for a command's flags.
`

// wrapList returns items separated by ", " on lines of at most width bytes
// (an item longer than a line alone on its line), each line starting with
// indent.
func wrapList(items []string, indent string, width int) string {
	var b strings.Builder
	line := indent
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		switch {
		case line == indent:
			line += it
		case len(line)+1+len(it) > width:
			b.WriteString(line + "\n")
			line = indent + it
		default:
			line += " " + it
		}
	}
	b.WriteString(line)
	return b.String()
}

// main runs a command. A first interrupt (SIGINT, SIGTERM) stops it
// cleanly (the bridge finishes and commits its batch); a second one kills
// the process, if it comes secondSignalAfter or more after the first:
// one before is the first again, as GNU timeout sends it (to the command,
// then to its process group), or a supervisor that signals the group.
func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go watchSignals(sigs, time.Now, secondSignalAfter, cancel, die)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	cancel()
	os.Exit(code)
}

// secondSignalAfter is how long after the first interrupt a second one
// must come to kill the process; the bridge's help says so.
const secondSignalAfter = time.Second

// watchSignals reads interrupts from sigs until it is closed or die is
// called. The first calls stop; a later one read at least after after
// the first (by the clock now) calls die with it; one read sooner is
// ignored.
func watchSignals(sigs <-chan os.Signal, now func() time.Time, after time.Duration, stop func(), die func(os.Signal)) {
	var first time.Time
	stopped := false
	for sig := range sigs {
		t := now()
		switch {
		case !stopped:
			stopped, first = true, t
			stop()
		case t.Sub(first) >= after:
			die(sig)
			return
		}
	}
}

// die ends the process with sig's default effect (death by the signal).
func die(sig os.Signal) {
	signal.Reset(os.Interrupt, syscall.SIGTERM)
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Signal(sig)
	}
	// Where the signal cannot be sent to the process itself.
	time.Sleep(time.Second)
	os.Exit(1)
}

// The exit statuses of check (checkNotes), which a CI gate tells apart.
const (
	// exitIncompatible: the gate ran and found the schema incompatible.
	exitIncompatible = 1
	// exitUsage: a usage error (usage.Error), for every command.
	exitUsage = 2
	// exitNotChecked: the gate could not run (notCheckedError).
	exitNotChecked = 3
)

// errIncompatible makes check exit exitIncompatible after printing its
// report.
var errIncompatible = errors.New("incompatible")

// notCheckedError is an error that kept check from giving an answer: the
// registry could not be reached or answered with an error, the schema
// could not be derived, the command was interrupted. check exits
// exitNotChecked with it.
type notCheckedError struct{ err error }

func (e *notCheckedError) Error() string { return e.err.Error() }
func (e *notCheckedError) Unwrap() error { return e.err }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, topUsage)
		return 2
	}
	cmds := map[string]func(context.Context, []string, io.Writer, *console) error{
		"bridge":   cmdBridge,
		"register": cmdRegister,
		"check":    cmdCheck,
		"dev":      cmdDev,
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "help" {
		fmt.Fprint(stdout, topUsage)
		return 0
	}
	cmd, ok := cmds[name]
	if !ok {
		fmt.Fprintf(stderr, "protoavro-kafka: unknown command %q\n%s", name, topUsage)
		return 2
	}
	con := &console{w: stderr}
	err := cmd(ctx, args[1:], stdout, con)
	if err != nil {
		// No message shows the credentials of a URL it quotes.
		err = redacted{err}
	}
	var notChecked *notCheckedError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case usage.Is(err):
		con.fail(name, err, exitUsage)
		return exitUsage
	case errors.Is(err, errIncompatible):
		return exitIncompatible
	case errors.As(err, &notChecked):
		con.fail(name, err, exitNotChecked)
		return exitNotChecked
	}
	con.fail(name, err, 1)
	return 1
}

// redacted is an error whose text has the user information of URLs
// replaced (serde.RedactURLs).
type redacted struct{ error }

func (r redacted) Error() string { return serde.RedactURLs(r.error.Error()) }
func (r redacted) Unwrap() error { return r.error }

// splitFlag splits the comma-separated value of flag --name into its
// items, each trimmed of surrounding white space, as the properties file's
// lists are. An empty item (a comma at either end, two in a row, or white
// space alone between two) is a usage error that gives its position and
// says what an item is (noun: "topic name"); it quotes the value when show
// is set (a value that may hold a password, as a registry URL, is not
// quoted).
func splitFlag(name, noun, v string, show bool) ([]string, error) {
	items := strings.Split(v, ",")
	for i, it := range items {
		items[i] = strings.TrimSpace(it)
		if items[i] != "" {
			continue
		}
		given := ""
		if show {
			given = fmt.Sprintf(" %q", v)
		}
		if len(items) == 1 {
			return nil, usage.Errorf("--%s%s: no %s given", name, given, noun)
		}
		return nil, usage.Errorf("--%s%s: item %d of %d is empty: give %ss separated by commas, none empty", name, given, i+1, len(items), noun)
	}
	return items, nil
}

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// newFlags returns a flag set whose errors and usage go to the console's
// stderr; notes, when not empty, are a paragraph of the usage text between
// the synopsis and the flags.
func newFlags(name, synopsis, notes string, con *console) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(con.w)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: protoavro-kafka %s %s\n\n", name, synopsis)
		if notes != "" {
			fmt.Fprintf(fs.Output(), "%s\n\n", notes)
		}
		fmt.Fprintf(fs.Output(), "Flags:\n")
		usage.PrintFlags(fs.Output(), fs)
	}
	return fs
}

// parse parses args with fs and returns the positional arguments. Flags
// and files come in any order, as in the protoavro command: parsing resumes
// after each positional argument. Everything after "--" is positional. A
// protoc-style "-IDIR" is read as "-I DIR". Flag errors are usage errors;
// -h and --help return flag.ErrHelp.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	positional, err := usage.ParseArgs(fs, args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return nil, usage.Wrap(err)
	}
	return positional, err
}

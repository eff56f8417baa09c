package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/usage"
	"github.com/protoavro/protoavro/kafka/serde"
)

// bridgeNotes is the paragraph of bridge's help on stopping it.
var bridgeNotes = fmt.Sprintf(`SIGINT or SIGTERM stops the bridge cleanly: the batch in flight is finished
and committed, the group left and the summary printed. A second signal %v
or more after the first kills the process at once; one that comes sooner
counts as the first again (GNU timeout signals the command and then its
process group, as a supervisor signalling the group may).`, secondSignalAfter)

func cmdBridge(ctx context.Context, args []string, stdout io.Writer, con *console) error {
	fs := newFlags("bridge", "--brokers H:P --group G --in TOPIC[,TOPIC...] | --in-regex RE --out TOPIC [-I DIR]... [--descriptor-set FILE]... [-m TYPE] [FILE.proto...] (flags and files in any order)", bridgeNotes, con)
	var (
		conn     connFlags
		typ      typeFlags
		group    = fs.String("group", "protoavro-bridge", "consumer `GROUP`")
		instance = fs.String("instance-id", "", "static group membership `ID` (a restart takes the partitions back at once)")
		in       = fs.String("in", "", "input `TOPICS` (protobuf), comma-separated")
		inRegex  = fs.String("in-regex", "", "input topics: those whose name matches the regular expression `RE` (anywhere: anchor it with ^ and $), topics created later included; instead of --in")
		out      = fs.String("out", "", "output `TOPIC` (Confluent-framed Avro); {topic} in it stands for the input topic, as in {topic}-avro")
		dlq      = fs.String("dlq", "", "dead-letter `TOPIC` for records that cannot be converted (default: stop on such a record)")
		strategy = fs.String("strategy", "topic", "subject-name `STRATEGY`: topic, record or topic-record")
		check    = fs.Bool("check", true, "run the local compatibility gate before registering a new schema")
		eos      = fs.Bool("exactly-once", false, "exactly-once: each batch in a Kafka transaction")
		txnID    = fs.String("transactional-id", "", "transactional `ID` for --exactly-once (default from group and instance ID; without --instance-id, unique to the process)")
		txnTime  = fs.Duration("transaction-timeout", 30*time.Second, "how long the broker lets a transaction stay open (--exactly-once): what a restart after a crash may wait")
		maxRecs  = fs.Int64("max-records", 0, "stop after `N` records (0: run until SIGINT/SIGTERM)")
		batch    = fs.Int("batch", 10000, "most `RECORDS` per batch")
		every    = fs.Duration("progress", 5*time.Second, "progress line `INTERVAL` on stderr (a log record with --log-format json; 0: none)")
		session  = fs.Duration("session-timeout", 0, "group session `TIMEOUT` (default the client's, 45s)")
		passthru = fs.Bool("pass-through", false, "copy records unchanged (a baseline for benchmarks)")
		metrics  = fs.String("metrics-addr", "", "serve Prometheus metrics (/metrics) and health probes (/healthz, /readyz) at `ADDR`, host:port; a port alone (:9464) listens on loopback (default: none)")
		logFmt   = fs.String("log-format", "text", "log `FORMAT` on stderr: text or json (then every line on stderr is a JSON log record, the progress and the error the command exits with included)")
		ttl      = fs.Duration("unknown-id-ttl", serde.DefaultUnknownIDTTL, "how long (`DURATION`) a schema ID the registry does not know is remembered as unknown: its records are dead-lettered without asking again (0: ask for every record)")
	)
	conn.registerBrokers(fs)
	conn.registerRegistry(fs)
	typ.register(fs)
	if jsonLogsAsked(args) {
		// A command line the flags refuse is the JSON record of the
		// error alone, without the text of the flags; -h prints them.
		con.useJSON()
		fs.SetOutput(io.Discard)
	}
	files, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) && con.json != nil {
		fs.SetOutput(con.w)
		fs.Usage()
	}
	if err != nil {
		return err
	}
	if *in == "" && *inRegex == "" || *out == "" {
		return usage.Errorf("--in and --out are required (--in-regex in place of --in)")
	}
	if *in != "" && *inRegex != "" {
		return usage.Errorf("--in and --in-regex exclude each other")
	}
	var inputs []string
	if *in != "" {
		if inputs, err = splitFlag("in", "topic name", *in, true); err != nil {
			return err
		}
	}
	var logger *slog.Logger
	switch *logFmt {
	case "text":
		logger = slog.New(slog.NewTextHandler(con.w, nil))
	case "json":
		logger = con.useJSON()
	default:
		return usage.Errorf("--log-format %q: want text or json", *logFmt)
	}
	var metricsAddr string
	if *metrics != "" {
		if metricsAddr, err = listenAddr(*metrics); err != nil {
			return err
		}
	}
	switch {
	case *ttl < 0:
		return usage.Errorf("--unknown-id-ttl %v: must not be negative (0 asks the registry for every record)", *ttl)
	case *ttl == 0:
		conn.unknownIDTTL = -1 // serde: remember nothing
	default:
		conn.unknownIDTTL = *ttl
	}
	st, err := serde.ParseStrategy(*strategy)
	if err != nil {
		return usage.Errorf("--strategy: %w", err)
	}
	opts, err := typ.mapping()
	if err != nil {
		return err
	}
	cc, err := conn.resolve(fs, con)
	if err != nil {
		return err
	}
	cfg := bridge.Config{
		Brokers: cc.Brokers, Group: *group, InstanceID: *instance,
		Inputs: inputs, Output: *out, DeadLetter: *dlq,
		Options: opts, Strategy: st, Check: *check,
		ExactlyOnce: *eos, TransactionalID: *txnID, TransactionTimeout: *txnTime, PassThrough: *passthru,
		MaxRecords: *maxRecs, BatchSize: *batch, SessionTimeout: *session,
		Logger: logger,
	}
	if *inRegex != "" {
		cfg.Inputs, cfg.InputRegex = []string{*inRegex}, true
	}
	if *every > 0 {
		cfg.ProgressEvery = *every
		if con.json != nil {
			cfg.LogProgress = true
		} else {
			cfg.Progress = con.w
		}
	}
	if typ.selected(len(files)) {
		md, err := typ.load(ctx, files)
		if err != nil {
			return err
		}
		cfg.Type = md
	}
	if !*passthru {
		if cfg.Registry, err = conn.registryClient(&cc); err != nil {
			return err
		}
	}
	if metricsAddr != "" {
		cfg.Metrics = bridge.NewMetrics()
		stop, err := serveMetrics(metricsAddr, cfg.Metrics, con)
		if err != nil {
			return err
		}
		defer stop()
	}
	// The brokers are checked once the command line is known to be good.
	if cfg.KafkaOpts, err = kafkaOpts(ctx, &cc); err != nil {
		return err
	}
	mode := "at-least-once"
	if *eos {
		mode = "exactly-once"
	}
	inText := strings.Join(inputs, ",")
	if *inRegex != "" {
		inText = "/" + *inRegex + "/"
	}
	con.note(slog.LevelInfo, fmt.Sprintf("bridging %s → %s (group %s, %s, brokers %s, %s)", inText, *out, *group, mode, strings.Join(cc.Brokers, ","), cc.Describe()),
		"bridging", "inputs", inText, "output", *out, "group", *group, "mode", mode, "brokers", strings.Join(cc.Brokers, ","), "security", cc.Describe())
	sum, err := bridge.Run(ctx, cfg)
	fmt.Fprintf(stdout, "protoavro-kafka: summary: %s\n", sum)
	return err
}

// listenAddr returns the address --metrics-addr addr listens on (a port
// alone: on loopback), or a usage error when addr is not host:port with a
// port number from 0 to 65535 and a host that is an IP address or a host
// name.
func listenAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", usage.Errorf("--metrics-addr %q: %w", addr, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", usage.Errorf("--metrics-addr %q: port %q: want a number from 0 to 65535", addr, port)
	}
	switch {
	case host == "":
		host = "127.0.0.1"
	case validIP(host), validHostName(host):
	default:
		return "", usage.Errorf("--metrics-addr %q: host %q: want an IP address or a host name", addr, host)
	}
	return net.JoinHostPort(host, port), nil
}

// validIP reports whether host is an IP address (IPv6 with a zone too).
func validIP(host string) bool {
	_, err := netip.ParseAddr(host)
	return err == nil
}

// validHostName reports whether host is a DNS host name: dot-separated
// labels of letters, digits and hyphens, neither starting nor ending with
// a hyphen, of at most 63 bytes each and 253 in all, the last one not all
// digits (which would make it a malformed IPv4 address, as 256.1.1.1).
func validHostName(host string) bool {
	host = strings.TrimSuffix(host, ".")
	if host == "" || len(host) > 253 {
		return false
	}
	labels := strings.Split(host, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, c := range []byte(l) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	last := labels[len(labels)-1]
	return strings.Trim(last, "0123456789") != ""
}

// serveMetrics serves m's handler at addr until stop is called.
func serveMetrics(addr string, m *bridge.Metrics, con *console) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			con.note(slog.LevelError, fmt.Sprintf("metrics: %v", err), "serving metrics", "error", err.Error())
		}
	}()
	url := fmt.Sprintf("http://%s/metrics", ln.Addr())
	con.note(slog.LevelInfo, "metrics and health probes at "+url, "serving metrics and health probes", "url", url)
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}

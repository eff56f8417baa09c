package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/usage"
	"github.com/protoavro/protoavro/kafka/serde"
)

func cmdBridge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bridge", "--brokers H:P --group G --in TOPIC[,TOPIC...] | --in-regex RE --out TOPIC [-I DIR]... [--descriptor-set FILE]... [-m TYPE] [FILE.proto...] (flags and files in any order)", stderr)
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
		every    = fs.Duration("progress", 5*time.Second, "progress line `INTERVAL` on stderr (0: none)")
		session  = fs.Duration("session-timeout", 0, "group session `TIMEOUT` (default the client's, 45s)")
		passthru = fs.Bool("pass-through", false, "copy records unchanged (a baseline for benchmarks)")
		metrics  = fs.String("metrics-addr", "", "serve Prometheus metrics (/metrics) and health probes (/healthz, /readyz) at `ADDR`, host:port; a port alone (:9464) listens on loopback (default: none)")
		logFmt   = fs.String("log-format", "text", "log `FORMAT` on stderr: text or json")
		ttl      = fs.Duration("unknown-id-ttl", serde.DefaultUnknownIDTTL, "how long (`DURATION`) a schema ID the registry does not know is remembered as unknown: its records are dead-lettered without asking again (0: ask for every record)")
	)
	conn.registerBrokers(fs)
	conn.registerRegistry(fs)
	typ.register(fs)
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *in == "" && *inRegex == "" || *out == "" {
		return usage.Errorf("--in and --out are required (--in-regex in place of --in)")
	}
	if *in != "" && *inRegex != "" {
		return usage.Errorf("--in and --in-regex exclude each other")
	}
	var logger *slog.Logger
	switch *logFmt {
	case "text":
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	case "json":
		logger = slog.New(slog.NewJSONHandler(stderr, nil))
	default:
		return usage.Errorf("--log-format %q: want text or json", *logFmt)
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
	cc, err := conn.resolve(fs, stderr)
	if err != nil {
		return err
	}
	cfg := bridge.Config{
		Brokers: cc.Brokers, Group: *group, InstanceID: *instance,
		Inputs: strings.Split(*in, ","), Output: *out, DeadLetter: *dlq,
		Options: opts, Strategy: st, Check: *check,
		ExactlyOnce: *eos, TransactionalID: *txnID, TransactionTimeout: *txnTime, PassThrough: *passthru,
		MaxRecords: *maxRecs, BatchSize: *batch, SessionTimeout: *session,
		Logger: logger,
	}
	if *inRegex != "" {
		cfg.Inputs, cfg.InputRegex = []string{*inRegex}, true
	}
	if *every > 0 {
		cfg.Progress, cfg.ProgressEvery = stderr, *every
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
	if *metrics != "" {
		cfg.Metrics = bridge.NewMetrics()
		stop, err := serveMetrics(*metrics, cfg.Metrics, stderr)
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
	inputs := *in
	if *inRegex != "" {
		inputs = "/" + *inRegex + "/"
	}
	fmt.Fprintf(stderr, "protoavro-kafka: bridging %s → %s (group %s, %s, brokers %s, %s)\n", inputs, *out, *group, mode, strings.Join(cc.Brokers, ","), cc.Describe())
	sum, err := bridge.Run(ctx, cfg)
	fmt.Fprintf(stdout, "protoavro-kafka: summary: %s\n", sum)
	return err
}

// serveMetrics serves m's handler at addr (a port alone: on loopback) until
// stop is called.
func serveMetrics(addr string, m *bridge.Metrics, stderr io.Writer) (stop func(), err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usage.Errorf("--metrics-addr %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "protoavro-kafka: metrics: %v\n", err)
		}
	}()
	fmt.Fprintf(stderr, "protoavro-kafka: metrics and health probes at http://%s/metrics\n", ln.Addr())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/usage"
	"github.com/protoavro/protoavro/kafka/serde"
)

func cmdBridge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bridge", "--brokers H:P --group G --in TOPIC --out TOPIC [-I DIR]... [--descriptor-set FILE]... [-m TYPE] [FILE.proto...] [flags]", stderr)
	var (
		reg      registryFlags
		typ      typeFlags
		brokers  = fs.String("brokers", "127.0.0.1:9092", "seed `BROKERS`, comma-separated host:port")
		group    = fs.String("group", "protoavro-bridge", "consumer `GROUP`")
		instance = fs.String("instance-id", "", "static group membership `ID` (a restart takes the partitions back at once)")
		in       = fs.String("in", "", "input `TOPIC` (protobuf)")
		out      = fs.String("out", "", "output `TOPIC` (Confluent-framed Avro)")
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
		ttl      = fs.Duration("unknown-id-ttl", serde.DefaultUnknownIDTTL, "how long (`DURATION`) a schema ID the registry does not know is remembered as unknown: its records are dead-lettered without asking again (0: ask for every record)")
	)
	reg.register(fs)
	typ.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *in == "" || *out == "" {
		return usage.Errorf("--in and --out are required")
	}
	switch {
	case *ttl < 0:
		return usage.Errorf("--unknown-id-ttl %v: must not be negative (0 asks the registry for every record)", *ttl)
	case *ttl == 0:
		reg.unknownIDTTL = -1 // serde: remember nothing
	default:
		reg.unknownIDTTL = *ttl
	}
	st, err := serde.ParseStrategy(*strategy)
	if err != nil {
		return usage.Errorf("--strategy: %w", err)
	}
	opts, err := typ.mapping()
	if err != nil {
		return err
	}
	cfg := bridge.Config{
		Brokers: strings.Split(*brokers, ","), Group: *group, InstanceID: *instance,
		Input: *in, Output: *out, DeadLetter: *dlq,
		Options: opts, Strategy: st, Check: *check,
		ExactlyOnce: *eos, TransactionalID: *txnID, TransactionTimeout: *txnTime, PassThrough: *passthru,
		MaxRecords: *maxRecs, BatchSize: *batch, SessionTimeout: *session,
		Log: stderr,
	}
	if *every > 0 {
		cfg.Progress, cfg.ProgressEvery = stderr, *every
	}
	if typ.selected(fs.NArg()) {
		md, err := typ.load(ctx, fs.Args())
		if err != nil {
			return err
		}
		cfg.Type = md
	}
	if !*passthru {
		if cfg.Registry, err = reg.client(); err != nil {
			return err
		}
	}
	mode := "at-least-once"
	if *eos {
		mode = "exactly-once"
	}
	fmt.Fprintf(stderr, "protoavro-kafka: bridging %s → %s (group %s, %s)\n", *in, *out, *group, mode)
	sum, err := bridge.Run(ctx, cfg)
	fmt.Fprintf(stdout, "protoavro-kafka: summary: %s\n", sum)
	return err
}

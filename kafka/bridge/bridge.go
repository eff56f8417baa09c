// Package bridge runs the protobuf-topic → Avro-topic stream bridge: it
// consumes protobuf records (Confluent-framed, or raw of one message type) in
// a consumer group, converts them to Confluent-framed Avro with registered
// schemas, and produces them to another topic, on franz-go's kgo.
//
// Delivery is at-least-once by default: a batch's offsets are committed only
// after every record produced from it is acknowledged. With
// Config.ExactlyOnce, each batch is produced and its offsets committed in one
// Kafka transaction, so a crash neither loses nor duplicates records for
// consumers that read committed data. Keys, headers and timestamps are carried
// over. Records that cannot be converted go to a dead-letter topic, unchanged,
// with the reason in headers (HeaderError and the others). A registry that is
// down is retried, never dead-lettered.
package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Headers added to dead-lettered records.
const (
	HeaderError     = "protoavro.error"       // the reason, an error message
	HeaderClass     = "protoavro.error.class" // bad-header, unknown-id, bad-data, schema or other
	HeaderTopic     = "protoavro.source.topic"
	HeaderPartition = "protoavro.source.partition"
	HeaderOffset    = "protoavro.source.offset"
)

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
	// Input and Output are the topics read and written.
	Input, Output string
	// DeadLetter is the topic for records that cannot be converted; empty
	// means such a record stops the bridge with an error.
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
	// "protoavro-bridge-" + Group + "-" + InstanceID.
	TransactionalID string
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
	// (default 5 s).
	Progress      io.Writer
	ProgressEvery time.Duration
	// OnCommit, when set, is called after each committed batch with the
	// running totals.
	OnCommit func(Summary)
}

// Summary reports what a bridge did.
type Summary struct {
	// Records is the number of input records committed.
	Records int64
	// DeadLettered is how many of them went to the dead-letter topic.
	DeadLettered int64
	// Elapsed is the running time.
	Elapsed time.Duration
	// Lag is the number of input records behind the high watermarks at
	// the last fetch, over the instance's partitions.
	Lag int64
}

// Rate returns records per second.
func (s Summary) Rate() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Records) / s.Elapsed.Seconds()
}

// String formats the summary on one line.
func (s Summary) String() string {
	return fmt.Sprintf("%d records (%d dead-lettered) in %s, %.0f records/s, lag %d",
		s.Records, s.DeadLettered, s.Elapsed.Round(time.Millisecond), s.Rate(), s.Lag)
}

// ErrConfig reports an invalid Config.
var ErrConfig = errors.New("bridge: invalid configuration")

type bridge struct {
	cfg   Config
	ser   *serde.Serializer
	pdec  *serde.ProtoDecoder
	codec *protoavro.Codec
	start time.Time

	records, dead atomic.Int64
	lagMu         sync.Mutex
	lag           map[int32]int64
}

// Run runs the bridge until ctx is done (the batch in flight is finished and
// committed first), MaxRecords are committed, or an error. It returns the
// summary in every case.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	if len(cfg.Brokers) == 0 || cfg.Group == "" || cfg.Input == "" || cfg.Output == "" {
		return Summary{}, fmt.Errorf("%w: brokers, group, input and output topics are required", ErrConfig)
	}
	if cfg.Registry == nil && !cfg.PassThrough {
		return Summary{}, fmt.Errorf("%w: a schema registry is required", ErrConfig)
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 10000
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = 5 * time.Second
	}
	b := &bridge{cfg: cfg, start: time.Now(), lag: map[int32]int64{}}
	if !cfg.PassThrough {
		b.ser = serde.NewSerializer(cfg.Registry, serde.SerializerOptions{Strategy: cfg.Strategy, Options: cfg.Options, Check: cfg.Check})
		if cfg.Type != nil {
			c, err := cfg.Options.Codec(cfg.Type)
			if err != nil {
				return Summary{}, fmt.Errorf("%w: %w", ErrConfig, err)
			}
			b.codec = c
		} else {
			b.pdec = serde.NewProtoDecoder(cfg.Registry, cfg.Options)
		}
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(cfg.Input),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.ProducerBatchMaxBytes(1 << 20),
	}
	if cfg.InstanceID != "" {
		opts = append(opts, kgo.InstanceID(cfg.InstanceID))
	}
	if cfg.SessionTimeout > 0 {
		opts = append(opts, kgo.SessionTimeout(cfg.SessionTimeout), kgo.HeartbeatInterval(cfg.SessionTimeout/5))
	}

	stopProgress := b.progress()
	var err error
	if cfg.ExactlyOnce {
		err = b.runTransactional(ctx, opts)
	} else {
		err = b.runAtLeastOnce(ctx, opts)
	}
	stopProgress()
	return b.summary(), err
}

func (b *bridge) summary() Summary {
	b.lagMu.Lock()
	var lag int64
	for _, l := range b.lag {
		lag += l
	}
	b.lagMu.Unlock()
	return Summary{Records: b.records.Load(), DeadLettered: b.dead.Load(), Elapsed: time.Since(b.start), Lag: lag}
}

func (b *bridge) progress() (stop func()) {
	if b.cfg.Progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(b.cfg.ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintf(b.cfg.Progress, "protoavro-kafka: %s\n", b.summary())
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// noteLag records the lag of each fetched partition.
func (b *bridge) noteLag(fs kgo.Fetches) {
	b.lagMu.Lock()
	defer b.lagMu.Unlock()
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		if n := len(p.Records); n > 0 {
			b.lag[p.Partition] = max(0, p.HighWatermark-(p.Records[n-1].Offset+1))
		}
	})
}

// fetchErr returns the first fatal error of a poll: nil for none or for the
// end of the run (ctx done, client closed).
func fetchErr(ctx context.Context, fs kgo.Fetches) error {
	if fs.IsClientClosed() || ctx.Err() != nil {
		return nil
	}
	for _, fe := range fs.Errors() {
		if errors.Is(fe.Err, context.Canceled) || errors.Is(fe.Err, context.DeadlineExceeded) {
			continue
		}
		return fmt.Errorf("bridge: fetching %s[%d]: %w", fe.Topic, fe.Partition, fe.Err)
	}
	return nil
}

// batchTimeout bounds finishing one batch after ctx is done.
const batchTimeout = 2 * time.Minute

func (b *bridge) done(ctx context.Context) bool {
	return ctx.Err() != nil || b.cfg.MaxRecords > 0 && b.records.Load() >= b.cfg.MaxRecords
}

func (b *bridge) committed(n, dead int) {
	b.records.Add(int64(n))
	b.dead.Add(int64(dead))
	if b.cfg.OnCommit != nil {
		b.cfg.OnCommit(b.summary())
	}
}

func (b *bridge) runAtLeastOnce(ctx context.Context, opts []kgo.Opt) error {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	defer cl.CloseAllowingRebalance()
	for !b.done(ctx) {
		fs := cl.PollRecords(ctx, b.cfg.BatchSize)
		if err := fetchErr(ctx, fs); err != nil {
			return err
		}
		recs := fs.Records()
		if len(recs) == 0 {
			cl.AllowRebalance()
			continue
		}
		b.noteLag(fs)
		// The batch is finished even when ctx is done: a clean stop commits
		// what it has produced.
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), batchTimeout)
		outs, dead, err := b.convertAll(bctx, ctx, recs)
		if err == nil {
			err = cl.ProduceSync(bctx, outs...).FirstErr()
			if err != nil {
				err = fmt.Errorf("bridge: producing: %w", err)
			}
		}
		if err == nil {
			if cerr := cl.CommitRecords(bctx, recs...); cerr != nil {
				err = fmt.Errorf("bridge: committing offsets: %w", cerr)
			}
		}
		cancel()
		if err != nil {
			return err
		}
		b.committed(len(recs), dead)
		cl.AllowRebalance()
	}
	return nil
}

func (b *bridge) runTransactional(ctx context.Context, opts []kgo.Opt) error {
	id := b.cfg.TransactionalID
	if id == "" {
		id = "protoavro-bridge-" + b.cfg.Group + "-" + b.cfg.InstanceID
	}
	opts = append(opts, kgo.TransactionalID(id), kgo.TransactionTimeout(30*time.Second))
	sess, err := kgo.NewGroupTransactSession(opts...)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	defer sess.Close()
	for !b.done(ctx) {
		fs := sess.PollRecords(ctx, b.cfg.BatchSize)
		if err := fetchErr(ctx, fs); err != nil {
			return err
		}
		recs := fs.Records()
		if len(recs) == 0 {
			sess.AllowRebalance()
			continue
		}
		b.noteLag(fs)
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), batchTimeout)
		outs, dead, err := b.convertAll(bctx, ctx, recs)
		if err != nil {
			cancel()
			return err
		}
		if err := sess.Begin(); err != nil {
			cancel()
			return fmt.Errorf("bridge: beginning transaction: %w", err)
		}
		var (
			mu      sync.Mutex
			perr    error
			pending sync.WaitGroup
		)
		for _, o := range outs {
			pending.Add(1)
			sess.Produce(bctx, o, func(_ *kgo.Record, err error) {
				defer pending.Done()
				if err != nil {
					mu.Lock()
					perr = cmp(perr, err)
					mu.Unlock()
				}
			})
		}
		pending.Wait()
		try := kgo.TryCommit
		if perr != nil {
			try = kgo.TryAbort
		}
		committed, err := sess.End(bctx, try)
		cancel()
		if err != nil {
			return fmt.Errorf("bridge: ending transaction: %w", err)
		}
		if perr != nil {
			return fmt.Errorf("bridge: producing: %w", perr)
		}
		if committed {
			b.committed(len(recs), dead)
		}
	}
	return nil
}

func cmp(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// convertAll converts a batch; runCtx is the run's context, whose end stops
// retries against a registry that is down.
func (b *bridge) convertAll(ctx, runCtx context.Context, recs []*kgo.Record) ([]*kgo.Record, int, error) {
	outs := make([]*kgo.Record, len(recs))
	// Records are converted on GOMAXPROCS goroutines, in contiguous
	// chunks; the output keeps the input's order.
	workers := min(runtime.GOMAXPROCS(0), max(1, len(recs)/256))
	chunk := (len(recs) + workers - 1) / workers
	errs := make([]error, workers)
	deads := make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w * chunk; i < min(len(recs), (w+1)*chunk); i++ {
				r := recs[i]
				o, err := b.convertRetrying(ctx, runCtx, r)
				if err != nil {
					if errors.Is(err, serde.ErrRegistryUnavailable) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
						errs[w] = fmt.Errorf("bridge: %s[%d] offset %d: %w", r.Topic, r.Partition, r.Offset, err)
						return
					}
					if b.cfg.DeadLetter == "" {
						errs[w] = fmt.Errorf("bridge: %s[%d] offset %d (no dead-letter topic): %w", r.Topic, r.Partition, r.Offset, err)
						return
					}
					o = b.deadLetter(r, err)
					deads[w]++
				}
				outs[i] = o
			}
		}()
	}
	wg.Wait()
	dead := 0
	for w := range workers {
		if errs[w] != nil {
			return nil, 0, errs[w]
		}
		dead += deads[w]
	}
	return outs, dead, nil
}

// convertRetrying converts one record, retrying while the registry is down
// until runCtx is done.
func (b *bridge) convertRetrying(ctx, runCtx context.Context, r *kgo.Record) (*kgo.Record, error) {
	wait := 100 * time.Millisecond
	for {
		o, err := b.convert(ctx, r)
		if err == nil || !errors.Is(err, serde.ErrRegistryUnavailable) {
			return o, err
		}
		select {
		case <-runCtx.Done():
			return nil, err
		case <-ctx.Done():
			return nil, err
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

func (b *bridge) convert(ctx context.Context, r *kgo.Record) (*kgo.Record, error) {
	o := &kgo.Record{Topic: b.cfg.Output, Key: r.Key, Headers: r.Headers, Timestamp: r.Timestamp}
	if b.cfg.PassThrough {
		o.Value = r.Value
		return o, nil
	}
	codec, wire := b.codec, r.Value
	if b.pdec != nil {
		pr, err := b.pdec.Decode(ctx, r.Value)
		if err != nil {
			return nil, err
		}
		codec, wire = pr.Codec, pr.Wire
	}
	v, err := b.ser.EncodeWire(ctx, make([]byte, 0, len(wire)+16), b.cfg.Output, codec, wire)
	if err != nil {
		return nil, err
	}
	o.Value = v
	return o, nil
}

// errorClass names the kind of a conversion error for HeaderClass.
func errorClass(err error) string {
	switch {
	case errors.Is(err, serde.ErrBadMagic), errors.Is(err, serde.ErrTruncatedHeader), errors.Is(err, serde.ErrBadIndexes):
		return "bad-header"
	case errors.Is(err, serde.ErrUnknownID):
		return "unknown-id"
	case errors.Is(err, serde.ErrIncompatible), errors.Is(err, serde.ErrBadSchema), errors.Is(err, serde.ErrWrongSchemaType):
		return "schema"
	case errors.Is(err, protoavro.ErrMalformed), errors.Is(err, protoavro.ErrTruncated), errors.Is(err, protoavro.ErrOutOfRange),
		errors.Is(err, protoavro.ErrUnknownEnum), errors.Is(err, protoavro.ErrMissingRequired), errors.Is(err, protoavro.ErrTooDeep):
		return "bad-data"
	}
	return "other"
}

func (b *bridge) deadLetter(r *kgo.Record, err error) *kgo.Record {
	h := make([]kgo.RecordHeader, 0, len(r.Headers)+5)
	h = append(h, r.Headers...)
	h = append(h,
		kgo.RecordHeader{Key: HeaderError, Value: []byte(err.Error())},
		kgo.RecordHeader{Key: HeaderClass, Value: []byte(errorClass(err))},
		kgo.RecordHeader{Key: HeaderTopic, Value: []byte(r.Topic)},
		kgo.RecordHeader{Key: HeaderPartition, Value: []byte(strconv.Itoa(int(r.Partition)))},
		kgo.RecordHeader{Key: HeaderOffset, Value: []byte(strconv.FormatInt(r.Offset, 10))},
	)
	return &kgo.Record{Topic: b.cfg.DeadLetter, Key: r.Key, Value: r.Value, Headers: h, Timestamp: r.Timestamp}
}

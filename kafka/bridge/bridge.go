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
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Headers added to dead-lettered records.
const (
	HeaderError     = "protoavro.error"       // the reason, an error message
	HeaderClass     = "protoavro.error.class" // bad-header, unknown-id, bad-data, schema, too-large or other
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
	// (default 5 s).
	Progress      io.Writer
	ProgressEvery time.Duration
	// OnCommit, when set, is called after each committed batch with the
	// running totals.
	OnCommit func(Summary)
	// KafkaOpts are extra franz-go client options (TLS, SASL, a client ID,
	// a rack, ...), applied after the bridge's own, so they may override
	// them.
	KafkaOpts []kgo.Opt
	// Log, when set, receives a line for each error the bridge continues
	// after: an informational fetch error (data loss the client reset past,
	// a group session lost and rejoined, a retriable broker error; see
	// Summary.FetchWarnings) or an offset commit the group refused because
	// it had moved on (at-least-once; see Summary.CommitWarnings).
	Log io.Writer
}

// Summary reports what a bridge did.
type Summary struct {
	// Records is the number of input records committed. The records of a
	// batch whose commit the group refused (CommitWarnings) are not
	// counted, though their output was produced.
	Records int64
	// DeadLettered is how many of them went to the dead-letter topic.
	DeadLettered int64
	// Elapsed is the running time.
	Elapsed time.Duration
	// Lag is the number of input records behind the last stable offsets
	// (the end of what a read-committed consumer can read; the high
	// watermarks when the broker reports none) at the last fetch, over the
	// instance's partitions. Transaction markers (which the bridge reads
	// as control records, and does not convert) and aborted records count
	// until the marker after them is read.
	Lag int64
	// FetchWarnings is the number of informational fetch errors the bridge
	// continued after (Config.Log).
	FetchWarnings int64
	// CommitWarnings is the number of batches (at-least-once) whose offset
	// commit the group refused because it had moved on without this
	// member's generation (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID,
	// REBALANCE_IN_PROGRESS, STALE_MEMBER_EPOCH), which the bridge continued
	// after (Config.Log): their output was produced, and their offsets stay
	// uncommitted until a later batch of the same partitions commits, so
	// whoever has the partitions next may read them again (duplicates, as
	// at-least-once allows). The client rejoins the group on its own.
	CommitWarnings int64
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
	out := fmt.Sprintf("%d records (%d dead-lettered) in %s, %.0f records/s, lag %d",
		s.Records, s.DeadLettered, s.Elapsed.Round(time.Millisecond), s.Rate(), s.Lag)
	if s.FetchWarnings > 0 {
		out += fmt.Sprintf(", %d fetch warnings", s.FetchWarnings)
	}
	if s.CommitWarnings > 0 {
		out += fmt.Sprintf(", %d commit warnings", s.CommitWarnings)
	}
	return out
}

// ErrConfig reports an invalid Config.
var ErrConfig = errors.New("bridge: invalid configuration")

type bridge struct {
	cfg   Config
	ser   *serde.Serializer
	pdec  *serde.ProtoDecoder
	codec *protoavro.Codec
	start time.Time

	records, dead  atomic.Int64
	warnings       atomic.Int64 // fetch warnings
	commitWarnings atomic.Int64
	// leaving is set when the loop ends: the partitions the client revokes
	// as it leaves the group keep their lag, for the final summary.
	leaving atomic.Bool
	lagMu   sync.Mutex
	lag     map[int32]int64
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
		// Transaction markers come as control records, so that the lag
		// and the committed offsets move past them (a transaction's marker
		// is the last offset of its partition until a later record comes);
		// they are not converted. Aborted records are still dropped.
		kgo.KeepControlRecords(),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.ProducerBatchMaxBytes(1 << 20),
	}
	// The lag is over the instance's partitions: a partition it no longer
	// has drops out.
	opts = append(opts, kgo.OnPartitionsRevoked(b.forgetLag), kgo.OnPartitionsLost(b.forgetLag))
	if cfg.InstanceID != "" {
		opts = append(opts, kgo.InstanceID(cfg.InstanceID))
	}
	if cfg.SessionTimeout > 0 {
		opts = append(opts, kgo.SessionTimeout(cfg.SessionTimeout), kgo.HeartbeatInterval(cfg.SessionTimeout/5))
	}
	opts = append(opts, cfg.KafkaOpts...)

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
	return Summary{Records: b.records.Load(), DeadLettered: b.dead.Load(), Elapsed: time.Since(b.start), Lag: lag,
		FetchWarnings: b.warnings.Load(), CommitWarnings: b.commitWarnings.Load()}
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

// noteLag records the lag of each fetched partition: from the last record
// read (a transaction marker too: KeepControlRecords) to the last stable
// offset, the end of what a read-committed consumer can read (records of
// open transactions are not readable yet), or to the high watermark when the
// broker reports no last stable offset.
func (b *bridge) noteLag(fs kgo.Fetches) {
	b.lagMu.Lock()
	defer b.lagMu.Unlock()
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		if n := len(p.Records); n > 0 {
			end := p.HighWatermark
			if p.LastStableOffset >= 0 {
				end = min(end, p.LastStableOffset)
			}
			b.lag[p.Partition] = max(0, end-(p.Records[n-1].Offset+1))
		}
	})
}

// forgetLag drops the lag of partitions the instance no longer has (but
// not as it leaves the group at the end of the run: the final summary
// reports the lag it left).
func (b *bridge) forgetLag(_ context.Context, _ *kgo.Client, gone map[string][]int32) {
	if b.leaving.Load() {
		return
	}
	b.lagMu.Lock()
	defer b.lagMu.Unlock()
	for _, ps := range gone[b.cfg.Input] {
		delete(b.lag, ps)
	}
}

// fetchErr returns the first fatal error of a poll: nil for none, for the
// end of the run (ctx done, client closed) and for informational errors,
// which are counted and logged (Config.Log).
func (b *bridge) fetchErr(ctx context.Context, fs kgo.Fetches) error {
	if fs.IsClientClosed() || ctx.Err() != nil {
		return nil
	}
	for _, fe := range fs.Errors() {
		if errors.Is(fe.Err, context.Canceled) || errors.Is(fe.Err, context.DeadlineExceeded) {
			continue
		}
		what := fmt.Sprintf("fetching %s[%d]", fe.Topic, fe.Partition)
		if errors.Is(fe.Err, kerr.UnknownTopicID) {
			return recreated(what, fe.Topic, fe.Err)
		}
		err := fmt.Errorf("bridge: %s: %w", what, fe.Err)
		if !informational(fe.Err) {
			return err
		}
		b.warnings.Add(1)
		b.warn(err, "")
	}
	return nil
}

// recreated returns the error that stops the bridge when topic was deleted
// and created again while it ran: kgo answers UNKNOWN_TOPIC_ID for the old
// topic's ID, from a fetch (after retrying it for a new topic's ID that the
// brokers have not all learned yet) or from an offset commit (refused by the
// client, or by a broker that no longer has the ID). kgo never reads the new
// topic of the same name (its README, "Topic recreation": it is refused until
// purged from the client), so going on would convert nothing more. The
// broker drops the group's offsets of a deleted topic: a restart reads the
// new topic from its start.
func recreated(what, topic string, err error) error {
	return fmt.Errorf("bridge: %s: topic %q was deleted and recreated while the bridge ran, and the client does not read the new topic; restart the bridge to read it from its start: %w", what, topic, err)
}

// warn logs an error the bridge continues after (Config.Log), with why it
// may.
func (b *bridge) warn(err error, why string) {
	if b.cfg.Log == nil {
		return
	}
	if why != "" {
		why = ": " + why
	}
	fmt.Fprintf(b.cfg.Log, "protoavro-kafka: warning: %v (continuing%s)\n", err, why)
}

// informational reports a fetch error kgo recovers from on its own, which
// the bridge continues after (as kgo's Fetches.Errors documents them):
//   - *kgo.ErrDataLoss: the log shrank below the consumed offset (a
//     truncation, a topic deleted and recreated on a broker without topic
//     IDs); the client has reset to a valid offset and consumes on. Records may have been lost upstream;
//     the bridge cannot bring them back.
//   - *kgo.ErrGroupSession: the member lost its group session (it was
//     kicked after a batch longer than the session, or could not reach the
//     coordinator) and the client rejoins; unless the cause is an
//     authorization or authentication refusal, which rejoining cannot fix,
//     or FENCED_INSTANCE_ID: another instance took over the static
//     membership ID (Config.InstanceID), and rejoining under it would fence
//     that one in turn, the two taking the partitions from each other.
//   - a retriable kerr.Error (kgo strips most of these itself); not
//     UNKNOWN_TOPIC_ID, which fetchErr takes first (see recreated).
//
// Everything else is fatal: non-retriable broker errors (authorization, an
// unsupported version), *kgo.ErrDecompressTooLarge (the partition is not
// fetched again), and untyped errors (a batch that does not parse: data
// corruption; a failed offset validation).
func informational(err error) bool {
	var loss *kgo.ErrDataLoss
	var session *kgo.ErrGroupSession
	var ke *kerr.Error
	switch {
	case errors.As(err, &loss):
		return true
	case errors.As(err, &session):
		return !refused(session.Err) && !errors.Is(session.Err, kerr.FencedInstanceID)
	case errors.As(err, &ke):
		return ke.Retriable
	}
	return false
}

// refused reports an authorization or authentication refusal.
func refused(err error) bool {
	for _, e := range []error{kerr.GroupAuthorizationFailed, kerr.TopicAuthorizationFailed,
		kerr.ClusterAuthorizationFailed, kerr.TransactionalIDAuthorizationFailed,
		kerr.SaslAuthenticationFailed, kerr.DelegationTokenAuthorizationFailed} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// batchTimeout bounds finishing one batch after ctx is done.
var batchTimeout = 2 * time.Minute

// errStopTimeout ends a batch not finished within batchTimeout of a stop.
var errStopTimeout = errors.New("bridge: batch not finished in time after the stop")

// batchContext returns the context of one batch: it is not cancelled with
// ctx, so that a clean stop finishes and commits the batch in flight, but it
// ends batchTimeout after ctx is done. While ctx is not done a batch has no
// deadline: a registry that is down is retried until it is back.
func batchContext(ctx context.Context) (context.Context, context.CancelFunc) {
	bctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(batchTimeout)
		defer t.Stop()
		select {
		case <-bctx.Done():
		case <-t.C:
			cancel(errStopTimeout)
		}
	})
	return bctx, func() { stop(); cancel(nil) }
}

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

// loop polls batches until the run is done and hands each to batch, which
// produces and commits it (committed false: the transaction was aborted).
// Rebalances happen between batches only.
func (b *bridge) loop(ctx context.Context, poll func(context.Context, int) kgo.Fetches, allowRebalance func(),
	batch func(bctx, runCtx context.Context, recs, data []*kgo.Record) (committed bool, dead int, err error)) error {
	defer b.leaving.Store(true)
	for !b.done(ctx) {
		fs := poll(ctx, b.cfg.BatchSize)
		if err := b.fetchErr(ctx, fs); err != nil {
			return err
		}
		recs := fs.Records()
		if len(recs) == 0 {
			allowRebalance()
			continue
		}
		b.noteLag(fs)
		// The batch is finished even when ctx is done: a clean stop commits
		// what it has produced.
		bctx, cancel := batchContext(ctx)
		data := dataRecords(recs)
		committed, dead, err := batch(bctx, ctx, recs, data)
		cancel()
		if err != nil {
			return err
		}
		if committed {
			b.committed(len(data), dead)
		}
		allowRebalance()
	}
	return nil
}

// dataRecords returns recs without the control records (transaction
// markers) among them: the records to convert. recs itself is returned when
// it has none.
func dataRecords(recs []*kgo.Record) []*kgo.Record {
	n := 0
	for _, r := range recs {
		if !r.Attrs.IsControl() {
			n++
		}
	}
	if n == len(recs) {
		return recs
	}
	data := make([]*kgo.Record, 0, n)
	for _, r := range recs {
		if !r.Attrs.IsControl() {
			data = append(data, r)
		}
	}
	return data
}

// producer produces records asynchronously and keeps the first error.
type producer struct {
	produce func(context.Context, *kgo.Record, func(*kgo.Record, error))
	pending sync.WaitGroup
	mu      sync.Mutex
	err     error
	// tooLarge are the inputs whose output was refused as too large (the
	// Avro form of a record may be larger than its protobuf form), to be
	// dead-lettered; tooLargeErr is the first such refusal.
	tooLarge    []*kgo.Record
	tooLargeErr error
}

// send produces o, converted from in; in is nil for a dead letter.
func (p *producer) send(ctx context.Context, o, in *kgo.Record) {
	p.pending.Add(1)
	p.produce(ctx, o, func(_ *kgo.Record, err error) {
		if err != nil {
			p.mu.Lock()
			if in != nil && errors.Is(err, kerr.MessageTooLarge) {
				p.tooLarge = append(p.tooLarge, in)
				if p.tooLargeErr == nil {
					p.tooLargeErr = err
				}
			} else if p.err == nil {
				p.err = err
			}
			p.mu.Unlock()
		}
		p.pending.Done()
	})
}

// emit returns the function that sends the output records of a batch.
func (b *bridge) emit(ctx context.Context, p *producer) func(o, in *kgo.Record) {
	return func(o, in *kgo.Record) {
		if o.Topic == b.cfg.DeadLetter {
			in = nil
		}
		p.send(ctx, o, in)
	}
}

// deadLetterTooLarge dead-letters the records whose output p's producer
// refused as too large, after p.wait, and returns how many; without a
// dead-letter topic such a record is an error naming it.
func (b *bridge) deadLetterTooLarge(ctx context.Context, p *producer, cl *kgo.Client) (int, error) {
	if len(p.tooLarge) == 0 {
		return 0, nil
	}
	err := fmt.Errorf("bridge: output record too large to produce: %w", p.tooLargeErr)
	if b.cfg.DeadLetter == "" {
		r := p.tooLarge[0]
		return 0, fmt.Errorf("bridge: %s[%d] offset %d (no dead-letter topic): %w", r.Topic, r.Partition, r.Offset, err)
	}
	q := &producer{produce: p.produce}
	dead := make([]kgo.Record, len(p.tooLarge))
	for i, r := range p.tooLarge {
		b.deadLetter(r, err, &dead[i])
		q.send(ctx, &dead[i], nil)
	}
	return len(dead), q.wait(ctx, cl)
}

// wait flushes cl (no waiting out the linger) and waits for every record
// sent; it returns the first produce error.
func (p *producer) wait(ctx context.Context, cl *kgo.Client) error {
	ferr := cl.Flush(ctx)
	p.pending.Wait()
	if p.err != nil {
		return fmt.Errorf("bridge: producing: %w", p.err)
	}
	if ferr != nil {
		return fmt.Errorf("bridge: producing: %w", ferr)
	}
	return nil
}

func (b *bridge) runAtLeastOnce(ctx context.Context, opts []kgo.Opt) error {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	defer cl.CloseAllowingRebalance()
	return b.loop(ctx, cl.PollRecords, cl.AllowRebalance, func(bctx, runCtx context.Context, recs, data []*kgo.Record) (bool, int, error) {
		// Offsets are committed only once every record produced from the
		// batch is acknowledged; after an error nothing is committed. They
		// cover the batch's transaction markers too.
		p := &producer{produce: cl.Produce}
		dead, err := b.convertAll(bctx, runCtx, data, b.emit(bctx, p))
		if werr := p.wait(bctx, cl); err == nil {
			err = werr
		}
		if err == nil {
			var n int
			n, err = b.deadLetterTooLarge(bctx, p, cl)
			dead += n
		}
		if err != nil {
			return false, 0, err
		}
		if err := cl.CommitRecords(bctx, recs...); err != nil {
			return false, 0, b.commitErr(err, len(data))
		}
		return true, dead, nil
	})
}

// commitErr returns the error that stops the bridge after an at-least-once
// commit of n records failed with err, or nil when the bridge goes on: the
// group moved on without this member's generation (groupMovedOn), which
// is counted and logged (Summary.CommitWarnings).
//
// Going on loses nothing. The batch's output was produced and acknowledged
// before the commit; its offsets stay uncommitted (kgo updates its view of
// the committed offsets only from a partition answered without an error,
// and the bridge commits by record, not from that view), so whoever has a
// partition next reads its records again from the last committed offset
// (duplicates, as at-least-once allows), and a partition this member keeps
// through the rejoin is fetched on from where it was, its next batch's
// commit covering this one's records too. The client rejoins by itself:
// kgo rejoins at once after ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID from a
// commit, and after REBALANCE_IN_PROGRESS its heartbeat rejoins; a
// rebalance waits for the loop's AllowRebalance (BlockRebalanceOnPoll),
// after this batch.
func (b *bridge) commitErr(err error, n int) error {
	switch {
	case groupMovedOn(err):
		b.commitWarnings.Add(1)
		b.warn(fmt.Errorf("bridge: committing offsets of %d records: %w", n, err),
			"the group moved on; the records were produced, and the partitions' next owner may read them again")
		return nil
	case errors.Is(err, kerr.UnknownTopicID):
		return recreated(fmt.Sprintf("committing offsets of %d records", n), b.cfg.Input, err)
	case errors.Is(err, kerr.FencedInstanceID):
		return fmt.Errorf("bridge: committing offsets: another instance took over instance ID %q, this one stops rather than fence it in turn: %w", b.cfg.InstanceID, err)
	}
	return fmt.Errorf("bridge: committing offsets of %d records: %w", n, err)
}

// groupMovedOn reports a commit the group refused because it had moved on
// without this member's generation: the member was fenced by a new
// generation (ILLEGAL_GENERATION), removed from the group
// (UNKNOWN_MEMBER_ID: its session expired, as after a batch longer than
// the session timeout), or the group is rebalancing
// (REBALANCE_IN_PROGRESS), or, under KIP-848's consumer protocol, the
// member's epoch is older than the coordinator's (STALE_MEMBER_EPOCH: the
// next-generation form of ILLEGAL_GENERATION; the member learns its new
// epoch from its next heartbeat; kgo retries such a commit itself while
// the epoch changes, and returns the error when it did not). Not
// FENCED_INSTANCE_ID: another instance took over the static membership ID,
// and rejoining would fence that one.
func groupMovedOn(err error) bool {
	return errors.Is(err, kerr.IllegalGeneration) || errors.Is(err, kerr.UnknownMemberID) ||
		errors.Is(err, kerr.RebalanceInProgress) || errors.Is(err, kerr.StaleMemberEpoch)
}

// uniqueSuffix names this process among the instances of a group: its
// host, process ID and 8 random hex digits.
func uniqueSuffix() string {
	host, _ := os.Hostname()
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("%s-%d-%x", host, os.Getpid(), r)
}

func (b *bridge) runTransactional(ctx context.Context, opts []kgo.Opt) error {
	id := b.cfg.TransactionalID
	switch {
	case id != "":
	case b.cfg.InstanceID != "":
		id = "protoavro-bridge-" + b.cfg.Group + "-" + b.cfg.InstanceID
	default:
		// Instances of a group without static membership must not share a
		// transactional ID: each would fence the one before. Zombies are
		// fenced by the group's generation instead (KIP-447).
		id = "protoavro-bridge-" + b.cfg.Group + "-" + uniqueSuffix()
	}
	timeout := b.cfg.TransactionTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	opts = append(opts, kgo.TransactionalID(id), kgo.TransactionTimeout(timeout))
	sess, err := kgo.NewGroupTransactSession(opts...)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	// As in the at-least-once path: a stop between a poll and its
	// AllowRebalance would otherwise leave Close waiting for a rebalance
	// that BlockRebalanceOnPoll holds back (seen: two instances stopping
	// at once, both blocked in LeaveGroup).
	defer sess.Client().CloseAllowingRebalance()
	return b.loop(ctx, sess.PollRecords, sess.AllowRebalance, func(bctx, runCtx context.Context, _, data []*kgo.Record) (bool, int, error) {
		if err := sess.Begin(); err != nil {
			return false, 0, fmt.Errorf("bridge: beginning transaction: %w", err)
		}
		// The batch's records and its offsets are committed together, or
		// the transaction is aborted.
		p := &producer{produce: sess.Produce}
		dead, err := b.convertAll(bctx, runCtx, data, b.emit(bctx, p))
		if werr := p.wait(bctx, sess.Client()); err == nil {
			err = werr
		}
		if err == nil {
			var n int
			n, err = b.deadLetterTooLarge(bctx, p, sess.Client())
			dead += n
		}
		try := kgo.TryCommit
		if err != nil {
			try = kgo.TryAbort
		}
		committed, eerr := sess.End(bctx, try)
		if err != nil {
			return false, 0, err
		}
		if eerr != nil {
			return false, 0, fmt.Errorf("bridge: ending transaction: %w", eerr)
		}
		return committed, dead, nil
	})
}

// chunkRecords is the number of records a conversion worker takes at a time.
const chunkRecords = 512

// convertAll converts a batch on GOMAXPROCS goroutines, in chunks, and hands
// the output records (with their inputs) to emit in the input's order as soon as each chunk is
// done, so that producing overlaps converting. runCtx is the run's context,
// whose end stops retries against a registry that is down. After an error,
// the records of the chunks before the failing one have been emitted, and
// the work on the chunks after it is abandoned (its retries end).
func (b *bridge) convertAll(ctx, runCtx context.Context, recs []*kgo.Record, emit func(o, in *kgo.Record)) (int, error) {
	ctx, abandon := context.WithCancel(ctx)
	type chunk struct {
		outs []kgo.Record
		dead int
		err  error
		done chan struct{}
	}
	chunks := make([]chunk, (len(recs)+chunkRecords-1)/chunkRecords)
	for c := range chunks {
		chunks[c].done = make(chan struct{})
	}
	var (
		next atomic.Int64
		stop atomic.Bool
		wg   sync.WaitGroup
	)
	defer wg.Wait()
	defer abandon()
	defer stop.Store(true)
	for range min(runtime.GOMAXPROCS(0), len(chunks)) {
		wg.Go(func() {
			var w worker
			for {
				c := int(next.Add(1) - 1)
				if c >= len(chunks) {
					return
				}
				ch := &chunks[c]
				if !stop.Load() {
					ch.outs, ch.dead, ch.err = b.convertChunk(ctx, runCtx, recs[c*chunkRecords:min(len(recs), (c+1)*chunkRecords)], &w)
				}
				close(ch.done)
			}
		})
	}
	dead := 0
	for c := range chunks {
		<-chunks[c].done
		if err := chunks[c].err; err != nil {
			return 0, err
		}
		for i := range chunks[c].outs {
			emit(&chunks[c].outs[i], recs[c*chunkRecords+i])
		}
		dead += chunks[c].dead
	}
	return dead, nil
}

// convertChunk converts consecutive records into one slice of records whose
// values share the worker's blocks.
func (b *bridge) convertChunk(ctx, runCtx context.Context, recs []*kgo.Record, w *worker) ([]kgo.Record, int, error) {
	outs := make([]kgo.Record, len(recs))
	dead := 0
	for i, r := range recs {
		err := b.convertRetrying(ctx, runCtx, r, &outs[i], w)
		if err == nil {
			continue
		}
		// Not the record's fault: a registry that is down (after the retries)
		// or refuses the bridge's credentials, or the batch's end.
		if errors.Is(err, serde.ErrRegistryUnavailable) || errors.Is(err, serde.ErrRegistryAccess) ||
			errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, 0, fmt.Errorf("bridge: %s[%d] offset %d: %w", r.Topic, r.Partition, r.Offset, err)
		}
		if b.cfg.DeadLetter == "" {
			return nil, 0, fmt.Errorf("bridge: %s[%d] offset %d (no dead-letter topic): %w", r.Topic, r.Partition, r.Offset, err)
		}
		b.deadLetter(r, err, &outs[i])
		dead++
	}
	return outs, dead, nil
}

// worker is the state of one conversion goroutine: the block the values of
// converted records are appended to, so that a record costs no allocation of
// its own (a block lives as long as any record in it, at most until its batch
// is produced), and the schemas of the record before, which the next one most
// likely shares, so that a record costs no cache lookup either.
type worker struct {
	buf []byte

	inID    uint32
	indexes []int
	in      *protoavro.Codec // of inID and indexes
	out     *protoavro.Codec
	outID   uint32 // the Avro schema ID of out
}

const arenaBlock = 64 << 10

// dst returns an empty slice to append a value of about size bytes to.
func (w *worker) dst(size int) []byte {
	if cap(w.buf)-len(w.buf) < size {
		w.buf = make([]byte, 0, max(arenaBlock, size))
	}
	return w.buf[len(w.buf):len(w.buf)]
}

// keep takes v, appended to the last dst, out of the block. A v that grew
// past the block is its own allocation and takes nothing.
func (w *worker) keep(v []byte) []byte {
	if cap(v) == cap(w.buf)-len(w.buf) {
		w.buf = w.buf[:len(w.buf)+len(v)]
		return v[:len(v):len(v)]
	}
	return v
}

// inCodec returns the codec of a framed protobuf record's message type and
// its protobuf bytes.
func (w *worker) inCodec(ctx context.Context, pdec *serde.ProtoDecoder, value []byte) (*protoavro.Codec, []byte, error) {
	id, rest, err := serde.ParseHeader(value)
	if err != nil {
		return nil, nil, err
	}
	indexes, wire, err := serde.ParseIndexes(rest)
	if err != nil {
		return nil, nil, err
	}
	if w.in == nil || id != w.inID || !slices.Equal(indexes, w.indexes) {
		c, err := pdec.Codec(ctx, id, indexes)
		if err != nil {
			return nil, nil, err
		}
		w.in, w.inID, w.indexes = c, id, indexes
	}
	return w.in, wire, nil
}

// outSchema returns the Avro schema ID of codec on the output topic.
func (w *worker) outSchema(ctx context.Context, ser *serde.Serializer, topic string, codec *protoavro.Codec) (uint32, error) {
	if codec != w.out {
		id, err := ser.ID(ctx, topic, codec)
		if err != nil {
			return 0, err
		}
		w.out, w.outID = codec, id
	}
	return w.outID, nil
}

// convertRetrying converts one record into o, retrying while the registry is
// down until runCtx is done.
func (b *bridge) convertRetrying(ctx, runCtx context.Context, r, o *kgo.Record, w *worker) error {
	wait := 100 * time.Millisecond
	for {
		err := b.convert(ctx, r, o, w)
		if err == nil || !errors.Is(err, serde.ErrRegistryUnavailable) {
			return err
		}
		select {
		case <-runCtx.Done():
			return err
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

func (b *bridge) convert(ctx context.Context, r, o *kgo.Record, w *worker) error {
	*o = kgo.Record{Topic: b.cfg.Output, Key: r.Key, Headers: r.Headers, Timestamp: r.Timestamp}
	if b.cfg.PassThrough {
		o.Value = r.Value
		return nil
	}
	codec, wire := b.codec, r.Value
	if b.pdec != nil {
		var err error
		if codec, wire, err = w.inCodec(ctx, b.pdec, r.Value); err != nil {
			return err
		}
	}
	id, err := w.outSchema(ctx, b.ser, b.cfg.Output, codec)
	if err != nil {
		return err
	}
	v, err := codec.TranscodeToAvro(serde.AppendHeader(w.dst(len(wire)+16), id), wire)
	if err != nil {
		if b.pdec == nil {
			err = serde.FramedHint(r.Value, err)
		}
		return err
	}
	o.Value = w.keep(v)
	return nil
}

// errorClass names the kind of a conversion error for HeaderClass.
func errorClass(err error) string {
	switch {
	case errors.Is(err, serde.ErrBadMagic), errors.Is(err, serde.ErrTruncatedHeader), errors.Is(err, serde.ErrBadIndexes):
		return "bad-header"
	case errors.Is(err, serde.ErrUnknownID):
		return "unknown-id"
	case errors.Is(err, kerr.MessageTooLarge):
		return "too-large"
	case errors.Is(err, serde.ErrIncompatible), errors.Is(err, serde.ErrBadSchema), errors.Is(err, serde.ErrWrongSchemaType):
		return "schema"
	case errors.Is(err, protoavro.ErrMalformed), errors.Is(err, protoavro.ErrTruncated), errors.Is(err, protoavro.ErrOutOfRange),
		errors.Is(err, protoavro.ErrUnknownEnum), errors.Is(err, protoavro.ErrMissingRequired), errors.Is(err, protoavro.ErrTooDeep):
		return "bad-data"
	}
	return "other"
}

func (b *bridge) deadLetter(r *kgo.Record, err error, o *kgo.Record) {
	h := make([]kgo.RecordHeader, 0, len(r.Headers)+5)
	h = append(h, r.Headers...)
	h = append(h,
		kgo.RecordHeader{Key: HeaderError, Value: []byte(err.Error())},
		kgo.RecordHeader{Key: HeaderClass, Value: []byte(errorClass(err))},
		kgo.RecordHeader{Key: HeaderTopic, Value: []byte(r.Topic)},
		kgo.RecordHeader{Key: HeaderPartition, Value: []byte(strconv.Itoa(int(r.Partition)))},
		kgo.RecordHeader{Key: HeaderOffset, Value: []byte(strconv.FormatInt(r.Offset, 10))},
	)
	*o = kgo.Record{Topic: b.cfg.DeadLetter, Key: r.Key, Value: r.Value, Headers: h, Timestamp: r.Timestamp}
}

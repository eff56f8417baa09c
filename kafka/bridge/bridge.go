// bridge.go holds Run: the state of one run of the bridge, and the client
// it starts with.

package bridge

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/pool"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kgo"
)

// bridge is the state of one run.
type bridge struct {
	cfg   Config
	outs  *outputs
	ser   *serde.Serializer
	pdec  *serde.ProtoDecoder
	codec *protoavro.Codec
	start time.Time

	// conv converts the chunks of a batch; workers holds the conversion
	// state of each of its goroutines, taken by the one running a chunk.
	conv    *pool.Ordered[chunkJob, chunkResult]
	workers chan *worker
	all     []*worker // the workers, for recycling their blocks between batches

	records, dead  atomic.Int64
	tombstones     atomic.Int64
	warnings       atomic.Int64 // fetch warnings
	commitWarnings atomic.Int64
	regWait        registryWait
	// leaving is set when the loop ends: the partitions the client revokes
	// as it leaves the group keep their lag, for the final summary.
	leaving atomic.Bool
	lagMu   sync.Mutex
	lag     map[topicPartition]int64
	// held are the partitions the instance holds, by input topic.
	held map[string]map[int32]bool
}

// Run runs the bridge until ctx is done (the batch in flight is finished and
// committed first), MaxRecords are committed, or an error. It returns the
// summary in every case.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Summary{}, err
	}
	b := &bridge{cfg: cfg, outs: newOutputs(cfg), start: time.Now(), lag: map[topicPartition]int64{}, held: map[string]map[int32]bool{}}
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
		if err := checkRegistryCert(ctx, cfg.Registry); err != nil {
			return Summary{}, err
		}
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(cfg.Inputs...),
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
		kgo.MetadataMaxAge(DefaultMetadataMaxAge),
	}
	if cfg.InputRegex {
		opts = append(opts, kgo.ConsumeRegex(), kgo.ConsumeExcludeTopics(cfg.excluded()...))
	}
	// The lag is over the instance's partitions: a partition it no longer
	// has drops out. The metrics label the topics it holds.
	opts = append(opts, kgo.OnPartitionsAssigned(b.assigned), kgo.OnPartitionsRevoked(b.forgetLag), kgo.OnPartitionsLost(b.forgetLag))
	if cfg.InstanceID != "" {
		opts = append(opts, kgo.InstanceID(cfg.InstanceID))
	}
	if cfg.SessionTimeout > 0 {
		opts = append(opts, kgo.SessionTimeout(cfg.SessionTimeout), kgo.HeartbeatInterval(cfg.SessionTimeout/5))
	}
	opts = append(opts, cfg.KafkaOpts...)

	workers := runtime.GOMAXPROCS(0)
	b.workers = make(chan *worker, workers)
	for range workers {
		w := &worker{}
		b.all = append(b.all, w)
		b.workers <- w
	}
	b.conv = pool.New(workers, b.convertChunk)
	defer b.conv.Close()

	mode := "at-least-once"
	if cfg.ExactlyOnce {
		mode = "exactly-once"
	}
	cfg.Logger.Info("bridge starting", "inputs", cfg.Inputs, "regex", cfg.InputRegex, "output", cfg.Output,
		"dead_letter", cfg.DeadLetter, "group", cfg.Group, "mode", mode)
	cfg.Metrics.started()
	stopProgress := b.progress()
	if cfg.ExactlyOnce {
		err = b.runTransactional(ctx, opts)
	} else {
		err = b.runAtLeastOnce(ctx, opts)
	}
	stopProgress()
	sum := b.summary()
	cfg.Metrics.stopped(err)
	if err != nil {
		cfg.Logger.Error("bridge stopped", "error", safeErr(err), "records", sum.Records, "dead_lettered", sum.DeadLettered, "tombstones", sum.Tombstones)
	} else {
		cfg.Logger.Info("bridge stopped", "records", sum.Records, "dead_lettered", sum.DeadLettered, "tombstones", sum.Tombstones)
	}
	return sum, err
}

// checkRegistryCert asks the registry once, at start-up, for its global
// compatibility level, only to find a registry whose TLS certificate does
// not verify against the bridge's trust roots (a CA missing from
// RegistryOptions.TLS, a host name the certificate does not name, an
// expired certificate): a configuration error (ErrConfig), which stops the
// bridge before it consumes anything. Every other outcome, an answer or
// not, is left to the conversions: a registry that is down is waited on,
// one that refuses the bridge's credentials stops it at its first record.
// A certificate that stops verifying once the bridge runs is waited on as
// a registry that is down: it is mended on the registry's side.
func checkRegistryCert(ctx context.Context, reg *serde.Registry) error {
	ctx, cancel := context.WithTimeout(ctx, registryCertWait)
	defer cancel()
	_, err := reg.Compatibility(ctx, "")
	var cv *tls.CertificateVerificationError
	if errors.As(err, &cv) {
		return fmt.Errorf("%w: the schema registry's TLS certificate: %w", ErrConfig, err)
	}
	return nil
}

// registryCertWait bounds checkRegistryCert: a registry that does not
// answer at start-up delays the bridge no longer than this.
const registryCertWait = 10 * time.Second

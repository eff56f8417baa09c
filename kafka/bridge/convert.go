// convert.go holds the conversion of a batch: its chunks converted on the
// ordered worker pool (internal/pool) and handed on in the input's order,
// each record converted (retrying a registry that is down) or
// dead-lettered, and each worker's arena and schema cache.

package bridge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kgo"
)

// chunkRecords is the number of records a conversion worker takes at a time.
const chunkRecords = 512

// chunkJob is consecutive records of a batch to convert. ctx is the
// batch's, runCtx the run's, whose end stops retries against a registry
// that is down; stop is set when the batch is abandoned.
type chunkJob struct {
	ctx, runCtx context.Context
	stop        *atomic.Bool
	recs        []*kgo.Record
}

// chunkResult is a chunk's output records (outs[i] from recs[i]), its dead
// letters by class, or the error that stops the bridge.
type chunkResult struct {
	recs []*kgo.Record
	outs []kgo.Record
	dead map[string]int
	err  error
}

// convertAll converts a batch on the pool, in chunks, and hands the output
// records of each chunk (with their inputs) to emit in the input's order as soon as each
// chunk is done, so that producing overlaps converting; it counts the
// dead letters in t. After an error, the records of the chunks before the
// failing one have been emitted, and the work on the chunks after it is
// abandoned (its retries end).
func (b *bridge) convertAll(ctx, runCtx context.Context, recs []*kgo.Record, emit func(chunkResult), t *tally) error {
	ctx, abandon := context.WithCancel(ctx)
	defer abandon()
	var stop atomic.Bool
	handle := func(r chunkResult) error {
		if r.err != nil {
			return r.err
		}
		emit(r)
		for class, n := range r.dead {
			t.dead[class] += n
		}
		return nil
	}
	var err error
	for c := 0; c < len(recs) && err == nil; c += chunkRecords {
		err = b.conv.Put(chunkJob{ctx: ctx, runCtx: runCtx, stop: &stop, recs: recs[c:min(len(recs), c+chunkRecords)]}, handle)
	}
	if err == nil {
		err = b.conv.Drain(handle)
	}
	if err != nil {
		stop.Store(true)
		abandon()
		_ = b.conv.Drain(func(chunkResult) error { return nil })
	}
	return err
}

// convertChunk converts consecutive records into one slice of records whose
// values share a worker's blocks.
func (b *bridge) convertChunk(j chunkJob) chunkResult {
	res := chunkResult{recs: j.recs}
	if j.stop.Load() {
		return res
	}
	w := <-b.workers // the pool runs as many chunks at once as there are workers
	defer func() { b.workers <- w }()
	res.outs = w.records(len(j.recs))
	for i, r := range j.recs {
		err := b.convertRetrying(j.ctx, j.runCtx, r, &res.outs[i], w)
		if err == nil {
			continue
		}
		// Not the record's fault: a registry that is down (after the retries),
		// refuses the bridge's credentials or is not at the URL (a 404
		// without a registry's error code), an output schema refused, an
		// output topic the bridge reads, or the batch's end.
		if errors.Is(err, serde.ErrRegistryUnavailable) || errors.Is(err, serde.ErrRegistryAccess) || errors.Is(err, serde.ErrRegistryURL) ||
			errors.Is(err, ErrConfig) || errors.Is(err, ErrOutputSchema) ||
			errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return chunkResult{err: recordError(r, "", err)}
		}
		if b.cfg.DeadLetter == "" {
			return chunkResult{err: recordError(r, " (no dead-letter topic)", err)}
		}
		if res.dead == nil {
			res.dead = map[string]int{}
		}
		res.dead[b.deadLetter(r, err, &res.outs[i])]++
	}
	return res
}

// worker is the state of one conversion goroutine: the block the values of
// converted records are appended to, so that a record costs no allocation of
// its own, and the schemas and topics of the record before, which the next
// one most likely shares, so that a record costs no cache lookup either. A
// full block is retired; once the batch that filled it is produced (every
// record acknowledged), it is free to be filled again (recycle), so that a
// steady stream of records allocates no blocks either.
type worker struct {
	buf           []byte
	retired, free [][]byte
	// recs are the output records of chunks, kept like the blocks: in use
	// until their batch is produced, then free.
	recsUsed, recsFree [][]kgo.Record

	inID     uint32
	indexes  []int
	in       *protoavro.Codec // of inID and indexes
	out      *protoavro.Codec
	outTopic string
	outID    uint32 // the Avro schema ID of out on outTopic

	inTopic, toTopic string // the output topic of input topic inTopic
}

// reset forgets the worker's schemas and topics.
func (w *worker) reset() {
	*w = worker{buf: w.buf, retired: w.retired, free: w.free, recsUsed: w.recsUsed, recsFree: w.recsFree}
}

const arenaBlock = 64 << 10

// dst returns an empty slice to append a value of about size bytes to.
func (w *worker) dst(size int) []byte {
	if cap(w.buf)-len(w.buf) < size {
		if cap(w.buf) == arenaBlock {
			w.retired = append(w.retired, w.buf)
		}
		if n := len(w.free); n > 0 && size <= arenaBlock {
			w.buf, w.free = w.free[n-1][:0], w.free[:n-1]
		} else {
			w.buf = make([]byte, 0, max(arenaBlock, size))
		}
	}
	return w.buf[len(w.buf):len(w.buf)]
}

// records returns n output records of a chunk, in use until recycle.
func (w *worker) records(n int) []kgo.Record {
	var rs []kgo.Record
	if k := len(w.recsFree); k > 0 && cap(w.recsFree[k-1]) >= n {
		rs, w.recsFree = w.recsFree[k-1][:n], w.recsFree[:k-1]
	} else {
		rs = make([]kgo.Record, n, max(n, chunkRecords))
	}
	w.recsUsed = append(w.recsUsed, rs)
	return rs
}

// recycle frees the blocks retired so far to be filled again, and the
// output records handed out. It is called when no record whose value is in
// them is in flight or still to be produced: between batches, with no
// conversion running.
func (w *worker) recycle() {
	w.free = append(w.free, w.retired...)
	clear(w.retired)
	w.retired = w.retired[:0]
	for _, rs := range w.recsUsed {
		// The records' keys, values and headers are not kept alive.
		clear(rs[:cap(rs)])
		w.recsFree = append(w.recsFree, rs)
	}
	clear(w.recsUsed)
	w.recsUsed = w.recsUsed[:0]
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

// outputTopic returns the output topic of input topic in.
func (b *bridge) outputTopic(w *worker, in string) (string, error) {
	if w.toTopic == "" || in != w.inTopic {
		out, err := b.outs.topic(in)
		if err != nil {
			return "", err
		}
		w.inTopic, w.toTopic = in, out
	}
	return w.toTopic, nil
}

// inCodec returns the codec of a framed protobuf record's message type and
// its protobuf bytes.
func (b *bridge) inCodec(ctx context.Context, w *worker, value []byte) (*protoavro.Codec, []byte, error) {
	id, rest, err := serde.ParseHeader(value)
	if err != nil {
		return nil, nil, err
	}
	indexes, wire, err := serde.ParseIndexes(rest)
	if err != nil {
		return nil, nil, err
	}
	if w.in == nil || id != w.inID || !slices.Equal(indexes, w.indexes) {
		c, err := b.pdec.Codec(ctx, id, indexes)
		b.cfg.Metrics.registryLookup(err)
		if err != nil {
			var re *serde.RegistryError
			if !errors.As(err, &re) && !errors.Is(err, serde.ErrBadIndexes) && ctx.Err() == nil {
				// The registry answered, and the schema it gave does not
				// compile, or has no Avro form.
				err = &schemaError{err}
			}
			return nil, nil, err
		}
		w.in, w.inID, w.indexes = c, id, indexes
	}
	return w.in, wire, nil
}

// outSchema returns the Avro schema ID of codec on the output topic.
func (b *bridge) outSchema(ctx context.Context, w *worker, topic string, codec *protoavro.Codec) (uint32, error) {
	if codec != w.out || topic != w.outTopic {
		id, err := b.ser.ID(ctx, topic, codec)
		b.cfg.Metrics.registryLookup(err)
		if err != nil {
			if !errors.Is(err, serde.ErrRegistryUnavailable) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("%w: topic %q: %w", ErrOutputSchema, topic, err)
			}
			return 0, err
		}
		w.out, w.outTopic, w.outID = codec, topic, id
	}
	return w.outID, nil
}

// convertRetrying converts one record into o, retrying while the registry is
// down until runCtx is done. A wait that ends with an answer of the
// registry is logged as the registry being back; one that ends because the
// bridge stops is logged as such.
func (b *bridge) convertRetrying(ctx, runCtx context.Context, r, o *kgo.Record, w *worker) (err error) {
	wait := 100 * time.Millisecond
	waiting := false
	defer func() {
		if !waiting {
			return
		}
		answered := !errors.Is(err, serde.ErrRegistryUnavailable) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
		last, d, back, lastErr := b.regWait.end(answered)
		if !last {
			return
		}
		b.cfg.Metrics.setWaiting(false)
		waited := d.Round(time.Millisecond).String()
		if back {
			b.cfg.Logger.Info("schema registry back", "waited", waited)
		} else {
			b.cfg.Logger.Warn("stopped waiting on the schema registry, which had not answered", "waited", waited, "error", lastErr)
		}
	}()
	for {
		err := b.convertSafely(ctx, r, o, w)
		if err == nil || !errors.Is(err, serde.ErrRegistryUnavailable) {
			return err
		}
		if !waiting {
			waiting = true
			if b.regWait.begin(err) {
				b.cfg.Metrics.setWaiting(true)
				b.cfg.Logger.Warn("waiting on the schema registry", "error", safeErr(err))
			}
		} else {
			b.regWait.retry(err)
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

// convertSafely is convert, with a panic turned into an error of class
// errInternal: a bug met on one record's data or schema dead-letters
// that record instead of crashing the bridge (which would read it again
// after a restart, and crash again).
func (b *bridge) convertSafely(ctx context.Context, r, o *kgo.Record, w *worker) (err error) {
	defer func() {
		if p := recover(); p != nil {
			w.reset()
			err = fmt.Errorf("%w: %v", errInternal, p)
		}
	}()
	return b.convert(ctx, r, o, w)
}

func (b *bridge) convert(ctx context.Context, r, o *kgo.Record, w *worker) error {
	out, err := b.outputTopic(w, r.Topic)
	if err != nil {
		return err
	}
	*o = kgo.Record{Topic: out, Key: r.Key, Headers: r.Headers, Timestamp: r.Timestamp}
	if b.cfg.PassThrough || r.Value == nil {
		// A null value is a tombstone, a compacted topic's delete marker
		// for its key: it stays one (Value nil), as Confluent's converters
		// keep it, rather than being read as the empty protobuf message,
		// which an empty value (non-nil, no bytes) is.
		o.Value = r.Value
		return nil
	}
	codec, wire := b.codec, r.Value
	if b.pdec != nil {
		if codec, wire, err = b.inCodec(ctx, w, r.Value); err != nil {
			return err
		}
	}
	id, err := b.outSchema(ctx, w, out, codec)
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

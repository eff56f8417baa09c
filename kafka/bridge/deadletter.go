// deadletter.go holds the dead letters: the headers that say why a record
// could not be converted, the error classes, and the dead-lettering of
// records whose output the broker refused as too large.

package bridge

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Headers added to dead-lettered records.
const (
	HeaderError     = "protoavro.error"       // the reason, an error message, escaped and at most about 1 KiB
	HeaderClass     = "protoavro.error.class" // bad-header, unknown-id, bad-data, schema, too-large, internal or other
	HeaderTopic     = "protoavro.source.topic"
	HeaderPartition = "protoavro.source.partition"
	HeaderOffset    = "protoavro.source.offset"
)

// Error classes (HeaderClass, and the class label of the dead-letter
// metric).
const (
	classBadHeader = "bad-header"
	classUnknownID = "unknown-id"
	classBadData   = "bad-data"
	classSchema    = "schema"
	classTooLarge  = "too-large"
	classInternal  = "internal"
	classOther     = "other"
)

// errInternal reports a conversion that panicked: a bug in protoavro,
// met on this record (or its schema), which is dead-lettered so that the
// bridge goes on.
var errInternal = errors.New("bridge: internal error")

// schemaError marks an error in making the codec of a record's registered
// schema (one that does not compile, or whose Avro form cannot be derived):
// the record's schema, not its data, is at fault.
type schemaError struct{ err error }

func (e *schemaError) Error() string { return e.err.Error() }
func (e *schemaError) Unwrap() error { return e.err }

// errorClass names the kind of a conversion error for HeaderClass.
func errorClass(err error) string {
	var se *schemaError
	switch {
	case errors.Is(err, errInternal):
		return classInternal
	case errors.Is(err, serde.ErrBadMagic), errors.Is(err, serde.ErrTruncatedHeader), errors.Is(err, serde.ErrBadIndexes):
		return classBadHeader
	case errors.Is(err, serde.ErrUnknownID):
		return classUnknownID
	case errors.Is(err, kerr.MessageTooLarge):
		return classTooLarge
	case errors.As(err, &se), errors.Is(err, serde.ErrIncompatible), errors.Is(err, serde.ErrBadSchema), errors.Is(err, serde.ErrWrongSchemaType),
		errors.Is(err, protoavro.ErrSchemaLimit):
		return classSchema
	case errors.Is(err, protoavro.ErrMalformed), errors.Is(err, protoavro.ErrTruncated), errors.Is(err, protoavro.ErrOutOfRange),
		errors.Is(err, protoavro.ErrUnknownEnum), errors.Is(err, protoavro.ErrMissingRequired), errors.Is(err, protoavro.ErrTooDeep):
		return classBadData
	}
	return classOther
}

// deadLetter makes o the dead letter of r, which failed with err, and
// returns its class.
func (b *bridge) deadLetter(r *kgo.Record, err error, o *kgo.Record) string {
	class := errorClass(err)
	h := make([]kgo.RecordHeader, 0, len(r.Headers)+5)
	h = append(h, r.Headers...)
	h = append(h,
		kgo.RecordHeader{Key: HeaderError, Value: []byte(safeErr(err))},
		kgo.RecordHeader{Key: HeaderClass, Value: []byte(class)},
		kgo.RecordHeader{Key: HeaderTopic, Value: []byte(r.Topic)},
		kgo.RecordHeader{Key: HeaderPartition, Value: []byte(strconv.Itoa(int(r.Partition)))},
		kgo.RecordHeader{Key: HeaderOffset, Value: []byte(strconv.FormatInt(r.Offset, 10))},
	)
	*o = kgo.Record{Topic: b.cfg.DeadLetter, Key: r.Key, Value: r.Value, Headers: h, Timestamp: r.Timestamp}
	return class
}

// deadLetterTooLarge dead-letters the records whose output p's producer
// refused as too large, after p.wait, and counts them in t; without a
// dead-letter topic such a record is an error naming it.
func (b *bridge) deadLetterTooLarge(ctx context.Context, p *producer, cl *kgo.Client, t *tally) error {
	ins := p.inputsTooLarge()
	if len(ins) == 0 {
		return nil
	}
	err := fmt.Errorf("bridge: output record too large to produce: %w", p.tooLargeErr)
	if b.cfg.DeadLetter == "" {
		return recordError(ins[0], " (no dead-letter topic)", err)
	}
	q := newProducer(p.produce, b.cfg.DeadLetter)
	dead := make([]kgo.Record, len(ins))
	for i, r := range ins {
		t.dead[b.deadLetter(r, err, &dead[i])]++
		if out, err := b.outs.topic(r.Topic); err == nil {
			t.out[out]--
		}
	}
	q.send(ctx, dead)
	return q.wait(ctx, cl)
}

// bounded is an error whose text is escaped and bounded (the text of
// errors from outside: registry answers, broker messages, schema text); it
// wraps the error, for errors.Is and errors.As.
type bounded struct{ err error }

func (e *bounded) Error() string { return safeErr(e.err) }
func (e *bounded) Unwrap() error { return e.err }

// recordError is the error that stops the bridge at record r.
func recordError(r *kgo.Record, note string, err error) error {
	return &bounded{fmt.Errorf("bridge: %s[%d] offset %d%s: %w", r.Topic, r.Partition, r.Offset, note, err)}
}

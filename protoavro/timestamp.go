package protoavro

// Timestamp arithmetic, of the readers and the writers alike: a
// timestamp long in its precision to seconds and nanos, and back.

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protoavro/protoavro/internal/avroschema"
)

// splitTimestamp turns a timestamp long into seconds and nanos.
func splitTimestamp(x int64, prec TimestampPrecision) (int64, int64) {
	per := int64(1_000_000)
	switch prec {
	case TimestampMillis:
		per = 1_000
	case TimestampNanos:
		per = 1_000_000_000
	}
	secs, rem := x/per, x%per
	if rem < 0 {
		secs, rem = secs-1, rem+per
	}
	return secs, rem * (1_000_000_000 / per)
}

// timestampDec reads a long (in the writer's timestamp unit, or the
// reader's when the writer has no logical type) into a Timestamp message. A
// writer date is midnight UTC of the day; a time of day is no instant.
func timestampDec(w *avroschema.Node, v *valuePlan, defTag uint64) (valueDec, error) {
	if err := readsAs(w, v); err != nil {
		return nil, fmt.Errorf("%w (%s)", err, v.fullName)
	}
	prec := v.tsPrec
	days := false
	switch logicalOf(w) {
	case "timestamp-millis", "local-timestamp-millis":
		prec = TimestampMillis
	case "timestamp-micros", "local-timestamp-micros":
		prec = TimestampMicros
	case "timestamp-nanos", "local-timestamp-nanos":
		prec = TimestampNanos
	case "date":
		days = true
	}
	isInt := w.Type == avroschema.Int
	return func(st *decState, dst []byte, tag uint64) ([]byte, error) {
		x, err := st.r.intOrLong(isInt)
		if err != nil {
			return dst, err
		}
		secs, nanos := splitTimestamp(x, prec)
		if days {
			secs, nanos = x*86400, 0 // |x| < 2^31: no overflow
		}
		if tag == 0 {
			tag = defTag
		}
		dst = protowire.AppendVarint(dst, tag)
		start := len(dst)
		dst = append(dst, 0)
		if secs != 0 {
			dst = protowire.AppendVarint(protowire.AppendTag(dst, 1, protowire.VarintType), uint64(secs))
		}
		if nanos != 0 {
			dst = protowire.AppendVarint(protowire.AppendTag(dst, 2, protowire.VarintType), uint64(nanos))
		}
		return fixLength(dst, start), nil
	}, nil
}

// timestampFits reports whether secs*unit+q, with 0 <= q < unit, fits an
// int64: the whole range of the long, up to its first and last instants.
func timestampFits(secs, q, unit int64) bool {
	lo, hi := math.MinInt64/unit, math.MaxInt64/unit // lo*unit and hi*unit fit
	switch {
	case secs >= lo && secs < hi:
		return true
	case secs == hi:
		return q <= math.MaxInt64-hi*unit
	case secs == lo-1: // (lo-1)*unit+q >= MinInt64
		return q >= unit-(lo*unit-math.MinInt64)
	}
	return false
}

// appendTimestamp writes seconds and nanos in the value's precision,
// counting a value rounded below it.
func (st *encState) appendTimestamp(dst []byte, v *valuePlan, secs, nanos int64) ([]byte, error) {
	if nanos < 0 || nanos > 999_999_999 {
		return dst, dataErr(ErrOutOfRange, 0, "timestamp nanos %d outside [0, 999999999]", nanos)
	}
	var unit, per int64
	switch v.tsPrec {
	case TimestampMillis:
		unit, per = 1_000, 1_000_000
	case TimestampNanos:
		unit, per = 1_000_000_000, 1
	default:
		unit, per = 1_000_000, 1_000
	}
	if !timestampFits(secs, nanos/per, unit) {
		return dst, dataErr(ErrOutOfRange, 0, "timestamp of %d seconds and %d nanos does not fit timestamp-%s (Options.Timestamps %q holds every Timestamp: docs/mapping.md)", secs, nanos, v.tsPrec, TimestampRecord)
	}
	if nanos%per != 0 {
		st.rounded++
	}
	return appendLong(dst, secs*unit+nanos/per), nil
}

package protoavro

// Values that take no bytes: which schemas have them, which message plans
// map to them, and how many a datum holds, counted as ContainerReader
// counts them against its bound per block; the writers use these to write
// only blocks the readers accept.

import (
	"math"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avroschema"
)

// hasEmptyRecords reports whether a record type of the schema can take no
// bytes (a message without fields): its values are then zero-size items,
// which readers bound per container block (docs/limits.md).
func hasEmptyRecords(s *Schema) bool {
	var e avroschema.Empties
	for _, d := range s.named {
		if d.node.Deref().Type == avroschema.Record && e.CanBeEmpty(d.node) {
			return true
		}
	}
	return false
}

// markZeroSize notes on each plan whether its record can take no bytes, by
// the rule the readers count zero-size items with (avroschema.Empties), so
// that the writers count them alike. defined holds the records of the
// plans' tree by Avro name.
func markZeroSize(plans []*msgPlan, defined map[string]namedDef) {
	var e avroschema.Empties
	for _, m := range plans {
		if d, ok := defined[m.avroName]; ok {
			m.zeroSize = e.CanBeEmpty(d.node)
		}
	}
}

// emptyItems returns the zero-size items inside the datum that dec reads,
// counted as ContainerReader counts them against its bound per block; its
// wire bytes go to scratch, returned for reuse.
func emptyItems(dec *decRecord, scratch, datum []byte) (int64, []byte, error) {
	st := newDecState(avroReader{avrobin.Reader{Buf: datum, Empty: avrobin.Budget{Max: math.MaxInt64}}}, false)
	out, err := st.record(scratch[:0], dec)
	n, end := st.r.Empty.N, st.r.Pos
	st.release()
	if err == nil {
		err = checkEnd(dec.name, end, len(datum))
	}
	return n, out, err
}

package serde_test

import (
	"fmt"
	"testing"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
)

// TestRegisterSameSchemaManySubjects registers one schema under many
// subjects, as a bridge writing every input topic to its own output topic
// does: each registration costs the same two requests, however many
// subjects already hold the schema, and answers the one ID and version 1.
func TestRegisterSameSchemaManySubjects(t *testing.T) {
	fake, reg := kafkatest.Registry(t)
	calls := countRequests(fake)
	s := serde.Schema{Type: serde.TypeAvro, Text: `{"type":"record","name":"M","fields":[{"name":"s","type":"string"}]}`}
	first := 0
	for i := range 60 {
		before := calls.Load()
		id, version, err := reg.Register(ctx, fmt.Sprintf("t%02d-avro-value", i), s)
		if err != nil {
			t.Fatal(err)
		}
		if n := calls.Load() - before; n != 2 {
			t.Fatalf("registration %d made %d requests, want 2", i, n)
		}
		if first == 0 {
			first = id
		}
		if id != first || version != 1 {
			t.Fatalf("registration %d: ID %d version %d, want ID %d version 1", i, id, version, first)
		}
	}
	// Registering again under a subject finds it there: the same ID and
	// version.
	id, version, err := reg.Register(ctx, "t07-avro-value", s)
	if err != nil || id != first || version != 1 {
		t.Fatalf("again: ID %d version %d %v", id, version, err)
	}
}

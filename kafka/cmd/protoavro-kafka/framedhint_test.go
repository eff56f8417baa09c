package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
)

// TestFramedRecordWithType: with -m (raw protobuf input), a
// Confluent-framed record is dead-lettered with a hint that it looks
// framed, naming its schema ID; flags come after the .proto file.
func TestFramedRecordWithType(t *testing.T) {
	const n = 3
	_, brokers := kafkatest.Cluster(t, 1, "in", "out", "dlq")
	fake, _ := kafkatest.Registry(t)
	produceFramed(t, brokers, 42, n)
	root := filepath.Join(kafkatest.RepoRoot(), "testdata", "proto")
	code, stdout, stderr := runCLI(t, "bridge", "-I", root, "-m", person, filepath.Join(root, "evolution", "v2", "person.proto"),
		"--brokers", brokers[0], "--registry", fake.URL(), "--in", "in", "--out", "out", "--dlq", "dlq",
		"--max-records", strconv.Itoa(n), "--progress", "0")
	if code != 0 {
		t.Fatalf("bridge: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, d := range deadLetters(t, brokers, n) {
		if !strings.Contains(d.err, "looks like a Confluent-framed record") || !strings.Contains(d.err, "schema ID 42") {
			t.Errorf("record %s: error header %q, want the framed-record hint", d.key, d.err)
		}
	}
}

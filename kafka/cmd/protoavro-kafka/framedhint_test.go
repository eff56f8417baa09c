package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestFramedRecordWithType: with -m (raw protobuf input), a
// Confluent-framed record is dead-lettered with a hint that it looks
// framed, naming its schema ID; flags come after the .proto file.
func TestFramedRecordWithType(t *testing.T) {
	const n = 3
	_, brokers := kafkatest.Cluster(t, 1, "in", "out", "dlq")
	fake, _ := kafkatest.Registry(t)
	md := kafkatest.Person(t, "v2")
	var recs []*kgo.Record
	for i := range n {
		framed := serde.AppendProtoHeader(nil, 42, nil)
		framed = append(framed, kafkatest.Wire(t, kafkatest.NewPerson(md, i))...)
		recs = append(recs, &kgo.Record{Topic: "in", Key: []byte(strconv.Itoa(i)), Value: framed})
	}
	kafkatest.Produce(t, kafkatest.Client(t, brokers), recs)
	root := filepath.Join(kafkatest.RepoRoot(), "testdata", "proto")
	code, stdout, stderr := runCLI(t, "bridge", "-I", root, "-m", person, filepath.Join(root, "evolution", "v2", "person.proto"),
		"--brokers", brokers[0], "--registry", fake.URL(), "--in", "in", "--out", "out", "--dlq", "dlq",
		"--max-records", strconv.Itoa(n), "--progress", "0")
	if code != 0 {
		t.Fatalf("bridge: exit %d\n%s%s", code, stdout, stderr)
	}
	got := kafkatest.ConsumeAll(t, brokers, "dlq", n, 30*time.Second)
	if len(got) != n {
		t.Fatalf("%d dead letters, want %d", len(got), n)
	}
	for _, r := range got {
		var msg string
		for _, h := range r.Headers {
			if h.Key == bridge.HeaderError {
				msg = string(h.Value)
			}
		}
		if !strings.Contains(msg, "looks like a Confluent-framed record") || !strings.Contains(msg, "schema ID 42") {
			t.Errorf("record %s: error header %q, want the framed-record hint", r.Key, msg)
		}
	}
}

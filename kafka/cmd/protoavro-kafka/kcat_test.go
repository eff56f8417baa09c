package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/protoavro/protoavro/internal/testutil"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
)

// needTool returns the path of an interoperability tool (testutil.Need:
// skipped when missing, failed when PROTOAVRO_INTEROP=require).
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	testutil.Need(t, err == nil, fmt.Sprintf("%s not found: %v", name, err))
	return p
}

// TestKcat has kcat (librdkafka) produce raw protobuf records to the kfake
// broker, runs the bridge process on them with -m, and has kcat consume the
// Avro records, which must be Confluent-framed and decode to the records sent.
func TestKcat(t *testing.T) {
	kcat := needTool(t, "kcat")
	const n = 20
	_, brokers := kafkatest.Cluster(t, 1, "raw", "avro")
	fake, reg := kafkatest.Registry(t)
	md := kafkatest.Person(t, "v2")
	files := personFiles(t, md, t.TempDir(), n)
	// kcat -P with files sends each file as one message.
	out, err := exec.Command(kcat, append([]string{"-P", "-b", brokers[0], "-t", "raw", "-k", "from-kcat"}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("kcat -P: %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	root := filepath.Join(kafkatest.RepoRoot(), "testdata", "proto")
	cmd := exec.CommandContext(ctx, binary, "bridge", "--brokers", brokers[0], "--registry", fake.URL(),
		"--in", "raw", "--out", "avro", "--max-records", strconv.Itoa(n), "--progress", "0",
		"-I", root, "-m", "protoavro.test.evolution.Person", filepath.Join(root, "evolution", "v2", "person.proto"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bridge: %v\n%s", err, out)
	}

	// Each record as "<key>|<size>:<value bytes>".
	got, err := exec.Command(kcat, "-C", "-b", brokers[0], "-t", "avro", "-o", "beginning", "-e", "-q", "-f", "%k|%S:%s").Output()
	if err != nil {
		t.Fatalf("kcat -C: %v", err)
	}
	de, _ := serde.NewDeserializer(reg, md, protoavroOptions)
	for i := range n {
		key, rest, ok := bytes.Cut(got, []byte("|"))
		sz, rest2, ok2 := bytes.Cut(rest, []byte(":"))
		size, err := strconv.Atoi(string(sz))
		if !ok || !ok2 || err != nil || size > len(rest2) {
			t.Fatalf("kcat output at record %d: %q", i, got[:min(len(got), 80)])
		}
		val := rest2[:size]
		got = rest2[size:]
		if string(key) != "from-kcat" {
			t.Errorf("record %d: key %q", i, key)
		}
		if val[0] != 0 {
			t.Fatalf("record %d: magic byte %#x", i, val[0])
		}
		m := newMessage(md)
		if err := de.Decode(ctx, val, m); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !protoEqual(m, kafkatest.NewPerson(md, i)) {
			t.Errorf("record %d: %v", i, m)
		}
	}
	if len(got) != 0 {
		t.Errorf("%d bytes after %d records", len(got), n)
	}
}

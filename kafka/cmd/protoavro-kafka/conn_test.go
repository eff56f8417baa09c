package main

import (
	"context"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/kafkaconf"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestTLSToPlaintextListener: a TLS client of a plaintext broker, which
// reads the client's hello as the start of a request and waits for the
// rest, is told that the TLS handshake got no answer within the dial
// timeout and asked whether the listener is plaintext.
func TestTLSToPlaintextListener(t *testing.T) {
	_, brokers := kafkatest.Cluster(t, 1, "in")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := kafkaconf.Config{Brokers: brokers, UseTLS: true, DialTimeout: 500 * time.Millisecond}
	_, err := kafkaOpts(ctx, &cfg)
	want := "connecting to brokers " + brokers[0] + " with SSL: the TLS handshake with " + brokers[0] + " got no answer within "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "(is the listener plaintext?)") {
		t.Fatalf("%v; want %q... and the question whether the listener is plaintext", err, want)
	}
	if ctx.Err() != nil {
		t.Fatal("the check ended at the test's deadline")
	}
}

// TestBridgeErrorPrefixedOnce: an error of the bridge package, whose text
// starts with "bridge: ", is printed after "protoavro-kafka bridge: "
// alone, not "protoavro-kafka bridge: bridge: ".
func TestBridgeErrorPrefixedOnce(t *testing.T) {
	_, brokers := kafkatest.Cluster(t, 1, "in")
	kafkatest.Produce(t, kafkatest.Client(t, brokers), []*kgo.Record{{Topic: "in", Value: []byte("x")}})
	code, _, stderr := runCLI(t, "bridge", "--pass-through", "--brokers", brokers[0], "--in", "in", "--out", "missing", "--progress", "0")
	if code != 1 || !strings.Contains(stderr, "\nprotoavro-kafka bridge: producing to topic \"missing\": ") || strings.Contains(stderr, "bridge: bridge:") {
		t.Errorf("exit %d, stderr:\n%s\nwant 1 and one prefix before the error", code, stderr)
	}
}

// TestTLSFlagsNamed: an error about a TLS file given by a flag names the
// flag (--tls-cert), not the properties key (ssl.certificate.location),
// and an encrypted key is said to be one.
func TestTLSFlagsNamed(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	enc := filepath.Join(dir, "enc.key")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(enc, pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte("ciphertext")}), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key, want string
	}{
		{notPEM, "--tls-cert " + notPEM + " and --tls-key " + notPEM + ": tls: "},
		{enc, "--tls-key " + enc + ": the key is encrypted"},
	} {
		code, _, stderr := runCLI(t, "bridge", "--pass-through", "--in", "a", "--out", "o", "--tls-cert", notPEM, "--tls-key", tc.key)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "ssl.") {
			t.Errorf("--tls-key %s: exit %d, stderr %q; want 2 and %q", filepath.Base(tc.key), code, stderr, tc.want)
		}
	}
}

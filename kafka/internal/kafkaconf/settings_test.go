package kafkaconf

import (
	"context"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestEncryptedKey: a client key encrypted as PKCS #8 or with OpenSSL's
// legacy Proc-Type header is refused with an error that says the key is
// encrypted and asks for an unencrypted one, naming the setting as the
// user gave it (the properties key, or the flag).
func TestEncryptedKey(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b *pem.Block) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(b), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cert := write("cert.pem", &pem.Block{Type: "CERTIFICATE", Bytes: []byte("not a certificate")})
	for _, key := range []string{
		write("pkcs8.pem", &pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte("ciphertext")}),
		write("legacy.pem", &pem.Block{Type: "RSA PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED", "DEK-Info": "AES-256-CBC,00"}, Bytes: []byte("ciphertext")}),
	} {
		for _, names := range []map[string]string{nil, {"ssl.key.location": "--tls-key"}} {
			c := Config{TLS: TLS{CertFile: cert, KeyFile: key}, Names: names}
			_, err := c.KafkaOpts(noEnv)
			want := "ssl.key.location " + key + ": the key is encrypted"
			if names != nil {
				want = "--tls-key " + key + ": the key is encrypted"
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "give an unencrypted PEM key") {
				t.Errorf("%s, names %v: %v; want an error saying %q and asking for an unencrypted key", filepath.Base(key), names, err, want)
			}
		}
	}
}

// TestSettingNamedAsGiven: errors about a setting given by a flag name the
// flag (Config.Names), not the properties key.
func TestSettingNamedAsGiven(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := map[string]string{
		"ssl.ca.location": "--tls-ca", "ssl.certificate.location": "--tls-cert", "ssl.key.location": "--tls-key",
		"security.protocol": "--security-protocol", "sasl.mechanism": "--sasl-mechanism",
		"schema.registry.ssl.ca.location": "--registry-ca", "metadata.max.age.ms": "--metadata-max-age",
	}
	for _, tc := range []struct {
		c       Config
		want    string
		keyText string // the properties key the message must not show
	}{
		{Config{TLS: TLS{CertFile: notPEM, KeyFile: notPEM}}, "--tls-cert " + notPEM + " and --tls-key " + notPEM, "ssl.certificate.location"},
		{Config{TLS: TLS{CAFile: notPEM}}, "--tls-ca " + notPEM + ": no PEM certificate", "ssl.ca.location"},
		{Config{TLS: TLS{CertFile: notPEM}}, "needs both --tls-cert and --tls-key", "ssl.certificate.location"},
		{Config{SecurityProtocol: SSL, SASL: SASL{Mechanism: MechPlain}}, "--sasl-mechanism PLAIN needs --security-protocol SASL_SSL", "sasl.mechanism"},
		{Config{MetadataMaxAge: time.Millisecond}, "--metadata-max-age 1ms: want from 1s to 1h0m0s", "metadata.max.age.ms"},
	} {
		tc.c.Names = flags
		_, err := tc.c.KafkaOpts(noEnv)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), tc.keyText) {
			t.Errorf("%v; want an error saying %q, not %q", err, tc.want, tc.keyText)
		}
	}
	c := Config{Registry: Registry{URLs: []string{"https://r"}, TLS: TLS{CAFile: notPEM}}, Names: flags}
	if _, _, err := c.RegistryOptions(noEnv); err == nil || !strings.Contains(err.Error(), "--registry-ca "+notPEM) {
		t.Errorf("registry CA: %v; want an error naming --registry-ca", err)
	}
}

// TestMetadataMaxAge: metadata.max.age.ms in a properties file sets how
// often the client refreshes its metadata, within 1 s and 1 h; a value
// under kgo's minimum age lowers that too, so that the client takes it.
func TestMetadataMaxAge(t *testing.T) {
	c, err := ParseProperties("p", "metadata.max.age.ms=30000\n")
	if err != nil || c.MetadataMaxAge != 30*time.Second {
		t.Fatalf("metadata.max.age.ms=30000: %v, %v", c.MetadataMaxAge, err)
	}
	for _, v := range []string{"0", "999", "3600001", "30s", "-5"} {
		if _, err := ParseProperties("p", "metadata.max.age.ms="+v+"\n"); err == nil || !strings.Contains(err.Error(), "p:1: metadata.max.age.ms: want milliseconds from 1000 to 3600000") {
			t.Errorf("metadata.max.age.ms=%s: %v", v, err)
		}
	}
	for _, age := range []time.Duration{time.Second, 30 * time.Second, time.Hour} {
		opts, err := (&Config{MetadataMaxAge: age}).KafkaOpts(noEnv)
		if err != nil {
			t.Fatalf("%v: %v", age, err)
		}
		cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers("127.0.0.1:1"))...)
		if err != nil {
			t.Fatalf("%v: the client refuses the options: %v", age, err)
		}
		cl.Close()
	}
}

// TestTLSHandshakeNoAnswer: a TLS client of a listener that takes the
// connection and never answers (a plaintext broker reads the client's
// hello as the start of a request) fails with a *HandshakeTimeoutError
// that says the handshake got no answer and asks whether the listener is
// plaintext.
func TestTLSHandshakeNoAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, conn); conn.Close() }()
		}
	}()
	c := Config{UseTLS: true, DialTimeout: 200 * time.Millisecond}
	opts, err := c.KafkaOpts(noEnv)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers(ln.Addr().String()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = cl.Ping(ctx)
	var hs *HandshakeTimeoutError
	if !errors.As(err, &hs) || hs.Addr != ln.Addr().String() || !strings.Contains(err.Error(), "the TLS handshake with "+ln.Addr().String()+" got no answer within") ||
		!strings.Contains(err.Error(), "(is the listener plaintext?)") {
		t.Fatalf("%v; want a *HandshakeTimeoutError asking whether the listener is plaintext", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the ping ended at the test's deadline")
	}
}

package kafkaconf

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"
)

// maxPEM bounds a CA bundle, certificate or key file read.
const maxPEM = 4 << 20

// readPEM reads a PEM file named by the setting key.
func readPEM(key, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrConfig, key, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPEM+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s: %w", ErrConfig, key, path, err)
	}
	if len(b) > maxPEM {
		return nil, fmt.Errorf("%w: %s %s: larger than %d bytes", ErrConfig, key, path, maxPEM)
	}
	return b, nil
}

// config builds the TLS configuration. prefix is that of the settings'
// properties keys ("ssl" for ssl.ca.location and the others), and name
// returns how errors name the setting of a key (Config.name).
func (t TLS) config(prefix string, name func(key string) string) (*tls.Config, error) {
	caKey, certKey, keyKey := name(prefix+".ca.location"), name(prefix+".certificate.location"), name(prefix+".key.location")
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.CAFile != "" {
		pem, err := readPEM(caKey, t.CAFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: %s %s: no PEM certificate in it", ErrConfig, caKey, t.CAFile)
		}
		c.RootCAs = pool
	}
	switch {
	case t.CertFile != "" && t.KeyFile != "":
		cert, err := readPEM(certKey, t.CertFile)
		if err != nil {
			return nil, err
		}
		key, err := readPEM(keyKey, t.KeyFile)
		if err != nil {
			return nil, err
		}
		if encryptedPEM(key) {
			return nil, fmt.Errorf("%w: %s %s: the key is encrypted, and encrypted keys are not read: give an unencrypted PEM key (openssl pkey -in KEY -out PLAIN)", ErrConfig, keyKey, t.KeyFile)
		}
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("%w: %s %s and %s %s: %w", ErrConfig, certKey, t.CertFile, keyKey, t.KeyFile, err)
		}
		c.Certificates = []tls.Certificate{pair}
	case t.CertFile != "" || t.KeyFile != "":
		return nil, fmt.Errorf("%w: a client certificate needs both %s and %s", ErrConfig, certKey, keyKey)
	}
	if t.NoHostnameCheck {
		// The chain is verified against the roots, without a host name.
		roots := c.RootCAs
		c.InsecureSkipVerify = true
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return fmt.Errorf("no server certificate")
			}
			inter := x509.NewCertPool()
			for _, ic := range cs.PeerCertificates[1:] {
				inter.AddCert(ic)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			return err
		}
	}
	return c, nil
}

// encryptedPEM reports whether a PEM file holds an encrypted private key:
// PKCS #8 ("ENCRYPTED PRIVATE KEY") or OpenSSL's legacy encryption (a
// "Proc-Type: 4,ENCRYPTED" header).
func encryptedPEM(data []byte) bool {
	for {
		var b *pem.Block
		if b, data = pem.Decode(data); b == nil {
			return false
		}
		if b.Type == "ENCRYPTED PRIVATE KEY" || strings.Contains(b.Headers["Proc-Type"], "ENCRYPTED") {
			return true
		}
	}
}

// HandshakeTimeoutError reports a TLS handshake with a broker that got no
// answer: a plaintext listener reads the client's hello as the start of a
// request, and waits for the rest of it.
type HandshakeTimeoutError struct {
	// Addr is the broker's address, Waited how long the handshake waited.
	Addr   string
	Waited time.Duration
	// Err is the handshake's error (its context's).
	Err error
}

func (e *HandshakeTimeoutError) Error() string {
	return fmt.Sprintf("the TLS handshake with %s got no answer within %v (is the listener plaintext?)", e.Addr, e.Waited)
}

func (e *HandshakeTimeoutError) Unwrap() error { return e.Err }

// tlsDialer returns the dial function of kgo.Dialer that connects to a
// broker with the TLS configuration tc (cloned, its ServerName the host
// dialed when empty), the TCP connection and the handshake together within
// timeout (as kgo.DialTLSConfig does). A handshake that runs out of time
// is a *HandshakeTimeoutError.
func tlsDialer(tc *tls.Config, timeout time.Duration) func(ctx context.Context, network, host string) (net.Conn, error) {
	return func(ctx context.Context, network, host string) (net.Conn, error) {
		c := tc.Clone()
		if c.ServerName == "" {
			server, _, err := net.SplitHostPort(host)
			if err != nil {
				return nil, fmt.Errorf("unable to split host:port for dialing: %w", err)
			}
			c.ServerName = server
		}
		dctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		raw, err := (&net.Dialer{}).DialContext(dctx, network, host)
		if err != nil {
			return nil, err
		}
		began := time.Now()
		conn := tls.Client(raw, c)
		if err := conn.HandshakeContext(dctx); err != nil {
			raw.Close()
			if errors.Is(dctx.Err(), context.DeadlineExceeded) {
				return nil, &HandshakeTimeoutError{Addr: host, Waited: roundWait(time.Since(began)), Err: err}
			}
			return nil, err
		}
		return conn, nil
	}
}

// roundWait rounds a wait for a message: to the second from a second on,
// else to a tenth of a second.
func roundWait(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

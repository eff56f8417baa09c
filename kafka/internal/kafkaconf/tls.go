package kafkaconf

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"
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

// config builds the TLS configuration; prefix names the settings in errors
// ("ssl" for ssl.ca.location and the others).
func (t TLS) config(prefix string) (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.CAFile != "" {
		pem, err := readPEM(prefix+".ca.location", t.CAFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: %s.ca.location %s: no PEM certificate in it", ErrConfig, prefix, t.CAFile)
		}
		c.RootCAs = pool
	}
	switch {
	case t.CertFile != "" && t.KeyFile != "":
		cert, err := readPEM(prefix+".certificate.location", t.CertFile)
		if err != nil {
			return nil, err
		}
		key, err := readPEM(prefix+".key.location", t.KeyFile)
		if err != nil {
			return nil, err
		}
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("%w: %s.certificate.location %s and %s.key.location %s: %w", ErrConfig, prefix, t.CertFile, prefix, t.KeyFile, err)
		}
		c.Certificates = []tls.Certificate{pair}
	case t.CertFile != "" || t.KeyFile != "":
		return nil, fmt.Errorf("%w: a client certificate needs both %s.certificate.location and %s.key.location", ErrConfig, prefix, prefix)
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

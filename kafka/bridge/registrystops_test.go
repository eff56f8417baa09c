package bridge_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// TestOutputSchemaRefusedStops: an output schema that the registry refuses
// (a subject in read-only mode, HTTP 422) or that the compatibility gate
// refuses (the subject holds an incompatible schema) is no fault of the
// records: the bridge stops with ErrOutputSchema naming the record and the
// topic, dead-letter topic or not, dead-letters and commits nothing, and
// does not ask the registry again for every record.
func TestOutputSchemaRefusedStops(t *testing.T) {
	const n = 300
	for _, c := range []struct {
		name  string
		check bool
		setup func(t *testing.T, f *registryFixture, registers *atomic.Int64)
		class error // besides ErrOutputSchema
	}{
		{"read-only subject", false, func(t *testing.T, f *registryFixture, registers *atomic.Int64) {
			f.fake.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
				if r.Method != http.MethodPost || r.URL.Path != "/subjects/out-value/versions" {
					return false
				}
				registers.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnprocessableEntity)
				w.Write([]byte(`{"error_code":42205,"message":"Subject out-value is in read-only mode"}`))
				return true
			})
		}, serde.ErrRegistry},
		{"incompatible subject", true, func(t *testing.T, f *registryFixture, registers *atomic.Int64) {
			old := serde.Schema{Type: serde.TypeAvro, Text: `{"type":"record","name":"Other","fields":[{"name":"a","type":"string"}]}`}
			if _, _, err := f.reg.Register(context.Background(), "out-value", old); err != nil {
				t.Fatal(err)
			}
			f.fake.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
				if strings.HasPrefix(r.URL.Path, "/subjects/out-value") || strings.HasPrefix(r.URL.Path, "/config") {
					registers.Add(1)
				}
				return false
			})
		}, serde.ErrIncompatible},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newRegistryFixture(t, serde.RegistryOptions{}, func(md protoreflect.MessageDescriptor, id uint32) []*kgo.Record {
				return inputs(t, "in", md, id, 0, n)
			})
			var asked atomic.Int64
			c.setup(t, f, &asked)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			sum, err := bridge.Run(ctx, bridge.Config{Brokers: f.brokers, Group: "g", Inputs: []string{"in"}, Output: "out", DeadLetter: "dlq",
				Registry: f.client(t, serde.RegistryOptions{}), Check: c.check, MaxRecords: n})
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				t.Fatalf("the bridge returned only when its context ended: %v", err)
			}
			if !errors.Is(err, bridge.ErrOutputSchema) || !errors.Is(err, c.class) || sum.Records != 0 || sum.DeadLettered != 0 {
				t.Fatalf("%v, %v; want a stop with ErrOutputSchema and %v, nothing committed or dead-lettered", sum, err, c.class)
			}
			if !strings.Contains(err.Error(), "in[0] offset ") || !strings.Contains(err.Error(), `topic "out"`) {
				t.Errorf("error does not say where: %v", err)
			}
			// One attempt per worker at most, not one per record.
			if got := asked.Load(); got == 0 || got > 40 {
				t.Errorf("%d requests about the output subject for %d records; want a few", got, n)
			}
		})
	}
}

// TestRegistryCertChecked: a registry whose TLS certificate the bridge does
// not trust (its CA not given) stops the bridge at start-up with ErrConfig,
// before it consumes anything, instead of waiting at the first record as
// for a registry that is down; with the CA the same registry serves the
// bridge over https.
func TestRegistryCertChecked(t *testing.T) {
	const n = 50
	f := newRegistryFixture(t, serde.RegistryOptions{}, func(md protoreflect.MessageDescriptor, id uint32) []*kgo.Record {
		return inputs(t, "in", md, id, 0, n)
	})
	u, err := url.Parse(f.fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(httputil.NewSingleHostReverseProxy(u))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	ts.StartTLS()
	defer ts.Close()
	roots := x509.NewCertPool()
	roots.AddCert(ts.Certificate())
	for _, c := range []struct {
		name string
		tls  *tls.Config
	}{{"unknown CA", nil}, {"CA given", &tls.Config{RootCAs: roots}}} {
		reg, err := serde.NewRegistry(serde.RegistryOptions{TLS: c.tls}, ts.URL)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		sum, err := bridge.Run(ctx, bridge.Config{Brokers: f.brokers, Group: "g", Inputs: []string{"in"}, Output: "out", Registry: reg, MaxRecords: n})
		cancel()
		var cv *tls.CertificateVerificationError
		switch {
		case c.tls == nil && (!errors.Is(err, bridge.ErrConfig) || !errors.As(err, &cv) || sum.Records != 0):
			t.Errorf("%s: %v, %v; want a stop with ErrConfig naming the certificate, nothing consumed", c.name, sum, err)
		case c.tls != nil && (err != nil || sum.Records != n):
			t.Errorf("%s: %v, %v; want %d records", c.name, sum, err, n)
		}
	}
}

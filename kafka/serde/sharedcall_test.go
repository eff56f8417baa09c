package serde_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/serde"
)

// gatedTransport answers every request once released (or once the
// request's context ends), with answer, and counts the requests.
type gatedTransport struct {
	requests atomic.Int64
	release  chan struct{}
	answer   func(n int64, req *http.Request) (*http.Response, error)
}

func (g *gatedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	n := g.requests.Add(1)
	select {
	case <-g.release:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	return g.answer(n, req)
}

// answer is an HTTP answer of status with body.
func answer(req *http.Request, status int, body string) *http.Response {
	return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body)), Request: req}
}

// waitFor waits until cond holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestConcurrentCallersShareOneCall: callers asking for one schema ID at
// once share one request, and each gets its answer, a failure included (a
// 503, a connection reset): N callers of a registry that is down make one
// request, not N one after the other. A call cut short by its own caller's
// context is no answer for the others: they make one new request, together.
func TestConcurrentCallersShareOneCall(t *testing.T) {
	const callers = 30
	for _, tc := range []struct {
		name   string
		answer func(int64, *http.Request) (*http.Response, error)
	}{
		{"503", func(_ int64, req *http.Request) (*http.Response, error) {
			return answer(req, http.StatusServiceUnavailable, `{"error_code":50301,"message":"down"}`), nil
		}},
		{"connection reset", func(int64, *http.Request) (*http.Response, error) {
			return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
		}},
	} {
		gate := &gatedTransport{release: make(chan struct{}), answer: tc.answer}
		reg, err := serde.NewRegistry(serde.RegistryOptions{HTTPClient: &http.Client{Transport: gate}}, "http://registry.invalid")
		if err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, callers)
		for range callers {
			go func() {
				_, err := reg.SchemaByID(ctx, 42)
				errs <- err
			}()
		}
		waitFor(t, "one request and every other caller waiting for it", func() bool {
			return gate.requests.Load() == 1 && serde.SchemaByIDWaiters(reg, 42) == callers-1
		})
		close(gate.release)
		for range callers {
			if err := <-errs; !errors.Is(err, serde.ErrRegistryUnavailable) {
				t.Errorf("%s: %v, want ErrRegistryUnavailable", tc.name, err)
			}
		}
		if n := gate.requests.Load(); n != 1 {
			t.Errorf("%s: %d callers at once made %d requests, want 1", tc.name, callers, n)
		}
		// The failure is not cached: the next caller asks again.
		if _, err := reg.SchemaByID(ctx, 42); !errors.Is(err, serde.ErrRegistryUnavailable) || gate.requests.Load() != 2 {
			t.Errorf("%s: after the failure, %v and %d requests; want a new request", tc.name, err, gate.requests.Load())
		}
	}

	// The caller that makes the request gives up: the others ask again,
	// with one request, and get the schema.
	gate := &gatedTransport{release: make(chan struct{}), answer: func(_ int64, req *http.Request) (*http.Response, error) {
		return answer(req, http.StatusOK, `{"schema":"\"string\""}`), nil
	}}
	reg, err := serde.NewRegistry(serde.RegistryOptions{HTTPClient: &http.Client{Transport: gate}}, "http://registry.invalid")
	if err != nil {
		t.Fatal(err)
	}
	first, cancel := context.WithCancel(ctx)
	firstErr := make(chan error, 1)
	go func() {
		_, err := reg.SchemaByID(first, 42)
		firstErr <- err
	}()
	waitFor(t, "the first request", func() bool { return gate.requests.Load() == 1 })
	errs := make(chan error, callers)
	for range callers {
		go func() {
			_, err := reg.SchemaByID(ctx, 42)
			errs <- err
		}()
	}
	waitFor(t, "every other caller waiting", func() bool { return serde.SchemaByIDWaiters(reg, 42) == callers })
	cancel()
	err = <-firstErr
	var re *serde.RegistryError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &re) || errors.Is(err, serde.ErrRegistryUnavailable) {
		t.Errorf("the caller that gave up: %v, want a *RegistryError wrapping context.Canceled", err)
	}
	waitFor(t, "the second request", func() bool { return gate.requests.Load() == 2 })
	close(gate.release)
	for range callers {
		if err := <-errs; err != nil {
			t.Errorf("a caller still waiting: %v", err)
		}
	}
	if n := gate.requests.Load(); n != 2 {
		t.Errorf("%d requests, want 2: the one given up and one for every other caller", n)
	}
}

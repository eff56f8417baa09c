package main

import (
	"context"
	byteorder "encoding/binary"
	"encoding/hex"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// takenPort holds a port on loopback for the test and returns it.
func takenPort(t *testing.T) int {
	t.Helper()
	lis, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lis.Close() })
	return lis.Addr().(*net.TCPAddr).Port
}

// withFreePort makes freePort return the ports of pick in turn, then
// free ones, and restores the flags startPrism sets.
func withFreePort(t *testing.T, pick ...int) {
	t.Helper()
	real, endpoint, env := freePort, *jobopts.Endpoint, *jobopts.EnvironmentType
	t.Cleanup(func() { freePort, *jobopts.Endpoint, *jobopts.EnvironmentType = real, endpoint, env })
	freePort = func() (int, error) {
		if len(pick) > 0 {
			p := pick[0]
			pick = pick[1:]
			return p, nil
		}
		return real()
	}
	*jobopts.Endpoint = ""
}

// TestStartPrismPortTaken: a port taken by another process between its
// pick and prism's listen (here, before the pick) is not fatal: prism's job
// server starts on another port, which the run then uses.
func TestStartPrismPortTaken(t *testing.T) {
	taken := takenPort(t)
	withFreePort(t, taken, taken)
	if err := startPrism(); err != nil {
		t.Fatalf("startPrism: %v", err)
	}
	host, port, err := net.SplitHostPort(*jobopts.Endpoint)
	if err != nil || host != "localhost" || port == strconv.Itoa(taken) {
		t.Fatalf("endpoint %q, want localhost and a port other than %d (%v)", *jobopts.Endpoint, taken, err)
	}
	// The job service answers there.
	conn, err := grpc.NewClient(*jobopts.Endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := jobpb.NewJobServiceClient(conn).GetJobs(ctx, &jobpb.GetJobsRequest{}); err != nil {
		t.Fatalf("GetJobs at %s: %v", *jobopts.Endpoint, err)
	}
}

// TestStartPrismNoPort: when every attempt finds its port taken, the error
// says so, with the port and the number of attempts.
func TestStartPrismNoPort(t *testing.T) {
	taken := takenPort(t)
	pick := make([]int, prismAttempts)
	for i := range pick {
		pick[i] = taken
	}
	withFreePort(t, pick...)
	err := startPrism()
	if err == nil {
		t.Fatal("startPrism: no error")
	}
	for _, want := range []string{"port " + strconv.Itoa(taken), "after 5 attempts", "address already in use"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if *jobopts.Endpoint != "" {
		t.Errorf("endpoint set to %q after the failure", *jobopts.Endpoint)
	}
}

// TestPrismListensOnAllInterfaces pins what docs/beam.md ("Network") says:
// prism's job server, which startPrism starts in this process through the
// SDK's only exported constructor, listens on every interface (the
// unspecified address), not on loopback only, and the SDK has no option
// to change that. If this fails, Beam now listens on loopback: update the
// docs (and this test).
func TestPrismListensOnAllInterfaces(t *testing.T) {
	// The reading of /proc/net finds a loopback listener as such.
	lo := takenPort(t)
	if got := listeningAddrs(t, lo); len(got) != 1 || !got[0].IsLoopback() {
		t.Fatalf("a listener on localhost:%d read as %v", lo, got)
	}
	withFreePort(t)
	if err := startPrism(); err != nil {
		t.Fatalf("startPrism: %v", err)
	}
	_, port, err := net.SplitHostPort(*jobopts.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	addrs := listeningAddrs(t, p)
	if len(addrs) == 0 {
		t.Fatalf("no listening socket on port %d in /proc/net/tcp{,6}", p)
	}
	for _, a := range addrs {
		if !a.IsUnspecified() {
			t.Errorf("prism's job server listens on %s:%d, not on every interface: update docs/beam.md", a, p)
		}
	}
}

// listeningAddrs returns the local addresses of the TCP sockets of this
// network namespace that listen on port, from /proc/net/tcp and tcp6 (as
// ss -ltn shows them).
func listeningAddrs(t *testing.T, port int) []netip.Addr {
	t.Helper()
	var addrs []netip.Addr
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(file)
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			// sl local_address rem_address st ...; address HEX:PORT, the
			// address in 32-bit words of host byte order; st 0A is LISTEN.
			f := strings.Fields(line)
			if len(f) < 4 || f[3] != "0A" {
				continue
			}
			hexAddr, hexPort, ok := strings.Cut(f[1], ":")
			if pp, err := strconv.ParseUint(hexPort, 16, 16); !ok || err != nil || int(pp) != port {
				continue
			}
			raw, err := hex.DecodeString(hexAddr)
			if err != nil || len(raw)%4 != 0 {
				t.Fatalf("%s: local address %q", file, f[1])
			}
			for i := 0; i < len(raw); i += 4 {
				byteorder.NativeEndian.PutUint32(raw[i:], byteorder.BigEndian.Uint32(raw[i:]))
			}
			a, _ := netip.AddrFromSlice(raw)
			addrs = append(addrs, a)
		}
	}
	return addrs
}

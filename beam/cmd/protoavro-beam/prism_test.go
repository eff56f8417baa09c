package main

import (
	"context"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"slices"
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

// TestStartPrismLoopbackOnly: the job server that startPrism starts in this
// process accepts connections from this machine only: every TCP socket of
// this process that listens has a loopback address or is bound to the
// loopback interface.
func TestStartPrismLoopbackOnly(t *testing.T) {
	withFreePort(t)
	if err := startPrism(); err != nil {
		t.Fatalf("startPrism: %v", err)
	}
	_, port, err := net.SplitHostPort(*jobopts.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	found := checkListeners(t, os.Getpid())
	if !slices.Contains(found, port) {
		t.Errorf("no listener of this process on prism's port %s among %v", port, found)
	}
}

// checkListeners fails t unless every TCP socket of the process pid that
// listens has a loopback address or is bound to the loopback interface,
// as ss (iproute2, from the kernel's socket diagnostics) shows them; it
// returns their ports.
func checkListeners(t *testing.T, pid int) []string {
	t.Helper()
	out, err := exec.Command("ss", "-Hltnp").CombinedOutput()
	if err != nil {
		t.Fatalf("ss: %v\n%s", err, out)
	}
	var ports []string
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.Contains(line, "pid="+strconv.Itoa(pid)+",") {
			continue
		}
		// State Recv-Q Send-Q Local-Address:Port Peer-Address:Port Process
		f := strings.Fields(line)
		if len(f) < 6 {
			t.Fatalf("ss line %q", line)
		}
		local := f[3]
		k := strings.LastIndex(local, ":")
		host, port := local[:k], local[k+1:]
		ports = append(ports, port)
		if strings.HasSuffix(host, "%lo") {
			continue // bound to the loopback interface
		}
		a, err := netip.ParseAddr(strings.Trim(host, "[]"))
		if err != nil || !a.Unmap().IsLoopback() {
			t.Errorf("a socket of process %d listens on %s, beyond loopback", pid, local)
		}
	}
	return ports
}

// The socket tables of /proc/net parse into addresses and ports.
func TestParseSockets(t *testing.T) {
	text := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 12345 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0200000A:C350 01 00000000:00000000 00:00000000 00000000     0        0 12346 1 0000000000000000 100 0 0 10 0
`
	socks, err := parseSockets([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(socks) != 2 {
		t.Fatalf("%d sockets", len(socks))
	}
	want0, want1 := netip.MustParseAddrPort("127.0.0.1:8080"), netip.MustParseAddrPort("10.0.0.2:50000")
	if socks[0].local != want0 || socks[0].state != "0A" || socks[0].inode != "12345" || socks[1].remote != want1 {
		t.Errorf("parsed %+v", socks)
	}
	if _, err := parseSockets([]byte("head\n 0: zz:1 00000000:0000 0A a b c d e 1\n")); err == nil {
		t.Error("a bad address parsed")
	}
}

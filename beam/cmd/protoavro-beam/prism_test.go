package main

import (
	"context"
	"net"
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

package main

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
)

// TestWaitForWorker: before cancelling a job on the loopback environment,
// the command waits for this process's worker or for the end of the run,
// whose result it leaves for cancelJob; elsewhere it does not wait.
func TestWaitForWorker(t *testing.T) {
	defer func(env string) { *jobopts.EnvironmentType = env }(*jobopts.EnvironmentType)
	failed := errors.New("pipeline failed")

	*jobopts.EnvironmentType = "LOOPBACK"
	ran := make(chan error, 1)
	ran <- failed
	waitForWorker(context.Background(), ran)
	select {
	case err := <-ran:
		if err != failed {
			t.Errorf("the run's result became %v", err)
		}
	default:
		t.Error("the run's result was taken")
	}

	// No worker here and a run that does not end: the wait ends with ctx.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	waitForWorker(ctx, make(chan error, 1))

	*jobopts.EnvironmentType = "DOCKER"
	ran <- failed
	waitForWorker(context.Background(), ran)
	if len(ran) != 1 {
		t.Error("waited for a worker of another environment")
	}
}

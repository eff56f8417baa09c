// Package worker tells whether a worker of this process has run the
// pipeline's own work: the DoFns of protoavrobeam mark it, and
// protoavro-beam waits for it before it cancels a job that runs on this
// process's loopback environment.
//
// prism starts a job's worker by asking the loopback worker pool of the
// submitting process for one. When the job is cancelled while that request
// is in flight, the run returns, the pool shuts down, and prism panics on
// the refusal ("unable to start sdk worker ... worker pool shutting down"),
// taking the process with it. Once a DoFn has run here, the worker was
// started and the request answered.
package worker

import "sync"

var started = struct {
	once sync.Once
	ch   chan struct{}
}{ch: make(chan struct{})}

// MarkStarted records that a DoFn runs in this process.
func MarkStarted() { started.once.Do(func() { close(started.ch) }) }

// Started returns a channel closed once MarkStarted was called.
func Started() <-chan struct{} { return started.ch }

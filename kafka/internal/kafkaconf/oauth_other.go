//go:build !unix

package kafkaconf

import "os/exec"

// inOwnGroup leaves cmd as it is: without Unix process groups, cancelling
// cmd kills its process alone (exec.Cmd's default), and cmd.WaitDelay
// bounds the wait on what its children hold.
func inOwnGroup(*exec.Cmd) {}

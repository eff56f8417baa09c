//go:build !linux

package main

import (
	"errors"
	"fmt"
)

// restrictToLoopback is not available here: prism's job server, which the
// SDK opens on every address, can be bound to loopback on Linux only.
func restrictToLoopback(port int) error {
	return fmt.Errorf("port %d: %w", port, errors.New("prism's job server can be restricted to loopback on Linux only; pass --prism_listen_all to run with it open to every address"))
}

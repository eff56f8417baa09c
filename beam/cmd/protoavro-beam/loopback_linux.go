//go:build linux

package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// restrictToLoopback binds the TCP sockets of this process that listen on
// port (prism's job server, which the SDK opens on every address) to the
// loopback interface (SO_BINDTODEVICE "lo"): from then on only connections
// that arrive through loopback, from this machine, reach them. It then
// fails if a connection from another host reached the port before.
func restrictToLoopback(port int) error {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	bound := 0
	for _, e := range fds {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		sa, err := syscall.Getsockname(fd)
		if err != nil {
			continue // not a socket, or closed since the listing
		}
		var p int
		switch a := sa.(type) {
		case *syscall.SockaddrInet4:
			p = a.Port
		case *syscall.SockaddrInet6:
			p = a.Port
		default:
			continue
		}
		if p != port {
			continue
		}
		if v, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ACCEPTCONN); err != nil || v == 0 {
			continue
		}
		if err := syscall.BindToDevice(fd, "lo"); err != nil {
			return fmt.Errorf("bind the listener on port %d to the loopback interface: %w", port, err)
		}
		bound++
	}
	if bound == 0 {
		return fmt.Errorf("no listener of this process on port %d", port)
	}
	// A host that connected before the restriction shows in the socket
	// tables with a remote address that is not loopback.
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		socks, err := readSockets(file)
		if err != nil {
			return err
		}
		for _, s := range socks {
			if s.local.Port() == uint16(port) && s.remote.Port() != 0 && !s.remote.Addr().Unmap().IsLoopback() && !s.remote.Addr().IsUnspecified() {
				return fmt.Errorf("a connection from %s reached prism's job server on port %d before it was bound to loopback", s.remote, port)
			}
		}
	}
	return nil
}

// readSockets reads the TCP sockets of this network namespace from
// /proc/net/tcp or /proc/net/tcp6 (absent: none).
func readSockets(file string) ([]socketLine, error) {
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return parseSockets(b)
}

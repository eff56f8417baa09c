//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package main

import "syscall"

// getTermios is the ioctl that reads a terminal's attributes.
const getTermios = syscall.TIOCGETA

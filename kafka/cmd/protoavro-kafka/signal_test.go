package main

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestSignalsWithinTheWindow: interrupts that come less than
// secondSignalAfter after the first (two SIGTERMs at once, as GNU timeout
// sends them to the command and then to its process group) count as the
// first: the run is stopped once and the process lives on to commit and
// print its summary; one that comes secondSignalAfter or more after the
// first kills it. The clock is the test's: each signal is read at the time
// it lists.
func TestSignalsWithinTheWindow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		sigs  []os.Signal
		at    []time.Duration // when each signal is read, after the first
		stops int
		dies  []os.Signal
	}{
		{"one", []os.Signal{syscall.SIGTERM}, []time.Duration{0}, 1, nil},
		{"two at once", []os.Signal{syscall.SIGTERM, syscall.SIGTERM}, []time.Duration{0, 0}, 1, nil},
		{"a burst within the window", []os.Signal{syscall.SIGTERM, syscall.SIGTERM, os.Interrupt, syscall.SIGTERM},
			[]time.Duration{0, time.Millisecond, 500 * time.Millisecond, secondSignalAfter - time.Nanosecond}, 1, nil},
		{"a later second", []os.Signal{os.Interrupt, os.Interrupt}, []time.Duration{0, secondSignalAfter}, 1, []os.Signal{os.Interrupt}},
		{"repeats, then a later one", []os.Signal{syscall.SIGTERM, syscall.SIGTERM, os.Interrupt, syscall.SIGTERM},
			[]time.Duration{0, 10 * time.Millisecond, 2 * time.Second, 3 * time.Second}, 1, []os.Signal{os.Interrupt}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sigs := make(chan os.Signal, len(tc.sigs))
			for _, s := range tc.sigs {
				sigs <- s
			}
			close(sigs)
			at := tc.at
			now := func() time.Time {
				d := at[0]
				at = at[1:]
				return t0.Add(d)
			}
			stops := 0
			var dies []os.Signal
			watchSignals(sigs, now, secondSignalAfter, func() { stops++ }, func(s os.Signal) { dies = append(dies, s) })
			if stops != tc.stops || len(dies) != len(tc.dies) || len(dies) > 0 && dies[0] != tc.dies[0] {
				t.Errorf("%d stops, killed by %v; want %d stops, killed by %v", stops, dies, tc.stops, tc.dies)
			}
		})
	}
}

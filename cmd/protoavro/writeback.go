package main

import "os"

// writeBehindBytes is how much data written to an output file starts its
// write to disk, without waiting for it.
const writeBehindBytes = 8 << 20

// writeBehind writes to a new output file and, every writeBehindBytes,
// asks the system to start writing what came since to disk, without
// waiting for it (startWriteback). The sync that commits the file then
// finds little left to write: the disk works while the command converts,
// not only once it is done. It is a hint; errors of the disk are those of
// the sync.
type writeBehind struct {
	f *os.File
	// every is the number of bytes between two hints.
	every int64
	// written is the file's size so far; started, where the last hint
	// ended.
	written, started int64
	// hints counts the hints given.
	hints int
}

// Write writes p to the file, then gives a hint if one is due.
func (w *writeBehind) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.written += int64(n)
	if w.written-w.started >= w.every {
		startWriteback(w.f, w.started, w.written-w.started)
		w.started = w.written
		w.hints++
	}
	return n, err
}

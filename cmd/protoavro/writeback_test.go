package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteBehind(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := &writeBehind{f: f, every: 100}
	var want []byte
	for i := range 50 {
		p := bytes.Repeat([]byte{byte(i)}, 7+i%13)
		want = append(want, p...)
		if n, err := w.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("file holds %d bytes, want %d written", len(got), len(want))
	}
	// A hint every 100 bytes or more: each covers what came since the
	// last, so that the hints cover all but the tail.
	if w.written != int64(len(want)) || w.hints < len(want)/(100+19) || w.hints > len(want)/100 || w.written-w.started >= 100 {
		t.Errorf("written %d, started %d, %d hints for %d bytes", w.written, w.started, w.hints, len(want))
	}
}

func TestWriteBehindError(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	w := &writeBehind{f: f, every: 1}
	if n, err := w.Write([]byte("x")); err == nil || n != 0 {
		t.Errorf("Write to a closed file = %d, %v", n, err)
	}
	if w.written != 0 {
		t.Errorf("written = %d after a failed write", w.written)
	}
}

package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Refresh intervals of the progress display: on a terminal the line is
// redrawn in place; elsewhere (--progress with standard error redirected)
// a full line is printed less often, to keep logs short.
var (
	terminalRefresh = 250 * time.Millisecond
	logRefresh      = time.Second
)

// progressFlagUsage documents the --progress flag of encode and decode.
const progressFlagUsage = `  --progress             Show progress on standard error (records, bytes
                         read, rate, and an ETA when the input is a regular
                         file). On by default when standard error is a
                         terminal; --progress=false turns it off.
`

// progressFlag is the --progress flag. Unset, progress is shown when
// standard error is a terminal; --progress forces it on and
// --progress=false off.
type progressFlag struct {
	set, on bool
}

// String returns the flag's value.
func (f *progressFlag) String() string {
	if !f.set {
		return "auto"
	}
	return strconv.FormatBool(f.on)
}

// Set parses a boolean.
func (f *progressFlag) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	f.set, f.on = true, b
	return nil
}

// IsBoolFlag makes --progress valid without a value.
func (f *progressFlag) IsBoolFlag() bool { return true }

// progress shows how far a command has come on standard error while it
// runs. The command's goroutine publishes counters with [progress.update];
// a separate goroutine draws them. A nil *progress is a disabled display.
type progress struct {
	w       io.Writer
	verb    string // "encoding", "decoding"
	term    bool   // redraw in place
	size    int64  // input size, or -1 when unknown
	start   time.Time
	records atomic.Int64
	bytes   atomic.Int64
	stop    chan struct{}
	done    chan struct{}
	drawn   bool // a line was drawn on the terminal (owned by the drawing goroutine)
}

// startProgress starts the display on std.err if flag and the terminal
// say so, and returns nil otherwise. size is the input size, or -1.
func startProgress(std stdio, flag progressFlag, verb string, size int64, start time.Time) *progress {
	term := isTerminal(std.err)
	enabled := term
	if flag.set {
		enabled = flag.on
	}
	if !enabled {
		return nil
	}
	p := &progress{w: std.err, verb: verb, term: term, size: size, start: start,
		stop: make(chan struct{}), done: make(chan struct{})}
	interval := logRefresh
	if term {
		interval = terminalRefresh
	}
	go p.loop(interval)
	return p
}

// update publishes the number of records and input bytes processed.
func (p *progress) update(records, bytes int64) {
	if p != nil {
		p.records.Store(records)
		p.bytes.Store(bytes)
	}
}

// finish stops the display and clears its line, so the summary or the
// error that follows starts on a clean line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	close(p.stop)
	<-p.done
}

// loop draws the display every interval until finish is called.
func (p *progress) loop(interval time.Duration) {
	defer close(p.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			if p.drawn {
				fmt.Fprint(p.w, "\r\x1b[K")
			}
			return
		case now := <-t.C:
			line := p.line(now.Sub(p.start))
			if p.term {
				fmt.Fprintf(p.w, "\r%s\x1b[K", line)
				p.drawn = true
			} else {
				fmt.Fprintln(p.w, line)
			}
		}
	}
}

// line renders the current state, for example
// "protoavro: encoding: 120000 records, 30.2 MiB of 120.0 MiB (25%), 61.0 MiB/s, ETA 1s".
func (p *progress) line(elapsed time.Duration) string {
	records, bytes := p.records.Load(), p.bytes.Load()
	var b strings.Builder
	fmt.Fprintf(&b, "protoavro: %s: %s records, %s", p.verb, strconv.FormatInt(records, 10), formatBytes(bytes))
	if p.size >= 0 {
		pct := 100.0
		if p.size > 0 {
			pct = 100 * float64(bytes) / float64(p.size)
		}
		fmt.Fprintf(&b, " of %s (%.0f%%)", formatBytes(p.size), pct)
	}
	secs := elapsed.Seconds()
	if secs > 0 {
		rate := float64(bytes) / secs
		fmt.Fprintf(&b, ", %s/s", formatBytes(int64(rate)))
		if p.size >= 0 && rate > 0 && bytes < p.size {
			eta := time.Duration(float64(p.size-bytes) / rate * float64(time.Second))
			fmt.Fprintf(&b, ", ETA %s", eta.Round(time.Second))
		}
	}
	return b.String()
}

// formatBytes renders n bytes for people: "512 B", "12.3 KiB", "4.0 GiB".
func formatBytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v := float64(n)
	for _, unit := range []string{"KiB", "MiB", "GiB", "TiB"} {
		v /= 1024
		if v < 1024 || unit == "TiB" {
			return strconv.FormatFloat(v, 'f', 1, 64) + " " + unit
		}
	}
	panic("unreachable")
}

// formatDuration rounds d for a summary line: "850µs", "15ms", "2.35s", "1m3s".
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// plural returns "1 record" or "2 records".
func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.FormatInt(n, 10) + " " + word + "s"
}

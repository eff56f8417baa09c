package serde

import (
	"context"
	"testing"
	"time"
)

// TestOnceCachePanic: a call that panics does not leave the callers
// waiting for it waiting for ever: the panic reaches its own caller, and
// a caller waiting for it calls again.
func TestOnceCachePanic(t *testing.T) {
	var c onceCache[int, string]
	started, release := make(chan struct{}), make(chan struct{})
	panicked := make(chan any, 1)
	go func() {
		defer func() { panicked <- recover() }()
		c.get(context.Background(), 1, func() (string, error) { //nolint:errcheck // it panics
			close(started)
			<-release
			panic("a bug met on this schema")
		})
	}()
	<-started
	got := make(chan string, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() {
		v, err := c.get(ctx, 1, func() (string, error) { return "again", nil })
		if err != nil {
			v = err.Error()
		}
		got <- v
	}()
	for c.waiting(1) != 1 {
		if ctx.Err() != nil {
			t.Fatal("the second caller never waited")
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	if p := <-panicked; p != "a bug met on this schema" {
		t.Errorf("the caller whose call panicked recovered %v", p)
	}
	if v := <-got; v != "again" {
		t.Errorf("the caller waiting got %q, want its own call's value", v)
	}
	if n, _ := c.len(); n != 1 {
		t.Errorf("%d values cached, want 1", n)
	}
}

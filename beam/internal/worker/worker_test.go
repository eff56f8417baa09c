package worker

import "testing"

func TestStarted(t *testing.T) {
	select {
	case <-Started():
		t.Fatal("started before MarkStarted")
	default:
	}
	MarkStarted()
	MarkStarted() // a second call is harmless
	select {
	case <-Started():
	default:
		t.Fatal("not started after MarkStarted")
	}
}

package usage

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestUsage(t *testing.T) {
	err := Errorf("reading %s: %w", "x.proto", fs.ErrNotExist)
	if !Is(err) || !errors.Is(err, fs.ErrNotExist) || err.Error() != "reading x.proto: file does not exist" {
		t.Errorf("Errorf: %v (usage %v, wraps ErrNotExist %v)", err, Is(err), errors.Is(err, fs.ErrNotExist))
	}
	if w := fmt.Errorf("load: %w", err); !Is(w) || Wrap(w) != w {
		t.Errorf("a wrapped usage error: Is %v, Wrap changed it: %v", Is(w), Wrap(w) != w)
	}
	plain := errors.New("disk full")
	if Is(plain) {
		t.Error("a plain error is a usage error")
	}
	if w := Wrap(plain); !Is(w) || !errors.Is(w, plain) || w.Error() != "disk full" {
		t.Errorf("Wrap(plain) = %v", w)
	}
	if Wrap(nil) != nil || Is(nil) {
		t.Error("Wrap(nil) or Is(nil)")
	}
}

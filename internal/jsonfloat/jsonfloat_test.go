package jsonfloat

import (
	"math"
	"testing"
)

func TestNonFinite(t *testing.T) {
	for _, c := range []struct {
		s    string
		want float64
		ok   bool
	}{
		{"NaN", math.NaN(), true},
		{"Infinity", math.Inf(1), true},
		{"-Infinity", math.Inf(-1), true},
		{"nan", 0, false},
		{"inf", 0, false},
		{"+Infinity", 0, false},
		{"1", 0, false},
		{"", 0, false},
	} {
		got, ok := NonFinite(c.s)
		if ok != c.ok || ok && !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) || !ok && got != 0 {
			t.Errorf("NonFinite(%q) = %v, %v; want %v, %v", c.s, got, ok, c.want, c.ok)
		}
	}
}

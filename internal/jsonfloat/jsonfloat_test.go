package jsonfloat

import (
	"math"
	"testing"
)

func TestNonFinite(t *testing.T) {
	if f, ok := NonFinite("NaN"); !ok || !math.IsNaN(f) {
		t.Errorf("NonFinite(NaN) = %v, %v", f, ok)
	}
	if f, ok := NonFinite("Infinity"); !ok || !math.IsInf(f, 1) {
		t.Errorf("NonFinite(Infinity) = %v, %v", f, ok)
	}
	if f, ok := NonFinite("-Infinity"); !ok || !math.IsInf(f, -1) {
		t.Errorf("NonFinite(-Infinity) = %v, %v", f, ok)
	}
	// Only the exact spellings: protojson and Avro's JSON take no other.
	for _, s := range []string{"nan", "inf", "infinity", "+Infinity", " NaN", "NaN ", "1", ""} {
		if f, ok := NonFinite(s); ok || f != 0 {
			t.Errorf("NonFinite(%q) = %v, %v; want 0, false", s, f, ok)
		}
	}
}

// Package jsonfloat reads the JSON strings that stand for the non-finite
// floats. protojson and the Avro specification's JSON encoding spell them
// alike: "NaN", "Infinity" and "-Infinity".
package jsonfloat

import "math"

// NonFinite returns the float that s, the text of a JSON string without its
// quotes, stands for when it is "NaN", "Infinity" or "-Infinity".
func NonFinite(s string) (float64, bool) {
	switch s {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	return 0, false
}

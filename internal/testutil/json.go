package testutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// DecodeJSON parses data, one JSON value, into a generic value (maps,
// slices, strings, bools, nil) with numbers kept as [json.Number], so that
// tests compare JSON by meaning with the numbers as written. Anything but
// white space after the value is an error.
func DecodeJSON(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if rest := bytes.TrimLeft(data[d.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("text after the JSON value at byte %d", d.InputOffset())
	}
	return v, nil
}

// JSONValue is [DecodeJSON] that fails the test when data is not one JSON
// value.
func JSONValue(t testing.TB, data []byte) any {
	t.Helper()
	v, err := DecodeJSON(data)
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return v
}

// EachJSONObject calls fn with every object in v, a generic JSON value (as
// DecodeJSON returns it), each before the objects it holds.
func EachJSONObject(v any, fn func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		fn(x)
		for _, e := range x {
			EachJSONObject(e, fn)
		}
	case []any:
		for _, e := range x {
			EachJSONObject(e, fn)
		}
	}
}

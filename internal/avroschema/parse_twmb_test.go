package avroschema

import (
	"strings"
	"testing"

	twmb "github.com/twmb/avro"
)

// FuzzParseAgreesWithTwmb parses arbitrary text with Parse and with
// github.com/twmb/avro, an independent implementation of the
// specification: a schema both accept has one Parsing Canonical Form, and
// text one refuses the other refuses too, but for the one difference named
// below.
func FuzzParseAgreesWithTwmb(f *testing.F) {
	addParseSeeds(f)
	f.Fuzz(func(t *testing.T, text []byte) {
		ours, err := ParseExact(text)
		if len(text) > DefaultLimits.MaxSize || defaultWork([][]byte{text}) > maxDefaultWork {
			return // refused by Parse; twmb/avro would take exponential time
		}
		if d, _ := JSONDepth(text, DefaultLimits.MaxDepth); d > DefaultLimits.MaxDepth {
			return // refused by Parse
		}
		ref, rerr := twmb.Parse(string(text))
		switch {
		case err == nil && rerr == nil:
			if got, want := ours.Canonical(), string(ref.Canonical()); got != want {
				t.Fatalf("canonical form\n got %s\nwant %s", got, want)
			}
		case err != nil && rerr != nil:
		case err == nil && strings.Contains(rerr.Error(), "has schema for other types"):
			// twmb/avro refuses a type with another kind's attribute
			// that holds a schema ("items" on an enum); the
			// specification and Java ignore attributes a type does
			// not define, and Parse keeps them as attributes.
		default:
			t.Fatalf("Parse: %v\ntwmb/avro: %v", err, rerr)
		}
	})
}

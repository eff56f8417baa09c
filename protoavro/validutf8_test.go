package protoavro

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestValidUTF8: validUTF8 agrees with utf8.Valid on strings of every
// length up to 40 bytes: ASCII, and ASCII with one byte of 0x80 or above,
// or one whole rune of two to four bytes, at each place (the places each
// load of its fast path reads); and on random bytes.
func TestValidUTF8(t *testing.T) {
	t.Parallel()
	check := func(b []byte) {
		t.Helper()
		if got, want := validUTF8(b), utf8.Valid(b); got != want {
			t.Fatalf("validUTF8(%q) = %v, utf8.Valid says %v", b, got, want)
		}
	}
	for n := range 41 {
		ascii := bytes.Repeat([]byte{'a'}, n)
		check(ascii)
		for i := range n {
			for _, c := range []byte{0x7f, 0x80, 0xc3, 0xff} {
				b := bytes.Clone(ascii)
				b[i] = c
				check(b)
			}
			for _, r := range []string{"é", "€", "😀"} {
				if i+len(r) <= n {
					b := bytes.Clone(ascii)
					copy(b[i:], r)
					check(b)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		check(b)
	}
}

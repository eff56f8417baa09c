package protoavro

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
	"google.golang.org/protobuf/encoding/protowire"
)

// TestInOrderBytesLists: the one-pass path writes lists of strings and
// bytes as it reads them (bytesList), the count in front of the elements
// whatever its size (one byte below 64 elements, two below 8192, three
// from 8192 on), and gives the bytes, error and count of unknown fields
// the scanning path gives; it gives up on a string that is not UTF-8 and on
// elements apart, which the scanning path writes.
func TestInOrderBytesLists(t *testing.T) {
	t.Parallel()
	fd := testcompile.Sources(t, map[string]string{"lists.proto": `syntax = "proto3";
		package lists;
		message L {
		  string a = 1;
		  repeated string s = 2;
		  repeated bytes b = 3;
		  int32 z = 4;
		}`}, "lists.proto")[0]
	c, err := Options{}.Codec(testutil.FindMessage(fd, "lists.L"))
	if err != nil {
		t.Fatal(err)
	}
	str := func(num protowire.Number, v string) []byte {
		return protowire.AppendString(protowire.AppendTag(nil, num, protowire.BytesType), v)
	}
	// list is n elements of field num, the i-th elem(i).
	list := func(num protowire.Number, n int, elem func(i int) string) []byte {
		var b []byte
		for i := range n {
			b = append(b, str(num, elem(i))...)
		}
		return b
	}
	word := func(i int) string { return fmt.Sprintf("w%d", i) }
	// badAt is word, but for the k-th element, which is not UTF-8.
	badAt := func(k int) func(int) string {
		return func(i int) string {
			if i == k {
				return "a\xc0"
			}
			return word(i)
		}
	}
	varint := protowire.AppendVarint(protowire.AppendTag(nil, 2, protowire.VarintType), 7) // s in the wrong wire type
	z := protowire.AppendVarint(protowire.AppendTag(nil, 4, protowire.VarintType), 5)
	cases := []struct {
		name    string
		wire    []byte
		gaveUp  bool
		unknown int64
		count   int // the count of s, checked in the output when gaveUp is false
	}{
		{name: "one", wire: list(2, 1, word), count: 1},
		{name: "63", wire: list(2, 63, word), count: 63},
		{name: "64", wire: list(2, 64, word), count: 64},
		{name: "65 between fields", wire: bytes.Join([][]byte{str(1, "x"), list(2, 65, word), list(3, 2, word), z}, nil), count: 65},
		{name: "8191", wire: list(2, 8191, word), count: 8191},
		{name: "8192", wire: list(2, 8192, word), count: 8192},
		{name: "empty elements", wire: list(2, 100, func(int) string { return "" }), count: 100},
		{name: "wrong wire type inside", wire: bytes.Join([][]byte{list(2, 2, word), varint, list(2, 2, word), z}, nil), unknown: 1, count: 4},
		{name: "wrong wire type first", wire: bytes.Join([][]byte{varint, list(2, 70, word)}, nil), unknown: 1, count: 70},
		{name: "wrong wire type last", wire: bytes.Join([][]byte{list(2, 3, word), varint, varint}, nil), unknown: 2, count: 3},
		{name: "not UTF-8 first", wire: list(2, 3, badAt(0)), gaveUp: true},
		{name: "not UTF-8 in the 70th", wire: list(2, 80, badAt(69)), gaveUp: true},
		{name: "bytes not UTF-8", wire: list(3, 70, func(int) string { return "\xff\xfe" })},
		{name: "elements apart", wire: bytes.Join([][]byte{list(2, 2, word), z, list(2, 2, word)}, nil), gaveUp: true},
		{name: "truncated after elements", wire: append(list(2, 66, word), 0x12, 5, 'a'), gaveUp: true},
	}
	for _, tc := range cases {
		gaveUp, err := transcodeBothPaths(t, tc.name, c, tc.wire)
		if gaveUp != tc.gaveUp {
			t.Errorf("%s: the one-pass path gave up: %v, want %v (%v)", tc.name, gaveUp, tc.gaveUp, err)
		}
		if tc.gaveUp {
			continue
		}
		out, tl, _, err := c.transcodeTally(nil, tc.wire, false)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		_, scanned, _, _ := c.transcodeTally(nil, tc.wire, true)
		if tl.unknown != tc.unknown || scanned.unknown != tc.unknown {
			t.Errorf("%s: %d unknown fields, the scanning path %d, want %d", tc.name, tl.unknown, scanned.unknown, tc.unknown)
		}
		if tc.count > 0 {
			// The datum: a, then s's count and elements.
			r := newAvroReader(out)
			a, err1 := r.bytes()
			n, err2 := r.long()
			if err := errors.Join(err1, err2); err != nil || int(n) != tc.count {
				t.Errorf("%s: a %q, s of %d elements (%v), want %d", tc.name, a, n, err, tc.count)
			}
		}
	}
	// The first element's string error, reported by the scanning path.
	_, err = c.TranscodeToAvro(nil, list(2, 3, func(int) string { return "\xff" }))
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("a list of strings that are not UTF-8: %v, want an ErrMalformed about UTF-8", err)
	}
}

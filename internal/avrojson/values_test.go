package avrojson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// TestNumberRange: numbers beyond their type's range are refused with the
// field's path, the number shortened; numbers within it, and numbers too
// small to represent (zero), are written.
func TestNumberRange(t *testing.T) {
	huge := "1" + strings.Repeat("0", 1_000_000)
	for _, c := range []struct {
		schema, value string
		want          string // "" for accepted
	}{
		{`"double"`, `1e309`, "1e309 is outside the range of double"},
		{`"double"`, `-1e309`, "-1e309 is outside the range of double"},
		{`"double"`, huge, "is outside the range of double"},
		{`"double"`, `1.7976931348623157e308`, ""},
		{`"double"`, `1e-400`, ""},
		{`"double"`, `"Infinity"`, ""},
		{`"float"`, `3.5e38`, "3.5e38 is outside the range of float"},
		{`"float"`, `-1e39`, "-1e39 is outside the range of float"},
		{`"float"`, `1e309`, "1e309 is outside the range of float"},
		{`"float"`, huge, "is outside the range of float"},
		{`"float"`, `3.4028235e38`, ""},
		{`"float"`, `1e-50`, ""},
		{`"int"`, `2147483648`, "2147483648 is outside the range of int (-2147483648 to 2147483647)"},
		{`"int"`, `-2147483649`, "outside the range of int"},
		{`"int"`, huge, "outside the range of int"},
		{`"int"`, `-2147483648`, ""},
		{`"long"`, `9223372036854775808`, "9223372036854775808 is outside the range of long (-9223372036854775808 to 9223372036854775807)"},
		{`"long"`, "-" + huge, "outside the range of long"},
		{`"long"`, `-9223372036854775808`, ""},
		{`"long"`, `1.5`, "1.5 is not a 64-bit integer"},
	} {
		schema := `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":["null",` + c.schema + `]}}]}`
		branch := strings.Trim(c.schema, `"`)
		text := `{"a":[null,{"` + branch + `":` + c.value + `}]}`
		_, err := AppendBinary(nil, testutil.MustParseAvro(t, schema), []byte(text))
		shown := c.value[:min(len(c.value), 30)]
		if c.want == "" {
			if err != nil {
				t.Errorf("%s %s: %v", c.schema, shown, err)
			}
			continue
		}
		path := "a[1]<" + branch + ">: "
		if err == nil || !errors.Is(err, ErrJSON) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v; want ErrJSON with %q and %q", c.schema, shown, err, path, c.want)
		} else if len(err.Error()) > 300 {
			t.Errorf("%s %s: error of %d bytes", c.schema, shown, len(err.Error()))
		}
	}
}

// endless is a stream of a JSON string value of n bytes, generated as it
// is read; read counts the bytes taken from it.
type endless struct {
	n, read int64
}

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), e.n-e.read)
	for i := range p[:k] {
		switch pos := e.read + int64(i); {
		case pos == 0:
			p[i] = '"'
		case pos == e.n-1:
			p[i] = '"'
		default:
			p[i] = 'a'
		}
	}
	e.read += k
	return int(k), nil
}

// TestValueReaderBound: a value of 300 MB, streamed, is refused under a
// bound of 1 MiB having read about the bound from the stream, in memory of
// the order of the bound; the values before it are read.
func TestValueReaderBound(t *testing.T) {
	const bound = 1 << 20
	big := &endless{n: 300 << 20}
	in := io.MultiReader(strings.NewReader(`{"a":1} 2`+"\n"+`"`+strings.Repeat("x", bound-3)+`"`), big)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	vr := NewValueReader(in, bound)
	var got []string
	var err error
	var at []int64
	for {
		var raw json.RawMessage
		var off int64
		if raw, off, err = vr.Next(); err != nil {
			break
		}
		got = append(got, string(raw[:min(len(raw), 8)]))
		at = append(at, off)
	}
	runtime.ReadMemStats(&after)
	if want := []string{`{"a":1}`, `2`, `"xxxxxxx`}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("values %q, want %q", got, want)
	}
	if len(at) == 3 && (at[0] != 0 || at[1] != 8 || at[2] != 10) {
		t.Errorf("offsets %v, want [0 8 10]", at)
	}
	if !errors.Is(err, ocf.ErrLimit) || !strings.Contains(err.Error(), "more than 1048576 bytes after byte 1048585") {
		t.Fatalf("the value of 300 MB: %v, want ErrLimit", err)
	}
	// The refusal came after reading about the bound, not the value.
	if big.read > 2*bound {
		t.Errorf("read %d bytes of the 300 MB value, with a bound of %d", big.read, bound)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*bound {
		t.Errorf("allocated %d MiB for a bound of 1 MiB", alloc>>20)
	}
}

// TestValueReaderExact: values of exactly the bound are read, with the
// white space before them, numbers at the end of the stream included; one
// byte more is refused.
func TestValueReaderExact(t *testing.T) {
	for _, c := range []struct {
		in  string
		ok  int // values read before the end or the error
		err error
	}{
		{"12345", 1, io.EOF},
		{"123456", 0, ocf.ErrLimit},
		{"1234\n1234", 2, io.EOF},
		{"1234\n\n12345", 1, ocf.ErrLimit},
		{`"abc"` + "\n" + `{"a":1}`, 1, ocf.ErrLimit},
		{`[1,2]`, 1, io.EOF},
		{`[1,2`, 0, io.ErrUnexpectedEOF},
		{`{]`, 0, nil}, // a *json.SyntaxError
	} {
		vr := NewValueReader(strings.NewReader(c.in), 5)
		n := 0
		var err error
		for ; ; n++ {
			if _, _, err = vr.Next(); err != nil {
				break
			}
		}
		var se *json.SyntaxError
		if n != c.ok || c.err != nil && !errors.Is(err, c.err) || c.err == nil && !errors.As(err, &se) {
			t.Errorf("%q: %d values, then %v; want %d, then %v", c.in, n, err, c.ok, c.err)
		}
	}
}

// FuzzValueReader reads arbitrary streams under a small bound: the values
// it returns are those encoding/json's decoder reads, at the same
// offsets, and a value it refuses is over the bound.
func FuzzValueReader(f *testing.F) {
	f.Add([]byte(`{"a":1} 2 "x"`), 8)
	f.Add([]byte("1\n2\n33333333333\n4"), 4)
	f.Add([]byte(`[1,2] {"a":[{}]}`+"\n\n\t"+`"\u00e9"`), 6)
	f.Add([]byte(`{"d":1e309,"f":3.5e38}`), 32)
	f.Add([]byte("1"+strings.Repeat("0", 400)), 100)
	f.Add([]byte(`{]`), 10)
	f.Fuzz(func(t *testing.T, in []byte, bound int) {
		bound = 1 + abs(bound)%64
		vr := NewValueReader(bytes.NewReader(in), bound)
		dec := json.NewDecoder(bytes.NewReader(in))
		for {
			start := dec.InputOffset()
			var want json.RawMessage
			wantErr := dec.Decode(&want)
			got, off, err := vr.Next()
			if errors.Is(err, ocf.ErrLimit) {
				if wantErr == nil && dec.InputOffset()-start <= int64(bound) {
					t.Fatalf("value %q after byte %d refused under a bound of %d", want, start, bound)
				}
				return
			}
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("after byte %d: %v, want %v", start, err, wantErr)
			}
			if err != nil {
				return
			}
			if !bytes.Equal(got, want) || off != dec.InputOffset()-int64(len(want)) {
				t.Fatalf("value %q at %d, want %q at %d", got, off, want, dec.InputOffset()-int64(len(want)))
			}
			if dec.InputOffset()-start > int64(bound) {
				t.Fatalf("value %q of %d bytes with its white space read under a bound of %d", got, dec.InputOffset()-start, bound)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

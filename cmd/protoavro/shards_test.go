package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestShardIndex checks that a shard set recognizes exactly the names of
// its shards, whatever digits and padding surround the number.
func TestShardIndex(t *testing.T) {
	for _, c := range []struct {
		out  string
		yes  map[string]int
		nope []string
	}{
		{"s.avro", map[string]int{"s-00000.avro": 0, "s-00042.avro": 42, "s-123456.avro": 123456},
			[]string{"s.avro", "s-0042.avro", "s-42.avro", "s--0001.avro", "s-00001.avro.tmp", "t-00001.avro", "s-0000x.avro"}},
		{"dir/out", map[string]int{"dir/out-00007": 7}, []string{"out-00007", "dir/out-00007.avro"}},
		// Digits next to the number, in the prefix and the suffix.
		{"v2%d2.avro", map[string]int{"v202.avro": 0, "v2102.avro": 10}, []string{"v22.avro", "v2012.avro"}},
		{"run0%03d", map[string]int{"run0000": 0, "run0123": 123, "run01234": 1234}, []string{"run00", "run012", "run0-01"}},
		{"p-%+d.avro", map[string]int{"p-+3.avro": 3}, []string{"p-3.avro"}},
		{"100%%-%d", map[string]int{"100%-5": 5}, []string{"100%%-5"}},
		{"z%+05d", map[string]int{"z+0042": 42}, []string{"z42", "z0042", "z+42"}},
	} {
		s, err := newShardSet(c.out, true, 1, 0, stdio{})
		if err != nil {
			t.Fatalf("%s: %v", c.out, err)
		}
		for name, want := range c.yes {
			if i, ok := s.index(name); !ok || i != want {
				t.Errorf("%s: index(%q) = %d, %v; want %d", c.out, name, i, ok, want)
			}
			if got := s.name(want); got != name {
				t.Errorf("%s: name(%d) = %q, want %q", c.out, want, got, name)
			}
		}
		for _, name := range c.nope {
			if i, ok := s.index(name); ok {
				t.Errorf("%s: index(%q) = %d, want no shard", c.out, name, i)
			}
		}
	}
	for _, out := range []string{"-", "", "p-%s.avro", "p.avro%", "p-%d-%d.avro", "p-%%.avro",
		// Verbs whose names are not decimal digits, which commit could
		// not read back as shard numbers.
		"o-%x.avro", "o-%X.avro", "o-%o.avro", "o-%b.avro", "o-%c.avro", "o-%U.avro", "o-%v.avro", "o-%q.avro",
		"o-%5d.avro", "o-%-5d.avro", "o-% d.avro", "o-%#x.avro", "o-%[1]d.avro", "o-%.3d.avro", "o-%020d.avro"} {
		if _, err := newShardSet(out, true, 1, 0, stdio{}); err == nil {
			t.Errorf("newShardSet(%q) accepted", out)
		}
	}
	for _, out := range []string{"o-%d.avro", "o-%05d.avro", "o-%019d.avro", "o-%+d", "o-%0+3d", "%d", "%%%d%%"} {
		if _, err := newShardSet(out, true, 1, 0, stdio{}); err != nil {
			t.Errorf("newShardSet(%q): %v", out, err)
		}
	}
}

// TestShardPatternDecimal: encode refuses an --out pattern whose shard
// numbers are not decimal (%x would name shards o-a.avro to o-e.avro that
// a later run could neither remove nor report), saying which verbs it
// takes, and removes the shards of an earlier run past its last one under
// a zero-padded pattern.
func TestShardPatternDecimal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, verb := range []string{"%x", "%c", "%5d"} {
		out := filepath.Join(dir, "o-"+verb+".avro")
		wantRun(t, runIO(t, nil, encodeArgs("--in", sampleFile, "--out", out, "--shard-records", "100")...), exitUsage,
			"want one integer verb for the shard number, in decimal digits: %d, or %0Nd such as %05d")
	}
	wantOnly(t, dir)
	out := filepath.Join(dir, "o-%03d.avro")
	wantRun(t, runIO(t, nil, encodeArgs("--in", sampleFile, "--out", out, "--shard-records", "100")...), 0, ", 10 shards")
	wantRun(t, runIO(t, nil, encodeArgs("--in", sampleFile, "--out", out, "--shard-records", "500")...), 0, "removed 8 shards of an earlier run")
	wantOnly(t, dir, "o-000.avro", "o-001.avro")
}

// TestFinishedShardsHoldNoBuffer: the shards of a run are kept until
// commit, each without its 256 KiB write buffer, so that a run of many
// small shards (--shard-records 1) holds a few hundred bytes per shard
// rather than the buffer of every shard written.
func TestFinishedShardsHoldNoBuffer(t *testing.T) {
	const shards = 400
	s, err := newShardSet(filepath.Join(t.TempDir(), "s.avro"), true, 1, 0, stdio{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.abort()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range shards {
		out, err := s.next()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Fprintf(out, "shard %d\n", i); err != nil {
			t.Fatal(err)
		}
		if err := s.finish(); err != nil {
			t.Fatal(err)
		}
		if got := out.written(); got != int64(len(fmt.Sprintf("shard %d\n", i))) {
			t.Fatalf("shard %d: written() = %d after finish", i, got)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	// Held live until commit: 400 shards of 256 KiB would be 100 MiB.
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 8<<20 {
		t.Errorf("%d finished shards hold %d KiB of heap, want at most 8 MiB", shards, grown>>10)
	}
	if err := s.commit(); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, shards - 1} {
		b, err := os.ReadFile(s.name(i))
		if err != nil || string(b) != fmt.Sprintf("shard %d\n", i) {
			t.Errorf("shard %d: %q, %v", i, b, err)
		}
	}
}

package main

import "testing"

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
	for _, out := range []string{"-", "", "p-%s.avro", "p.avro%", "p-%d-%d.avro", "p-%%.avro"} {
		if _, err := newShardSet(out, true, 1, 0, stdio{}); err == nil {
			t.Errorf("newShardSet(%q) accepted", out)
		}
	}
}

package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// damagedFiles writes a container file of schema "long" in three blocks of
// two records and damaged copies of it under dir, by name.
func damagedFiles(t *testing.T, dir string, codec ocf.Codec) map[string]string {
	t.Helper()
	var b bytes.Buffer
	w, err := ocf.NewWriter(&b, ocf.WriterOptions{Schema: []byte(`"long"`), Codec: codec, Sync: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := w.WriteBlock(2, binary.AppendVarint(binary.AppendVarint(nil, int64(i)), int64(i+1000))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	good := b.Bytes()
	second := int(testutil.BlockSpans(t, good)[1].Offset)
	files := map[string][]byte{
		"good":      good,
		"truncated": good[:second+4],
		"badsync":   append(bytes.Clone(good[:len(good)-1]), 0),
		"negcount":  append(append(bytes.Clone(good[:second]), 3), good[second+1:]...),
	}
	if codec != ocf.Null {
		bad := bytes.Clone(good)
		// The first byte of the second block's data.
		bad[second+2] ^= 0xff
		bad[second+3] ^= 0xff
		files["undecompressable"] = bad
	}
	paths := map[string]string{}
	for name, data := range files {
		p := filepath.Join(dir, name+".avro")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return paths
}

// TestCountDamaged: count of a damaged file (truncated in a block, a bad
// sync marker, a negative block count) prints the records before the damage
// and exits 1 with the error inspect and tojson give for the same file, word
// for word. A block that does not decompress is not seen: count, like
// inspect of a file without a protobuf type, reads the blocks as stored.
func TestCountDamaged(t *testing.T) {
	for _, codec := range []ocf.Codec{ocf.Null, ocf.Deflate} {
		paths := damagedFiles(t, t.TempDir(), codec)
		for name, want := range map[string]string{"truncated": "2\n", "badsync": "4\n", "negcount": "2\n", "undecompressable": "6\n", "good": "6\n"} {
			p, ok := paths[name]
			if !ok {
				continue
			}
			r := runCmd(t, "count", p)
			if r.stdout != want {
				t.Errorf("%s %s: count printed %q, want %q", codec, name, r.stdout, want)
			}
			inspect := runCmd(t, "inspect", p)
			if r.code != inspect.code || r.stderr != inspect.stderr {
				t.Errorf("%s %s: count exits %d with %q; inspect exits %d with %q", codec, name, r.code, r.stderr, inspect.code, inspect.stderr)
			}
			if name == "good" || name == "undecompressable" {
				continue
			}
			tojson := runCmd(t, "tojson", p)
			if r.code != exitData || r.stderr != tojson.stderr {
				t.Errorf("%s %s: count exits %d with %q; tojson exits %d with %q", codec, name, r.code, r.stderr, tojson.code, tojson.stderr)
			}
		}
	}
}

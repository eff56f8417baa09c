package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/internal/usage"
)

// shardSet is the output of encode: one file, or shards named by a pattern.
//
// The shards of a run replace the shards of an earlier run of the same
// --out, as one output file replaces the file: after commit, the files
// named like shards past the last one written (left by a run that wrote
// more) are removed, so that a glob over the names reads this run's
// records only.
type shardSet struct {
	// out is --out; pattern is the fmt format of a shard's name, with one
	// decimal verb (checkShardPattern; for one file, out itself).
	out, pattern string
	sharded      bool
	// records and size are the limits of one shard, 0 for none.
	records, size int64
	std           stdio
	cur           *output
	done          []*output
	// stale are the files of an earlier run that commit removed; kept
	// are those named like shards that it left, with the reason.
	stale, kept []string
}

// newShardSet returns the output named by --out out. Sharded, out is a
// pattern with one decimal verb for the shard number (part-%03d.avro), or
// else the shard number goes before the extension (out-00000.avro).
func newShardSet(out string, sharded bool, records, size int64, std stdio) (*shardSet, error) {
	s := &shardSet{out: out, pattern: out, sharded: sharded, records: records, size: size, std: std}
	switch {
	case !sharded:
		return s, nil
	case out == "" || out == "-":
		return nil, usage.Errorf("--shard-records and --shard-size need --out FILE")
	}
	if strings.Contains(out, "%") {
		if err := checkShardPattern(out); err != nil {
			return nil, usage.Errorf("--out %s: %v: want one integer verb for the shard number, in decimal digits: %%d, or %%0Nd such as %%05d (zero-padded to N digits), with an optional + flag; %%%% for a literal %%", safetext.Escape(out, 500), err)
		}
	} else {
		ext := filepath.Ext(out)
		s.pattern = strings.TrimSuffix(out, ext) + "-%05d" + ext
	}
	return s, nil
}

// maxShardWidth is the widest zero-padding of a shard number: the digits
// of the largest int.
const maxShardWidth = 19

// checkShardPattern checks that out, a pattern of shard names, has exactly
// one verb, a decimal one whose output is digits (with a + sign at most):
// %d, %0Nd or %+d. Other verbs (%x, %c, %s) and padding with spaces
// (%5d) would name shards that commit could not read back as numbers, so
// the shards of an earlier run would be neither removed nor reported.
func checkShardPattern(out string) error {
	verbs := 0
	for i := 0; i < len(out); i++ {
		if out[i] != '%' {
			continue
		}
		j := i + 1
		if j < len(out) && out[j] == '%' {
			i = j
			continue
		}
		zero := false
		for j < len(out) && (out[j] == '0' || out[j] == '+') {
			zero = zero || out[j] == '0'
			j++
		}
		w := j
		for j < len(out) && out[j] >= '0' && out[j] <= '9' {
			j++
		}
		width, _ := strconv.Atoi(out[w:j]) // 0 for none
		switch {
		case j >= len(out):
			return fmt.Errorf("%s at byte %d is not a verb", safetext.Quote(out[i:], 40), i)
		case out[j] != 'd':
			return fmt.Errorf("%s at byte %d is not a decimal verb", safetext.Quote(out[i:j+1], 40), i)
		case w < j && !zero:
			return fmt.Errorf("%s at byte %d pads with spaces", out[i:j+1], i)
		case w < j && (j-w > 2 || width > maxShardWidth):
			return fmt.Errorf("%s at byte %d pads to more than %d digits", out[i:j+1], i, maxShardWidth)
		}
		verbs++
		i = j
	}
	if verbs != 1 {
		return fmt.Errorf("%d verbs", verbs)
	}
	return nil
}

// name returns the file name of shard i.
func (s *shardSet) name(i int) string {
	if !s.sharded {
		return s.pattern
	}
	return fmt.Sprintf(s.pattern, i)
}

// affixes returns what the names of all shards start and end with: the
// name around the shard number.
func (s *shardSet) affixes() (prefix, suffix string) {
	// Two numbers with no digit in common, the second as long as an int
	// allows (longer than any sensible padding): the names agree exactly
	// outside the number.
	ones := 1
	for ones <= (math.MaxInt-1)/10 {
		ones = ones*10 + 1
	}
	a, b := s.name(2), s.name(ones)
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	m := 0
	for m < len(a)-n && m < len(b)-n && a[len(a)-1-m] == b[len(b)-1-m] {
		m++
	}
	return a[:n], a[len(a)-m:]
}

// index returns the shard number of path when it is the name of one of
// the shards (as a shard would be named, not only a file of that name).
func (s *shardSet) index(path string) (int, bool) {
	prefix, suffix := s.affixes()
	mid, okPrefix := strings.CutPrefix(path, prefix)
	mid, okSuffix := strings.CutSuffix(mid, suffix)
	if !okPrefix || !okSuffix || mid == "" {
		return 0, false
	}
	i, err := strconv.Atoi(mid)
	if err != nil || i < 0 || s.name(i) != path {
		return 0, false
	}
	return i, true
}

// checkFiles refuses a command line on which one of the shards is an
// input or the --rejects file (by name or link): the run would replace it,
// or remove it as a shard of an earlier run.
func (s *shardSet) checkFiles(inputs []string, rejects string) error {
	if !s.sharded {
		return nil
	}
	for _, in := range append(inputs, rejects) {
		i, ok := s.shardAt(in)
		if !ok {
			continue
		}
		as := ""
		if name := s.name(i); filepath.Clean(name) != filepath.Clean(in) {
			as = " (" + in + ")"
		}
		if in == rejects {
			return usage.Errorf("--out %s and --rejects %s: shard %d is the rejects file%s", s.out, rejects, i, as)
		}
		return usage.Errorf("--out %s: shard %d, %s, is also an input%s; refusing to overwrite it", s.out, i, s.name(i), as)
	}
	return nil
}

// shardAt returns the number of the shard that path is, by name or link.
// The number is a run of digits in path's name; a link can have any name,
// so each run is tried against the file.
func (s *shardSet) shardAt(path string) (int, bool) {
	for _, run := range strings.FieldsFunc(filepath.Base(path), func(r rune) bool { return !unicode.IsDigit(r) }) {
		if i, err := strconv.Atoi(run); err == nil && sameFile(path, s.name(i)) {
			return i, true
		}
	}
	return 0, false
}

// next opens the next shard.
func (s *shardSet) next() (*output, error) {
	out, err := createOutput(s.name(len(s.done)), "--out", s.std)
	if err != nil {
		return nil, err
	}
	s.cur = out
	return out, nil
}

// finish finishes the current shard; it is renamed by commit.
func (s *shardSet) finish() error {
	if s.cur == nil {
		return nil
	}
	out := s.cur
	s.cur = nil
	if err := out.finish(); err != nil {
		return err
	}
	s.done = append(s.done, out)
	return nil
}

// commit renames every finished shard to its name, then removes the shards
// of an earlier run past the last one written. A file named like a shard
// that is not a container file (a directory, a link, any other file) is
// not removed: it is kept in s.kept, for a warning.
func (s *shardSet) commit() error {
	for _, out := range s.done {
		if err := out.commit(); err != nil {
			return err
		}
	}
	if !s.sharded {
		return nil
	}
	prefix, suffix := s.affixes()
	matches, err := filepath.Glob(globEscape(prefix) + "*" + globEscape(suffix))
	if err != nil {
		return fmt.Errorf("--out %s: look for the shards of an earlier run: %w", s.out, err)
	}
	for _, path := range matches {
		i, ok := s.index(path)
		if !ok || i < len(s.done) {
			continue
		}
		if why := notContainer(path); why != "" {
			s.kept = append(s.kept, path+" ("+why+")")
			continue
		}
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("--out %s: remove %s, a shard of an earlier run: %w", s.out, path, err)
		}
		s.stale = append(s.stale, path)
	}
	return nil
}

// notContainer says why path is not a regular file that starts like an
// Avro container file, or returns "" when it is one.
func notContainer(path string) string {
	st, err := os.Lstat(path)
	switch {
	case err != nil:
		return err.Error()
	case !st.Mode().IsRegular():
		return "not a regular file"
	}
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	var m [4]byte
	if _, err := io.ReadFull(f, m[:]); err != nil || !bytes.Equal(m[:], []byte("Obj\x01")) {
		return "not an Avro container file"
	}
	return ""
}

// globEscape quotes the characters that [filepath.Match] gives a meaning,
// each as a class of one ("[*]"); a backslash, where it is not the path
// separator, by itself.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '*' || r == '?' || r == '[':
			b.WriteString("[" + string(r) + "]")
		case r == '\\' && filepath.Separator != '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// abort removes the shards not committed.
func (s *shardSet) abort() {
	if s.cur != nil {
		s.cur.abort()
	}
	for _, out := range s.done {
		out.abort()
	}
}

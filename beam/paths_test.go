package protoavrobeam

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// TestConvertRefusesBadPaths: Convert returns ErrPath, without building
// anything, for a glob or prefix that is blank or of a scheme with no
// Beam filesystem in the program (where Beam's own check panics), and for
// a prefix that is not UTF-8 (the writers would get it with its bytes
// replaced), its text escaped.
func TestConvertRefusesBadPaths(t *testing.T) {
	ok := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		glob, prefix, want string
	}{
		{"", ok, `bad path: the glob "" is empty`},
		{" \t", ok, `bad path: the glob " \t" is empty`},
		{"s3://bucket/in-*", ok, `bad path: glob "s3://bucket/in-*": file system scheme "s3" not registered`},
		{"s3://b/\x1b[31m*", ok, `bad path: glob "s3://b/\x1b[31m*"`},
		{"../testdata/avro2147.delimited", "", `bad path: the prefix "" is empty`},
		{"../testdata/avro2147.delimited", "hdfs://nn/out", `bad path: prefix "hdfs://nn/out": file system scheme "hdfs" not registered`},
		{"../testdata/avro2147.delimited", ok + "\xff", `bad path: prefix "` + ok + `\xff": not UTF-8`},
	} {
		_, s := beam.NewPipelineWithRoot()
		_, err := Convert(s, fooType(t), Delimited, c.glob, c.prefix, WriteOptions{})
		if !errors.Is(err, ErrPath) || !strings.Contains(err.Error(), c.want) || strings.ContainsRune(err.Error(), 0x1b) {
			t.Errorf("glob %q, prefix %q: %v; want ErrPath with %q, escaped", c.glob, c.prefix, err, c.want)
		}
	}
}

// TestTransformsFailOnBadPaths: the read and write transforms, which
// return no error, build a pipeline for a glob or prefix that Convert
// refuses (Beam's own matching and writing panic there), and the pipeline
// fails with the path's error when it runs, writing nothing.
//
// Its pipelines fail with bundles in flight, where Beam's Go SDK harness
// races (see TestFailedAttemptLeavesNoStrays), so a -race test binary
// runs it in a child built without -race; TestConvertRefusesBadPaths
// covers the same path checks under -race.
func TestTransformsFailOnBadPaths(t *testing.T) {
	if raceEnabled && os.Getenv(childEnv) == "" {
		runWithoutRace(t, "TestTransformsFailOnBadPaths")
		return
	}
	dir := t.TempDir()
	good := "../testdata/avro2147.delimited"
	for _, c := range []struct {
		name, glob, prefix, want string
		// read is ReadAvro or ReadDelimited; write is WriteAvro or
		// WriteDelimited.
		read, write string
	}{
		{"ReadDelimited s3", "s3://bucket/in-*", filepath.Join(dir, "a"), `file system scheme "s3" not registered`, "ReadDelimited", "WriteDelimited"},
		{"ReadDelimited blank", "", filepath.Join(dir, "b"), `the glob "" is empty`, "ReadDelimited", "WriteAvro"},
		{"ReadAvro s3", "s3://bucket/in-*", filepath.Join(dir, "c"), `file system scheme "s3" not registered`, "ReadAvro", "WriteDelimited"},
		{"WriteDelimited hdfs", good, "hdfs://nn/out", `file system scheme "hdfs" not registered`, "ReadDelimited", "WriteDelimited"},
		{"WriteAvro blank", good, "", `the prefix "" is empty`, "ReadDelimited", "WriteAvro"},
		{"WriteAvro not UTF-8", good, filepath.Join(dir, "out\xff"), `not UTF-8`, "ReadDelimited", "WriteAvro"},
		{"WriteDelimited not UTF-8", good, filepath.Join(dir, "out\xff"), `not UTF-8`, "ReadDelimited", "WriteDelimited"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("building the pipeline panicked: %v", r)
					}
				}()
				if c.read == "ReadAvro" { // wire records, as WriteDelimited takes them
					WriteDelimited(s, c.prefix, WriteOptions{}, ReadAvro(s, c.glob, ReadAvroOptions{Type: fooType(t)}))
					return
				}
				records := ReadDelimited(s, c.glob)
				if c.write == "WriteAvro" {
					WriteAvro(s, fooType(t), c.prefix, WriteOptions{}, records)
				} else {
					WriteDelimited(s, c.prefix, WriteOptions{}, Unbatch(s, records))
				}
			}()
			err := ptest.Run(p)
			if err == nil || !strings.Contains(err.Error(), "protoavrobeam: bad path") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("run: %v; want the bad path, %q", err, c.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("the failed pipeline wrote %d files", len(entries))
			}
		})
	}
}

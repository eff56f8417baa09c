package protoavrobeam

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protoavro/protoavro/beam/internal/ranges"
	"github.com/protoavro/protoavro/protoavro"
)

// A record that does not convert fails with its file, index and input
// offset, in a batch that does not start at the file's start.
func TestToAvroErrorNamesRecord(t *testing.T) {
	recs := sampleRecords(t)
	var data []byte
	for _, r := range recs[:10] {
		data = protowire.AppendBytes(data, r)
	}
	badAt := len(data)
	data = protowire.AppendBytes(data, []byte{0xff, 0xff}) // not a message
	for _, r := range recs[10:20] {
		data = protowire.AppendBytes(data, r)
	}
	c, err := fooType(t).compile()
	if err != nil {
		t.Fatal(err)
	}
	var errs []error
	if _, err := ranges.Delimited(bytes.NewReader(data), "in.delimited", 1000, 0, func(int64) bool { return true }, func(b ranges.Batch) {
		if _, err := c.toAvro(recordsOf("in.delimited", b)); err != nil {
			errs = append(errs, err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(errs) != 1 {
		t.Fatalf("%d errors: %v", len(errs), errs)
	}
	var de *protoavro.DataError
	want := `"in.delimited": record 10 (input byte ` + strconv.Itoa(badAt) + "): "
	if !strings.Contains(errs[0].Error(), want) || !errors.As(errs[0], &de) {
		t.Errorf("error %q, want %q and a *protoavro.DataError", errs[0], want)
	}
}

package testutil

import (
	"bytes"
	"io"
	"testing"

	"github.com/protoavro/protoavro/protoavro/ocf"
	"google.golang.org/protobuf/proto"
)

// Wire returns the deterministic protobuf encoding of m, whether or not
// its required fields are set.
func Wire(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true, AllowPartial: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BlockSpan is a block of a container file: its framing as read, without
// its data, and End, where its sync marker ends.
type BlockSpan struct {
	ocf.Block
	End int64
}

// BlockSpans returns the blocks of a sound container file.
func BlockSpans(t testing.TB, file []byte) []BlockSpan {
	t.Helper()
	r, err := ocf.NewReader(bytes.NewReader(file), ocf.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var bs []BlockSpan
	for {
		b, err := r.NextRaw()
		if err == io.EOF {
			return bs
		}
		if err != nil {
			t.Fatal(err)
		}
		b.Data = nil
		bs = append(bs, BlockSpan{Block: b, End: r.Offset()})
	}
}

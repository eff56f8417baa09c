// Package beamtest reads back, for the tests of the beam module, the Avro
// container files that its transforms and protoavro-beam write: with
// protoavro's reader of the message type that each file's header embeds,
// as protoavro decode reads them without .proto files.
//
// [Each] hands over a file's records one by one, with its reader (for its
// AnyResolver and counters); [Wires] returns the records of several files
// as a sorted list of their deterministic encodings, to compare with the
// records of the input whatever shard holds them.
//
// Only tests import it; it imports the library's exported packages alone,
// as the module's other non-test code does.
package beamtest

import (
	"bytes"
	"io"
	"os"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/protoavro/protoavro/protoavro"
)

// Each reads the container file name with protoavro's reader of the type
// its header embeds (ReaderOptions zero) and calls each with every record,
// in order, as a new message of that type, and with the reader. It returns
// the reader after the last record. A file, header or record that does not
// read fails t, naming the file and the record's index.
func Each(t testing.TB, name string, each func(cr *protoavro.ContainerReader, m proto.Message)) *protoavro.ContainerReader {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	cr, err := protoavro.NewContainerReader(bytes.NewReader(data), protoavro.ReaderOptions{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for {
		m := cr.NewMessage()
		if err := cr.Read(m); err == io.EOF {
			return cr
		} else if err != nil {
			t.Fatalf("%s: record %d: %v", name, cr.Records(), err)
		}
		each(cr, m)
	}
}

// Wires returns the records of the container files names, read by [Each],
// as their deterministic protobuf encodings (proto.MarshalOptions
// Deterministic and AllowPartial, as the module's tests encode the records
// they write, with testutil.Wire), sorted: the files' records as a
// multiset, equal to the input's, encoded and sorted the same way, when
// every input record is in one of the files once.
func Wires(t testing.TB, names ...string) []string {
	t.Helper()
	var out []string
	for _, name := range names {
		Each(t, name, func(cr *protoavro.ContainerReader, m proto.Message) {
			t.Helper()
			b, err := proto.MarshalOptions{Deterministic: true, AllowPartial: true}.Marshal(m)
			if err != nil {
				t.Fatalf("%s: record %d: %v", name, cr.Records()-1, err)
			}
			out = append(out, string(b))
		})
	}
	slices.Sort(out)
	return out
}

package records_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/protoavro/protoavro/protoavro/records"
	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Reading a stream of length-delimited messages, one record at a time,
// with where each starts.
func ExampleDelimited() {
	var stream bytes.Buffer
	for _, s := range []string{"a", "bc"} {
		if _, err := protodelim.MarshalTo(&stream, wrapperspb.String(s)); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(records.Sniff(stream.Bytes()))
	d := records.NewDelimited(&stream)
	for {
		rec, off, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			log.Fatal(err)
		}
		var m wrapperspb.StringValue
		if err := proto.Unmarshal(rec, &m); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("record %d at byte %d: %q\n", d.Index()-1, off, m.GetValue())
	}
	// Output:
	// delimited
	// record 0 at byte 0: "a"
	// record 1 at byte 4: "bc"
}

// A bad record is an *Error that says which record it is and where it
// starts: here a length prefix that claims more bytes than remain.
func ExampleError() {
	d := records.NewDelimited(bytes.NewReader([]byte{2, 'x', 'y', 9, 'z'}))
	for {
		_, _, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var rerr *records.Error
		if errors.As(err, &rerr) {
			fmt.Println("record", rerr.Index, "at byte", rerr.Offset)
			break
		}
	}
	// Output:
	// record 1 at byte 3
}

// JSON Lines: blank lines are skipped, and each record keeps its line
// number.
func ExampleLines() {
	input := "{\"value\":\"a\"}\n\n{\"value\":\"b\"}\n"
	fmt.Println(records.Sniff([]byte(input)))
	l := records.NewLines(bytes.NewReader([]byte(input)))
	for {
		raw, _, line, err := l.Next()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("line %d: %s", line, raw)
	}
	// Output:
	// jsonl
	// line 1: {"value":"a"}
	// line 3: {"value":"b"}
}

// Reading messages each preceded by its size as 4 bytes, big-endian, as
// the OpenTelemetry Collector's file exporter writes them. Sniff does not
// tell this framing: the format must be known.
func ExampleNewSize32() {
	var stream bytes.Buffer
	for _, s := range []string{"a", "bc"} {
		b, err := proto.Marshal(wrapperspb.String(s))
		if err != nil {
			log.Fatal(err)
		}
		stream.Write(binary.BigEndian.AppendUint32(nil, uint32(len(b))))
		stream.Write(b)
	}
	d := records.NewSize32(&stream)
	rec, off, err := d.Next()
	for ; err == nil; rec, off, err = d.Next() {
		fmt.Printf("record at byte %d: % x\n", off, rec)
	}
	fmt.Println(errors.Is(err, io.EOF))
	// Output:
	// record at byte 0: 0a 01 61
	// record at byte 7: 0a 02 62 63
	// true
}

// Sniff tells a stream's format from its first bytes, which a
// bufio.Reader shows without consuming them: the stream is then read whole
// by the reader of its format.
func ExampleSniff() {
	for _, input := range []string{
		"\n{\"value\":\"a\"}\n",
		"\xef\xbb\xbf{\"value\":\"b\"}\n", // a byte-order mark first
		"\x03\x0a\x01c",                   // a length-delimited message
		"{\x00",                           // binary that starts with "{": a length of 123
		"",
	} {
		br := bufio.NewReader(strings.NewReader(input))
		prefix, _ := br.Peek(4096) // shorter at the end of the stream
		switch f := records.Sniff(prefix); f {
		case records.FormatJSONLines:
			raw, _, line, err := records.NewLines(br).Next()
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("%s, line %d: %s", f, line, raw)
		case records.FormatDelimited:
			rec, _, err := records.NewDelimited(br).Next()
			if err != nil {
				fmt.Printf("%s: %v\n", f, err)
				continue
			}
			fmt.Printf("%s: % x\n", f, rec)
		default:
			fmt.Println(f)
		}
	}
	// Output:
	// jsonl, line 2: {"value":"a"}
	// jsonl, line 1: {"value":"b"}
	// delimited: 0a 01 63
	// delimited: record 0 (input byte 0): truncated: the length prefix says 123 bytes, 1 remain
	// unknown
}

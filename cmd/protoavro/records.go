package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/protoavro/protoavro/protoavro/records"
)

// recordError reports a bad input record; see [records.Error].
type recordError = records.Error

// recordFormat is the format of the protobuf records that encode reads and
// decode writes.
type recordFormat int

const (
	// formatDelimited is length-delimited protobuf: each message's size as
	// a varint, then the message (protodelim, Java's writeDelimitedTo).
	formatDelimited recordFormat = iota
	// formatJSONL is JSON Lines: one protojson object per line.
	formatJSONL
	// formatSize32 is each message's size as 4 bytes, big-endian, then the
	// message (the OpenTelemetry Collector's file exporter, Java's
	// DataOutputStream.writeInt). encode reads it; decode does not write
	// it.
	formatSize32
)

// String returns the format's name, as --format takes it.
func (f recordFormat) String() string {
	switch f {
	case formatJSONL:
		return "jsonl"
	case formatSize32:
		return "size32"
	}
	return "delimited"
}

// formatFlag is a --format flag.
type formatFlag struct {
	f recordFormat
	// set says that the flag was given.
	set bool
	// input says that the flag names an input format (encode's), which may
	// be size32; decode writes delimited or jsonl.
	input bool
}

// String returns the format name.
func (f *formatFlag) String() string { return f.f.String() }

// Set parses a format name.
func (f *formatFlag) Set(v string) error {
	switch v {
	case "delimited":
		f.f = formatDelimited
	case "jsonl":
		f.f = formatJSONL
	case "size32":
		if !f.input {
			return errors.New("want delimited or jsonl (size32 is an input format of encode)")
		}
		f.f = formatSize32
	default:
		if f.input {
			return errors.New("want delimited or jsonl, or size32 for 4-byte big-endian length prefixes")
		}
		return errors.New("want delimited or jsonl")
	}
	f.set = true
	return nil
}

// newBinaryReader returns the reader of the records of r in binary format
// f: length-delimited, or with 4-byte big-endian sizes.
func newBinaryReader(f recordFormat, r io.Reader) *records.Delimited {
	if f == formatSize32 {
		return records.NewSize32(r)
	}
	return records.NewDelimited(r)
}

// appendPrefix appends to dst the size of a record of n bytes as binary
// format f writes it before the record: 4 bytes, big-endian, for size32,
// else a varint.
func appendPrefix(dst []byte, f recordFormat, n int) []byte {
	if f == formatSize32 {
		return binary.BigEndian.AppendUint32(dst, uint32(n))
	}
	return protowire.AppendVarint(dst, uint64(n))
}

// inputFormat returns the format that encode reads an input in, and the
// hint that the errors of its records end with ("" for none), from given
// (the --format flag; nil to tell the format from head) and head (the
// input's first bytes).
//
// Without --format, input that starts with a UTF-8 byte-order mark and
// "{" is JSON Lines, as input that starts with "{" is, and so is JSON text
// in UTF-16 or UTF-32 (told by its byte-order mark), whose reader refuses
// it with an error that says so. Input whose format encode does not guess
// is refused (an error for record 0) before any record is read: a JSON
// array, and two zero bytes, as a 4-byte big-endian size below 65,536
// starts, or two empty length-delimited messages.
func inputFormat(given *recordFormat, head []byte) (recordFormat, string, error) {
	sniffed := records.Sniff(head)
	if given == nil {
		switch {
		case wideJSON(head):
			return formatJSONL, "", nil
		case jsonArray(head):
			return 0, "", &recordError{Err: errors.New(arrayHint)}
		case bytes.HasPrefix(head, []byte{0, 0}):
			return 0, "", &recordError{Err: errors.New(size32Refusal)}
		case sniffed == records.FormatJSONLines:
			return formatJSONL, jsonShapeHint(head), nil
		}
		return formatDelimited, jsonShapeHint(head), nil
	}
	hint := ""
	switch f := *given; {
	case f != formatJSONL && sniffed == records.FormatJSONLines:
		hint = "the input looks like JSON Lines: give --format jsonl"
	case f == formatDelimited && bytes.HasPrefix(head, []byte{0, 0}):
		hint = size32Hint
	case f == formatSize32 && len(head) >= 4 && bytes.HasPrefix(head[4:], zstdMagic):
		hint = compressedRecordsHint
	case f == formatJSONL && !wideText(head) && looksBinary(bytes.TrimPrefix(head, []byte(utf8BOM))):
		hint = "the input looks like binary protobuf, not JSON: give --format delimited"
		if bytes.HasPrefix(head, []byte{0, 0}) {
			hint = "the input looks like binary protobuf, not JSON: give --format size32 or --format delimited"
		}
	}
	if h := jsonShapeHint(head); h != "" {
		hint = h
	}
	return *given, hint, nil
}

// utf8BOM is the byte-order mark of UTF-8, which the JSON Lines reader
// skips at the start of its input.
const utf8BOM = "\xef\xbb\xbf"

// wideEncodings are the byte-order marks of UTF-32 and UTF-16, which
// JSON Lines are not in, longest first.
var wideEncodings = []struct {
	bom   string
	width int
	order binary.ByteOrder
}{
	{"\xff\xfe\x00\x00", 4, binary.LittleEndian},
	{"\x00\x00\xfe\xff", 4, binary.BigEndian},
	{"\xff\xfe", 2, binary.LittleEndian},
	{"\xfe\xff", 2, binary.BigEndian},
}

// wideText reports whether head starts with the byte-order mark of UTF-16
// or UTF-32, which the JSON Lines reader refuses.
func wideText(head []byte) bool {
	for _, e := range wideEncodings {
		if bytes.HasPrefix(head, []byte(e.bom)) {
			return true
		}
	}
	return false
}

// wideJSON reports whether head starts with the byte-order mark of UTF-16
// or UTF-32, then, after blanks, "{" or "[": JSON text in an encoding that
// JSON Lines are not in.
func wideJSON(head []byte) bool {
	for _, e := range wideEncodings {
		if !bytes.HasPrefix(head, []byte(e.bom)) {
			continue
		}
		for p := head[len(e.bom):]; len(p) >= e.width; p = p[e.width:] {
			var c uint32
			if e.width == 2 {
				c = uint32(e.order.Uint16(p))
			} else {
				c = e.order.Uint32(p)
			}
			switch c {
			case ' ', '\t', '\r', '\n':
				continue
			case '{', '[':
				return true
			}
			return false
		}
		return false
	}
	return false
}

// jsonArray reports whether head, after a UTF-8 byte-order mark and
// blanks, is text that starts a JSON array: "[", blanks, then what starts
// a JSON value or ends the array (or nothing, in a short input). A
// length-delimited stream whose first message is 91 bytes starts with "["
// too, but its message's binary tags and lengths are not such text.
func jsonArray(head []byte) bool {
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte(utf8BOM)), " \t\r\n")
	if len(t) == 0 || t[0] != '[' {
		return false
	}
	rest := bytes.TrimLeft(t[1:], " \t\r\n")
	if len(rest) > 0 && !bytes.ContainsAny(rest[:1], `{["]-0123456789tfn`) {
		return false
	}
	return isText(t, len(head) >= headSize)
}

// isText reports whether p is UTF-8 text without control characters other
// than tab, carriage return and line feed; with cut, a character cut short
// at the end of p is not counted against it.
func isText(p []byte, cut bool) bool {
	for len(p) > 0 {
		r, size := utf8.DecodeRune(p)
		if r == utf8.RuneError && size <= 1 {
			return cut && len(p) < utf8.UTFMax && !utf8.FullRune(p)
		}
		if r < 0x20 && r != '\t' && r != '\r' && r != '\n' || r == 0x7f {
			return false
		}
		p = p[size:]
	}
	return true
}

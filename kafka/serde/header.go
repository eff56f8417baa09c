package serde

import (
	"encoding/binary"
	"fmt"
)

// MaxIndexes bounds the number of protobuf message indexes a header may
// carry (nesting depth of the message in its file).
const MaxIndexes = 100

// AppendHeader appends the Confluent header of an Avro record, magic byte 0
// and the big-endian schema ID, to dst.
func AppendHeader(dst []byte, id uint32) []byte {
	return binary.BigEndian.AppendUint32(append(dst, 0), id)
}

// AppendProtoHeader appends the Confluent header of a protobuf record: magic
// byte, schema ID and the message indexes (the path of the message in its
// file: the index among the file's top-level messages, then among the
// nested ones). The indexes [0] take the one-byte short form.
func AppendProtoHeader(dst []byte, id uint32, indexes []int) []byte {
	dst = AppendHeader(dst, id)
	if len(indexes) == 0 || len(indexes) == 1 && indexes[0] == 0 {
		return append(dst, 0)
	}
	dst = binary.AppendVarint(dst, int64(len(indexes)))
	for _, i := range indexes {
		dst = binary.AppendVarint(dst, int64(i))
	}
	return dst
}

// ParseHeader splits a framed record into its schema ID and the rest (the
// datum, or for protobuf the message indexes and the message).
func ParseHeader(b []byte) (id uint32, rest []byte, err error) {
	if len(b) == 0 {
		return 0, nil, fmt.Errorf("%w: empty record, want magic byte 0 and a 4-byte schema ID", ErrTruncatedHeader)
	}
	if b[0] != 0 {
		return 0, nil, fmt.Errorf("%w: byte 0 is 0x%02x, want 0x00 (not a Confluent-framed record)", ErrBadMagic, b[0])
	}
	if len(b) < 5 {
		return 0, nil, fmt.Errorf("%w: %d bytes, want at least 5 (magic byte and 4-byte schema ID)", ErrTruncatedHeader, len(b))
	}
	return binary.BigEndian.Uint32(b[1:5]), b[5:], nil
}

// firstIndex is the indexes of the short form; shared, never modified.
var firstIndex = []int{0}

// ParseIndexes reads the message indexes of a protobuf record, which follow
// the schema ID (rest as returned by ParseHeader), and returns them and the
// protobuf bytes. The byte offsets in errors count from the start of the
// record. The returned indexes must not be modified.
func ParseIndexes(rest []byte) (indexes []int, msg []byte, err error) {
	n, k := binary.Varint(rest)
	if k <= 0 {
		if k == 0 {
			return nil, nil, fmt.Errorf("%w: message indexes: record ends at byte 5", ErrTruncatedHeader)
		}
		return nil, nil, fmt.Errorf("%w: index count at byte 5 is not a valid varint", ErrBadIndexes)
	}
	if n == 0 {
		return firstIndex, rest[k:], nil
	}
	if n < 0 || n > MaxIndexes {
		return nil, nil, fmt.Errorf("%w: index count %d at byte 5, want 0..%d", ErrBadIndexes, n, MaxIndexes)
	}
	off := k
	indexes = make([]int, 0, n)
	for range n {
		v, k := binary.Varint(rest[off:])
		if k == 0 {
			return nil, nil, fmt.Errorf("%w: message index %d: record ends at byte %d", ErrTruncatedHeader, len(indexes), 5+off)
		}
		if k < 0 || v < 0 || v > 1<<31-1 {
			return nil, nil, fmt.Errorf("%w: message index %d at byte %d is not a non-negative int32 varint", ErrBadIndexes, len(indexes), 5+off)
		}
		indexes = append(indexes, int(v))
		off += k
	}
	return indexes, rest[off:], nil
}

// FramedHint returns err, an error of reading value as raw protobuf of one
// message type, with a hint when value looks Confluent-framed: byte 0 is
// the magic byte 0, which no protobuf message starts with (field number 0
// is invalid), followed by a 4-byte schema ID. Other errors are returned
// as they are.
func FramedHint(value []byte, err error) error {
	if err == nil || len(value) < 5 || value[0] != 0 {
		return err
	}
	return fmt.Errorf("%w (byte 0 is 0x00, Confluent's magic byte, and bytes 1-4 read as schema ID %d: this looks like a Confluent-framed record, which is read without a fixed message type, not as raw protobuf)",
		err, binary.BigEndian.Uint32(value[1:5]))
}

package protoavro

import (
	"encoding/binary"
	"fmt"

	"google.golang.org/protobuf/proto"
)

// Single-object encoding (Avro specification, "Single-object encoding"): the
// two marker bytes C3 01, the schema's CRC-64-AVRO fingerprint in
// little-endian order, then the datum.

// singleObjectHeaderLen is the length of the marker and fingerprint.
const singleObjectHeaderLen = 10

// AppendSingleObjectHeader appends the single-object header of the codec's
// schema to dst.
func (c *Codec) AppendSingleObjectHeader(dst []byte) []byte {
	dst = append(dst, 0xc3, 0x01)
	return binary.LittleEndian.AppendUint64(dst, c.schema.crc)
}

// MarshalSingleObject appends the single-object encoding of m to dst.
func (c *Codec) MarshalSingleObject(dst []byte, m proto.Message) ([]byte, error) {
	n := len(dst)
	out, err := c.MarshalAppend(c.AppendSingleObjectHeader(dst), m)
	if err != nil {
		return dst[:n], err
	}
	return out, nil
}

// UnmarshalSingleObject decodes a single-object encoded datum into m. The
// fingerprint must be that of the codec's schema; data written with another
// schema is an ErrIncompatible error that names both fingerprints (look the
// writer schema up by SingleObjectFingerprint and use a [Resolver]).
func (c *Codec) UnmarshalSingleObject(data []byte, m proto.Message) error {
	fp, err := SingleObjectFingerprint(data)
	if err != nil {
		return err
	}
	if fp != c.schema.crc {
		return &DataError{Path: c.enc.name, Offset: 2, Err: fmt.Errorf("%w: fingerprint %016x, want %016x (%s)",
			ErrIncompatible, fp, c.schema.crc, c.schema.FullName())}
	}
	err = c.Unmarshal(data[singleObjectHeaderLen:], m)
	var de *DataError
	if asDataError(err, &de) {
		de.Offset += singleObjectHeaderLen
	}
	return err
}

// SingleObjectFingerprint checks the single-object header of data and
// returns the CRC-64-AVRO fingerprint of the schema it was written with.
func SingleObjectFingerprint(data []byte) (uint64, error) {
	if len(data) < singleObjectHeaderLen {
		return 0, &DataError{Offset: len(data), Err: fmt.Errorf("%w: single-object header needs %d bytes, got %d", ErrTruncated, singleObjectHeaderLen, len(data))}
	}
	if data[0] != 0xc3 || data[1] != 0x01 {
		return 0, &DataError{Err: fmt.Errorf("%w: single-object marker %02x %02x, want c3 01", ErrMalformed, data[0], data[1])}
	}
	return binary.LittleEndian.Uint64(data[2:singleObjectHeaderLen]), nil
}

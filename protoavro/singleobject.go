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
	datum, err := singleObjectDatum(data, c.schema, c.enc.name)
	if err != nil {
		return err
	}
	return shiftOffset(c.Unmarshal(datum, m), singleObjectHeaderLen)
}

// UnmarshalSingleObject decodes a single-object encoded datum written with
// the resolver's writer schema into m. The fingerprint must be the writer
// schema's; data written with another schema is an ErrIncompatible error
// that names both fingerprints.
func (r *Resolver) UnmarshalSingleObject(data []byte, m proto.Message) error {
	datum, err := singleObjectDatum(data, r.writer, r.codec.enc.name)
	if err != nil {
		return err
	}
	return shiftOffset(r.Unmarshal(datum, m), singleObjectHeaderLen)
}

// singleObjectDatum checks the single-object header of data against the
// fingerprint of s, the schema the datum must have been written with, and
// returns the datum; path names the message in errors.
func singleObjectDatum(data []byte, s *Schema, path string) ([]byte, error) {
	fp, err := SingleObjectFingerprint(data)
	if err != nil {
		return nil, err
	}
	if fp != s.crc {
		return nil, &DataError{Path: path, Offset: 2, Err: fmt.Errorf("%w: fingerprint %016x, want %016x (%s)",
			ErrIncompatible, fp, s.crc, s.FullName())}
	}
	return data[singleObjectHeaderLen:], nil
}

// shiftOffset adds n to the offset of err's DataError, for a datum read at
// byte n of the input.
func shiftOffset(err error, n int) error {
	var de *DataError
	if asDataError(err, &de) && de.Offset >= 0 {
		de.Offset += n
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

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// containerHeader is the header of an Avro Object Container File, read
// without interpreting it: the library's reader interprets it and needs
// the message type to do so, while inspect and decode with an explicit
// type want the metadata first.
type containerHeader struct {
	meta map[string][]byte
	// keys are the metadata keys in file order.
	keys []string
	sync [16]byte
	// size is the header's length in bytes.
	size int64
}

// errNoContainer reports input that is not an Avro container file.
var errNoContainer = errors.New("not an Avro container file")

// readHeader reads a container header from br. Errors name the byte offset.
func readHeader(br *bufio.Reader) (*containerHeader, error) {
	h := &containerHeader{meta: map[string][]byte{}}
	fail := func(err error) error {
		return fmt.Errorf("container header at byte %d: %w", h.size, err)
	}
	var magic [4]byte
	n, err := io.ReadFull(br, magic[:])
	h.size += int64(n)
	if err != nil || magic != [4]byte{'O', 'b', 'j', 1} {
		return nil, fmt.Errorf("%w (no \"Obj\\x01\" magic at the start)", errNoContainer)
	}
	total := 0
	for {
		count, err := readVarlong(br, &h.size)
		if err != nil {
			return nil, fail(err)
		}
		if count == 0 {
			break
		}
		if count < 0 { // a negative count is followed by the block's size
			count = -count
			if _, err := readVarlong(br, &h.size); err != nil {
				return nil, fail(err)
			}
		}
		for range count {
			k, err := readAvroBytes(br, &h.size, maxRecordSize-total)
			if err != nil {
				return nil, fail(fmt.Errorf("metadata key: %w", err))
			}
			v, err := readAvroBytes(br, &h.size, maxRecordSize-total)
			if err != nil {
				return nil, fail(fmt.Errorf("metadata %q: %w", k, err))
			}
			total += len(k) + len(v)
			if _, dup := h.meta[string(k)]; !dup {
				h.keys = append(h.keys, string(k))
			}
			h.meta[string(k)] = v
		}
	}
	n, err = io.ReadFull(br, h.sync[:])
	h.size += int64(n)
	if err != nil {
		return nil, fail(errors.New("truncated: the file ends in the sync marker"))
	}
	return h, nil
}

// readVarlong reads a zigzag varint (an Avro long), adding the bytes read
// to *off.
func readVarlong(br *bufio.Reader, off *int64) (int64, error) {
	var u uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c, err := br.ReadByte()
		if err != nil {
			if err == io.EOF {
				if shift == 0 {
					return 0, io.EOF
				}
				return 0, errors.New("truncated: the file ends inside a number")
			}
			return 0, err
		}
		*off++
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, errors.New("malformed: a number longer than 10 bytes")
}

// readAvroBytes reads a length-prefixed byte string of at most limit bytes.
func readAvroBytes(br *bufio.Reader, off *int64, limit int) ([]byte, error) {
	n, err := readVarlong(br, off)
	if err == io.EOF {
		err = errors.New("truncated: unexpected end of file")
	}
	if err != nil {
		return nil, err
	}
	if n < 0 || n > int64(limit) {
		return nil, fmt.Errorf("malformed: length %d", n)
	}
	var buf bytes.Buffer
	m, err := io.CopyN(&buf, br, n) // grows as data arrives
	*off += m
	if err != nil {
		return nil, fmt.Errorf("truncated: %d of %d bytes", m, n)
	}
	return buf.Bytes(), nil
}

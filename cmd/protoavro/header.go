package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/protoavro/protoavro/protoavro"
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

// peekHeader reads the container header at the start of r and returns it
// with a reader that yields all of r again, header included, for the
// library's reader. A header that cannot be read is returned as a nil
// header and a nil error: the library's reader reports it.
func peekHeader(r io.Reader) (*containerHeader, io.Reader) {
	var seen bytes.Buffer
	br := bufio.NewReaderSize(io.TeeReader(r, &seen), 64<<10)
	h, err := readHeader(br)
	replay := io.MultiReader(&seen, r)
	if err != nil {
		return nil, replay
	}
	return h, replay
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

// parseOptions reads the mapping options protoavro records in a file's
// metadata (protoavro.options), for example
// "profile=default timestamps=micros uint64=long mapkeys=text". An empty
// value means the default options. Unknown keys are ignored, like the
// library's reader does.
func parseOptions(s string) (protoavro.Options, error) {
	var o protoavro.Options
	for _, kv := range strings.Fields(s) {
		k, v, _ := strings.Cut(kv, "=")
		var ok bool
		switch k {
		case "profile":
			p, err := protoavro.ParseProfile(v)
			o.Profile, ok = p, err == nil
		case "timestamps":
			o.Timestamps, ok = lookupName(v, protoavro.TimestampMicros, protoavro.TimestampMillis, protoavro.TimestampNanos)
		case "uint64":
			o.Uint64, ok = lookupName(v, protoavro.Uint64AsLong, protoavro.Uint64AsDecimal)
		case "mapkeys":
			o.MapKeys, ok = lookupName(v, protoavro.MapKeysAsText, protoavro.MapAsEntryArray)
		default:
			ok = true
		}
		if !ok {
			return o, fmt.Errorf("%s: unknown option %s", protoavro.MetaOptions, kv)
		}
	}
	return o, nil
}

// lookupName returns the value among values whose String is name.
func lookupName[T fmt.Stringer](name string, values ...T) (T, bool) {
	for _, v := range values {
		if v.String() == name {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// crc64Table is the table of the CRC-64-AVRO fingerprint.
var crc64Table = func() (t [256]uint64) {
	for i := range t {
		fp := uint64(i)
		for range 8 {
			fp = fp>>1 ^ crc64Empty&-(fp&1)
		}
		t[i] = fp
	}
	return t
}()

// crc64Empty is the CRC-64-AVRO fingerprint of the empty string.
const crc64Empty = 0xc15d213aa4d7a795

// fingerprint64 returns the CRC-64-AVRO fingerprint (Avro's
// SchemaNormalization.parsingFingerprint64) of a schema's canonical form.
func fingerprint64(canonical string) uint64 {
	fp := uint64(crc64Empty)
	for i := 0; i < len(canonical); i++ {
		fp = fp>>8 ^ crc64Table[byte(fp)^canonical[i]]
	}
	return fp
}

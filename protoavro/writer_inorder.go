// writer_inorder.go holds the transcoder's one-pass path: a message whose
// fields come in number order, as protobuf encoders write them, is written
// as it is read, without scanning it into the occurrence table first as
// the scanning path (writer.go) does; that path remains the definition of
// the output and handles everything else.

package protoavro

import (
	"encoding/binary"
	"errors"

	"google.golang.org/protobuf/encoding/protowire"
)

// errOutOfOrder stops encodeInOrder on a field it does not write in one
// pass (or an invalid string, which the scanner reports in its own words);
// it never leaves the package.
var errOutOfOrder = errors.New("field out of number order")

// encodeInOrder writes the record of m from its one occurrence oc in a
// single pass, when its fields come in the order of their numbers, as
// protobuf encoders write them: each singular field and each oneof once,
// the elements of each repeated field together. The fields that the schema
// declares in that order, up to the first that it does not (m.prefix), are
// written as they are read; the fields after them are recorded in a frame
// of the occurrence table and written at the end, in the schema's order.
// On any other input, and on any error, it reports false and leaves st as
// it found it, with dst's length restored; it also sets st.scanOnly, so
// that the scanning path alone writes the rest of the datum and no input
// is read more than twice.
func (st *encState) encodeInOrder(dst []byte, m *msgPlan, oc occ) ([]byte, bool) {
	st.tentative++ // the errors met below are dropped: their paths are not built
	mark, occs, tbl := len(dst), len(st.occ), len(st.tbl)
	empty, rounded, unknown, depth := st.empty, st.rounded, st.unknown, st.depth
	b := st.in[:oc.end]
	rest := -1      // where the frame of the fields after the prefix starts in st.tbl, once one is read
	next := 0       // the rank, in number order, of the first field not written or recorded yet
	var ones uint64 // the oneofs set so far
	var err error
	for pos := int(oc.start); pos < len(b); {
		num, wt, vs, ve, p, ferr := wireField(b, pos)
		if ferr != nil {
			err = ferr
			break
		}
		pos = p
		i := m.index(num)
		if i < 0 {
			st.unknown++
			continue // unknown field: not part of the schema (see docs/mapping.md)
		}
		si := &m.scanInfo[i]
		if si.wireTypes&(1<<wt) == 0 {
			st.unknown++
			continue // dropped as an unknown field, as the scanner does
		}
		r := i // a field of the prefix is at its own rank
		if i >= m.prefix {
			r = int(m.rank[i])
		}
		if r < next || si.utf8 && !validUTF8(b[vs:ve]) {
			err = errOutOfOrder
			break
		}
		if si.oneof >= 0 {
			if ones&(1<<si.oneof) != 0 {
				err = errOutOfOrder
				break
			}
			ones |= 1 << si.oneof
		}
		// The prefix's fields before this one, or all of them before the
		// first field after the prefix, are absent.
		for ; next < min(r, m.prefix) && err == nil; next++ {
			dst, err = st.encodeField(dst, &m.fields[next], -1, -1)
		}
		if err != nil {
			break
		}
		next = r + 1
		f := &m.fields[i]
		if r < m.prefix && f.val.kind < vMessage && f.mode <= modeRequired { // a singular scalar, written now
			if f.mode == modeNullable {
				dst = append(dst, 2) // union branch 1, zig-zag encoded
			}
			if si.utf8 { // a string, checked above: written as it is
				dst = appendAvroBytes(dst, b[vs:ve])
				continue
			}
			if dst, err = st.scalar(dst, &f.val, b[vs:ve], vs); err != nil {
				break
			}
			continue
		}
		if r < m.prefix && f.mode == modeList && (f.val.kind == vString || f.val.kind == vBytes) {
			// A list of strings or bytes, written as it is read.
			var ok bool
			if dst, pos, ok = st.bytesList(dst, b, pos, f, vs, ve); !ok {
				err = errOutOfOrder
				break
			}
			continue
		}
		first := int32(len(st.occ))
		st.occ = append(st.occ, occ{start: int32(vs), end: int32(ve), wt: wt, next: -1})
		last := first
		if f.mode >= modeList {
			// The elements that follow at once: a repeated field's
			// elements elsewhere in the message go to the scanning path.
			for pos < len(b) {
				num, wt, vs, ve, p, ferr := wireField(b, pos)
				if ferr != nil || num != f.num {
					break // an error is reported by the next round
				}
				pos = p
				if si.wireTypes&(1<<wt) == 0 {
					st.unknown++
					continue
				}
				o := int32(len(st.occ))
				st.occ = append(st.occ, occ{start: int32(vs), end: int32(ve), wt: wt, next: -1})
				st.occ[last].next = o
				last = o
			}
		}
		if r < m.prefix {
			if dst, err = st.encodeField(dst, f, first, last); err != nil {
				break
			}
			continue
		}
		if rest < 0 {
			rest = len(st.tbl)
			st.tbl = append(st.tbl, m.blank[:2*(len(m.fields)-m.prefix)]...)
		}
		j := rest + 2*(i-m.prefix)
		st.tbl[j], st.tbl[j+1] = first, last
	}
	for ; next < m.prefix && err == nil; next++ {
		dst, err = st.encodeField(dst, &m.fields[next], -1, -1)
	}
	for i := m.prefix; i < len(m.fields) && err == nil; i++ {
		first, last := int32(-1), int32(-1)
		if rest >= 0 {
			j := rest + 2*(i-m.prefix)
			first, last = st.tbl[j], st.tbl[j+1]
		}
		dst, err = st.encodeField(dst, &m.fields[i], first, last)
	}
	st.occ, st.tbl = st.occ[:occs], st.tbl[:tbl]
	st.tentative--
	if err != nil {
		st.empty, st.rounded, st.unknown, st.depth = empty, rounded, unknown, depth
		st.scanOnly = true
		return dst[:mark], false
	}
	return dst, true
}

// bytesList writes a list of strings or bytes f as it reads it, as
// encodeList writes it from the occurrence table: one Avro array block of
// the elements that follow at once, the first b[vs:ve], the others from
// pos on (an element in another wire type is dropped as an unknown
// field). The count comes before the elements: a count below 64, the
// usual one, takes the byte kept for it, and a larger one moves the
// elements up to make room. It returns where the elements end, and false
// on a string that is not UTF-8, which the scanning path reports.
func (st *encState) bytesList(dst, b []byte, pos int, f *fieldPlan, vs, ve int) ([]byte, int, bool) {
	at := len(dst)
	dst = append(dst, 0) // the count's place
	check := f.val.kind == vString
	n := 0
	for vs >= 0 {
		raw := b[vs:ve]
		if check && !validUTF8(raw) {
			return dst, pos, false
		}
		dst = appendAvroBytes(dst, raw)
		n++
		vs = -1
		for pos < len(b) {
			num, wt, s, e, p, err := wireField(b, pos)
			if err != nil || num != f.num {
				break // an error is reported by encodeInOrder's next round
			}
			pos = p
			if wt == protowire.BytesType {
				vs, ve = s, e
				break
			}
			st.unknown++
		}
	}
	if n < 64 {
		dst[at] = byte(n << 1) // zig-zag encoded
	} else {
		var c [binary.MaxVarintLen64]byte
		count := appendLong(c[:0], int64(n))
		dst = append(dst, count[1:]...)
		copy(dst[at+len(count):], dst[at+1:])
		copy(dst[at:], count)
	}
	return append(dst, 0), pos, true // the block of count 0 that ends the array
}

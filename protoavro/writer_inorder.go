// writer_inorder.go holds the transcoder's one-pass path: a message whose
// fields come in the schema's order, as protobuf encoders write them, is
// written as it is read, without the occurrence table of the scanning path
// (writer.go), which remains the definition of the output and handles
// everything else.

package protoavro

import (
	"errors"
	"unicode/utf8"
)

// errOutOfOrder stops encodeInOrder on a field it does not write in one
// pass (or an invalid string, which the scanner reports in its own words);
// it never leaves the package.
var errOutOfOrder = errors.New("field out of the schema's order")

// encodeInOrder writes the record of m from its one occurrence oc in a
// single pass, when every field comes after the fields before it in the
// schema, each singular field and each oneof once and the elements of each
// repeated field together. On any other input, and on any error, it
// reports false and leaves st as it found it, with dst's length restored;
// it also sets st.scanOnly, so that the scanning path alone writes the
// rest of the datum and no input is read more than twice.
func (st *encState) encodeInOrder(dst []byte, m *msgPlan, oc occ) ([]byte, bool) {
	mark, occs, tbl := len(dst), len(st.occ), len(st.tbl)
	empty, rounded, depth := st.empty, st.rounded, st.depth
	b := st.in[:oc.end]
	next := 0       // the index of the first field not written yet
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
			continue // unknown field: not part of the schema (see docs/mapping.md)
		}
		si := &m.scanInfo[i]
		if si.wireTypes&(1<<wt) == 0 {
			continue // dropped as an unknown field, as the scanner does
		}
		if i < next || si.utf8 && !utf8.Valid(b[vs:ve]) {
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
		for ; next < i && err == nil; next++ {
			dst, err = st.encodeField(dst, &m.fields[next], -1, -1)
		}
		if err != nil {
			break
		}
		f := &m.fields[i]
		next = i + 1
		if f.val.kind < vMessage && f.mode <= modeRequired { // a singular scalar
			if f.mode == modeNullable {
				dst = append(dst, 2) // union branch 1, zig-zag encoded
			}
			if dst, err = st.scalar(dst, &f.val, b[vs:ve], vs); err != nil {
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
					continue
				}
				o := int32(len(st.occ))
				st.occ = append(st.occ, occ{start: int32(vs), end: int32(ve), wt: wt, next: -1})
				st.occ[last].next = o
				last = o
			}
		}
		if dst, err = st.encodeField(dst, f, first, last); err != nil {
			break
		}
	}
	for ; next < len(m.fields) && err == nil; next++ {
		dst, err = st.encodeField(dst, &m.fields[next], -1, -1)
	}
	st.occ = st.occ[:occs]
	if err != nil {
		st.tbl = st.tbl[:tbl]
		st.empty, st.rounded, st.depth = empty, rounded, depth
		st.scanOnly = true
		return dst[:mark], false
	}
	return dst, true
}

package protoavro

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/protoavro/protoavro/internal/anytype"
	"github.com/protoavro/protoavro/internal/limits"
	"github.com/protoavro/protoavro/internal/safetext"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// This file holds the Avro writer: a plan compiled once per message type
// that transcodes protobuf wire bytes into Avro binary without building a
// message. Marshal of a proto.Message goes through it too: proto.Marshal into
// a pooled buffer, then this transcoder.

// scanInfo is the part of a field the scanner reads, kept compact.
type scanInfo struct {
	// wireTypes has bit 1<<wt set for each wire type the field takes: the
	// wire type of one value, and BytesType for packed lists and map
	// entries (which take BytesType only).
	wireTypes uint8
	// utf8 marks singular strings whose every occurrence proto.Unmarshal
	// validates, including the ones a later occurrence overwrites.
	utf8  bool
	oneof int16 // oneof index, or -1
}

// finish computes the scanner's tables of a compiled message: a dense
// index of field numbers (a map for numbers of 1024 and above), per-field
// scan information and the blank frame.
func (m *msgPlan) finish() {
	if m.dense == nil {
		maxNum := 0
		for i := range m.fields {
			if n := int(m.fields[i].num); n > maxNum && n < 1024 {
				maxNum = n
			}
		}
		m.dense = make([]int16, maxNum+1)
		for i := range m.fields {
			if n := m.fields[i].num; int(n) < len(m.dense) {
				m.dense[n] = int16(i + 1)
			} else {
				if m.sparse == nil {
					m.sparse = map[protowire.Number]int{}
				}
				m.sparse[n] = i
			}
		}
	}
	m.scanInfo = make([]scanInfo, len(m.fields))
	for i := range m.fields {
		f := &m.fields[i]
		wts := uint8(1) << f.val.wt
		switch {
		case f.mode == modeMap || f.mode == modeEntries:
			wts = 1 << protowire.BytesType
		case f.packed:
			wts |= 1 << protowire.BytesType
		}
		m.scanInfo[i] = scanInfo{wireTypes: wts,
			utf8: f.val.kind == vString && f.mode <= modeRequired && enforceUTF8(f.fd), oneof: int16(f.oneof)}
		f.val.scanned = m.scanInfo[i].utf8
	}
	m.blank = make([]int32, 2*len(m.fields)+m.nOneofs)
	for i := range m.blank {
		m.blank[i] = -1
	}
	m.inOrder = m.nOneofs <= 64
	byNum := make([]int32, len(m.fields))
	for i := range byNum {
		byNum[i] = int32(i)
	}
	slices.SortFunc(byNum, func(a, b int32) int { return cmp.Compare(m.fields[a].num, m.fields[b].num) })
	m.rank = make([]int32, len(m.fields))
	m.prefix = len(m.fields)
	for r, i := range byNum {
		m.rank[i] = int32(r)
		if int(i) != r {
			m.prefix = min(m.prefix, r)
		}
	}
}

func (m *msgPlan) index(num protowire.Number) int {
	if int(num) < len(m.dense) {
		return int(m.dense[num]) - 1
	}
	if i, ok := m.sparse[num]; ok {
		return i
	}
	return -1
}

// occ is one occurrence of a field in the wire input: the value bytes
// [start, end) and the next occurrence of the same field.
type occ struct {
	start, end int32
	wt         protowire.Type
	next       int32
}

// encState is the per-call scratch of the transcoder, pooled.
type encState struct {
	in    []byte
	occ   []occ
	tbl   []int32 // frames of per-field first/last occurrence and per-oneof winner
	depth int
	empty int64 // the nested records written that take no bytes
	// limit is the length of the output past which the datum's Avro
	// encoding exceeds maxRecordAvroSize.
	limit int
	// policy is the codec's unknown-enum policy.
	policy UnknownEnumPolicy
	// resolver finds the types in Any values written as JSON.
	resolver AnyResolver
	whole    []byte // scratch: the merged occurrences of a carried message
	text     []byte // scratch: the JSON of a carried Struct, Value or ListValue
	// rounded counts the values written at a lower precision than the
	// message holds: Timestamps of timestamp-micros or -millis and
	// TimeOfDays of time-micros with nanoseconds below that precision.
	rounded int64
	// unknown counts the fields of the input dropped as unknown: field
	// numbers the message does not declare, and known fields in a wire
	// type they do not take (docs/mapping.md).
	unknown int64
	// scanOnly is set once encodeInOrder has given up on a message of the
	// datum: the scanning path writes the rest.
	scanOnly bool
	// tentative counts the encodeInOrder frames running. Such a frame drops
	// every error met below it, and the scanning path meets the error again
	// (it defines the output), so an error's path is built only when no
	// frame runs (st.inField): the path of an error deep in the datum is
	// built once, not again for each frame it passes.
	tentative int
}

// inField is inField, or err as it is while an encodeInOrder frame runs
// (st.tentative).
func (st *encState) inField(err error, name string) error {
	if st.tentative > 0 {
		return err
	}
	return inField(err, name)
}

// inIndex is inIndex, or err as it is while an encodeInOrder frame runs.
func (st *encState) inIndex(err error, i int) error {
	if st.tentative > 0 {
		return err
	}
	return inIndex(err, i)
}

// inEntry prefixes the path of err with the name of the map entry at
// occurrence o, the i-th of field f (entryName), unless an encodeInOrder
// frame runs.
func (st *encState) inEntry(err error, f *fieldPlan, o int32, i int) error {
	if st.tentative > 0 {
		return err
	}
	return inField(err, st.entryName(f, o, i))
}

// frame layout for a message with n fields and k oneofs at base:
// tbl[base+2i] first occurrence of field i, tbl[base+2i+1] last, then k
// winners (field index of the last-seen member, -1 if none).

// encodeMessage writes the record of m from the occurrence list starting at
// head (-1: the message is empty). Occurrences are merged in order, as
// protobuf merges repeated occurrences of a message.
func (st *encState) encodeMessage(dst []byte, m *msgPlan, head int32) ([]byte, error) {
	st.depth++
	if st.depth > maxDepth+1 { // the top-level message is at depth 1
		off := 0
		if head >= 0 {
			off = int(st.occ[head].start)
		}
		return dst, dataErr(ErrTooDeep, off, "more than %d nested messages", maxDepth)
	}
	if m.zeroSize && st.depth > 1 {
		off := 0
		if head >= 0 {
			off = int(st.occ[head].start)
		}
		if err := st.zeroItem(off); err != nil {
			return dst, err
		}
	}
	var err error
	ok := false
	if m.inOrder && !st.scanOnly && head >= 0 && st.occ[head].next < 0 {
		dst, ok = st.encodeInOrder(dst, m, st.occ[head])
	}
	if !ok {
		dst, err = st.encodeScanned(dst, m, head)
	}
	st.depth--
	if err != nil {
		return dst, err
	}
	if m.placeholder {
		dst = append(dst, 0) // the placeholder field's null
	}
	if len(dst) > st.limit {
		off := 0
		if head >= 0 {
			off = int(st.occ[head].start)
		}
		return dst, errTooLarge(off)
	}
	return dst, nil
}

// encodeScanned writes the record of m from the occurrences from head on,
// scanned into a frame of the occurrence table first: the last occurrence
// of a singular field wins, messages merge, and repeated fields collect
// their elements wherever they are.
func (st *encState) encodeScanned(dst []byte, m *msgPlan, head int32) ([]byte, error) {
	nf := len(m.fields)
	base := len(st.tbl)
	st.tbl = append(st.tbl, m.blank...)
	var err error
	for o := head; o >= 0 && err == nil; o = st.occ[o].next {
		err = st.scan(m, base, int(st.occ[o].start), int(st.occ[o].end))
	}
	for i := 0; i < nf && err == nil; i++ {
		f := &m.fields[i]
		first, last := st.tbl[base+2*i], st.tbl[base+2*i+1]
		if f.oneof >= 0 && st.tbl[base+2*nf+f.oneof] != int32(i) {
			// Another member of the oneof was set last.
			if err = st.checkDropped(f, first); err != nil {
				break
			}
			first, last = -1, -1
		}
		if dst, err = st.encodeField(dst, f, first, last); err != nil {
			err = st.inField(err, f.name)
		}
	}
	st.tbl = st.tbl[:base]
	return dst, err
}

// errTooLarge reports a datum whose Avro encoding exceeds maxRecordAvroSize,
// found at the end of a message that starts at byte off of the input: a
// list of empty messages with many fields expands 800 times.
func errTooLarge(off int) error {
	return dataErr(ErrOutOfRange, off, "the datum's Avro encoding exceeds the limit of %d bytes (docs/limits.md)", maxRecordAvroSize)
}

// zeroItem counts a nested record that takes no bytes (an empty message),
// at byte off of the input, against the bound readers put on the zero-size
// items of a datum (docs/limits.md): what the writers write, readers read.
// The readers count the same records: markZeroSize marks them by their rule.
func (st *encState) zeroItem(off int) error {
	st.empty++
	if st.empty > maxEmptyItems {
		return dataErr(ErrOutOfRange, off, "more than %d nested records that take no bytes (empty messages) in one datum; readers refuse them (docs/limits.md)", maxEmptyItems)
	}
	return nil
}

// scan records the fields of one occurrence of a message in the frame at base.
func (st *encState) scan(m *msgPlan, base, start, end int) error {
	nf := len(m.fields)
	b := st.in[:end]
	for pos := start; pos < end; {
		num, wt, vstart, vend, next, err := wireField(b, pos)
		if err != nil {
			return err
		}
		pos = next
		i := m.index(num)
		if i < 0 {
			st.unknown++
			continue // unknown field: not part of the schema (see docs/mapping.md)
		}
		si := &m.scanInfo[i]
		if si.wireTypes&(1<<wt) == 0 { // wt ≤ 7: a tag has three bits of wire type
			// A known field in a wire type it does not take: proto.Unmarshal
			// keeps it as an unknown field, so it is dropped as they are.
			st.unknown++
			continue
		}
		if si.utf8 && !validUTF8(b[vstart:vend]) {
			err := dataErr(ErrMalformed, vstart, "string is not valid UTF-8")
			if m.inMap && i == 1 { // an Avro map's value: named by the entry's key
				return err
			}
			return st.inField(err, m.fields[i].name)
		}
		if si.oneof >= 0 && st.tbl[base+2*nf+int(si.oneof)] != int32(i) {
			// Another member of the oneof was set since this one: protobuf
			// starts this member afresh instead of merging into its earlier
			// occurrences, which it has parsed all the same.
			if err := st.checkDropped(&m.fields[i], st.tbl[base+2*i]); err != nil {
				return err
			}
			st.tbl[base+2*i], st.tbl[base+2*i+1] = -1, -1
		}
		o := int32(len(st.occ))
		st.occ = append(st.occ, occ{start: int32(vstart), end: int32(vend), wt: wt, next: -1})
		if last := st.tbl[base+2*i+1]; last >= 0 {
			st.occ[last].next = o
		} else {
			st.tbl[base+2*i] = o
		}
		st.tbl[base+2*i+1] = o
		if si.oneof >= 0 {
			st.tbl[base+2*nf+int(si.oneof)] = int32(i)
		}
	}
	return nil
}

// wireField reads the field at b[pos:], b ending where the message does:
// its number and wire type, where its value starts and ends (a
// length-delimited value without its length, a group without its end tag)
// and where the next field starts; or the error at the bad byte.
func wireField(b []byte, pos int) (num protowire.Number, wt protowire.Type, vstart, vend, next int, err error) {
	end := len(b)
	if c := b[pos]; c < 0x80 && c >= 8 { // one-byte tag, field number ≥ 1
		num, wt = protowire.Number(c>>3), protowire.Type(c&7)
		pos++
	} else {
		var n int
		if num, wt, n = consumeTag(b[pos:]); n < 0 {
			return 0, 0, 0, 0, 0, wireErr(n, pos, "tag")
		}
		pos += n
	}
	vstart, vend = pos, -1
	switch wt { // fast paths for the common encodings
	case protowire.VarintType:
		for p := pos; p < end && p < pos+10; p++ {
			if b[p] < 0x80 {
				if p-pos < 9 || b[p] <= 1 { // else overflow: the slow path reports it
					vend = p + 1
				}
				break
			}
		}
	case protowire.Fixed32Type:
		if end-pos >= 4 {
			vend = pos + 4
		}
	case protowire.Fixed64Type:
		if end-pos >= 8 {
			vend = pos + 8
		}
	case protowire.BytesType:
		if pos < end && b[pos] < 0x80 && int(b[pos]) <= end-pos-1 {
			return num, wt, pos + 1, pos + 1 + int(b[pos]), pos + 1 + int(b[pos]), nil
		}
	}
	if vend >= 0 {
		return num, wt, vstart, vend, vend, nil
	}
	// Long lengths, groups, and errors.
	vn := protowire.ConsumeFieldValue(num, wt, b[pos:])
	if vn < 0 {
		return 0, 0, 0, 0, 0, inField(wireErr(vn, pos, "value"), "#"+strconv.Itoa(int(num)))
	}
	vend = pos + vn
	switch wt {
	case protowire.BytesType:
		_, ln := protowire.ConsumeVarint(b[pos:])
		vstart += ln
	case protowire.StartGroupType:
		vend -= protowire.SizeTag(num) // the end-group tag
	}
	return num, wt, vstart, vend, pos + vn, nil
}

// checkDropped checks the occurrences from head of a message-valued oneof
// member that a later member replaces: proto.Unmarshal parses them before
// discarding them, so the transcoders reject what it rejects there too.
// Messages are checked by proto.Unmarshal itself, which is slow but rare.
func (st *encState) checkDropped(f *fieldPlan, head int32) error {
	if head < 0 || !f.val.kind.isMessage() {
		return nil // scalars were checked as they were scanned
	}
	md := f.fd.Message()
	for o := head; o >= 0; o = st.occ[o].next {
		oc := st.occ[o]
		m := dynamicpb.NewMessage(md)
		if err := unmarshalUntrusted(st.in[oc.start:oc.end], m); err != nil {
			return st.inField(dataErr(parseClass(err), int(oc.start), "replaced oneof member: %v", err), f.name)
		}
	}
	return nil
}

// enforceUTF8 reports whether proto.Unmarshal validates the UTF-8 of a
// string field, as protobuf-go decides it (internal/strs.EnforceUTF8):
// proto3 strings, and editions strings with utf8_validation = VERIFY.
func enforceUTF8(fd protoreflect.FieldDescriptor) bool {
	if fd.Syntax() == protoreflect.Editions {
		if e, ok := fd.(interface{ EnforceUTF8() bool }); ok {
			return e.EnforceUTF8()
		}
	}
	return fd.Syntax() == protoreflect.Proto3
}

// validUTF8 is utf8.Valid with a fast path for ASCII, the text of most
// strings: the bytes are read eight at a time (four at a time below eight),
// the last load overlapping the one before it, and a string with a byte of
// 0x80 or above goes to utf8.Valid.
func validUTF8(b []byte) bool {
	const high64, high32 = 0x8080808080808080, 0x80808080
	n := len(b)
	switch {
	case n >= 8:
		var acc uint64
		for i := 0; i < n-8; i += 8 {
			acc |= binary.LittleEndian.Uint64(b[i:])
		}
		if (acc|binary.LittleEndian.Uint64(b[n-8:]))&high64 == 0 {
			return true
		}
	case n >= 4:
		if (binary.LittleEndian.Uint32(b)|binary.LittleEndian.Uint32(b[n-4:]))&high32 == 0 {
			return true
		}
	default:
		ascii := true
		for _, c := range b {
			ascii = ascii && c < utf8.RuneSelf
		}
		if ascii {
			return true
		}
	}
	return utf8.Valid(b)
}

// consumeTag is protowire.ConsumeTag that also rejects field numbers above
// protowire.MaxValidNumber, as proto.Unmarshal does.
func consumeTag(b []byte) (protowire.Number, protowire.Type, int) {
	num, wt, n := protowire.ConsumeTag(b)
	if n >= 0 && num > protowire.MaxValidNumber {
		return 0, 0, -2 // protowire's errCodeFieldNumber: "invalid field number"
	}
	return num, wt, n
}

func wireErr(n, pos int, what string) error {
	err := protowire.ParseError(n)
	if n == -1 { // errCodeTruncated
		return dataErr(ErrTruncated, pos, "protobuf %s: %v", what, err)
	}
	return dataErr(ErrMalformed, pos, "protobuf %s: %v", what, err)
}

// encodeField writes one field from its occurrences.
func (st *encState) encodeField(dst []byte, f *fieldPlan, first, last int32) ([]byte, error) {
	var err error
	switch f.mode {
	case modeImplicit:
		if last < 0 && f.absent != nil {
			return append(dst, f.absent...), nil
		}
		return st.encodeValue(dst, &f.val, first, last)
	case modeNullable:
		if last < 0 {
			return append(dst, 0), nil
		}
		dst = append(dst, 2)       // union branch 1, zig-zag encoded
		if f.val.kind < vMessage { // a scalar: the last occurrence
			oc := &st.occ[last]
			return st.scalar(dst, &f.val, st.in[oc.start:oc.end], int(oc.start))
		}
		return st.encodeValue(dst, &f.val, first, last)
	case modeRequired:
		if last < 0 {
			return dst, dataErr(ErrMissingRequired, len(st.in), "")
		}
		return st.encodeValue(dst, &f.val, first, last)
	case modeList:
		return st.encodeList(dst, f, first)
	case modeMap, modeEntries:
		n := 0
		for o := first; o >= 0; o = st.occ[o].next {
			n++
		}
		if n == 0 {
			return append(dst, 0), nil
		}
		dst = appendLong(dst, int64(n))
		i := 0
		for o := first; o >= 0; o = st.occ[o].next {
			if dst, err = st.encodeEntry(dst, f, o); err != nil {
				return dst, st.inEntry(err, f, o, i)
			}
			i++
		}
		return append(dst, 0), nil
	}
	return dst, nil
}

// entryName names the map entry at occurrence o, the i-th of its field,
// in an error's path: by its key as the readers name an Avro map's entries,
// quoted and escaped (`"k"`, `"7"`, `"true"`), the key in the text form of
// the Avro map's keys; "[entry i]" when the entry's bytes do not parse, so
// that its key is not known. It runs only on the error path: the entry is
// scanned again for its key.
func (st *encState) entryName(f *fieldPlan, o int32, i int) string {
	raw := st.in[st.occ[o].start:st.occ[o].end]
	var key []byte // the last key's wire value, nil when the entry has none
	for pos := 0; pos < len(raw); {
		num, wt, vstart, vend, next, err := wireField(raw, pos)
		if err != nil {
			return "[entry " + strconv.Itoa(i) + "]"
		}
		if num == 1 && wt == f.key.wt {
			key = raw[vstart:vend]
		}
		pos = next
	}
	if f.key.kind == vString {
		return quoteKey(key)
	}
	if key == nil { // the key's default, as encodeKey writes it
		if f.key.kind == vBool {
			return `"false"`
		}
		return `"0"`
	}
	// The text the Avro map's key has (encodeKey), after its length.
	sub := encState{in: key, occ: []occ{{start: 0, end: int32(len(key)), next: -1}}}
	txt, err := sub.encodeKey(nil, f, 0)
	if err != nil {
		return "[entry " + strconv.Itoa(i) + "]"
	}
	_, n := protowire.ConsumeVarint(txt)
	return quoteKey(txt[n:])
}

// quoteKey quotes a map key for a path as safetext.Quote(string(key),
// maxKeyInPath) does, in time and memory bounded by maxKeyInPath however
// long the key: a longer key is quoted from a prefix long enough to be cut,
// and the length told is the key's.
func quoteKey(key []byte) string {
	const prefix = maxKeyInPath + utf8.UTFMax // its escaped form exceeds maxKeyInPath
	if len(key) <= prefix {
		return safetext.Quote(string(key), maxKeyInPath)
	}
	q := safetext.Quote(string(key[:prefix]), maxKeyInPath)
	return strings.TrimSuffix(q, "… ("+strconv.Itoa(prefix)+` bytes)"`) + "… (" + strconv.Itoa(len(key)) + ` bytes)"`
}

// encodeEntry writes one map entry: key and value of the entry message at occurrence o.
func (st *encState) encodeEntry(dst []byte, f *fieldPlan, o int32) ([]byte, error) {
	saved := st.occ[o].next
	st.occ[o].next = -1 // encode this entry alone
	defer func() { st.occ[o].next = saved }()
	if f.mode == modeEntries {
		return st.encodeMessage(dst, f.entry, o)
	}
	// Avro map: scan the entry, write the key as a string, then the value.
	m := f.entry
	base := len(st.tbl)
	for range 2 * len(m.fields) {
		st.tbl = append(st.tbl, -1)
	}
	defer func() { st.tbl = st.tbl[:base] }()
	if err := st.scan(m, base, int(st.occ[o].start), int(st.occ[o].end)); err != nil {
		return dst, err
	}
	kLast := st.tbl[base+1]
	vFirst, vLast := st.tbl[base+2], st.tbl[base+3]
	var err error
	if dst, err = st.encodeKey(dst, f, kLast); err != nil {
		return dst, err
	}
	return st.encodeValue(dst, &f.val, vFirst, vLast)
}

// encodeKey writes a map key as an Avro string: strings as they are, other
// kinds in their canonical text form.
func (st *encState) encodeKey(dst []byte, f *fieldPlan, o int32) ([]byte, error) {
	if o < 0 {
		if f.key.kind == vString {
			return append(dst, 0), nil
		}
		if f.key.kind == vBool {
			return append(dst, 10, 'f', 'a', 'l', 's', 'e'), nil
		}
		return append(dst, 2, '0'), nil
	}
	raw := st.in[st.occ[o].start:st.occ[o].end]
	if f.key.kind == vString {
		if !validUTF8(raw) {
			return dst, dataErr(ErrMalformed, int(st.occ[o].start), "map key is not valid UTF-8")
		}
		return appendAvroBytes(dst, raw), nil
	}
	var tmp [24]byte
	txt := tmp[:0]
	switch f.key.kind {
	case vBool:
		v, _ := protowire.ConsumeVarint(raw)
		txt = strconv.AppendBool(txt, v != 0)
	case vInt32:
		v, _ := protowire.ConsumeVarint(raw)
		txt = strconv.AppendInt(txt, int64(int32(v)), 10)
	case vSint32:
		v, _ := protowire.ConsumeVarint(raw)
		txt = strconv.AppendInt(txt, int64(int32(protowire.DecodeZigZag(v&math.MaxUint32))), 10)
	case vSfixed32:
		txt = strconv.AppendInt(txt, int64(int32(binary.LittleEndian.Uint32(raw))), 10)
	case vUint32:
		v, _ := protowire.ConsumeVarint(raw)
		txt = strconv.AppendUint(txt, uint64(uint32(v)), 10)
	case vFixed32:
		txt = strconv.AppendUint(txt, uint64(binary.LittleEndian.Uint32(raw)), 10)
	case vInt64:
		v, _ := protowire.ConsumeVarint(raw)
		txt = strconv.AppendInt(txt, int64(v), 10)
	case vUint64, vUint64Dec: // keys are text whatever the Uint64 mapping
		v, _ := protowire.ConsumeVarint(raw)
		txt = strconv.AppendUint(txt, v, 10)
	case vFixed64, vFixed64Dec:
		txt = strconv.AppendUint(txt, binary.LittleEndian.Uint64(raw), 10)
	case vSint64:
		v, _ := protowire.ConsumeVarint(raw)
		txt = strconv.AppendInt(txt, protowire.DecodeZigZag(v), 10)
	case vSfixed64:
		txt = strconv.AppendInt(txt, int64(binary.LittleEndian.Uint64(raw)), 10)
	}
	return appendAvroBytes(dst, txt), nil
}

// encodeList writes a repeated field as one Avro array block.
func (st *encState) encodeList(dst []byte, f *fieldPlan, first int32) ([]byte, error) {
	n := 0
	for o := first; o >= 0; o = st.occ[o].next {
		oc := &st.occ[o]
		if oc.wt == protowire.BytesType && f.packed {
			c, err := countPacked(st.in[oc.start:oc.end], f.val.wt, int(oc.start))
			if err != nil {
				return dst, err
			}
			n += c
		} else {
			n++
		}
	}
	if n == 0 {
		return append(dst, 0), nil
	}
	dst = appendLong(dst, int64(n))
	i := 0
	var err error
	for o := first; o >= 0; o = st.occ[o].next {
		oc := st.occ[o]
		if oc.wt == protowire.BytesType && f.packed {
			raw := st.in[oc.start:oc.end]
			for p := 0; p < len(raw); {
				var w int
				switch f.val.wt {
				case protowire.VarintType:
					if _, w = protowire.ConsumeVarint(raw[p:]); w < 0 {
						return dst, st.inIndex(wireErr(w, int(oc.start)+p, "packed varint"), i)
					}
				case protowire.Fixed32Type:
					w = 4
				default:
					w = 8
				}
				if dst, err = st.scalar(dst, &f.val, raw[p:p+w], int(oc.start)+p); err != nil {
					return dst, st.inIndex(err, i)
				}
				p += w
				i++
			}
			continue
		}
		if f.val.kind.isMessage() {
			next := st.occ[o].next
			st.occ[o].next = -1 // each occurrence is its own element
			dst, err = st.encodeValue(dst, &f.val, o, o)
			st.occ[o].next = next
		} else {
			dst, err = st.scalar(dst, &f.val, st.in[oc.start:oc.end], int(oc.start))
		}
		if err != nil {
			return dst, st.inIndex(err, i)
		}
		i++
	}
	return append(dst, 0), nil
}

// countPacked counts the values of a packed field.
func countPacked(raw []byte, wt protowire.Type, off int) (int, error) {
	switch wt {
	case protowire.VarintType:
		n := 0
		for _, c := range raw {
			if c < 0x80 {
				n++
			}
		}
		if len(raw) > 0 && raw[len(raw)-1] >= 0x80 {
			return 0, dataErr(ErrTruncated, off+len(raw), "packed varint")
		}
		return n, nil
	case protowire.Fixed32Type:
		if len(raw)%4 != 0 {
			return 0, dataErr(ErrMalformed, off, "packed fixed32 of %d bytes", len(raw))
		}
		return len(raw) / 4, nil
	default:
		if len(raw)%8 != 0 {
			return 0, dataErr(ErrMalformed, off, "packed fixed64 of %d bytes", len(raw))
		}
		return len(raw) / 8, nil
	}
}

// encodeValue writes one value from the occurrences first..last: the last
// one for scalars, all of them merged for messages.
func (st *encState) encodeValue(dst []byte, v *valuePlan, first, last int32) ([]byte, error) {
	switch v.kind {
	case vMessage:
		return st.encodeMessage(dst, v.msg, first)
	case vTimestamp:
		return st.encodeTimestamp(dst, v, first)
	case vWrapper:
		return st.encodeWrapper(dst, v, first)
	case vCarrier, vJSON:
		return st.encodeWhole(dst, v, first)
	case vDate, vTimeOfDay:
		return st.encodeCivil(dst, v, first)
	}
	if last < 0 {
		return st.scalarZero(dst, v), nil
	}
	oc := st.occ[last]
	return st.scalar(dst, v, st.in[oc.start:oc.end], int(oc.start))
}

// varint is protowire.ConsumeVarint with a fast path for one-byte values.
func varint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return protowire.ConsumeVarint(b)
}

// scalarZero writes the zero value of a scalar kind (a map entry without
// its value, for instance).
func (st *encState) scalarZero(dst []byte, v *valuePlan) []byte {
	switch v.kind {
	case vFloat:
		return append(dst, 0, 0, 0, 0)
	case vDouble:
		return append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
	case vUint64Dec, vFixed64Dec:
		return append(dst, 2, 0)
	case vEnum:
		return appendLong(dst, 0) // the first symbol
	}
	return append(dst, 0) // 0 as int/long/boolean, empty string/bytes
}

// scalar converts one raw wire value.
func (st *encState) scalar(dst []byte, v *valuePlan, raw []byte, off int) ([]byte, error) {
	switch v.kind {
	case vBool:
		x, n := varint(raw)
		if n < 0 {
			return dst, wireErr(n, off, "varint")
		}
		if x != 0 {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case vInt32:
		x, n := varint(raw)
		if n < 0 {
			return dst, wireErr(n, off, "varint")
		}
		return appendLong(dst, int64(int32(x))), nil
	case vSint32:
		x, n := varint(raw)
		if n < 0 {
			return dst, wireErr(n, off, "varint")
		}
		return appendLong(dst, int64(int32(protowire.DecodeZigZag(x&math.MaxUint32)))), nil
	case vSfixed32:
		return appendLong(dst, int64(int32(binary.LittleEndian.Uint32(raw)))), nil
	case vUint32:
		x, n := varint(raw)
		if n < 0 {
			return dst, wireErr(n, off, "varint")
		}
		if v.java32 {
			return appendLong(dst, int64(int32(uint32(x)))), nil
		}
		return appendLong(dst, int64(uint32(x))), nil
	case vFixed32:
		x := binary.LittleEndian.Uint32(raw)
		if v.java32 {
			return appendLong(dst, int64(int32(x))), nil
		}
		return appendLong(dst, int64(x)), nil
	case vInt64, vUint64:
		x, n := varint(raw)
		if n < 0 {
			return dst, wireErr(n, off, "varint")
		}
		return appendLong(dst, int64(x)), nil
	case vSint64:
		x, n := varint(raw)
		if n < 0 {
			return dst, wireErr(n, off, "varint")
		}
		return appendLong(dst, protowire.DecodeZigZag(x)), nil
	case vSfixed64, vFixed64:
		return appendLong(dst, int64(binary.LittleEndian.Uint64(raw))), nil
	case vUint64Dec:
		x, n := varint(raw)
		if n < 0 {
			return dst, wireErr(n, off, "varint")
		}
		return appendDecimalUint64(dst, x), nil
	case vFixed64Dec:
		return appendDecimalUint64(dst, binary.LittleEndian.Uint64(raw)), nil
	case vFloat:
		return append(dst, raw[:4]...), nil // both little-endian IEEE 754
	case vDouble:
		return append(dst, raw[:8]...), nil
	case vString:
		if !v.scanned && !validUTF8(raw) {
			return dst, dataErr(ErrMalformed, off, "string is not valid UTF-8")
		}
		return appendAvroBytes(dst, raw), nil
	case vBytes:
		return appendAvroBytes(dst, raw), nil
	case vEnum:
		x, n := varint(raw)
		if n < 0 {
			return dst, wireErr(n, off, "varint")
		}
		idx, err := v.enum.index(int32(x), off, st.policy, v.enumDef)
		if err != nil {
			return dst, err
		}
		return appendLong(dst, int64(idx)), nil
	}
	return dst, dataErr(ErrMalformed, off, "internal error: value kind %d", v.kind)
}

// encodeTimestamp writes a google.protobuf.Timestamp as a long in the
// configured precision. Sub-precision nanoseconds are truncated toward
// negative infinity, so the long orders like the instant.
func (st *encState) encodeTimestamp(dst []byte, v *valuePlan, head int32) ([]byte, error) {
	f, off, err := st.wellKnownVarints(head, 2) // seconds, nanos
	if err != nil {
		return dst, err
	}
	out, err := st.appendTimestamp(dst, v, int64(f[0]), int64(int32(f[1])))
	return out, atOffset(err, off)
}

// encodeCivil writes a google.type.Date or TimeOfDay from its occurrences,
// merged: the last value of each int32 field wins.
func (st *encState) encodeCivil(dst []byte, v *valuePlan, head int32) ([]byte, error) {
	fields := 4 // hours, minutes, seconds, nanos
	if v.kind == vDate {
		fields = 3 // year, month, day
	}
	f, off, err := st.wellKnownVarints(head, fields)
	if err != nil {
		return dst, err
	}
	var c [4]int64
	for i, x := range f {
		c[i] = int64(int32(x))
	}
	out, err := st.appendCivil(dst, v, &c)
	return out, atOffset(err, off)
}

// atOffset sets the offset of err, if it is a *DataError, to off and
// returns it: a well-known value's range error is reported where its last
// occurrence starts.
func atOffset(err error, off int) error {
	if de, ok := err.(*DataError); ok {
		de.Offset = off
	}
	return err
}

// wellKnownVarints reads the varint fields numbered 1 to n (at most 4) of
// the occurrences from head on of a Timestamp, Date or TimeOfDay, merged:
// the last value of each field wins, other fields and wire types are
// dropped as unknown. off is where the last occurrence starts (the
// input's end when there is none).
func (st *encState) wellKnownVarints(head int32, n int) (f [4]uint64, off int, err error) {
	off = len(st.in)
	for o := head; o >= 0; o = st.occ[o].next {
		oc := st.occ[o]
		off = int(oc.start)
		b := st.in[oc.start:oc.end]
		for p := 0; p < len(b); {
			num, wt, vp, end, err := occField(b, p, off)
			if err != nil {
				return f, off, err
			}
			if wt == protowire.VarintType && num >= 1 && int(num) <= n {
				f[num-1], _ = protowire.ConsumeVarint(b[vp:])
			} else {
				st.unknown++
			}
			p = end
		}
	}
	return f, off, nil
}

// occField reads the field at b[p:], in an occurrence of a message that
// starts at byte start of the input: its number, wire type, and where its
// value starts and ends in b; or the error at the bad byte.
func occField(b []byte, p, start int) (num protowire.Number, wt protowire.Type, v, end int, err error) {
	num, wt, n := consumeTag(b[p:])
	if n < 0 {
		return 0, 0, 0, 0, wireErr(n, start+p, "tag")
	}
	v = p + n
	vn := protowire.ConsumeFieldValue(num, wt, b[v:])
	if vn < 0 {
		return 0, 0, 0, 0, wireErr(vn, start+v, "value")
	}
	return num, wt, v, v + vn, nil
}

// encodeWrapper writes the value field of a wrapper message (zero if absent).
func (st *encState) encodeWrapper(dst []byte, v *valuePlan, head int32) ([]byte, error) {
	var last int32 = -1
	var lastRaw []byte
	var lastOff int
	for o := head; o >= 0; o = st.occ[o].next {
		oc := st.occ[o]
		b := st.in[oc.start:oc.end]
		p := 0
		for p < len(b) {
			num, wt, vp, end, err := occField(b, p, int(oc.start))
			if err != nil {
				return dst, err
			}
			if num == 1 && wt == v.inner.wt { // another wire type is an unknown field, as for proto.Unmarshal
				last, lastRaw, lastOff = 0, b[vp:end], int(oc.start)+vp
				if wt == protowire.BytesType {
					_, ln := protowire.ConsumeVarint(lastRaw)
					lastRaw, lastOff = lastRaw[ln:], lastOff+ln
					// StringValue is proto3: every occurrence must be UTF-8.
					if v.inner.kind == vString && !validUTF8(lastRaw) {
						return dst, dataErr(ErrMalformed, lastOff, "%s.value is not valid UTF-8", v.fullName)
					}
				}
			} else {
				st.unknown++
			}
			p = end
		}
	}
	if last < 0 {
		return st.scalarZero(dst, v.inner), nil
	}
	return st.scalar(dst, v.inner, lastRaw, lastOff)
}

// encodeWhole writes a message carried whole (below the recursion bound, or
// a dynamic value as JSON) from its occurrences, merged as protobuf merges
// them: as the protobuf encoding itself (Avro bytes), or as protojson text
// (Avro string). The message is parsed either way, so that what
// proto.Unmarshal rejects is rejected here too.
func (st *encState) encodeWhole(dst []byte, v *valuePlan, head int32) ([]byte, error) {
	var raw []byte
	off := len(st.in)
	if head >= 0 {
		off = int(st.occ[head].start)
		if oc := st.occ[head]; oc.next < 0 {
			raw = st.in[oc.start:oc.end]
		} else {
			raw = st.whole[:0]
			for o := head; o >= 0; o = st.occ[o].next {
				raw = append(raw, st.in[st.occ[o].start:st.occ[o].end]...)
			}
			st.whole = raw
		}
	}
	if v.structs != nil {
		// A Struct, Value or ListValue: converted to JSON without a
		// message, which checks it too; what the fast path declines is
		// parsed below.
		if text, ok := v.structs.AppendJSON(st.text[:0], raw); ok {
			st.text = text
			if !v.jsonText() {
				return appendAvroBytes(dst, raw), nil
			}
			return appendAvroBytes(dst, text), nil
		}
	}
	m := dynamicpb.NewMessage(v.desc)
	if err := unmarshalUntrusted(raw, m); err != nil {
		return dst, dataErr(parseClass(err), off, "%s: %v", v.desc.FullName(), err)
	}
	if err := proto.CheckInitialized(m); err != nil {
		return dst, dataErr(ErrMissingRequired, off, "%s: %v", v.desc.FullName(), err)
	}
	if !v.jsonText() {
		return appendAvroBytes(dst, raw), nil
	}
	return appendJSON(dst, m, st.resolver, off)
}

// appendJSON writes m as compact protojson text, an Avro string. protojson
// varies its white space on purpose; compacting it makes the output stable.
// A google.protobuf.Any that packs a message with a set field whose JSON
// name is "@type" is refused: protojson writes that field beside the Any's
// own "@type" member, JSON that it refuses to read.
func appendJSON(dst []byte, m proto.Message, resolver AnyResolver, off int) ([]byte, error) {
	watch := &anytype.Watch{FullResolver: resolverOrGlobal(resolver)}
	text, err := protojson.MarshalOptions{Resolver: watch}.Marshal(m)
	if err != nil {
		return dst, jsonError(m, nil, nil, resolver, off, string(m.ProtoReflect().Descriptor().FullName())+" as JSON", err)
	}
	if watch.Seen() {
		if c, ok := anytype.ClashInMessage(m.ProtoReflect(), watch.FullResolver); ok {
			return dst, dataErr(ErrMalformed, off, "%s as JSON: %s", m.ProtoReflect().Descriptor().FullName(), c.Describe())
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, text); err != nil {
		return dst, dataErr(ErrMalformed, off, "%s as JSON: %v", m.ProtoReflect().Descriptor().FullName(), err)
	}
	return appendAvroBytes(dst, buf.Bytes()), nil
}

// resolverOrGlobal returns r, or protoregistry.GlobalTypes when r is nil.
func resolverOrGlobal(r AnyResolver) AnyResolver {
	if r == nil {
		return protoregistry.GlobalTypes
	}
	return r
}

// maxDepth bounds message nesting, in both directions: a message inside
// more than maxDepth others is refused.
const maxDepth = limits.Depth

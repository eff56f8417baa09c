package protoavro

// Skip programs: writer values that the reader has no field for, read
// past without being decoded, with the bounds of decoding (nesting depth,
// zero-size items).

import "github.com/protoavro/protoavro/internal/avroschema"

// skipProg skips one writer value the reader has no field for. Programs
// are compiled once per writer node (see readerCompiler.skipper), so the
// item sizes of arrays and maps are not recomputed per value.
type skipProg struct {
	run func(st *decState) error
}

// skipper returns the skip program of writer type s, compiling it on first
// use; recursive types refer to the program being compiled.
func (rc *readerCompiler) skipper(s *avroschema.Node) *skipProg {
	t := s.Deref()
	if p := rc.skips[t]; p != nil {
		return p
	}
	p := &skipProg{}
	rc.skips[t] = p
	if rc.canBeEmpty(t) {
		// Types that can be empty always are (null, fixed(0) and records
		// of them): nothing to read, however deep the records nest.
		p.run = func(*decState) error { return nil }
		return p
	}
	switch t.Type {
	case avroschema.Null:
		p.run = func(*decState) error { return nil }
	case avroschema.Boolean:
		p.run = skipFixed(1)
	case avroschema.Int, avroschema.Long, avroschema.Enum:
		p.run = func(st *decState) error { _, err := st.r.long(); return err }
	case avroschema.Float:
		p.run = skipFixed(4)
	case avroschema.Double:
		p.run = skipFixed(8)
	case avroschema.String, avroschema.Bytes:
		p.run = func(st *decState) error { _, err := st.r.bytes(); return err }
	case avroschema.Fixed:
		p.run = skipFixed(t.Size)
	case avroschema.Union:
		branches := make([]*skipProg, len(t.Branches))
		for i, b := range t.Branches {
			branches[i] = rc.skipper(b)
		}
		p.run = func(st *decState) error {
			i, err := st.r.index(len(branches), unionIndexError)
			if err != nil {
				return err
			}
			return branches[i].run(st)
		}
	case avroschema.Record:
		fields := make([]*skipProg, len(t.Fields))
		for i := range t.Fields {
			fields[i] = rc.skipper(t.Fields[i].Type)
		}
		p.run = func(st *decState) error {
			st.depth++
			if st.depth > maxDepth {
				return dataErr(ErrTooDeep, st.r.Pos, "more than %d nested records", maxDepth)
			}
			for i, f := range fields {
				if err := f.run(st); err != nil {
					return inField(err, t.Fields[i].Name)
				}
			}
			st.depth--
			return nil
		}
	case avroschema.Array:
		item, minItem := rc.skipper(t.Items), rc.minSize(t.Items)
		p.run = func(st *decState) error { return skipBlocks(st, minItem, item.run) }
	case avroschema.Map:
		val, minEntry := rc.skipper(t.Values), 1+rc.minSize(t.Values)
		p.run = func(st *decState) error {
			return skipBlocks(st, minEntry, func(st *decState) error {
				if _, err := st.r.bytes(); err != nil {
					return err
				}
				return val.run(st)
			})
		}
	default:
		typ := t.Type
		p.run = func(st *decState) error { return dataErr(ErrIncompatible, st.r.Pos, "cannot skip a %s", typ) }
	}
	return p
}

func skipFixed(n int) func(st *decState) error {
	return func(st *decState) error { _, err := st.r.fixed(n); return err }
}

func skipBlocks(st *decState, minItemSize int, item func(st *decState) error) error {
	return st.r.blocks(minItemSize, func(n int64) error {
		for range n {
			if err := item(st); err != nil {
				return err
			}
		}
		return nil
	})
}

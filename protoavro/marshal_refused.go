package protoavro

import (
	"fmt"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/mapkeys"
)

// refusedValue finds the value of m that made proto.Marshal refuse it, for
// the writers that marshal a message to transcode it (a dynamic message, a
// map field of a generated one): a string that is not valid UTF-8, in
// p's field order, map entries in key order, so that the error names the
// same field, element or entry as the direct writer's would, by the same
// path. Its error is a *DataError with Offset -1 and the path below m;
// nil when no value is found (the caller then reports proto.Marshal's
// error for the whole message). It runs only on that error path.
func refusedValue(p *msgPlan, m protoreflect.Message) error {
	return refusedIn(p, m, 0)
}

func refusedIn(p *msgPlan, m protoreflect.Message, depth int) error {
	if depth > maxDepth { // proto.Marshal went this deep; the path would not be read
		return nil
	}
	for i := range p.fields {
		f := &p.fields[i]
		if f.fd == nil || !m.Has(f.fd) {
			continue
		}
		var err error
		v := m.Get(f.fd)
		switch {
		case f.fd.IsMap():
			err = refusedEntry(f, v.Map(), depth)
		case f.fd.IsList():
			l := v.List()
			for j := range l.Len() {
				if err = refusedOne(&f.val, f.fd, l.Get(j), depth); err != nil {
					err = inIndex(err, j)
					break
				}
			}
		default:
			err = refusedOne(&f.val, f.fd, v, depth)
		}
		if err != nil {
			return inField(err, f.name)
		}
	}
	return nil
}

// refusedEntry looks for the refused value in the entries of a map field,
// naming an entry by its key as entryName does.
func refusedEntry(f *fieldPlan, mp protoreflect.Map, depth int) error {
	v := &f.val // an Avro map's values
	if i := f.entry.index(2); f.mode == modeEntries && i >= 0 {
		v = &f.entry.fields[i].val // an entry record's value field
	}
	for _, k := range mapkeys.Sorted(mp) {
		var err error
		if s, ok := k.Interface().(string); ok && !utf8.ValidString(s) {
			err = inField(dataErr(ErrMalformed, -1, "map key is not valid UTF-8"), "key")
		} else {
			err = refusedOne(v, f.fd.MapValue(), mp.Get(k), depth)
			if err != nil && !f.entry.inMap { // an entry record names its value field
				err = inField(err, "value")
			}
		}
		if err != nil {
			return inField(err, quoteKey([]byte(k.String())))
		}
	}
	return nil
}

// refusedOne looks for the refused value in one value of field fd (an
// element of a list, the value of a map entry), planned as v.
func refusedOne(v *valuePlan, fd protoreflect.FieldDescriptor, val protoreflect.Value, depth int) error {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if !utf8.ValidString(val.String()) {
			return dataErr(ErrMalformed, -1, "string is not valid UTF-8")
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if v.kind == vMessage && v.msg != nil {
			return refusedIn(v.msg, val.Message(), depth+1)
		}
		sub := val.Message()
		if v.kind == vWrapper && v.inner.kind == vString { // StringValue: its value is the string
			inner := sub.Descriptor().Fields().ByNumber(1)
			return refusedOne(v.inner, inner, sub.Get(inner), depth)
		}
		// A value converted whole (a carried or JSON message): the field
		// is as far as the path goes.
		if _, err := (proto.MarshalOptions{AllowPartial: true}).Marshal(sub.Interface()); err != nil {
			return &DataError{Offset: -1, Err: fmt.Errorf("%w: %w", ErrMalformed, err)}
		}
	}
	return nil
}

package ranges

import (
	"encoding/base64"
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// otlpHint explains the OTLP/JSON caveat: OTLP's JSON encoding (the
// OpenTelemetry Collector's file exporter, OTLP/HTTP with JSON) writes
// trace and span IDs as hex, protojson reads bytes fields as base64. The
// words are protoavro encode's.
const otlpHint = "OTLP/JSON writes trace and span IDs as hex, but the protobuf JSON mapping reads bytes as base64: convert the IDs to base64 first"

// hexIDFields returns the bytes fields that md reaches whose names end in
// trace_id or span_id: the IDs of OTLP, whose JSON encoding writes them in
// hex.
func hexIDFields(md protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
	var out []protoreflect.FieldDescriptor
	seen := map[protoreflect.FullName]bool{}
	var visit func(m protoreflect.MessageDescriptor)
	visit = func(m protoreflect.MessageDescriptor) {
		if seen[m.FullName()] {
			return
		}
		seen[m.FullName()] = true
		fields := m.Fields()
		for i := range fields.Len() {
			f := fields.Get(i)
			name := string(f.Name())
			if f.Kind() == protoreflect.BytesKind && (strings.HasSuffix(name, "trace_id") || strings.HasSuffix(name, "span_id")) {
				out = append(out, f)
			}
			if f.Message() != nil {
				visit(f.Message())
			}
		}
	}
	visit(md)
	return out
}

// checkHexIDs reports an ID field of ids set in m (or in a message it
// holds) whose bytes are not an ID's 16 or 8 and, written back as base64,
// are hex digits: the JSON held an OTLP ID in hex (32 or 16 digits), which
// protojson decoded as base64 into 24 or 12 wrong bytes. The error names
// the field by its path from m.
func checkHexIDs(m protoreflect.Message, ids []protoreflect.FieldDescriptor) error {
	if len(ids) == 0 {
		return nil
	}
	isID := make(map[protoreflect.FullName]bool, len(ids))
	for _, id := range ids {
		isID[id.FullName()] = true
	}
	var err error
	var walk func(m protoreflect.Message, path string)
	walk = func(m protoreflect.Message, path string) {
		// Fields in declaration order (Range's order is not defined), so
		// that the bad ID reported is always the same.
		fields := m.Descriptor().Fields()
		for i := 0; i < fields.Len() && err == nil; i++ {
			fd := fields.Get(i)
			if !m.Has(fd) {
				continue
			}
			v := m.Get(fd)
			p := path + string(fd.Name())
			switch {
			case fd.IsList() && fd.Message() != nil:
				l := v.List()
				for i := 0; i < l.Len() && err == nil; i++ {
					walk(l.Get(i).Message(), fmt.Sprintf("%s[%d].", p, i))
				}
			case fd.IsMap() && fd.MapValue().Message() != nil:
				v.Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
					walk(v.Message(), fmt.Sprintf("%s[%q].", p, fmt.Sprint(k.Interface())))
					return err == nil
				})
			case fd.Message() != nil && !fd.IsList() && !fd.IsMap():
				walk(v.Message(), p+".")
			case fd.Kind() == protoreflect.BytesKind && !fd.IsList() && isID[fd.FullName()]:
				if size := idSize(fd); hexAsBase64(v.Bytes(), size) {
					err = fmt.Errorf("field %s holds %d bytes, not %d: hex digits read as base64 (%s)", p, len(v.Bytes()), size, otlpHint)
				}
			}
		}
	}
	walk(m, "")
	return err
}

// idSize is the size of an OTLP ID: 16 bytes for a trace ID, 8 for a
// span ID.
func idSize(fd protoreflect.FieldDescriptor) int {
	if strings.HasSuffix(string(fd.Name()), "trace_id") {
		return 16
	}
	return 8
}

// hexAsBase64 reports whether b, not an ID of want bytes (nor empty), is
// what hex digits decode to as base64, padded or not as protojson accepts
// it: an ID written in hex. The last digit of a length that is not a
// multiple of 4 keeps only some of its bits, so it is not checked.
func hexAsBase64(b []byte, want int) bool {
	if len(b) == want || len(b) == 0 {
		return false
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
		s := enc.EncodeToString(b)
		if len(s)%4 != 0 {
			s = s[:len(s)-1]
		}
		if strings.Trim(s, "0123456789abcdefABCDEF") == "" {
			return true
		}
	}
	return false
}

// idHint returns the text to add to protojson's error msg when it is about
// a field of ids (by its JSON or proto name): the OTLP/JSON caveat, in
// parentheses; "" otherwise.
func idHint(msg string, ids []protoreflect.FieldDescriptor) string {
	for _, id := range ids {
		if strings.Contains(msg, "field "+id.JSONName()+":") || strings.Contains(msg, "field "+string(id.Name())+":") {
			return " (" + otlpHint + ")"
		}
	}
	return ""
}

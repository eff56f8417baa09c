// Package otlpid catches the trace and span IDs of OpenTelemetry's OTLP
// that a JSON record holds in hex. OTLP's JSON encoding (the OpenTelemetry
// Collector's file exporter, OTLP/HTTP with JSON) writes the bytes fields
// trace_id and span_id as hex digits, where the protobuf JSON mapping
// (protojson) reads bytes as base64: a trace ID's 32 hex digits are valid
// base64 of 24 bytes, which protojson decodes without an error into an ID
// that is wrong. The JSON readers of protoavro encode and of the Beam
// module (ReadJSONLines) find the ID fields of their message type once
// ([Fields]), check each record that protojson decoded ([Check]), and add
// [Hint] to protojson's errors on those fields ([ErrorHint]).
//
// The Beam module has a generated copy of this package
// (internal/cmd/genshared), so it imports only the standard library and
// protobuf.
package otlpid

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/protoavro/protoavro/internal/mapkeys"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Hint explains the OTLP/JSON caveat and the way out: the words that end
// the errors of this package.
const Hint = "OTLP/JSON writes trace and span IDs as hex, but the protobuf JSON mapping reads bytes as base64: convert the IDs to base64 first"

// maxKey bounds a map key in the field path of an error, in bytes.
const maxKey = 64

// Fields returns the bytes fields that md reaches whose names end in
// trace_id or span_id, the IDs of OTLP, whose JSON encoding writes them in
// hex; nil when there are none.
func Fields(md protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
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

// Check reports an ID field of ids (from [Fields]) set in m, or in a
// message it holds, whose bytes are not an ID's 16 or 8 and, written back
// as base64, are hex digits: the JSON held an OTLP ID in hex (32 or 16
// digits), which protojson decoded as base64 into 24 or 12 wrong bytes.
// The error names the field by its path from m (map keys quoted, escaped
// and cut to 64 bytes) and ends with [Hint]. The fields are visited in
// declaration order and map entries in key order, so that the same record
// always gets the same error.
func Check(m protoreflect.Message, ids []protoreflect.FieldDescriptor) error {
	if len(ids) == 0 {
		return nil
	}
	var err error
	var walk func(m protoreflect.Message, path string)
	walk = func(m protoreflect.Message, path string) {
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
					walk(l.Get(i).Message(), p+"["+strconv.Itoa(i)+"].")
				}
			case fd.IsMap() && fd.MapValue().Message() != nil:
				mp := v.Map()
				for _, k := range mapkeys.Sorted(mp) {
					if err != nil {
						break
					}
					walk(mp.Get(k).Message(), p+"["+quoteKey(k.String())+"].")
				}
			case fd.Message() != nil && !fd.IsList() && !fd.IsMap():
				walk(v.Message(), p+".")
			case fd.Kind() == protoreflect.BytesKind && !fd.IsList() && isID(fd, ids):
				if size := idSize(fd); hexAsBase64(v.Bytes(), size) {
					err = fmt.Errorf("field %s holds %d bytes, not %d: hex digits read as base64 (%s)", p, len(v.Bytes()), size, Hint)
				}
			}
		}
	}
	walk(m, "")
	return err
}

// Suspect reports whether b, the value of the bytes field fd, could be an
// ID of ids written in hex that protojson decoded as base64: the check of
// a reader that decodes bytes values itself (a faster path than protojson)
// and leaves such a record to protojson and [Check], which say so.
func Suspect(fd protoreflect.FieldDescriptor, b []byte, ids []protoreflect.FieldDescriptor) bool {
	return fd.Kind() == protoreflect.BytesKind && isID(fd, ids) && hexAsBase64(b, idSize(fd))
}

// ErrorHint returns what to add to the text msg of protojson's error when
// it is about a field of ids (by its JSON or proto name): [Hint] in
// parentheses, after a space; "" otherwise. A hex ID that is no valid
// base64 (an odd number of digits) fails in protojson, not in [Check].
func ErrorHint(msg string, ids []protoreflect.FieldDescriptor) string {
	for _, id := range ids {
		if strings.Contains(msg, "field "+id.JSONName()+":") || strings.Contains(msg, "field "+string(id.Name())+":") {
			return " (" + Hint + ")"
		}
	}
	return ""
}

// isID reports whether fd is one of ids.
func isID(fd protoreflect.FieldDescriptor, ids []protoreflect.FieldDescriptor) bool {
	for _, id := range ids {
		if id.FullName() == fd.FullName() {
			return true
		}
	}
	return false
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

// quoteKey returns the map key s in double quotes, escaped as Go quotes
// strings (no control or format character stays), and cut to maxKey bytes
// with "… (N bytes)" after it when longer.
func quoteKey(s string) string {
	if len(s) <= maxKey {
		return strconv.Quote(s)
	}
	cut := maxKey
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

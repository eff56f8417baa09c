package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/anytype"
	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/records"
)

// otlpHint explains the OTLP/JSON caveat: OTLP's JSON encoding writes
// trace and span IDs as hex, protojson (the protobuf JSON mapping) reads
// bytes fields as base64.
const otlpHint = "OTLP/JSON writes trace and span IDs as hex, but the protobuf JSON mapping reads bytes as base64: convert the IDs to base64 first"

// anyHint says what makes the type of a google.protobuf.Any known to a
// command: errors of the class protoavro.ErrUnknownAnyType end with it.
const anyHint = "load the .proto file that defines the type, with -I for its imports, or a --descriptor-set that holds it, made with protoc --include_imports"

// unknownAny is the error of a google.protobuf.Any whose type the loaded
// files do not hold.
func unknownAny(u anytype.Unknown) error {
	return fmt.Errorf("%w: %s", protoavro.ErrUnknownAnyType, u.Describe())
}

// unknownMember is the error of a JSON record with a member that protojson
// refuses as unknown: a member that names no field, which --discard-unknown
// drops (without it), or a value that the flag does not drop (with it).
func unknownMember(m anytype.Member) error {
	switch m.Kind {
	case anytype.EnumName:
		return fmt.Errorf("field %s has the value %s, a name that its enum does not declare: --discard-unknown drops unknown fields, not unknown values", m.Path, safetext.Quote(m.Value, 300))
	case anytype.UntypedAny:
		at := ""
		if m.Path != "" {
			at = " at " + m.Path
		}
		return fmt.Errorf("google.protobuf.Any%s has members but no \"@type\": --discard-unknown drops unknown fields, not whole values", at)
	}
	return fmt.Errorf("unknown field %s: its message has no field of that name (--discard-unknown drops such fields, and the summary counts the records)", m.Path)
}

// arrayHint says that JSON Lines are not a JSON array: it is the error of a
// JSON array given to encode without --format, and the hint of its errors
// with --format.
const arrayHint = "the input looks like a JSON array: encode reads JSON Lines, one object per line (jq -c '.[]' writes them)"

// size32Refusal is the error of an input that starts with two zero bytes
// given to encode without --format: two empty length-delimited messages,
// or the start of a 4-byte big-endian size.
const size32Refusal = "the input starts with two zero bytes, as a 4-byte big-endian length prefix below 65,536 does (the OpenTelemetry Collector's file exporter, Java's DataOutputStream.writeInt): give --format size32, or --format delimited if these are empty messages"

// size32Hint is the hint of the errors of an input read with --format
// delimited that starts with two zero bytes.
const size32Hint = "the input starts with two zero bytes, as a 4-byte big-endian length prefix below 65,536 does: give --format size32 if each message follows its size as 4 bytes, big-endian (the OpenTelemetry Collector's file exporter, Java's DataOutputStream.writeInt)"

// compressedRecordsHint is the hint of the errors of size32 input whose
// first record is compressed on its own, as the OpenTelemetry Collector's
// file exporter writes each message with compression (without its native
// compression, which compresses the whole file).
const compressedRecordsHint = "the first record is compressed on its own, as the OpenTelemetry Collector's file exporter writes each message with compression: zstd (unless its native compression compresses the whole file): encode reads records that are not compressed, in a file that may be compressed as a whole"

// kubernetesJSONHint says that the JSON of Kubernetes objects that kubectl
// and the API server write is not the protobuf JSON of their messages.
const kubernetesJSONHint = "the input looks like Kubernetes objects as kubectl and the API server write them in JSON (apiVersion, kind), which is not the protobuf JSON of their .proto messages (a metav1.Time is a string there but a message in the .proto; resource.Quantity and IntOrString differ too): Kubernetes objects need their protobuf form, unwrapped from its runtime.Unknown envelope"

// jsonShapeHint returns the hint for the errors of an input whose first
// bytes (head) are JSON that encode does not read as it is: that of its
// shape ([shapeHint]), then that of Kubernetes objects in kubectl's JSON
// ([kubernetesJSON]); "" for none.
func jsonShapeHint(head []byte) string {
	shape := shapeHint(head)
	if !kubernetesJSON(head) {
		return shape
	}
	if shape != "" {
		return shape + "; " + kubernetesJSONHint
	}
	return kubernetesJSONHint
}

// shapeHint returns the hint for an input whose first bytes (head), after
// a UTF-8 byte-order mark, are JSON but not JSON Lines: a JSON array of
// objects, or a JSON document spread over lines (pretty-printed), whose
// first line is the start of an object that goes on (not a whole object,
// and no syntax error). It returns "" for anything else.
func shapeHint(head []byte) string {
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte(utf8BOM)), " \t\r\n")
	if len(t) == 0 {
		return ""
	}
	switch t[0] {
	case '[':
		rest := bytes.TrimLeft(t[1:], " \t\r\n")
		if len(rest) > 0 && (rest[0] == ']' || records.Sniff(rest) == records.FormatJSONLines) {
			return arrayHint
		}
	case '{':
		line, _, complete := bytes.Cut(t, []byte("\n"))
		if complete && records.Sniff(t) == records.FormatJSONLines && unfinished(line) {
			return "the input looks like a JSON document over several lines: JSON Lines has one object per line (jq -c . writes them)"
		}
	}
	return ""
}

// kubernetesJSON reports whether the first JSON object in head, after a
// UTF-8 byte-order mark, has the top-level keys "apiVersion" and "kind", as
// Kubernetes objects in kubectl's JSON have (those that head holds of
// it: the object may go on past it).
func kubernetesJSON(head []byte) bool {
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte(utf8BOM)), " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	if _, err := dec.Token(); err != nil {
		return false
	}
	version, kind := false, false
	for dec.More() && !(version && kind) {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := tok.(string)
		version = version || key == "apiVersion"
		kind = kind || key == "kind"
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			break
		}
	}
	return version && kind
}

// unfinished reports whether line is JSON that ends before its value does:
// the first line of a pretty-printed document.
func unfinished(line []byte) bool {
	var v json.RawMessage
	return errors.Is(json.NewDecoder(bytes.NewReader(line)).Decode(&v), io.ErrUnexpectedEOF)
}

// hexIDFields returns the bytes fields that md reaches whose names end in
// trace_id or span_id, the IDs of OTLP, whose JSON encoding writes them in
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
// protojson decoded as base64 into 24 or 12 wrong bytes.
func checkHexIDs(m protoreflect.Message, ids []protoreflect.FieldDescriptor) error {
	if len(ids) == 0 {
		return nil
	}
	var err error
	var walk func(m protoreflect.Message, path string)
	walk = func(m protoreflect.Message, path string) {
		// Fields in declaration order (Range's order is not defined), so
		// the first bad ID reported is always the same.
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
					walk(v.Message(), fmt.Sprintf("%s[%v].", p, k.Interface()))
					return err == nil
				})
			case fd.Message() != nil && !fd.IsList() && !fd.IsMap():
				walk(v.Message(), p+".")
			case fd.Kind() == protoreflect.BytesKind && !fd.IsList() && isID(fd, ids):
				if hexAsBase64(v.Bytes(), idSize(fd)) {
					err = fmt.Errorf("field %s holds %d bytes, not %d: hex digits read as base64 (%s)", p, len(v.Bytes()), idSize(fd), otlpHint)
				}
			}
		}
	}
	walk(m, "")
	return err
}

// suspectID is the JSON fast path's check of bytes values: an ID field
// whose bytes could be hex digits read as base64 goes to protojson and
// checkHexIDs, which say so.
func (e *encoder) suspectID(fd protoreflect.FieldDescriptor, b []byte) bool {
	return fd.Kind() == protoreflect.BytesKind && isID(fd, e.otlp) && hexAsBase64(b, idSize(fd))
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

// protoError shortens an error of protojson for a one-line message: it
// drops the "proto: " prefix and, since every record is one line, turns
// "(line 1:12)" into "(column 12)". An error on an ID field of ids says
// that OTLP/JSON writes IDs in hex.
func protoError(err error, ids []protoreflect.FieldDescriptor) error {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "proto:"); ok {
		msg = strings.TrimLeft(rest, " \u00a0")
	}
	msg = strings.Replace(msg, "(line 1:", "(column ", 1)
	for _, id := range ids {
		if strings.Contains(msg, "field "+id.JSONName()+":") || strings.Contains(msg, "field "+string(id.Name())+":") {
			msg += " (" + otlpHint + ")"
			break
		}
	}
	return errors.New(msg)
}

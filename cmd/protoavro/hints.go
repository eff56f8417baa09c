package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/anytype"
	"github.com/protoavro/protoavro/internal/otlpid"
	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/records"
)

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

// suspectID is the JSON fast path's check of bytes values: an ID field
// whose bytes could be hex digits read as base64 goes to protojson and
// otlpid.Check, which say so.
func (e *encoder) suspectID(fd protoreflect.FieldDescriptor, b []byte) bool {
	return otlpid.Suspect(fd, b, e.otlp)
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
	return errors.New(msg + otlpid.ErrorHint(msg, ids))
}

package protoavro

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
)

// unmarshalWire hands the wire bytes a reader program produced to
// proto.Unmarshal, classifying its errors: a proto2 required field the
// data left unset is ErrMissingRequired (a writer schema may make it
// nullable), anything else as parseClass says. name is the message's full
// name.
func unmarshalWire(wire []byte, m proto.Message, name string) error {
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(wire, m); err != nil {
		return fmt.Errorf("protoavro: %s: %w: %w", name, parseClass(err), err)
	}
	if err := proto.CheckInitialized(m); err != nil {
		return fmt.Errorf("protoavro: %s: %w: %w", name, ErrMissingRequired, err)
	}
	return nil
}

// unmarshalUntrusted parses untrusted wire bytes into m (a dynamicpb
// message) with proto.Unmarshal, partial messages allowed. protobuf-go
// (v1.36.12) panics on some input in its dynamicpb path — a map entry whose
// key field comes again with another wire type ("type mismatch: cannot
// convert nil to map key") — where generated types skip the stray field. m
// is discarded on error, so such a panic is returned as an error: the bytes
// are refused, never a crash.
func unmarshalUntrusted(b []byte, m proto.Message) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("protobuf-go cannot parse it: %v", r)
		}
	}()
	return proto.UnmarshalOptions{AllowPartial: true}.Unmarshal(b, m)
}

// parseClass is the error class of an error of protobuf-go's parsers
// (proto.Unmarshal, protojson.Unmarshal) on untrusted bytes: ErrTooDeep
// for input nested deeper than their recursion limit (10,000 messages,
// reached inside a value carried whole, whose nesting the plan's own
// limit does not count), for which protobuf-go has no error type or
// sentinel, only its text; ErrMalformed for every other error.
func parseClass(err error) error {
	if strings.Contains(err.Error(), "recursion depth") {
		return ErrTooDeep
	}
	return ErrMalformed
}

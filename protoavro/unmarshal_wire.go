package protoavro

import (
	"fmt"

	"google.golang.org/protobuf/proto"
)

// unmarshalWire hands the wire bytes a reader program produced to
// proto.Unmarshal, classifying its errors: a proto2 required field the
// data left unset is ErrMissingRequired (a writer schema may make it
// nullable), anything else ErrMalformed. name is the message's full name.
func unmarshalWire(wire []byte, m proto.Message, name string) error {
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(wire, m); err != nil {
		return fmt.Errorf("protoavro: %s: %w: %w", name, ErrMalformed, err)
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

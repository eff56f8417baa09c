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

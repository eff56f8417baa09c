package protoavro

import "errors"

// Error classes. Every error returned by this package wraps one of these, so
// callers can tell them apart with [errors.Is]; the message says what and where.
var (
	// ErrInvalidOptions reports Options outside their defined values.
	ErrInvalidOptions = errors.New("protoavro: invalid options")

	// ErrNameCollision reports two different protobuf types that would get
	// the same Avro full name in one schema.
	ErrNameCollision = errors.New("protoavro: Avro name collision")

	// ErrInvalidName reports a protobuf name that cannot become a valid Avro name.
	ErrInvalidName = errors.New("protoavro: invalid Avro name")

	// ErrInvalidSchema reports Avro schema text that does not parse, or
	// exceeds the bounds on untrusted schemas (see [ParseSchema]).
	ErrInvalidSchema = errors.New("protoavro: invalid Avro schema")

	// ErrUnsupported reports a descriptor feature the selected profile cannot map.
	ErrUnsupported = errors.New("protoavro: unsupported")
)

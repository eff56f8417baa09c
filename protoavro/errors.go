package protoavro

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/protoavro/protoavro/internal/avrobin"
	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/protoavro/ocf"
)

// Error classes. Every error returned by this package wraps one of these
// (or, from container files, [ErrNotContainer], [ErrClosed] or
// [ErrConcurrentUse]), so callers can tell them apart with [errors.Is]; the
// message says what and where. I/O errors of the caller's readers and
// writers are passed on as they are. A [DataError] (bad data) wraps one of the data classes, from
// ErrTruncated on.
var (
	// ErrInvalidOptions reports Options outside their defined values.
	ErrInvalidOptions = errors.New("protoavro: invalid options")
	// ErrNameCollision reports two different protobuf types that would get
	// the same Avro full name in one schema.
	ErrNameCollision = errors.New("protoavro: Avro name collision")
	// ErrInvalidName reports a protobuf name that cannot become a valid Avro name.
	ErrInvalidName = errors.New("protoavro: invalid Avro name")
	// ErrInvalidSchema reports Avro schema text that does not parse, or
	// exceeds the bounds on untrusted schemas (see [ParseSchema]). It is
	// the class of every schema parsed in this module, such as a container
	// header's or a schema registry's.
	ErrInvalidSchema = avroschema.ErrInvalid
	// ErrSchemaLimit reports descriptors whose schema would exceed
	// [Options.Limits]: nesting, types or fields. The message names the
	// limit and the path of types where it was reached.
	ErrSchemaLimit = errors.New("protoavro: schema limit exceeded")
	// ErrUnsupported reports a descriptor feature the selected profile cannot map.
	ErrUnsupported = errors.New("protoavro: unsupported")
	// ErrWrongType reports a message whose type is not the codec's.
	ErrWrongType = errors.New("protoavro: message type does not match the codec")

	// ErrTruncated reports input that ends inside a value; it is the class
	// of package ocf too, for files that end inside a header or block.
	ErrTruncated = ocf.ErrTruncated
	// ErrMalformed reports bytes that are not a valid encoding: a bad varint,
	// a negative or oversized length, a bad union or enum index, a group
	// that does not end, invalid UTF-8 in a string. It is the
	// class of package ocf too, for damaged container files.
	ErrMalformed = ocf.ErrMalformed
	// ErrUnknownEnum reports an enum number with no symbol (open enums),
	// under the default UnknownEnumError policy.
	ErrUnknownEnum = errors.New("unknown enum number")
	// ErrOutOfRange reports a value the target type cannot hold, such as a
	// timestamp beyond the range of a timestamp-nanos long.
	ErrOutOfRange = errors.New("value out of range")
	// ErrMissingRequired reports a proto2 required field that is not set.
	ErrMissingRequired = errors.New("required field not set")
	// ErrTooDeep reports nesting deeper than the recursion limit.
	ErrTooDeep = errors.New("nesting too deep")
	// ErrUnknownAnyType reports a google.protobuf.Any, carried as JSON,
	// whose type URL Options.AnyResolver does not know: the data may be
	// sound, but its JSON form needs the packed message's type.
	ErrUnknownAnyType = errors.New("unknown google.protobuf.Any type")
	// ErrIncompatible reports a writer schema that cannot be resolved
	// against the reader's message type.
	ErrIncompatible = errors.New("incompatible schemas")
)

// DataError describes bad input: what went wrong, in which field and at which
// byte offset of the input. Use errors.Is with the error classes above, or
// errors.As to read the position.
type DataError struct {
	// Path is the field path from the top-level message, such as
	// "Foo.bar.enum" or "Foo.fooArray[3].string".
	Path string
	// Offset is the byte offset in the input where the bad value starts,
	// or -1 where the input is a message, not bytes: errors of
	// [Codec.Marshal], [Codec.MarshalAppend] and [Codec.MarshalSingleObject]
	// name the field only.
	Offset int
	// Err is the error class, possibly wrapped with detail.
	Err error
	// elems are the elements of Path, innermost first, as inField added
	// them: Path names the outermost and innermost few, each cut
	// (avrobin.PrefixPath).
	elems []string
}

// Error formats the error as "protoavro: PATH at byte N: DETAIL", or
// "protoavro: PATH: DETAIL" where Offset is -1.
func (e *DataError) Error() string {
	return avrobin.Describe("protoavro: ", e.Path, int64(e.Offset), e.Err)
}

// Unwrap returns the error class.
func (e *DataError) Unwrap() error { return e.Err }

// Is reports an error of class ocf.ErrLimit (zero-size items beyond their
// bound, the class every Avro binary reader of the module gives them) as
// [ErrMalformed] too, as [ContainerError] does.
func (e *DataError) Is(target error) bool {
	return target == ErrMalformed && errors.Is(e.Err, ocf.ErrLimit)
}

// dataErr builds a DataError at offset with a detail message.
func dataErr(class error, off int, format string, args ...any) *DataError {
	if format == "" {
		return &DataError{Offset: off, Err: class}
	}
	return &DataError{Offset: off, Err: fmt.Errorf("%w: "+format, append([]any{class}, args...)...)}
}

// inField prefixes the path of a DataError with a field or element name as
// the error travels up; other errors pass unchanged. The path stays
// bounded however deep the datum nests (avrobin.PrefixPath).
func inField(err error, name string) error {
	var de *DataError
	if errors.As(err, &de) {
		de.elems, de.Path = avrobin.PrefixPath(de.elems, de.Path, name)
	}
	return err
}

// outOfField drops the outermost element of the path of a DataError when
// it is name; other errors pass unchanged.
func outOfField(err error, name string) {
	var de *DataError
	if !errors.As(err, &de) {
		return
	}
	if len(de.elems) == 0 {
		de.Path = strings.TrimPrefix(strings.TrimPrefix(de.Path, name), ".")
		return
	}
	if de.elems[len(de.elems)-1] != name {
		return
	}
	de.elems = de.elems[:len(de.elems)-1]
	if len(de.elems) == 0 {
		de.Path = ""
		return
	}
	inner := de.elems[:len(de.elems)-1]
	de.elems, de.Path = avrobin.PrefixPath(inner, "", de.elems[len(de.elems)-1])
}

// inIndex prefixes the path with an element index.
func inIndex(err error, i int) error {
	return inField(err, "["+strconv.Itoa(i)+"]")
}

// asDataError is errors.As for *DataError.
func asDataError(err error, target **DataError) bool {
	return err != nil && errors.As(err, target)
}

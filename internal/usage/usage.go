// Package usage is the command line shared by protoavro's commands
// (protoavro, protoavro-kafka, protoavro-beam) and the packages they load
// input with: [ParseArgs] reads flags and files in any order, and [Error] is
// the error of a bad command line: a flag or argument that is wrong, or an
// input file that is missing or cannot be loaded. A command exits with
// status 2 for it and 1 for other errors.
//
// The nested modules have generated copies of this package
// (internal/cmd/genshared).
package usage

import (
	"errors"
	"fmt"
)

// Error is a usage error; its text is the underlying error's.
type Error struct {
	Err error
}

// Error returns the message of the underlying error.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Errorf formats a usage error. Like [fmt.Errorf], it wraps an operand given
// with the %w verb.
func Errorf(format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...)}
}

// Wrap makes err a usage error; nil, and an error that already is one, are
// returned as they are.
func Wrap(err error) error {
	if err == nil || Is(err) {
		return err
	}
	return &Error{Err: err}
}

// Is reports whether err is, or wraps, a usage error.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

package serde

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"

	"github.com/protoavro/protoavro/kafka/internal/safetext"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/twmb/franz-go/pkg/sr"
)

// Error classes; every error of this package wraps one of them or an error of
// package protoavro, but for an operation cut short because the caller's
// context ended, whose error wraps that context's error (a *RegistryError
// when it was a registry request), and for the errors of [ParseStrategy]
// and [ParseLevel], which report a name they do not know and wrap none.
var (
	// ErrBadMagic reports a record that does not start with the Confluent
	// magic byte 0. It is also protoavro.ErrMalformed: a bad header is bad
	// data, and one errors.Is test of protoavro's data classes finds it.
	ErrBadMagic error = &dataClass{"serde: bad magic byte", protoavro.ErrMalformed}
	// ErrTruncatedHeader reports a record that ends inside its header (the
	// magic byte, the 4-byte schema ID or the message indexes). It is also
	// protoavro.ErrTruncated.
	ErrTruncatedHeader error = &dataClass{"serde: truncated header", protoavro.ErrTruncated}
	// ErrBadIndexes reports protobuf message indexes that are malformed or
	// name no message of the schema. It is also protoavro.ErrMalformed.
	ErrBadIndexes error = &dataClass{"serde: bad message indexes", protoavro.ErrMalformed}
	// ErrUnknownID reports a schema ID the registry does not know, or one
	// outside 1 to MaxSchemaID (a record header's ID 0, or one above
	// 2,147,483,647), which no registry holds and which is refused without
	// a request.
	ErrUnknownID = errors.New("serde: unknown schema ID")
	// ErrUnknownSubject reports a subject the registry does not know.
	ErrUnknownSubject = errors.New("serde: unknown subject")
	// ErrWrongSchemaType reports a schema of another type than expected (a
	// PROTOBUF schema where AVRO is read, or the reverse).
	ErrWrongSchemaType = errors.New("serde: wrong schema type")
	// ErrBadSchema reports schema text from the registry that does not parse
	// or compile.
	ErrBadSchema = errors.New("serde: bad schema")
	// ErrRegistryUnavailable reports a registry that could not be reached,
	// whose answer did not arrive whole (a network error, a timeout), or
	// that answered with a server error (HTTP 5xx, 408, 429). The
	// operation can be retried; nothing was cached.
	ErrRegistryUnavailable = errors.New("serde: schema registry unavailable")
	// ErrRegistry reports any other error answer of the registry, and an
	// answer that is no valid answer: a body that does not decode (not
	// JSON, an unknown schema type), or a schema ID outside 1 to
	// 2,147,483,647. It is not retried.
	ErrRegistry = errors.New("serde: schema registry error")
	// ErrRegistryAccess reports a registry that refused the client's
	// credentials or permissions (HTTP 401 or 403): a configuration error,
	// not one of the data asked for. It is also ErrRegistry.
	ErrRegistryAccess = fmt.Errorf("%w: access refused", ErrRegistry)
	// ErrRegistryURL reports a wrong registry URL: one NewRegistry refuses
	// (a scheme other than http:// or https://, one that does not parse,
	// one without a host, or URLs that hold different credentials), or one
	// at which no schema registry answers: an HTTP 404 without a Confluent
	// error code of its own, or with the generic 404 (such as a gateway's
	// page, or a registry's answer for a path it does not serve: a wrong
	// base path), where a registry answers every 404 of its API with one
	// (40401, 40403, ...); a redirect the client does not follow (a loop,
	// more than 10, to a scheme other than http or https, a Location that
	// does not parse); an https URL answered over plain HTTP. It is a
	// configuration error, not retried, and also ErrRegistry.
	ErrRegistryURL = fmt.Errorf("%w: bad URL", ErrRegistry)
	// ErrIncompatible reports incompatible schemas; it is
	// protoavro.ErrIncompatible, so one errors.Is test serves both packages.
	ErrIncompatible = protoavro.ErrIncompatible
)

// dataClass is an error class of this package that is also one of
// protoavro's data classes, which it unwraps to.
type dataClass struct {
	msg   string
	class error
}

func (c *dataClass) Error() string { return c.msg }
func (c *dataClass) Unwrap() error { return c.class }

// RegistryError is an error from a registry request: which operation, on
// what, and the underlying error. It wraps one of ErrRegistryUnavailable,
// ErrUnknownID, ErrUnknownSubject, ErrRegistryAccess, ErrRegistryURL or
// ErrRegistry, and the client's error; or, for a request cut short because
// the caller's context ended, that context's error (context.Canceled or
// context.DeadlineExceeded) as its class.
type RegistryError struct {
	// Op is the operation, such as "schema by ID".
	Op string
	// What is the ID or subject asked for.
	What string
	// Class is the error class.
	Class error
	// Auth describes the credentials sent (basic auth as user "alice",
	// basic auth with a user name and no password, a bearer token, no
	// credentials) when the registry refused them
	// (ErrRegistryAccess); otherwise empty. It never holds a secret: the
	// user name is shown only with a password, since a user name without
	// one is often a token.
	Auth string
	// Err is the client's error. Its text may quote the registry's answer
	// and URL as they came; Error shows it redacted, escaped and cut.
	Err error
}

// Error formats the error as "serde: registry OP WHAT: CLASS: DETAIL". The
// detail, which quotes the registry's answer, has the user information of
// URLs replaced ([RedactURLs]), control and format characters escaped, and
// is cut to 512 bytes: whatever the registry answers, the message is one
// line of bounded length that holds no password of a URL.
func (e *RegistryError) Error() string {
	auth := ""
	if e.Auth != "" {
		auth = " (" + e.Auth + ")"
	}
	return fmt.Sprintf("serde: registry %s %s: %v%s: %s", e.Op, safetext.Escape(e.What, 256), e.Class, auth, safeText(e.Err.Error()))
}

// Unwrap returns the class and the client's error.
func (e *RegistryError) Unwrap() []error { return []error{e.Class, e.Err} }

// Temporary reports whether retrying may succeed (the registry was down).
func (e *RegistryError) Temporary() bool { return e.Class == ErrRegistryUnavailable }

// classify wraps an error of the sr client in a *RegistryError of the right
// class. The caller's own cancellation is a *RegistryError whose class is
// the context's error (context.Canceled or context.DeadlineExceeded).
// auth describes the credentials the client sent (RegistryError.Auth).
func classify(ctx context.Context, op, what, auth string, err error) error {
	if err == nil {
		return nil
	}
	// net/http fails a request with the context's cause, when it has one.
	if ctx.Err() != nil && (errors.Is(err, ctx.Err()) || errors.Is(err, context.Cause(ctx))) {
		return &RegistryError{Op: op, What: what, Class: ctx.Err(), Err: err}
	}
	// An answer received whole that does not decode (not JSON, an unknown
	// schema type) or that the client refuses is the registry's error,
	// ErrRegistry: only an answer not received (a network error, a
	// timeout) or a server error is ErrRegistryUnavailable.
	class := ErrRegistry
	var re *sr.ResponseError
	switch {
	case errors.Is(err, errResponseTooLarge):
		class = ErrRegistry
	case errors.As(err, &re):
		switch {
		case re.StatusCode >= 500 || re.StatusCode == http.StatusTooManyRequests || re.StatusCode == http.StatusRequestTimeout:
			class = ErrRegistryUnavailable
		case re.StatusCode == http.StatusUnauthorized || re.StatusCode == http.StatusForbidden:
			class = ErrRegistryAccess
		case re.ErrorCode == sr.ErrSchemaNotFound.Code:
			class = ErrUnknownID
		case re.ErrorCode == sr.ErrSubjectNotFound.Code || re.ErrorCode == sr.ErrVersionNotFound.Code:
			class = ErrUnknownSubject
		case re.StatusCode == http.StatusNotFound && (re.ErrorCode == 0 || re.ErrorCode == http.StatusNotFound):
			// Every 404 of a schema registry's API carries an error
			// code of its own (40401, 40403, ...): one without, or
			// with the generic 404 (Confluent's registry answers
			// {"error_code":404,"message":"HTTP 404 Not Found"} for
			// a path it does not serve), is a path no registry
			// serves, a registry URL with a wrong base path (or a
			// gateway's page).
			class = ErrRegistryURL
		default:
			class = ErrRegistry
		}
	case misdirected(err):
		class = ErrRegistryURL
	case notReceived(err):
		class = ErrRegistryUnavailable
	}
	e := &RegistryError{Op: op, What: what, Class: class, Err: err}
	if class == ErrRegistryAccess {
		e.Auth = auth
	}
	return e
}

// misdirected reports whether err is the failure of a request that asking
// again cannot mend, as a network failure may be: a redirect the client
// does not follow (*redirectError: a loop, past the bound of redirects, to
// a scheme other than http or https, a Location that does not parse), or a
// server that answers an https URL over plain HTTP. The registry URL leads
// to no registry. (A certificate that does not verify is left a network
// failure: a server's certificate is mended on the server, and the client
// then goes on by itself.)
func misdirected(err error) bool {
	var re *redirectError
	return errors.As(err, &re) || errors.Is(err, http.ErrSchemeMismatch)
}

// notReceived reports whether err is the failure of a request whose answer
// was not received: an error of the HTTP client (*url.Error: the
// connection, TLS, a timeout), of the connection while the answer was read
// (*readError), or a timeout.
func notReceived(err error) bool {
	var ue *url.Error
	var rd *readError
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &rd) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded)
}

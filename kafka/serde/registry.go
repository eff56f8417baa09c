package serde

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/safetext"
	"github.com/twmb/franz-go/pkg/sr"
)

// SchemaType is the type of a registered schema.
type SchemaType string

// The schema types this package reads and writes.
const (
	TypeAvro     SchemaType = "AVRO"
	TypeProtobuf SchemaType = "PROTOBUF"
)

// Reference is a schema reference: a .proto import name and the subject and
// version that hold the imported file.
type Reference struct {
	// Name is the import name, such as "acme/v1/common.proto".
	Name string
	// Subject and Version locate the referenced schema.
	Subject string
	Version int
}

// Schema is a schema as the registry holds it.
type Schema struct {
	// ID is the registry's schema ID (0 when not registered).
	ID int
	// Type is the schema type; empty means AVRO.
	Type SchemaType
	// Text is the schema: Avro JSON or .proto source.
	Text string
	// References are the schemas this one imports.
	References []Reference
}

// SubjectVersion is one version of a subject.
type SubjectVersion struct {
	// Version is the version number.
	Version int
	// Schema is the schema of that version.
	Schema Schema
}

// Registry is a client of a Confluent Schema Registry (franz-go's sr client)
// that caches schemas by ID: each ID is fetched once, and only successful
// answers are kept, so a registry that was down is asked again later and never
// yields a wrong schema. The cache holds up to 10,000 schemas; beyond, one not
// read lately is dropped and fetched again when next asked for. An ID the registry answers it does not know
// (ErrUnknownID) is answered so for RegistryOptions.UnknownIDTTL without
// asking again (at most 1024 such IDs are remembered); no other error is. It
// is safe for concurrent use.
type Registry struct {
	cl     *sr.Client
	byID   onceCache[int, Schema]
	misses missCache
	// refs caches referenced schemas by subject and version.
	refs onceCache[Reference, Schema]
	// auth describes the credentials sent, for RegistryError.Auth.
	auth string
}

// RegistryOptions configure a Registry.
type RegistryOptions struct {
	// HTTPClient is the HTTP client; nil means one with a 10 s timeout. The
	// Registry uses a copy whose transport bounds every answer
	// ([MaxRegistryResponse]) and which sends no credentials on a redirect
	// to another origin: a redirect is followed (as the client's
	// CheckRedirect decides, by default up to 10 times), but once it leads
	// to another scheme, host or port than the request's registry URL, no
	// hop from there on carries the Authorization header (basic auth or
	// bearer token).
	HTTPClient *http.Client
	// TLS, when set, is the TLS configuration of https registry URLs (CA
	// certificates, a client certificate). It needs HTTPClient's transport
	// to be nil or an *http.Transport.
	TLS *tls.Config
	// Username and Password, when set, are sent as basic authentication.
	// A registry URL may hold them too ("https://user:password@host", as
	// Confluent's basic.auth.credentials.source=URL): they are taken out of
	// the URL, sent the same way, and never appear in an error message.
	Username, Password string
	// BearerToken, when set, is sent as "Authorization: Bearer TOKEN"
	// instead of basic authentication.
	BearerToken string
	// UnknownIDTTL is how long an unknown schema ID is answered as unknown
	// without asking the registry again; 0 means DefaultUnknownIDTTL, a
	// negative value asks every time.
	UnknownIDTTL time.Duration
}

// NewRegistry returns a client of the registry at the given base URLs (tried
// in order).
func NewRegistry(opts RegistryOptions, urls ...string) (*Registry, error) {
	hc := http.Client{Timeout: defaultTimeout}
	if opts.HTTPClient != nil {
		hc = *opts.HTTPClient
	}
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if opts.TLS != nil {
		t, ok := rt.(*http.Transport)
		if !ok {
			return nil, fmt.Errorf("%w: RegistryOptions.TLS needs an *http.Transport, not %T", ErrRegistry, rt)
		}
		t = t.Clone()
		t.TLSClientConfig = opts.TLS.Clone()
		rt = t
	}
	hc.Transport = &limitedTransport{rt: rt}
	hc.CheckRedirect = credentialsStayHome(hc.CheckRedirect)

	user, password := opts.Username, opts.Password
	clean := make([]string, len(urls))
	for i, raw := range urls {
		u, ui, err := splitUserinfo(raw, i+1, len(urls))
		if err != nil {
			return nil, err
		}
		clean[i] = u
		if ui != nil && user == "" && opts.BearerToken == "" {
			user = ui.Username()
			password, _ = ui.Password()
		}
	}
	o := []sr.ClientOpt{sr.URLs(clean...), sr.HTTPClient(&hc), sr.UserAgent("protoavro-kafka")}
	auth := "no credentials"
	switch {
	case opts.BearerToken != "":
		o = append(o, sr.BearerToken(opts.BearerToken))
		auth = "a bearer token"
	case user != "":
		o = append(o, sr.BasicAuth(user, password))
		auth = "basic auth as user " + strconv.Quote(safetext.Escape(user, 128))
	}
	cl, err := sr.NewClient(o...)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrRegistry, safeText(err.Error()))
	}
	ttl := opts.UnknownIDTTL
	if ttl == 0 {
		ttl = DefaultUnknownIDTTL
	}
	return &Registry{cl: cl, auth: auth, misses: missCache{ttl: ttl, now: time.Now}}, nil
}

// maxRedirects is net/http's default bound on the redirects of a request.
const maxRedirects = 10

// credentialsStayHome returns the CheckRedirect of the registry client:
// next's decision (nil: at most maxRedirects redirects, as net/http's
// default), and the Authorization header dropped from a hop once the chain
// has left the origin (scheme, host and port) of its first request. Go's
// client drops it only for another host name, so that a redirect to
// another port or from https to http on the same host would carry the
// credentials.
func credentialsStayHome(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		home := origin(via[0].URL)
		left := origin(req.URL) != home
		for _, r := range via[1:] {
			left = left || origin(r.URL) != home
		}
		if left {
			req.Header.Del("Authorization")
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}
}

// origin returns the origin of u: its scheme, host name and port (the
// scheme's default port when u has none), in lower case.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// maxVersions bounds the versions of one subject the registry may list.
// Confluent's registry sets no bound of its own per subject; Confluent Cloud
// holds about 20,000 schema versions in a whole registry.
const maxVersions = 10_000

// errTooManyReferences refuses a schema that names more than maxReferences
// schemas, in its own references or with theirs.
func errTooManyReferences() error {
	return fmt.Errorf("%w: more than %d references", ErrBadSchema, maxReferences)
}

// fromSR converts a schema of the sr client. A schema that names more
// references than the walk of references would fetch is refused
// (ErrBadSchema) before it is copied or cached.
func fromSR(id int, s sr.Schema) (Schema, error) {
	if len(s.References) > maxReferences {
		return Schema{}, fmt.Errorf("%d references: %w", len(s.References), errTooManyReferences())
	}
	t := TypeAvro
	switch s.Type {
	case sr.TypeProtobuf:
		t = TypeProtobuf
	case sr.TypeJSON:
		t = "JSON"
	}
	out := Schema{ID: id, Type: t, Text: s.Schema}
	if len(s.References) > 0 {
		out.References = make([]Reference, len(s.References))
		for i, r := range s.References {
			out.References[i] = Reference{Name: r.Name, Subject: r.Subject, Version: r.Version}
		}
	}
	return out, nil
}

func toSR(s Schema) sr.Schema {
	out := sr.Schema{Schema: s.Text, Type: sr.TypeAvro}
	if s.Type == TypeProtobuf {
		out.Type = sr.TypeProtobuf
	}
	for _, r := range s.References {
		out.References = append(out.References, sr.SchemaReference{Name: r.Name, Subject: r.Subject, Version: r.Version})
	}
	return out
}

// SchemaByID returns the schema with the given ID, from the cache or, once,
// from the registry. An ID the registry did not know within the last
// UnknownIDTTL is ErrUnknownID without a request.
func (r *Registry) SchemaByID(ctx context.Context, id int) (Schema, error) {
	if s, ok := r.byID.peek(id); ok {
		return s, nil
	}
	if err, ok := r.misses.get(id); ok {
		return Schema{}, err
	}
	return r.byID.get(ctx, id, func() (Schema, error) {
		if err, ok := r.misses.get(id); ok { // a concurrent caller's answer
			return Schema{}, err
		}
		s, err := r.cl.SchemaByID(ctx, id)
		if err != nil {
			err = classify(ctx, "schema by ID", strconv.Itoa(id), r.auth, err)
			if errors.Is(err, ErrUnknownID) {
				r.misses.put(id, err)
			}
			return Schema{}, err
		}
		out, err := fromSR(id, s)
		if err != nil {
			return Schema{}, fmt.Errorf("schema %d: %w", id, err)
		}
		return out, nil
	})
}

// SchemaByVersion returns one version of a subject (-1: the latest).
// Versions other than the latest are cached. An answer whose ID is below 1
// or above MaxSchemaID is refused with an error wrapping ErrRegistry.
func (r *Registry) SchemaByVersion(ctx context.Context, subject string, version int) (Schema, error) {
	fetch := func() (Schema, error) {
		s, err := r.cl.SchemaByVersion(ctx, subject, version)
		if err != nil {
			return Schema{}, classify(ctx, "schema by version", fmt.Sprintf("%s/%d", subject, version), r.auth, err)
		}
		what := fmt.Sprintf("%s/%d", subject, version)
		if err := checkID("schema by version", what, s.ID); err != nil {
			return Schema{}, err
		}
		out, err := fromSR(s.ID, s.Schema)
		if err != nil {
			return Schema{}, fmt.Errorf("%s version %d: %w", safetext.Escape(subject, 256), version, err)
		}
		return out, nil
	}
	if version < 0 {
		return fetch()
	}
	return r.refs.get(ctx, Reference{Subject: subject, Version: version}, fetch)
}

// Versions returns every version of a subject, oldest first. A registry
// answer that lists more than 10,000 versions, a version twice or one below
// 1 is refused with an error wrapping ErrRegistry.
func (r *Registry) Versions(ctx context.Context, subject string) ([]SubjectVersion, error) {
	vs, err := r.versionNumbers(ctx, subject)
	if err != nil {
		return nil, err
	}
	out := make([]SubjectVersion, 0, len(vs))
	for _, v := range vs {
		s, err := r.SchemaByVersion(ctx, subject, v)
		if err != nil {
			return nil, err
		}
		out = append(out, SubjectVersion{Version: v, Schema: s})
	}
	return out, nil
}

// versionNumbers returns the version numbers of a subject, in increasing
// order, without fetching their schemas. A list of more than 10,000
// versions, or one that holds a version twice or one below 1, is no list of
// a subject's versions: it is refused with an error wrapping ErrRegistry.
func (r *Registry) versionNumbers(ctx context.Context, subject string) ([]int, error) {
	vs, err := r.cl.SubjectVersions(ctx, subject)
	if err != nil {
		return nil, classify(ctx, "versions of", subject, r.auth, err)
	}
	bad := func(format string, args ...any) error {
		return &RegistryError{Op: "versions of", What: subject, Class: ErrRegistry, Err: fmt.Errorf(format, args...)}
	}
	if len(vs) > maxVersions {
		return nil, bad("the answer lists %d versions, more than %d", len(vs), maxVersions)
	}
	slices.Sort(vs)
	for i, v := range vs {
		if v < 1 {
			return nil, bad("the answer lists version %d", v)
		}
		if i > 0 && v == vs[i-1] {
			return nil, bad("the answer lists version %d twice", v)
		}
	}
	return vs, nil
}

// MaxSchemaID is the largest schema ID: Confluent's registry numbers
// schemas with positive 32-bit signed integers (1 to 2,147,483,647), which
// the 4 bytes of the wire format's header hold.
const MaxSchemaID = math.MaxInt32

// checkID refuses a schema ID of a registry's answer that is no schema ID
// (below 1 or above MaxSchemaID), which a record's header cannot hold, with
// an error wrapping ErrRegistry (not retried).
func checkID(op, what string, id int) error {
	if id >= 1 && id <= MaxSchemaID {
		return nil
	}
	return &RegistryError{Op: op, What: what, Class: ErrRegistry,
		Err: fmt.Errorf("the answer gives schema ID %d, not one of 1 to %d", id, MaxSchemaID)}
}

// Register registers s under subject, or finds it there, and returns its ID
// and version. An ID in the answer below 1 or above MaxSchemaID is refused
// with an error wrapping ErrRegistry.
func (r *Registry) Register(ctx context.Context, subject string, s Schema) (id, version int, err error) {
	ss, err := r.cl.CreateSchema(ctx, subject, toSR(s))
	if err != nil {
		return 0, 0, classify(ctx, "register under", subject, r.auth, err)
	}
	if err := checkID("register under", subject, ss.ID); err != nil {
		return 0, 0, err
	}
	s.ID = ss.ID
	r.misses.forget(ss.ID)
	r.byID.get(ctx, ss.ID, func() (Schema, error) { return s, nil }) //nolint:errcheck // fills the cache
	return ss.ID, ss.Version, nil
}

// Lookup returns the ID and version of s under subject; an error wrapping
// ErrUnknownID or ErrUnknownSubject when it is not registered there, and
// one wrapping ErrRegistry when the answer's ID is below 1 or above
// MaxSchemaID.
func (r *Registry) Lookup(ctx context.Context, subject string, s Schema) (id, version int, err error) {
	ss, err := r.cl.LookupSchema(ctx, subject, toSR(s))
	if err != nil {
		return 0, 0, classify(ctx, "look up under", subject, r.auth, err)
	}
	if err := checkID("look up under", subject, ss.ID); err != nil {
		return 0, 0, err
	}
	return ss.ID, ss.Version, nil
}

// Compatibility returns the compatibility level of subject, or the global
// level when the subject has none.
func (r *Registry) Compatibility(ctx context.Context, subject string) (Level, error) {
	res := r.cl.Compatibility(sr.WithParams(ctx, sr.DefaultToGlobal), subject)
	if len(res) != 1 {
		return 0, fmt.Errorf("%w: compatibility of %s: %d answers", ErrRegistry, subject, len(res))
	}
	if res[0].Err != nil {
		return 0, classify(ctx, "compatibility of", subject, r.auth, res[0].Err)
	}
	return ParseLevel(res[0].Level.String())
}

// SetCompatibility sets the compatibility level of subject ("" for the
// global level).
func (r *Registry) SetCompatibility(ctx context.Context, subject string, l Level) error {
	var lvl sr.CompatibilityLevel
	if err := lvl.UnmarshalText([]byte(l.String())); err != nil {
		return fmt.Errorf("%w: level %v: %w", ErrRegistry, l, err)
	}
	subjects := []string{}
	if subject != "" {
		subjects = append(subjects, subject)
	}
	for _, res := range r.cl.SetCompatibility(ctx, sr.SetCompatibility{Level: lvl}, subjects...) {
		if res.Err != nil {
			return classify(ctx, "set compatibility of", subject, r.auth, res.Err)
		}
	}
	return nil
}

// references fetches the schemas refs name, and theirs, recursively, and
// calls visit once per name, each after the schemas it references
// (dependencies first, as an Avro parser needs them). It is bounded:
// maxReferences schemas, nested maxRefDepth deep.
func (r *Registry) references(ctx context.Context, refs []Reference, visit func(Reference, Schema)) error {
	seen := map[string]bool{}
	var walk func(refs []Reference, depth int) error
	walk = func(refs []Reference, depth int) error {
		if depth > maxRefDepth {
			return fmt.Errorf("%w: references nested deeper than %d", ErrBadSchema, maxRefDepth)
		}
		for _, ref := range refs {
			if seen[ref.Name] {
				continue
			}
			if len(seen) >= maxReferences {
				return errTooManyReferences()
			}
			seen[ref.Name] = true
			s, err := r.SchemaByVersion(ctx, ref.Subject, ref.Version)
			if err != nil {
				return fmt.Errorf("reference \"%s\": %w", safetext.Escape(ref.Name, 256), err)
			}
			if err := walk(s.References, depth+1); err != nil {
				return fmt.Errorf("reference \"%s\": %w", safetext.Escape(ref.Name, 256), err)
			}
			visit(ref, s)
		}
		return nil
	}
	return walk(refs, 0)
}

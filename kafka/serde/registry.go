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
	"sync"
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
// yields a wrong schema. The cache holds up to 10,000 schemas and 256 MiB of
// schema text; beyond, one not read lately is dropped and fetched again when
// next asked for. An ID the registry answers it does not know (ErrUnknownID)
// is answered so for RegistryOptions.UnknownIDTTL without asking again (at
// most 1024 such IDs are remembered); no other error is. An ID outside 1 to
// MaxSchemaID, which no registry holds, is ErrUnknownID without a request.
// Fetching a schema with the schemas its references name (as a Deserializer
// and a ProtoDecoder do) takes at most a minute in all, beyond the bound of
// each request; past it, the error wraps ErrRegistryUnavailable (the
// schemas fetched by then stay cached). It is safe for concurrent use.
type Registry struct {
	cl     *sr.Client
	byID   onceCache[int, Schema]
	misses missCache
	// refs caches referenced schemas by subject and version.
	refs onceCache[Reference, Schema]
	// auth describes the credentials sent, for RegistryError.Auth.
	auth string
	// fetchTimeout bounds the fetch of a schema with its references.
	fetchTimeout time.Duration
}

// fetchTimeout bounds the fetch of one schema with the schemas its
// references name, recursively (up to maxReferences of them, each a
// request bounded on its own): a registry that answers each request just
// within its bound cannot hold a record for maxReferences times that.
const fetchTimeout = time.Minute

// refFetchers bounds the requests for the references of one schema that are
// under way at once.
const refFetchers = 8

// RegistryOptions configure a Registry.
type RegistryOptions struct {
	// HTTPClient is the HTTP client; nil means one with a 10 s timeout.
	// The Registry uses a copy of it. The copy's Timeout, when the
	// client's is 0, is 10 s too, so that every request is bounded
	// whatever the client (set a longer Timeout to allow slower answers).
	// Its transport bounds every answer ([MaxRegistryResponse]), and it
	// sends no credentials on a redirect to another origin: a redirect is followed (as the client's
	// CheckRedirect decides, by default up to 10 times), but once it leads
	// to another scheme, host or port than the request's registry URL, no
	// hop from there on carries the Authorization header (basic auth or
	// bearer token). A redirect not followed (past the bound, to a scheme
	// other than http or https, refused by CheckRedirect) fails the
	// request with ErrRegistryURL.
	HTTPClient *http.Client
	// TLS, when set, is the TLS configuration of https registry URLs (CA
	// certificates, a client certificate). It needs HTTPClient's transport
	// to be nil or an *http.Transport.
	TLS *tls.Config
	// Username and Password, when set, are sent as basic authentication.
	// A registry URL may hold them too ("https://user:password@host", as
	// Confluent's basic.auth.credentials.source=URL): they are taken out of
	// the URL, sent the same way, and never appear in an error message.
	// The client sends one set of credentials to every URL, so URLs that
	// hold different credentials, or some credentials and some none, are
	// refused (ErrRegistryURL): give the same credentials in every URL, or
	// none there and these fields (or BearerToken). Username and Password
	// take precedence over the credentials of the URLs.
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
	if hc.Timeout <= 0 {
		hc.Timeout = defaultTimeout
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

	clean := make([]string, len(urls))
	infos := make([]*url.Userinfo, len(urls))
	for i, raw := range urls {
		u, ui, err := splitUserinfo(raw, i+1, len(urls))
		if err != nil {
			return nil, err
		}
		clean[i], infos[i] = u, ui
	}
	if err := sameCredentials(infos); err != nil {
		return nil, err
	}
	user, password := opts.Username, opts.Password
	if len(infos) > 0 && infos[0] != nil && user == "" && opts.BearerToken == "" {
		user = infos[0].Username()
		password, _ = infos[0].Password()
	}
	o := []sr.ClientOpt{sr.URLs(clean...), sr.HTTPClient(&hc), sr.UserAgent("protoavro-kafka")}
	auth := "no credentials"
	switch {
	case opts.BearerToken != "":
		o = append(o, sr.BearerToken(opts.BearerToken))
		auth = "a bearer token"
	case user != "":
		o = append(o, sr.BasicAuth(user, password))
		auth = describeBasicAuth(user, password)
	}
	cl, err := sr.NewClient(o...)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrRegistry, safeText(err.Error()))
	}
	ttl := opts.UnknownIDTTL
	if ttl == 0 {
		ttl = DefaultUnknownIDTTL
	}
	return &Registry{cl: cl, auth: auth, misses: missCache{ttl: ttl, now: time.Now}, fetchTimeout: fetchTimeout}, nil
}

// sameCredentials refuses registry URLs whose user information (infos, nil
// for none) differ, with an error wrapping ErrRegistryURL that names the
// URLs by their position and shows nothing of the credentials: the client
// sends one set of credentials to every URL, so that those of one URL
// would go to the registry of another.
func sameCredentials(infos []*url.Userinfo) error {
	for i := 1; i < len(infos); i++ {
		a, b := infos[0], infos[i]
		if a == nil && b == nil {
			continue
		}
		if a != nil && b != nil {
			pa, _ := a.Password()
			pb, _ := b.Password()
			if a.Username() == b.Username() && pa == pb {
				continue
			}
		}
		var what string
		switch {
		case a == nil:
			what = fmt.Sprintf("registry URL %d of %d holds credentials and URL 1 none", i+1, len(infos))
		case b == nil:
			what = fmt.Sprintf("registry URL 1 of %d holds credentials and URL %d none", len(infos), i+1)
		default:
			what = fmt.Sprintf("registry URLs 1 and %d of %d hold different credentials", i+1, len(infos))
		}
		return fmt.Errorf("%w: %s; the client sends one set of credentials to every URL: give the same credentials in every URL, or none in the URLs and the credentials apart (RegistryOptions.Username and Password, or BearerToken)", ErrRegistryURL, what)
	}
	return nil
}

// describeBasicAuth describes basic authentication as user with password,
// for RegistryError.Auth: it names the user only when there is a password,
// since a user name without one is often a token ("https://TOKEN@host").
func describeBasicAuth(user, password string) string {
	if password == "" {
		return "basic auth with a user name and no password"
	}
	return "basic auth as user " + strconv.Quote(safetext.Escape(user, 128))
}

// maxRedirects is net/http's default bound on the redirects of a request.
const maxRedirects = 10

// credentialsStayHome returns the CheckRedirect of the registry client:
// next's decision (nil: at most maxRedirects redirects, as net/http's
// default), and the Authorization header dropped from a hop once the chain
// has left the origin (scheme, host and port) of its first request. Go's
// client drops it only for another host name, so that a redirect to
// another port or from https to http on the same host would carry the
// credentials. A redirect to a URL whose scheme is not http or https is
// refused. Every refusal is a *redirectError (but next's
// http.ErrUseLastResponse, which net/http tests by identity).
func credentialsStayHome(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if s := strings.ToLower(req.URL.Scheme); s != "http" && s != "https" {
			return &redirectError{fmt.Errorf("redirected to a URL of scheme \"%s\", not http or https", safetext.Escape(req.URL.Scheme, 32))}
		}
		home := origin(via[0].URL)
		left := origin(req.URL) != home
		for _, r := range via[1:] {
			left = left || origin(r.URL) != home
		}
		if left {
			req.Header.Del("Authorization")
		}
		if next != nil {
			err := next(req, via)
			if err == nil || err == http.ErrUseLastResponse { //nolint:errorlint // net/http compares it so
				return err
			}
			return &redirectError{err}
		}
		if len(via) >= maxRedirects {
			return &redirectError{fmt.Errorf("stopped after %d redirects", maxRedirects)}
		}
		return nil
	}
}

// redirectError is a redirect of the registry's answer that the client does
// not follow: one past the bound of redirects (a loop), one to a URL that
// is not http or https, one the HTTP client's own CheckRedirect refuses, or
// one whose Location does not parse. Asking again gets the same answer:
// classify takes it as a wrong registry URL (ErrRegistryURL), not as a
// registry that is down.
type redirectError struct{ err error }

func (e *redirectError) Error() string { return e.err.Error() }
func (e *redirectError) Unwrap() error { return e.err }

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

// schemaSize is the size a cached schema counts for (maxCacheBytes): its
// text and the names of its references.
func schemaSize(s Schema) int64 {
	n := int64(len(s.Text))
	for _, r := range s.References {
		n += int64(len(r.Name) + len(r.Subject))
	}
	return n
}

// SchemaByID returns the schema with the given ID, from the cache or, once,
// from the registry. An ID the registry did not know within the last
// UnknownIDTTL is ErrUnknownID without a request, and so is an ID below 1
// or above MaxSchemaID, which no registry holds.
func (r *Registry) SchemaByID(ctx context.Context, id int) (Schema, error) {
	if s, ok := r.byID.peek(id); ok {
		return s, nil
	}
	if id < 1 || id > MaxSchemaID {
		return Schema{}, fmt.Errorf("%w: schema ID %d is not one of 1 to %d, which no registry holds (not asked)", ErrUnknownID, id, MaxSchemaID)
	}
	if err, ok := r.misses.get(id); ok {
		return Schema{}, err
	}
	return r.byID.getSized(ctx, id, func() (Schema, int64, error) {
		if err, ok := r.misses.get(id); ok { // a concurrent caller's answer
			return Schema{}, 0, err
		}
		s, err := r.cl.SchemaByID(ctx, id)
		if err != nil {
			err = classify(ctx, "schema by ID", strconv.Itoa(id), r.auth, err)
			if errors.Is(err, ErrUnknownID) {
				r.misses.put(id, err)
			}
			return Schema{}, 0, err
		}
		out, err := fromSR(id, s)
		if err != nil {
			return Schema{}, 0, fmt.Errorf("schema %d: %w", id, err)
		}
		return out, schemaSize(out), nil
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
	return r.refs.getSized(ctx, Reference{Subject: subject, Version: version}, func() (Schema, int64, error) {
		s, err := fetch()
		return s, schemaSize(s), err
	})
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
// and version: two requests (the registration, which answers with the ID
// only, and a lookup of the version under subject), however many subjects
// hold the same schema. An ID in the answer below 1 or above MaxSchemaID is
// refused with an error wrapping ErrRegistry.
func (r *Registry) Register(ctx context.Context, subject string, s Schema) (id, version int, err error) {
	id, err = r.cl.RegisterSchema(ctx, subject, toSR(s), -1, -1)
	if err != nil {
		return 0, 0, classify(ctx, "register under", subject, r.auth, err)
	}
	if err := checkID("register under", subject, id); err != nil {
		return 0, 0, err
	}
	s.ID = id
	r.misses.forget(id)
	r.byID.getSized(ctx, id, func() (Schema, int64, error) { return s, schemaSize(s), nil }) //nolint:errcheck // fills the cache
	ss, err := r.cl.LookupSchema(ctx, subject, toSR(s))
	if err != nil {
		return 0, 0, classify(ctx, "look up the version under", subject, r.auth, err)
	}
	if ss.ID != id {
		return 0, 0, &RegistryError{Op: "register under", What: subject, Class: ErrRegistry,
			Err: fmt.Errorf("the registration answers schema ID %d and the lookup %d", id, ss.ID)}
	}
	return id, ss.Version, nil
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
// maxReferences schemas, nested maxRefDepth deep. The references of one
// schema are fetched refFetchers at a time.
func (r *Registry) references(ctx context.Context, refs []Reference, visit func(Reference, Schema)) error {
	seen := map[string]bool{}
	var walk func(refs []Reference, depth int) error
	walk = func(refs []Reference, depth int) error {
		if depth > maxRefDepth {
			return fmt.Errorf("%w: references nested deeper than %d", ErrBadSchema, maxRefDepth)
		}
		got := r.prefetch(ctx, refs, seen)
		for _, ref := range refs {
			if seen[ref.Name] {
				continue
			}
			if len(seen) >= maxReferences {
				return errTooManyReferences()
			}
			seen[ref.Name] = true
			res, ok := got[Reference{Subject: ref.Subject, Version: ref.Version}]
			if !ok {
				res.s, res.err = r.SchemaByVersion(ctx, ref.Subject, ref.Version)
			}
			if res.err != nil {
				return fmt.Errorf("reference \"%s\": %w", safetext.Escape(ref.Name, 256), res.err)
			}
			if err := walk(res.s.References, depth+1); err != nil {
				return fmt.Errorf("reference \"%s\": %w", safetext.Escape(ref.Name, 256), err)
			}
			visit(ref, res.s)
		}
		return nil
	}
	return walk(refs, 0)
}

// fetched is the answer to the fetch of a referenced schema.
type fetched struct {
	s   Schema
	err error
}

// prefetch fetches the schemas of refs, when there are several, up to
// refFetchers at a time, and returns them (or the errors of their fetches)
// by subject and version (the Reference without its name). It fetches those
// the walk of references may reach next: not seen yet, no name twice, and
// no more than maxReferences would allow. The walk takes its answers from
// here, so that no schema is asked for twice, and visits them in its own
// order.
func (r *Registry) prefetch(ctx context.Context, refs []Reference, seen map[string]bool) map[Reference]fetched {
	var todo []Reference
	names := map[string]bool{}
	keys := map[Reference]bool{}
	for _, ref := range refs {
		if seen[ref.Name] || names[ref.Name] {
			continue
		}
		if len(seen)+len(names) >= maxReferences {
			break
		}
		names[ref.Name] = true
		k := Reference{Subject: ref.Subject, Version: ref.Version}
		if !keys[k] {
			keys[k] = true
			todo = append(todo, k)
		}
	}
	if len(todo) < 2 {
		return nil
	}
	got := make(map[Reference]fetched, len(todo))
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan Reference)
	for range min(refFetchers, len(todo)) {
		wg.Go(func() {
			for k := range next {
				s, err := r.SchemaByVersion(ctx, k.Subject, k.Version)
				mu.Lock()
				got[k] = fetched{s, err}
				mu.Unlock()
			}
		})
	}
	for _, k := range todo {
		next <- k
	}
	close(next)
	wg.Wait()
	return got
}

// schemaByID fetches schema id, which must be of type want (an AVRO schema
// may leave its type out), and the schemas its references name, calling
// visit once per name, each after the schemas it references; all under
// withReferences' deadline. It returns the schema and the size it counts
// for in a cache (schemaSize of it and of every referenced schema).
func (r *Registry) schemaByID(ctx context.Context, id uint32, want SchemaType, visit func(Reference, Schema)) (Schema, int64, error) {
	var s Schema
	size := int64(0)
	err := r.withReferences(ctx, "schema by ID", strconv.FormatUint(uint64(id), 10), func(ctx context.Context) error {
		var err error
		if s, err = r.SchemaByID(ctx, int(id)); err != nil {
			return err
		}
		if s.Type != want && (want != TypeAvro || s.Type != "") {
			return fmt.Errorf("%w: schema %d is %s, want %s", ErrWrongSchemaType, id, s.Type, want)
		}
		size = schemaSize(s)
		if err := r.references(ctx, s.References, func(ref Reference, rs Schema) {
			visit(ref, rs)
			size += schemaSize(rs)
		}); err != nil {
			return fmt.Errorf("schema %d: %w", id, err)
		}
		return nil
	})
	return s, size, err
}

// withReferences runs fetch, which fetches a schema (op and what name it,
// as a RegistryError does) with the schemas its references name, under a
// deadline of r.fetchTimeout overall. When the deadline (not the caller's
// context) ends it, the error is a *RegistryError wrapping
// ErrRegistryUnavailable: the registry answers too slowly, and asking again
// goes on from the schemas fetched, which stay cached.
func (r *Registry) withReferences(ctx context.Context, op, what string, fetch func(ctx context.Context) error) error {
	fctx, cancel := context.WithTimeoutCause(ctx, r.fetchTimeout, errFetchTimeout)
	defer cancel()
	err := fetch(fctx)
	if err == nil || ctx.Err() != nil || !errors.Is(context.Cause(fctx), errFetchTimeout) ||
		!errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, errFetchTimeout) {
		return err
	}
	// The error's text only: it is no longer the context's.
	return &RegistryError{Op: op, What: what, Class: ErrRegistryUnavailable,
		Err: fmt.Errorf("the schema and the schemas its references name were not all fetched within %v: %s", r.fetchTimeout, err)}
}

// errFetchTimeout is the cause of the end of a fetch's deadline.
var errFetchTimeout = errors.New("fetch deadline passed")

// Package realworld is the real-world corpus of the tests: message types of
// APIs that no one here wrote (googleapis, Kubernetes), vendored unchanged
// under third_party/ and loaded at run time with protoavro/protoload, and
// random messages of them that protojson writes as they are. A package of
// its own, so that the modules importing testutil need no compiler.
package realworld

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro/protoload"
)

// Type is a message type of the real-world corpus: APIs that no
// one here wrote, vendored unchanged under third_party/.
type Type struct {
	// Name is the message's full name.
	Name protoreflect.FullName
	// ImportPath is its import root, relative to the repository's root.
	ImportPath string
	// Protos are the .proto files to load, relative to ImportPath: the
	// message's, and those of the types its Any values pack.
	Protos []string
	// AnyType is the message that [Message] packs in the Any
	// values; empty when the type reaches no Any.
	AnyType protoreflect.FullName
}

// Types is the real-world corpus: Cloud Logging's LogEntry holding
// Cloud Audit's AuditLog in an Any, AuditLog, google.api.Service, and the
// Kubernetes Pod, Deployment and Service.
var Types = []Type{
	{"google.logging.v2.LogEntry", "third_party/googleapis", []string{"google/logging/v2/log_entry.proto", "google/cloud/audit/audit_log.proto"}, "google.cloud.audit.AuditLog"},
	{"google.cloud.audit.AuditLog", "third_party/googleapis", []string{"google/cloud/audit/audit_log.proto"}, "google.rpc.Status"},
	{"google.api.Service", "third_party/googleapis", []string{"google/api/service.proto"}, "google.api.Documentation"},
	{"k8s.io.api.core.v1.Pod", "third_party/kubernetes", []string{"k8s.io/api/core/v1/generated.proto"}, ""},
	{"k8s.io.api.apps.v1.Deployment", "third_party/kubernetes", []string{"k8s.io/api/apps/v1/generated.proto"}, ""},
	{"k8s.io.api.core.v1.Service", "third_party/kubernetes", []string{"k8s.io/api/core/v1/generated.proto"}, ""},
}

// Load loads the type's files from under root (the repository's root) with
// protoload, the commands' loader, and returns the message and the loaded
// types, whose Resolver knows the AnyType.
func (rt Type) Load(t testing.TB, root string) (protoreflect.MessageDescriptor, *protoload.Types) {
	t.Helper()
	ts, err := protoload.Load(context.Background(), protoload.Input{
		Protos:      rt.Protos,
		ImportPaths: []string{filepath.Join(root, rt.ImportPath)},
	})
	if err != nil {
		t.Fatalf("%s: %v", rt.Name, err)
	}
	md, err := ts.FindMessage(string(rt.Name))
	if err != nil {
		t.Fatalf("%s: %v", rt.Name, err)
	}
	return md, ts
}

// Each runs f for every type of the corpus, loaded from under root (the
// repository's root), each in a parallel subtest of t named after the type.
func Each(t *testing.T, root string, f func(t *testing.T, rt Type, md protoreflect.MessageDescriptor, types *protoload.Types)) {
	t.Helper()
	for _, rt := range Types {
		t.Run(string(rt.Name), func(t *testing.T) {
			t.Parallel()
			md, types := rt.Load(t, root)
			f(t, rt, md, types)
		})
	}
}

// Config is the configuration of the random messages under the default
// options or, when engine, under the engine preset, which keeps
// microseconds, as engines do: its messages have no finer Timestamps.
func Config(engine bool) testutil.Config {
	cfg := testutil.DefaultConfig
	if engine {
		cfg.Timestamps = testutil.Micros
	}
	return cfg
}

// RealWorldMessage returns random message i of md (a dynamicpb message) for
// the seed key, made such that protojson writes and reads it as it is: each
// google.protobuf.Any packs a message of anyType (random at the top, empty
// deeper, so that nesting ends) found in types, each google.protobuf.Value
// has a kind (a null one where RandMessage set none), and each FieldMask
// path is one protojson can name; a Value's number is finite and strings
// are valid UTF-8 (map entries whose are not are dropped). Timestamps are
// as cfg says.
func Message(t testing.TB, md protoreflect.MessageDescriptor, types *dynamicpb.Types, anyType protoreflect.FullName, key uint64, i int, cfg testutil.Config) proto.Message {
	t.Helper()
	m := testutil.RandMessage(md, true, key, i, cfg)
	fix := fixer{t: t, types: types, anyType: anyType, key: key, i: i, cfg: cfg}
	fix.message(m.ProtoReflect(), 0)
	return m
}

// fixer makes a random message one that protojson writes as it is.
type fixer struct {
	t       testing.TB
	types   *dynamicpb.Types
	anyType protoreflect.FullName
	key     uint64
	i       int
	cfg     testutil.Config
	packed  int // Any values filled so far, to vary their contents
}

func (f *fixer) message(m protoreflect.Message, depth int) {
	switch m.Descriptor().FullName() {
	case "google.protobuf.Any":
		f.any(m, depth)
		return
	case "google.protobuf.Value":
		md := m.Descriptor()
		if fd := md.Fields().ByName("number_value"); m.Has(fd) {
			// JSON has no NaN or infinity.
			if v := m.Get(fd).Float(); math.IsNaN(v) || math.IsInf(v, 0) {
				m.Set(fd, protoreflect.ValueOfFloat64(float64(f.i)))
			}
		}
		if m.WhichOneof(md.Oneofs().ByName("kind")) == nil {
			m.Set(md.Fields().ByName("null_value"), protoreflect.ValueOfEnum(0))
			return
		}
	case "google.protobuf.FieldMask":
		paths := m.Mutable(m.Descriptor().Fields().ByName("paths")).List()
		for j := range paths.Len() {
			paths.Set(j, protoreflect.ValueOfString("field_"+string(rune('a'+j%26))))
		}
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() == protoreflect.StringKind && !fd.IsList() && !fd.IsMap():
			// protojson writes valid UTF-8 only (proto2 strings may hold
			// any bytes).
			if !utf8.ValidString(v.String()) {
				m.Set(fd, protoreflect.ValueOfString(strings.ToValidUTF8(v.String(), "?")))
			}
		case fd.Kind() == protoreflect.StringKind && fd.IsList():
			for j := range v.List().Len() {
				if s := v.List().Get(j).String(); !utf8.ValidString(s) {
					v.List().Set(j, protoreflect.ValueOfString(strings.ToValidUTF8(s, "?")))
				}
			}
		case fd.IsMap() && (fd.MapKey().Kind() == protoreflect.StringKind || fd.MapValue().Kind() == protoreflect.StringKind):
			testutil.DeleteEntries(v.Map(), func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				return (fd.MapKey().Kind() == protoreflect.StringKind && !utf8.ValidString(k.String())) ||
					(fd.MapValue().Kind() == protoreflect.StringKind && !utf8.ValidString(mv.String()))
			})
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
					f.message(v.Message(), depth+1)
					return true
				})
			}
		case fd.IsList() && fd.Message() != nil:
			for j := range v.List().Len() {
				f.message(v.List().Get(j).Message(), depth+1)
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
				f.message(v.Message(), depth+1)
				return true
			})
		case fd.Message() != nil && !fd.IsList() && !fd.IsMap():
			f.message(v.Message(), depth+1)
		}
		return true
	})
}

// any packs a message of anyType in the Any m: a random one for the first
// Any met at depth below 3, else an empty one.
func (f *fixer) any(m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	if f.anyType == "" {
		f.t.Fatalf("%s reaches a google.protobuf.Any: give its Type an AnyType", m.Descriptor().FullName())
	}
	mt, err := f.types.FindMessageByName(f.anyType)
	if err != nil {
		f.t.Fatalf("Any type %s: %v", f.anyType, err)
	}
	inner := mt.New()
	if depth < 3 && f.packed == 0 {
		f.packed++
		inner = testutil.RandMessage(mt.Descriptor(), true, f.key^0x5eed, f.i, f.cfg).ProtoReflect()
		f.message(inner, depth+1)
	}
	f.packed++
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(inner.Interface())
	if err != nil {
		f.t.Fatal(err)
	}
	m.Set(fields.ByName("type_url"), protoreflect.ValueOfString("type.googleapis.com/"+string(f.anyType)))
	m.Set(fields.ByName("value"), protoreflect.ValueOfBytes(b))
}

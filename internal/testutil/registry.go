// Package testutil holds what the tests of protoavro/ and interop/ share:
// the registry of test message types, a deterministic random message
// generator (random and edge-value messages), the reference datums of
// testdata/reference/avro2147, and helpers that walk and compare messages.
//
// It works through protoreflect only and does not import package protoavro
// (whose tests are internal tests of that package and import this one).
package testutil

import (
	"path/filepath"
	"runtime"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/editionspb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testpb/legacypb"
	"github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/logspb"
	"github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/metricspb"
	"github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/tracepb"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Files are the generated test protos. Every message type they declare
// (Messages) has golden schemas and is covered by the round-trip, random
// message and interoperability tests.
var Files = []protoreflect.FileDescriptor{
	avro2147pb.File_avro2147_proto,
	kitchenpb.File_kitchen_kitchen_proto,
	legacypb.File_legacy_legacy_proto,
	editionspb.File_editions_editions_proto,
}

// Roots are message types of protos that are not the project's own (the
// OpenTelemetry protos vendored in third_party/opentelemetry-proto), covered like the
// messages of Files; the types they nest are covered through them.
var Roots = []protoreflect.MessageDescriptor{
	(*tracepb.TracesData)(nil).ProtoReflect().Descriptor(),
	(*metricspb.MetricsData)(nil).ProtoReflect().Descriptor(),
	(*logspb.LogsData)(nil).ProtoReflect().Descriptor(),
}

// Messages lists every message type of Files, nested types included, map
// entries excluded, in declaration order, and then Roots.
func Messages() []protoreflect.MessageDescriptor {
	var out []protoreflect.MessageDescriptor
	for _, fd := range Files {
		out = append(out, AllMessages(fd)...)
	}
	return append(out, Roots...)
}

// AllMessages lists every message of fd, nested ones included, except the
// synthetic map entry messages.
func AllMessages(fd protoreflect.FileDescriptor) []protoreflect.MessageDescriptor {
	var out []protoreflect.MessageDescriptor
	var walk func(ms protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			m := ms.Get(i)
			if m.IsMapEntry() {
				continue
			}
			out = append(out, m)
			walk(m.Messages())
		}
	}
	walk(fd.Messages())
	return out
}

// FindMessage returns the message of fd named name, nested ones included,
// or nil.
func FindMessage(fd protoreflect.FileDescriptor, name protoreflect.FullName) protoreflect.MessageDescriptor {
	for _, md := range AllMessages(fd) {
		if md.FullName() == name {
			return md
		}
	}
	return nil
}

// RepoPath returns the path of a file of the repository, given relative to
// its root (found from this source file's location).
func RepoPath(elem ...string) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testutil: no caller information")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	return filepath.Join(append([]string{root}, elem...)...)
}

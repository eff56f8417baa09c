package enginetest

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/realworld"
	"github.com/protoavro/protoavro/protoavro"
)

// reachesAny reports whether md reaches a google.protobuf.Any.
func reachesAny(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if md.FullName() == "google.protobuf.Any" {
		return true
	}
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	for i := range md.Fields().Len() {
		fd := md.Fields().Get(i)
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if fd.Message() != nil && reachesAny(fd.Message(), seen) {
			return true
		}
	}
	return false
}

// TestArrowReadsRealWorld: under the engine options, Arrow reads
// protoavro's container files of the real-world corpus (LogEntry holding
// AuditLog in Any, AuditLog, google.api.Service, the Kubernetes Pod,
// Deployment and Service, loaded at run time) with a row per message. For
// the types that reach no Any, the values it reads are what protojson
// says of the source messages; the comparer renders carried JSON with the
// generated types only, so for the others the rows are counted.
func TestArrowReadsRealWorld(t *testing.T) {
	for k, rt := range realworld.Types {
		t.Run(string(rt.Name), func(t *testing.T) {
			md, types := rt.Load(t, "..")
			opts := engineOptions()
			opts.AnyResolver = types.Resolver()
			opts.Cache = protoavro.NewCache()
			var msgs []proto.Message
			for i := range 40 {
				msgs = append(msgs, realworld.Message(t, md, types.Resolver(), rt.AnyType, testutil.SeedKey("arrow/"+string(rt.Name)), i, testutil.DefaultConfig))
			}
			checkRows(t, writeFile(t, md, msgs, opts, k), !reachesAny(md, map[protoreflect.FullName]bool{}))
		})
	}
}

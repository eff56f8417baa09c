package enginetest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
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
			f := &engineFile{md: md}
			for i := range 40 {
				m := realworld.Message(t, md, types.Resolver(), rt.AnyType, testutil.SeedKey("arrow/"+string(rt.Name)), i, testutil.DefaultConfig)
				sanitize(m.ProtoReflect())
				f.msgs = append(f.msgs, m)
			}
			var buf bytes.Buffer
			w, err := protoavro.NewContainerWriter(&buf, md, protoavro.ContainerOptions{
				Options: opts, Compression: compressions[k%len(compressions)], BlockSize: 4096,
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range f.msgs {
				if err := w.Write(m); err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f.data = buf.Bytes()
			s, err := opts.Schema(md)
			if err != nil {
				t.Fatal(err)
			}
			if f.avsc, err = s.JSON(); err != nil {
				t.Fatal(err)
			}
			compare := !reachesAny(md, map[protoreflect.FullName]bool{})
			st := stats{}
			var errs []string
			rows := arrowRead(t, f, 7, func(rec *array.Struct, first int) {
				if !compare {
					return
				}
				for i := range rec.Len() {
					if first+i >= len(f.msgs) {
						return
					}
					exp, err := protoJSON(f.msgs[first+i])
					if err != nil {
						errs = append(errs, fmt.Sprintf("message %d: protojson: %v", first+i, err))
						continue
					}
					c := &comparer{st: st}
					c.message(fmt.Sprintf("row %d", first+i), md, exp, rec, i, 0)
					errs = append(errs, c.errs...)
				}
			})
			if rows != int64(len(f.msgs)) {
				t.Errorf("Arrow read %d rows, want %d", rows, len(f.msgs))
			}
			for i, e := range errs {
				if i == 20 {
					t.Errorf("... %d more", len(errs)-20)
					break
				}
				t.Error(e)
			}
			if compare && st.total() == 0 {
				t.Errorf("no value compared")
			}
			t.Logf("%d rows; compared %s", rows, st)
		})
	}
}

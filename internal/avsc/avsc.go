// Package avsc writes the Avro schemas of every message of protobuf files,
// one .avsc file each, named by the message's full name: what "protoavro
// schema --out-dir" and the protoc-gen-avro plugin produce.
package avsc

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/protoavro"
)

// File is one schema file.
type File struct {
	// Name is the message's full name and ".avsc".
	Name string
	// Message is the message the schema is of.
	Message protoreflect.MessageDescriptor
	// Schema is the derived schema.
	Schema *protoavro.Schema
}

// Messages returns every message of the files, nested ones included, map
// entries excluded, in declaration order, each once.
func Messages(files []protoreflect.FileDescriptor) []protoreflect.MessageDescriptor {
	var out []protoreflect.MessageDescriptor
	seen := map[protoreflect.FullName]bool{}
	var walk func(ms protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			m := ms.Get(i)
			if m.IsMapEntry() || m.IsPlaceholder() || seen[m.FullName()] {
				continue
			}
			seen[m.FullName()] = true
			out = append(out, m)
			walk(m.Messages())
		}
	}
	for _, f := range files {
		walk(f.Messages())
	}
	return out
}

// Schemas derives the schema of every message of mds with opts.
func Schemas(mds []protoreflect.MessageDescriptor, opts protoavro.Options) ([]File, error) {
	out := make([]File, 0, len(mds))
	total := 0
	for _, md := range mds {
		s, err := opts.Schema(md)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", md.FullName(), err)
		}
		// Each schema is within opts.Limits, but every message of a
		// cycle of n messages holds all n: bound them together too.
		if total += len(s.Canonical()); total > MaxTotal {
			return nil, fmt.Errorf("%s: %w: the schemas of the %d messages so far take more than %d bytes together (in canonical form)",
				md.FullName(), protoavro.ErrSchemaLimit, len(out)+1, MaxTotal)
		}
		out = append(out, File{Name: string(md.FullName()) + ".avsc", Message: md, Schema: s})
	}
	return out, nil
}

// MaxTotal bounds the schemas Schemas returns together: the sum of the
// sizes of their canonical forms.
const MaxTotal = 16 << 20

// CaseCollision refuses messages whose files' names differ only in case
// (acme.Foo.avsc and acme.FOO.avsc), which would overwrite each other in an
// output directory on a case-insensitive file system (macOS, Windows). Full
// names are ASCII identifiers, so ASCII case folding finds them all.
func CaseCollision(mds []protoreflect.MessageDescriptor) error {
	byFolded := make(map[string][]string, len(mds))
	var collide []string // the folded names of several files, in order
	for _, md := range mds {
		name := string(md.FullName()) + ".avsc"
		folded := strings.ToLower(name)
		if len(byFolded[folded]) == 1 {
			collide = append(collide, folded)
		}
		byFolded[folded] = append(byFolded[folded], name)
	}
	if len(collide) == 0 {
		return nil
	}
	names := byFolded[collide[0]]
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = safetext.Quote(n, 200)
	}
	more := ""
	if len(collide) > 1 {
		more = fmt.Sprintf(" (and %d more such sets)", len(collide)-1)
	}
	return fmt.Errorf("files %s differ only in case%s: they would overwrite each other on a case-insensitive file system (macOS, Windows)",
		strings.Join(quoted, ", "), more)
}

// Package avsc writes the Avro schemas of every message of protobuf files,
// one .avsc file each, named by the message's full name: what "protoavro
// schema --out-dir" and the protoc-gen-avro plugin produce.
package avsc

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

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

// ParseParameter parses a protoc plugin parameter, comma-separated
// key=value pairs (--avro_opt=profile=java,timestamps=millis), into mapping
// options with [protoavro.ParseOptions], which accepts every mapping option
// the library has. The keys in own are the caller's own settings: they are
// returned apart instead of passed on.
func ParseParameter(param string, own ...string) (protoavro.Options, map[string]string, error) {
	mine := map[string]string{}
	var mapping []string
	for kv := range strings.SplitSeq(param, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		isOwn := false
		for _, o := range own {
			if k == o {
				mine[k], isOwn = v, true
			}
		}
		if !isOwn {
			mapping = append(mapping, kv)
		}
	}
	opts, err := protoavro.ParseOptions(strings.Join(mapping, " "))
	return opts, mine, err
}

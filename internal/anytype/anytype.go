// Package anytype finds the google.protobuf.Any value whose type a resolver
// does not know, in a message or in its protojson text, and names its
// field path: protojson's own error names neither the field nor, for a
// message it writes, where the value is. The library (protoavro) and the
// protoavro command use it to report such a value as an unknown type, not
// as malformed input.
package anytype

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Resolver finds message types by type URL; protoregistry.Types and
// dynamicpb.Types are ones.
type Resolver interface {
	FindMessageByURL(url string) (protoreflect.MessageType, error)
}

// maxDepth bounds the walk, as protobuf's own recursion limit does.
const maxDepth = 100

// anyName is google.protobuf.Any's full name.
const anyName = "google.protobuf.Any"

// Unknown is an Any value whose type URL a resolver does not know.
type Unknown struct {
	// Path is the field path of the Any from the message walked, in
	// field names ("payload", "entries[2].detail", "labels[k]"); empty
	// when the message itself is the Any.
	Path string
	// URL is the Any's type URL.
	URL string
}

// Describe says what is unknown and where: `"URL"`, or `"URL" at PATH`.
func (u Unknown) Describe() string {
	if u.Path == "" {
		return strconv.Quote(u.URL)
	}
	return strconv.Quote(u.URL) + " at " + u.Path
}

// InMessage returns the first Any in m (in field order, depth first, the
// messages packed in Any values whose type r knows included) whose type URL
// r does not know. A nil r is protoregistry.GlobalTypes.
func InMessage(m protoreflect.Message, r Resolver) (Unknown, bool) {
	if r == nil {
		r = protoregistry.GlobalTypes
	}
	w := walker{r: r}
	w.message(m, "", 0)
	return w.found, w.ok
}

type walker struct {
	r     Resolver
	found Unknown
	ok    bool
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func (w *walker) message(m protoreflect.Message, path string, depth int) {
	if w.ok || depth > maxDepth {
		return
	}
	md := m.Descriptor()
	if md.FullName() == anyName {
		w.any(m, path, depth)
		return
	}
	fields := md.Fields()
	for i := 0; i < fields.Len() && !w.ok; i++ {
		fd := fields.Get(i)
		if !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		p := join(path, string(fd.Name()))
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for j := 0; j < l.Len() && !w.ok; j++ {
				w.message(l.Get(j).Message(), p+"["+strconv.Itoa(j)+"]", depth+1)
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
				w.message(v.Message(), p+"["+k.String()+"]", depth+1)
				return !w.ok
			})
		case fd.Message() != nil && !fd.IsList() && !fd.IsMap():
			w.message(v.Message(), p, depth+1)
		}
	}
}

// any checks the Any m and walks the message it packs.
func (w *walker) any(m protoreflect.Message, path string, depth int) {
	fields := m.Descriptor().Fields()
	urlField, valueField := fields.ByNumber(1), fields.ByNumber(2)
	if urlField == nil || valueField == nil {
		return
	}
	url := m.Get(urlField).String()
	mt, err := w.r.FindMessageByURL(url)
	if err != nil {
		w.found, w.ok = Unknown{Path: path, URL: url}, true
		return
	}
	packed := mt.New()
	defer func() {
		// protobuf-go's dynamicpb may panic on hostile map entries; such
		// bytes are the caller's to report.
		_ = recover()
	}()
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(m.Get(valueField).Bytes(), packed.Interface()); err != nil {
		return // not this walk's business: the caller reports the bytes
	}
	w.message(packed, path, depth+1)
}

// InJSON returns the first object in the JSON text (protojson's form of a
// message) with an "@type" member whose type URL r does not know, and its
// path in JSON member names ("protoPayload", "entries[2].detail"). A nil r
// is protoregistry.GlobalTypes. Text that is not JSON finds nothing.
func InJSON(text []byte, r Resolver) (Unknown, bool) {
	if r == nil {
		r = protoregistry.GlobalTypes
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Unknown{}, false
	}
	return inValue(v, "", r, 0)
}

func inValue(v any, path string, r Resolver, depth int) (Unknown, bool) {
	if depth > maxDepth {
		return Unknown{}, false
	}
	switch v := v.(type) {
	case map[string]any:
		if t, ok := v["@type"].(string); ok {
			if _, err := r.FindMessageByURL(t); err != nil {
				return Unknown{Path: path, URL: t}, true
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if k == "@type" {
				continue
			}
			if u, ok := inValue(v[k], join(path, k), r, depth+1); ok {
				return u, true
			}
		}
	case []any:
		for i, e := range v {
			if u, ok := inValue(e, path+"["+strconv.Itoa(i)+"]", r, depth+1); ok {
				return u, true
			}
		}
	}
	return Unknown{}, false
}

// Package enginetest shows that an engine reads protoavro's container files:
// Apache Arrow Go's Avro reader (github.com/apache/arrow-go/v18/arrow/avro)
// stands in for the engines that cannot run here (BigQuery, Spark). It is a
// module of its own, so that Arrow stays out of the library's go.mod.
package enginetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/avro"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro"
)

// engineOptions are the mapping options under test: the engine-ready preset.
func engineOptions() protoavro.Options { return protoavro.EngineReady() }

// corpus sizes the messages of each type: edge-value messages, a message
// per oneof member, and random ones (testutil.Corpus).
var corpus = testutil.CorpusConfig{Edges: 3, Random: 40}

// recursiveNames returns the named types of the schema JSON avsc that are
// referenced inside their own definition (directly or through other types),
// following Avro's name resolution (full names, "namespace", the enclosing
// namespace). A schema is finite, as engines need, when there are none.
func recursiveNames(avsc []byte) ([]string, error) {
	var root any
	if err := json.Unmarshal(avsc, &root); err != nil {
		return nil, err
	}
	open := map[string]bool{} // named types whose definition is being walked
	var out []string
	fullName := func(name, ns string) string {
		if strings.Contains(name, ".") || ns == "" {
			return name
		}
		return ns + "." + name
	}
	var walk func(v any, ns string)
	walk = func(v any, ns string) {
		switch t := v.(type) {
		case string: // a primitive or a reference
			if n := fullName(t, ns); open[n] {
				out = append(out, n)
			}
		case []any: // a union
			for _, b := range t {
				walk(b, ns)
			}
		case map[string]any:
			typ, _ := t["type"].(string)
			switch typ {
			case "record", "error", "enum", "fixed":
				name, _ := t["name"].(string)
				if s, ok := t["namespace"].(string); ok && !strings.Contains(name, ".") {
					ns = s
				}
				full := fullName(name, ns)
				if i := strings.LastIndex(full, "."); i >= 0 {
					ns = full[:i]
				} else {
					ns = ""
				}
				open[full] = true
				defer delete(open, full)
				if fields, ok := t["fields"].([]any); ok {
					for _, f := range fields {
						if fm, ok := f.(map[string]any); ok {
							walk(fm["type"], ns)
						}
					}
				}
			case "array":
				walk(t["items"], ns)
			case "map":
				walk(t["values"], ns)
			default: // a primitive with attributes, or a nested type
				if typ == "" {
					walk(t["type"], ns)
				}
			}
		}
	}
	walk(root, "")
	return out, nil
}

// TestRecursionCheck checks recursiveNames itself on schemas written by
// hand.
func TestRecursionCheck(t *testing.T) {
	for _, c := range []struct {
		avsc string
		want string
	}{
		{`{"type":"record","name":"a.R","fields":[{"name":"x","type":"int"}]}`, ""},
		{`{"type":"record","name":"a.R","fields":[{"name":"x","type":["null","a.R"]}]}`, "a.R"},
		{`{"type":"record","name":"R","namespace":"a","fields":[{"name":"x","type":{"type":"array","items":"R"}}]}`, "a.R"},
		{`{"type":"record","name":"a.R","fields":[{"name":"s","type":{"type":"record","name":"S","fields":[{"name":"r","type":{"type":"map","values":"R"}}]}}]}`, "a.R"},
		// A type used twice, not inside itself, is not recursion.
		{`{"type":"record","name":"a.R","fields":[{"name":"p","type":{"type":"record","name":"P","fields":[]}},{"name":"q","type":"P"}]}`, ""},
		// Another namespace's R is another type.
		{`{"type":"record","name":"a.R","fields":[{"name":"s","type":{"type":"record","name":"b.S","fields":[{"name":"r","type":["null","R"]}]}}]}`, ""},
	} {
		got, err := recursiveNames([]byte(c.avsc))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("%s: recursive %v, want %q", c.avsc, got, c.want)
		}
	}
}

// TestFooRecursion: the default (reference) mapping of the quick start's
// Foo is recursive, which engines refuse (Arrow hangs on it, so it is not
// given to Arrow here); the engine options' is not.
func TestFooRecursion(t *testing.T) {
	md := (&avro2147pb.Foo{}).ProtoReflect().Descriptor()
	for _, c := range []struct {
		name      string
		opts      protoavro.Options
		recursive bool
	}{
		{"default", protoavro.Options{}, true},
		{"engine", engineOptions(), false},
	} {
		names, err := recursiveNames(schemaJSON(t, md, c.opts))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(names) > 0; got != c.recursive {
			t.Errorf("%s mapping of Foo: recursive types %v, want recursive=%v", c.name, names, c.recursive)
		}
	}
}

// sanitize replaces, in place, the values protojson cannot render, so that
// protojson can judge every message: a non-finite number in a
// google.protobuf.Value (JSON has no NaN) or a Value with no kind, an Any whose type cannot be
// resolved, and invalid UTF-8 in proto2 strings.
func sanitize(m protoreflect.Message) {
	md := m.Descriptor()
	switch md.FullName() {
	case "google.protobuf.Value":
		if fd := md.Fields().ByName("number_value"); m.Has(fd) {
			if f := m.Get(fd).Float(); f != f || f > 1e308 || f < -1e308 {
				m.Set(fd, protoreflect.ValueOfFloat64(float64(len(md.FullName()))))
			}
		}
		if m.WhichOneof(md.Oneofs().ByName("kind")) == nil { // JSON has no Value without a kind
			m.Set(md.Fields().ByName("null_value"), protoreflect.ValueOfEnum(0))
		}
	case "google.protobuf.FieldMask": // protojson needs lower_snake_case paths
		l := m.Mutable(md.Fields().ByName("paths")).List()
		for i := range l.Len() {
			l.Set(i, protoreflect.ValueOfString(fmt.Sprintf("path_%c", 'a'+i%26)))
		}
		return
	case "google.protobuf.Any":
		if m.Get(md.Fields().ByName("type_url")).String() != "" || len(m.Get(md.Fields().ByName("value")).Bytes()) != 0 {
			secs := int64(len(m.Get(md.Fields().ByName("value")).Bytes()))
			a, _ := anypb.New(durationpb.New(time.Duration(secs) * time.Second))
			m.Set(md.Fields().ByName("type_url"), protoreflect.ValueOfString(a.TypeUrl))
			m.Set(md.Fields().ByName("value"), protoreflect.ValueOfBytes(a.Value))
		}
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() == protoreflect.StringKind && !fd.IsList() && !fd.IsMap():
			if s := v.String(); !utf8.ValidString(s) {
				m.Set(fd, protoreflect.ValueOfString(strings.ToValidUTF8(s, "?")))
			}
		case fd.Kind() == protoreflect.StringKind && fd.IsList():
			l := v.List()
			for i := range l.Len() {
				if s := l.Get(i).String(); !utf8.ValidString(s) {
					l.Set(i, protoreflect.ValueOfString(strings.ToValidUTF8(s, "?")))
				}
			}
		case fd.IsMap() && (fd.MapKey().Kind() == protoreflect.StringKind || fd.MapValue().Kind() == protoreflect.StringKind):
			testutil.DeleteEntries(v.Map(), func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				return (fd.MapKey().Kind() == protoreflect.StringKind && !utf8.ValidString(k.String())) ||
					(fd.MapValue().Kind() == protoreflect.StringKind && !utf8.ValidString(mv.String()))
			})
		}
		testutil.ForEachMessage(fd, v, sanitize)
		return true
	})
}

// engineFile is a container file of one message type and its messages.
type engineFile struct {
	md   protoreflect.MessageDescriptor
	msgs []proto.Message
	data []byte
	avsc []byte
}

var compressions = []protoavro.Compression{protoavro.CompressionNull, protoavro.CompressionDeflate, protoavro.CompressionSnappy, protoavro.CompressionZstd}

// writeFile sanitizes msgs, messages of md, and writes them in a container
// file under opts, in small blocks, with the k-th block codec.
func writeFile(t *testing.T, md protoreflect.MessageDescriptor, msgs []proto.Message, opts protoavro.Options, k int) *engineFile {
	t.Helper()
	for _, m := range msgs {
		sanitize(m.ProtoReflect())
	}
	var buf bytes.Buffer
	w, err := protoavro.NewContainerWriter(&buf, md, protoavro.ContainerOptions{
		Options: opts, Compression: compressions[k%len(compressions)], BlockSize: 4096,
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range msgs {
		if err := w.Write(m); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &engineFile{md: md, msgs: msgs, data: buf.Bytes(), avsc: schemaJSON(t, md, opts)}
}

// schemaJSON returns the JSON of the schema of md under opts.
func schemaJSON(t *testing.T, md protoreflect.MessageDescriptor, opts protoavro.Options) []byte {
	t.Helper()
	s, err := opts.Schema(md)
	if err != nil {
		t.Fatal(err)
	}
	j, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// readTimeout bounds a read by Arrow: its reader hangs on some schemas
// (recursive ones), which must fail the test rather than hang it.
const readTimeout = 2 * time.Minute

// arrowRead reads f with Arrow's OCF reader in batches of chunk rows and
// calls fn for each batch with the index of its first row. It fails the
// test if Arrow fails or takes longer than readTimeout.
func arrowRead(t *testing.T, f *engineFile, chunk int, fn func(rec *array.Struct, first int)) (rows int64) {
	t.Helper()
	rows, err := arrowTry(t, f, chunk, fn)
	if err != nil {
		t.Fatalf("Arrow reading %s: %v\nschema: %s", f.md.FullName(), err, f.avsc)
	}
	return rows
}

// arrowTry is arrowRead that returns Arrow's error.
func arrowTry(t *testing.T, f *engineFile, chunk int, fn func(rec *array.Struct, first int)) (rows int64, err error) {
	t.Helper()
	type result struct {
		rows int64
		err  error
	}
	done := make(chan result, 1)
	go func() {
		var res result
		defer func() {
			if p := recover(); p != nil {
				res.err = fmt.Errorf("Arrow panics: %v", p)
			}
			done <- res
		}()
		r, err := avro.NewOCFReader(bytes.NewReader(f.data), avro.WithChunk(chunk))
		if err != nil {
			res.err = fmt.Errorf("NewOCFReader: %w", err)
			return
		}
		defer r.Close()
		for r.Next() {
			rec := r.RecordBatch()
			fn(array.RecordToStructArray(rec), int(res.rows))
			res.rows += rec.NumRows()
		}
		if err := r.Err(); err != nil {
			res.err = fmt.Errorf("after %d rows: %w", res.rows, err)
		}
	}()
	select {
	case res := <-done:
		return res.rows, res.err
	case <-time.After(readTimeout):
		t.Fatalf("Arrow reading %s: no result after %v", f.md.FullName(), readTimeout)
		return 0, nil
	}
}

// TestArrowReadsContainerFiles: under the engine options, Arrow reads
// protoavro's container files of every test message and of the OTLP
// traces, metrics and logs messages into record batches with a row per
// message, and the values it reads are what protojson says of the source
// messages.
func TestArrowReadsContainerFiles(t *testing.T) {
	opts := engineOptions()
	for k, md := range testutil.Messages() {
		t.Run(string(md.FullName()), func(t *testing.T) {
			f := writeFile(t, md, testutil.Corpus(md, corpus, testutil.Precision(opts.Timestamps), "engine"), opts, k)
			names, err := recursiveNames(f.avsc)
			if err != nil {
				t.Fatal(err)
			}
			if len(names) > 0 {
				t.Fatalf("the schema is recursive (%v): engines cannot load it, and Arrow is not given it", names)
			}
			checkRows(t, f, true)
		})
	}
}

// checkRows reads f with Arrow and fails t unless it reads a row per
// message. With compare, the values of each row must be what protojson says
// of its message, and at least one value must be compared.
func checkRows(t *testing.T, f *engineFile, compare bool) {
	t.Helper()
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
			c.message(fmt.Sprintf("row %d", first+i), f.md, exp, rec, i, 0)
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
}

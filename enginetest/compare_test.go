package enginetest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/protoavro/protoavro/internal/jsonfloat"
	"github.com/protoavro/protoavro/internal/testutil"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The comparison of what Arrow read with what protojson says of the source
// message. Expected values come from protojson (proto field names, which
// are also the Avro field names); each Arrow value is rendered in the same
// terms (an int64 as its decimal text, bytes as base64, an enum as its
// symbol, a Timestamp as an instant) and the two must be equal. A field that
// protojson omits must read as null or as its zero value.

// stats counts the values compared, by kind.
type stats map[string]int

func (s stats) total() int {
	n := 0
	for _, v := range s {
		n += v
	}
	return n
}

func (s stats) String() string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sortStrings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s=%d", k, s[k])
	}
	return b.String()
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// maxElems bounds the elements of a list or map compared one by one; the
// lengths are always compared.
const maxElems = 4

// maxDepth bounds the depth of nested messages compared.
const maxDepth = 12

// comparer compares one row.
type comparer struct {
	st   stats
	errs []string
}

func (c *comparer) fail(path, format string, args ...any) {
	if len(c.errs) < 20 {
		c.errs = append(c.errs, path+": "+fmt.Sprintf(format, args...))
	}
}

// protoJSONValue returns protojson's rendering of m with proto field
// names, decoded with numbers kept as text.
func protoJSONValue(m proto.Message) (any, error) {
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		return nil, err
	}
	return testutil.DecodeJSON(b)
}

// protoJSON is protoJSONValue of a message whose JSON form is an object
// (any but the well-known types with a JSON form of their own).
func protoJSON(m proto.Message) (map[string]any, error) {
	v, err := protoJSONValue(m)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("protojson wrote %v, not an object", v)
	}
	return obj, nil
}

// jsonKey returns the key protojson (UseProtoNames) gives fd.
func jsonKey(fd protoreflect.FieldDescriptor) string { return fd.TextName() }

// message compares the record of md at row i of the struct array arr with
// exp, protojson's object for it.
func (c *comparer) message(path string, md protoreflect.MessageDescriptor, exp map[string]any, arr *array.Struct, i, depth int) {
	st := arr.DataType().(*arrow.StructType)
	fields := md.Fields()
	for k := range fields.Len() {
		fd := fields.Get(k)
		idx, ok := st.FieldIdx(string(fd.Name()))
		if !ok {
			c.fail(path, "no Arrow column %s", fd.Name())
			continue
		}
		v, set := exp[jsonKey(fd)]
		if _, union := st.Field(idx).Metadata.GetValue("typeName"); union {
			c.unionRecord(path+"."+string(fd.Name()), v, set, arr.Field(idx), i)
			continue
		}
		c.field(path+"."+string(fd.Name()), fd, v, set, arr.Field(idx), i, depth)
	}
}

// unionRecord checks a record inside a ["null", record] union, whose fields
// Arrow v18.8.0 does not read: its schema converter gives such a struct the
// metadata typeName (arrow/avro/schema.go, iterateFields) and its loader
// then looks each child up under field → typeName → child
// (reader_types.go, buildNamePath), as if the decoder wrapped union values
// in a map keyed by type name; twmb/avro, which it decodes with, does not,
// so every child reads as null. The record's presence is read right and is
// checked; that its fields read as null is asserted, so that this test
// fails, and is revised, once Arrow reads them.
func (c *comparer) unionRecord(path string, v any, set bool, arr arrow.Array, i int) {
	c.st["union-record"]++
	s, ok := arr.(*array.Struct)
	switch {
	case !ok:
		c.fail(path, "a record read as %s", arr.DataType())
	case !set || v == nil:
		if !arr.IsNull(i) {
			c.fail(path, "not set in the message, but Arrow has %s", arr.ValueStr(i))
		}
	case arr.IsNull(i):
		c.fail(path, "null, want %v", v)
	default:
		for k := range s.NumField() {
			if !s.Field(k).IsNull(i) {
				c.fail(path, "Arrow now reads the fields of a record in a union (%s = %s): compare them (remove comparer.unionRecord)",
					s.DataType().(*arrow.StructType).Field(k).Name, s.Field(k).ValueStr(i))
				return
			}
		}
	}
}

// field compares the value of fd at row i of arr with protojson's value v
// (set is false when protojson omits the field).
func (c *comparer) field(path string, fd protoreflect.FieldDescriptor, v any, set bool, arr arrow.Array, i, depth int) {
	if depth > maxDepth {
		return
	}
	switch {
	case fd.IsMap():
		m, _ := v.(map[string]any)
		c.mapValue(path, fd, m, arr, i, depth)
	case fd.IsList():
		l, _ := v.([]any)
		c.list(path, fd, l, arr, i, depth)
	case !set:
		c.absent(path, fd, arr, i)
	default:
		c.single(path, fd, v, arr, i, depth)
	}
}

// absent checks a field protojson omits: null, or its zero value.
func (c *comparer) absent(path string, fd protoreflect.FieldDescriptor, arr arrow.Array, i int) {
	c.st["absent"]++
	if arr.IsNull(i) {
		return
	}
	if fd.Message() != nil {
		c.fail(path, "not set in the message, but Arrow has %s", arr.ValueStr(i))
		return
	}
	// An implicit-presence field at its zero value, or a proto2 field
	// whose default the mapping writes.
	zero := fd.Default()
	if fd.Kind() == protoreflect.EnumKind {
		c.enum(path, fd, protoreflect.Value(zero), nil, arr, i)
		return
	}
	c.scalarValue(path, fd, zero, arr, i)
}

// list compares a repeated field.
func (c *comparer) list(path string, fd protoreflect.FieldDescriptor, exp []any, arr arrow.Array, i, depth int) {
	c.st["repeated"]++
	l, ok := arr.(*array.List)
	if !ok {
		c.fail(path, "repeated field read as %s", arr.DataType())
		return
	}
	start, _, ok := c.rowItems(path, l, i, len(exp), "elements")
	if !ok {
		return
	}
	for k := range min(len(exp), maxElems) {
		c.single(fmt.Sprintf("%s[%d]", path, k), fd, exp[k], l.ListValues(), start+k, depth)
	}
}

// rowItems returns the range of the items of row i of arr, a list or map
// array, which must hold n items (named what, for the message); a null row
// holds none. When the row is null or holds another number of items, it
// reports that if it matters and returns ok false: nothing to compare.
func (c *comparer) rowItems(path string, arr interface {
	IsNull(int) bool
	ValueOffsets(int) (int64, int64)
}, i, n int, what string) (start, end int, ok bool) {
	if arr.IsNull(i) {
		if n != 0 {
			c.fail(path, "null, want %d %s", n, what)
		}
		return 0, 0, false
	}
	s, e := arr.ValueOffsets(i)
	if int(e-s) != n {
		c.fail(path, "%d %s, want %d", e-s, what, n)
		return 0, 0, false
	}
	return int(s), int(e), true
}

// mapValue compares a map field (string or text keys).
func (c *comparer) mapValue(path string, fd protoreflect.FieldDescriptor, exp map[string]any, arr arrow.Array, i, depth int) {
	c.st["map"]++
	m, ok := arr.(*array.Map)
	if !ok {
		c.entries(path, fd, exp, arr, i, depth)
		return
	}
	start, end, ok := c.rowItems(path, m, i, len(exp), "entries")
	if !ok {
		return
	}
	keys, ok := m.Keys().(*array.String)
	if !ok {
		c.fail(path, "map keys read as %s", m.Keys().DataType())
		return
	}
	n := 0
	for k := start; k < end && n < maxElems; k++ {
		key := keys.Value(k)
		want, ok := exp[key]
		if !ok {
			c.fail(path, "key %q not in the message", key)
			continue
		}
		c.single(fmt.Sprintf("%s[%q]", path, key), fd.MapValue(), want, m.Items(), k, depth)
		n++
	}
}

// entries compares a map field mapped as an array of key/value records
// (MapAsEntryArray): each key, in protojson's text form, must be a key of
// the message, with the same value.
func (c *comparer) entries(path string, fd protoreflect.FieldDescriptor, exp map[string]any, arr arrow.Array, i, depth int) {
	l, ok := arr.(*array.List)
	if !ok {
		c.fail(path, "map field read as %s", arr.DataType())
		return
	}
	ents, ok := l.ListValues().(*array.Struct)
	if !ok {
		c.fail(path, "map entries read as %s", l.ListValues().DataType())
		return
	}
	st := ents.DataType().(*arrow.StructType)
	ki, ok1 := st.FieldIdx("key")
	vi, ok2 := st.FieldIdx("value")
	if !ok1 || !ok2 {
		c.fail(path, "map entries without key and value: %s", st)
		return
	}
	start, end, ok := c.rowItems(path, l, i, len(exp), "entries")
	if !ok {
		return
	}
	for k := start; k < end && k < start+maxElems; k++ {
		key := ents.Field(ki).ValueStr(k)
		if b, ok := ents.Field(ki).(*array.Boolean); ok {
			key = strconv.FormatBool(b.Value(k))
		}
		want, ok := exp[key]
		if !ok {
			c.fail(path, "key %s not in the message", key)
			continue
		}
		c.single(fmt.Sprintf("%s[%s]", path, key), fd.MapValue(), want, ents.Field(vi), k, depth)
	}
}

// single compares one value (a singular field, a list element or a map
// value) of fd's kind.
func (c *comparer) single(path string, fd protoreflect.FieldDescriptor, v any, arr arrow.Array, i, depth int) {
	if v == nil && fd.Kind() == protoreflect.EnumKind { // google.protobuf.NullValue
		c.enum(path, fd, protoreflect.ValueOfEnum(0), nil, arr, i)
		return
	}
	if arr.IsNull(i) {
		c.fail(path, "null, want %v", v)
		return
	}
	md := fd.Message()
	if md == nil {
		if fd.Kind() == protoreflect.EnumKind {
			c.enum(path, fd, protoreflect.Value{}, v, arr, i)
			return
		}
		want, err := parseScalar(fd, v)
		if err != nil {
			c.fail(path, "protojson value %v: %v", v, err)
			return
		}
		c.scalarValue(path, fd, want, arr, i)
		return
	}
	switch {
	case md.FullName() == "google.protobuf.Timestamp" && isTimestamp(arr):
		c.timestamp(path, v, arr, i)
	case isWrapper(md) && !isStruct(arr):
		c.single(path, md.Fields().ByNumber(1), v, arr, i, depth)
	case isStruct(arr) && md.FullName().Parent() == "google.protobuf":
		// A well-known type mapped as a record of its fields, whose
		// protojson form is special: compare with the form protojson gives
		// an ordinary message of the same fields.
		plain, err := plainJSON(md, v)
		if err != nil {
			c.fail(path, "%v", err)
			return
		}
		c.st["message"]++
		c.message(path, plainDescriptor(md), plain, arr.(*array.Struct), i, depth+1)
	case isStruct(arr):
		obj, ok := v.(map[string]any)
		if !ok {
			c.fail(path, "protojson gives %T for a message", v)
			return
		}
		c.st["message"]++
		c.message(path, md, obj, arr.(*array.Struct), i, depth+1)
	case isString(arr):
		// A JSON carrier: dynamic values, or a subtree below the recursion
		// depth.
		c.wellKnownAsJSON(path, md, v, arr, i)
	case isBinary(arr):
		// A protobuf-bytes carrier below the recursion depth.
		c.wireCarrier(path, md, v, arr, i)
	default:
		c.fail(path, "message %s read as %s", md.FullName(), arr.DataType())
	}
}

// wellKnownAsJSON compares a value carried as JSON text with protojson's
// value for it, as JSON values.
func (c *comparer) wellKnownAsJSON(path string, md protoreflect.MessageDescriptor, v any, arr arrow.Array, i int) {
	c.st["json"]++
	s, ok := stringAt(arr, i)
	if !ok {
		c.fail(path, "%s read as %s, not text", md.FullName(), arr.DataType())
		return
	}
	// The text is protojson's (JSON field names); read it back as md and
	// render it as the source was rendered (proto field names).
	m := dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal([]byte(s), m); err != nil {
		c.fail(path, "carried JSON %q does not read as %s: %v", s, md.FullName(), err)
		return
	}
	got, err := protoJSONValue(m)
	if err != nil {
		c.fail(path, "carried JSON %q: %v", s, err)
		return
	}
	if !sameJSON(got, v) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(v)
		c.fail(path, "JSON %s, protojson says %s", g, w)
	}
}

// wireCarrier compares a subtree carried as protobuf bytes: decoded as md
// and rendered by protojson, it must be what protojson says of the source.
func (c *comparer) wireCarrier(path string, md protoreflect.MessageDescriptor, v any, arr arrow.Array, i int) {
	c.st["carrier"]++
	b, _ := arr.(*array.Binary)
	m := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(b.Value(i), m); err != nil {
		c.fail(path, "carried bytes do not decode as %s: %v", md.FullName(), err)
		return
	}
	got, err := protoJSONValue(m)
	if err != nil {
		c.fail(path, "%v", err)
		return
	}
	if !sameJSON(got, v) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(v)
		c.fail(path, "carried %s, protojson says %s", g, w)
	}
}

func (c *comparer) timestamp(path string, v any, arr arrow.Array, i int) {
	c.st["timestamp"]++
	s, _ := v.(string)
	want, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		c.fail(path, "protojson timestamp %v: %v", v, err)
		return
	}
	ts := arr.(*array.Timestamp)
	got := ts.Value(i).ToTime(ts.DataType().(*arrow.TimestampType).Unit)
	if !got.Equal(want) {
		c.fail(path, "%s, want %s", got.Format(time.RFC3339Nano), s)
	}
}

// enum compares an enum value: protojson's name (or number, for a value
// without one), or the number want when v is nil, with the symbol Arrow
// read.
func (c *comparer) enum(path string, fd protoreflect.FieldDescriptor, want protoreflect.Value, v any, arr arrow.Array, i int) {
	c.st["enum"]++
	d, ok := arr.(*array.Dictionary)
	if !ok {
		c.fail(path, "enum read as %s", arr.DataType())
		return
	}
	sym, ok := stringAt(d.Dictionary(), d.GetValueIndex(i))
	if !ok {
		c.fail(path, "enum dictionary of %s", d.Dictionary().DataType())
		return
	}
	var wantName string
	switch t := v.(type) {
	case nil:
		if ev := fd.Enum().Values().ByNumber(want.Enum()); ev != nil {
			wantName = string(ev.Name())
		} else {
			wantName = string(fd.Enum().Values().Get(0).Name())
		}
	case string:
		wantName = t
	default:
		c.fail(path, "protojson gives the enum number %v (a value without a name)", v)
		return
	}
	if sym != wantName {
		c.fail(path, "symbol %s, want %s", sym, wantName)
	}
}

// parseScalar parses protojson's rendering of a scalar of fd's kind.
func parseScalar(fd protoreflect.FieldDescriptor, v any) (protoreflect.Value, error) {
	text := fmt.Sprint(v)
	switch fd.Kind() {
	case protoreflect.BoolKind:
		b, ok := v.(bool)
		if !ok {
			return protoreflect.Value{}, fmt.Errorf("not a bool")
		}
		return protoreflect.ValueOfBool(b), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		n, err := strconv.ParseInt(text, 10, 32)
		return protoreflect.ValueOfInt32(int32(n)), err
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		n, err := strconv.ParseInt(text, 10, 64)
		return protoreflect.ValueOfInt64(n), err
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		n, err := strconv.ParseUint(text, 10, 32)
		return protoreflect.ValueOfUint32(uint32(n)), err
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		n, err := strconv.ParseUint(text, 10, 64)
		return protoreflect.ValueOfUint64(n), err
	case protoreflect.FloatKind:
		f, err := parseFloat(text, 32)
		return protoreflect.ValueOfFloat32(float32(f)), err
	case protoreflect.DoubleKind:
		f, err := parseFloat(text, 64)
		return protoreflect.ValueOfFloat64(f), err
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(text), nil
	case protoreflect.BytesKind:
		b, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			b, err = base64.URLEncoding.DecodeString(text)
		}
		return protoreflect.ValueOfBytes(b), err
	}
	return protoreflect.Value{}, fmt.Errorf("kind %v", fd.Kind())
}

func parseFloat(s string, bits int) (float64, error) {
	if f, ok := jsonfloat.NonFinite(s); ok {
		return f, nil
	}
	return strconv.ParseFloat(s, bits)
}

// scalarValue compares the scalar want of fd's kind with Arrow's value.
func (c *comparer) scalarValue(path string, fd protoreflect.FieldDescriptor, want protoreflect.Value, arr arrow.Array, i int) {
	kind := fd.Kind()
	c.st[kind.String()]++
	if arr.IsNull(i) {
		c.fail(path, "null, want %v", want)
		return
	}
	var got string
	var wantText string
	switch kind {
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		var f float64
		switch a := arr.(type) {
		case *array.Float32:
			f = float64(a.Value(i))
		case *array.Float64:
			f = a.Value(i)
		default:
			c.fail(path, "%v read as %s", kind, arr.DataType())
			return
		}
		w := want.Float()
		if kind == protoreflect.FloatKind {
			if !(math.IsNaN(w) && math.IsNaN(f)) && math.Float32bits(float32(f)) != math.Float32bits(float32(w)) {
				c.fail(path, "%v, want %v", f, w)
			}
		} else if !(math.IsNaN(w) && math.IsNaN(f)) && math.Float64bits(f) != math.Float64bits(w) {
			c.fail(path, "%v, want %v", f, w)
		}
		return
	case protoreflect.BoolKind:
		a, ok := arr.(*array.Boolean)
		if !ok {
			c.fail(path, "bool read as %s", arr.DataType())
			return
		}
		got, wantText = strconv.FormatBool(a.Value(i)), strconv.FormatBool(want.Bool())
	case protoreflect.StringKind:
		s, ok := stringAt(arr, i)
		if !ok {
			c.fail(path, "string read as %s", arr.DataType())
			return
		}
		got, wantText = s, want.String()
	case protoreflect.BytesKind:
		b, ok := bytesAt(arr, i)
		if !ok {
			c.fail(path, "bytes read as %s", arr.DataType())
			return
		}
		got, wantText = base64.StdEncoding.EncodeToString(b), base64.StdEncoding.EncodeToString(want.Bytes())
	default: // integers
		n, ok := integerAt(arr, i)
		if !ok {
			c.fail(path, "%v read as %s", kind, arr.DataType())
			return
		}
		switch kind {
		case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
			wantText = strconv.FormatUint(want.Uint(), 10)
			if _, isInt := arr.(*array.Int64); isInt && n.Sign() < 0 {
				// A long that holds the 64 bits: the reader sees 2^64−1 as −1.
				n.Add(n, new(big.Int).Lsh(big.NewInt(1), 64))
			}
		case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
			wantText = strconv.FormatUint(want.Uint(), 10)
			if _, isInt := arr.(*array.Int32); isInt && n.Sign() < 0 {
				n.Add(n, new(big.Int).Lsh(big.NewInt(1), 32))
			}
		default:
			wantText = strconv.FormatInt(want.Int(), 10)
		}
		got = n.String()
	}
	if got != wantText {
		c.fail(path, "%q, want %q", got, wantText)
	}
}

func integerAt(arr arrow.Array, i int) (*big.Int, bool) {
	switch a := arr.(type) {
	case *array.Int32:
		return big.NewInt(int64(a.Value(i))), true
	case *array.Int64:
		return big.NewInt(a.Value(i)), true
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		if dt.Scale != 0 {
			return nil, false
		}
		return a.Value(i).BigInt(), true
	case *array.Decimal256:
		dt := a.DataType().(*arrow.Decimal256Type)
		if dt.Scale != 0 {
			return nil, false
		}
		return a.Value(i).BigInt(), true
	}
	return nil, false
}

func stringAt(arr arrow.Array, i int) (string, bool) {
	switch a := arr.(type) {
	case *array.String:
		return a.Value(i), true
	case *array.LargeString:
		return a.Value(i), true
	}
	return "", false
}

func bytesAt(arr arrow.Array, i int) ([]byte, bool) {
	switch a := arr.(type) {
	case *array.Binary:
		return a.Value(i), true
	case *array.LargeBinary:
		return a.Value(i), true
	case *array.FixedSizeBinary:
		return a.Value(i), true
	}
	return nil, false
}

func isTimestamp(arr arrow.Array) bool { _, ok := arr.(*array.Timestamp); return ok }
func isStruct(arr arrow.Array) bool    { _, ok := arr.(*array.Struct); return ok }
func isString(arr arrow.Array) bool {
	id := arr.DataType().ID()
	return id == arrow.STRING || id == arrow.LARGE_STRING
}
func isBinary(arr arrow.Array) bool { _, ok := arr.(*array.Binary); return ok }

func isWrapper(md protoreflect.MessageDescriptor) bool {
	switch md.FullName() {
	case "google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.Int64Value",
		"google.protobuf.UInt64Value", "google.protobuf.Int32Value", "google.protobuf.UInt32Value",
		"google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue":
		return true
	}
	return false
}

// plainDescriptor returns a copy of the well-known type md under another
// package ("plain."), so that protojson renders it as an ordinary message
// of its fields (Duration as {seconds, nanos}, Struct as {fields: {...}}).
func plainDescriptor(md protoreflect.MessageDescriptor) protoreflect.MessageDescriptor {
	plainMu.Lock()
	defer plainMu.Unlock()
	if d, ok := plainCache[md.FullName()]; ok {
		return d
	}
	fdp := protodesc.ToFileDescriptorProto(md.ParentFile())
	fdp.Name = proto.String("plain/" + fdp.GetName())
	fdp.Package = proto.String("plain." + fdp.GetPackage())
	var rename func(ms []*descriptorpb.DescriptorProto)
	rename = func(ms []*descriptorpb.DescriptorProto) {
		for _, m := range ms {
			for _, f := range m.Field {
				if f.TypeName != nil {
					f.TypeName = proto.String(".plain" + f.GetTypeName())
				}
			}
			rename(m.NestedType)
		}
	}
	rename(fdp.MessageType)
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		panic(fmt.Sprintf("plain copy of %s: %v", md.ParentFile().Path(), err))
	}
	d := fd.Messages().ByName(md.Name())
	plainCache[md.FullName()] = d
	return d
}

var (
	plainMu    sync.Mutex
	plainCache = map[protoreflect.FullName]protoreflect.MessageDescriptor{}
)

// plainJSON returns protojson's rendering of the well-known value v (in its
// special JSON form) as an ordinary message of its fields.
func plainJSON(md protoreflect.MessageDescriptor, v any) (map[string]any, error) {
	text, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	m := dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal(text, m); err != nil {
		return nil, fmt.Errorf("protojson form of %s: %w", md.FullName(), err)
	}
	wire, err := proto.Marshal(m)
	if err != nil {
		return nil, err
	}
	plain := dynamicpb.NewMessage(plainDescriptor(md))
	if err := proto.Unmarshal(wire, plain); err != nil {
		return nil, err
	}
	return protoJSON(plain)
}

// sameJSON reports whether two decoded JSON values are equal, numbers
// compared by value.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, okx := new(big.Rat).SetString(x.String())
		ry, oky := new(big.Rat).SetString(y.String())
		return okx && oky && rx.Cmp(ry) == 0
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k := range x {
			if !sameJSON(x[k], y[k]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

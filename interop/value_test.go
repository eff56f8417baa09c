package interop

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"math"
	"math/big"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/protoavro/protoavro/internal/jsonfloat"
	"github.com/twmb/avro"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Avro values, as the tests compare them. Every implementation's reader
// prints the records it reads as "interop JSON", a JSON form directed by the
// schema (below); the Go side parses that into these values with the same
// schema and compares them with the values it expects from the source
// protobuf messages. The same JSON form is the input of the writers.
//
//	null                nil
//	boolean             bool
//	int, long           int64 (timestamps: the long in the logical type's unit)
//	float               f32 (the IEEE 754 bits)
//	double              f64 (the IEEE 754 bits)
//	string              string
//	bytes               []byte
//	bytes, decimal      decimal (the unscaled integer in decimal)
//	enum                symbol (the symbol's name)
//	array               []any
//	map                 map[string]any
//	record              record (field name → value)
//	["null", T] union   nil or the value of T
//
// Interop JSON: null, booleans and strings as JSON; int and long as JSON
// integers, exact (64-bit); float and double as JSON numbers that parse to
// the exact value (a float printed as the shortest form of its double
// value), "NaN", "Infinity" and "-Infinity" for the non-finite values and
// -0.0 for negative zero; bytes as lowercase hex; decimals as a string of
// the integer; enums as the symbol; arrays, maps and records as JSON arrays
// and objects (a record object has every field); a union as null or its
// non-null branch's value.
type (
	f32     uint32
	f64     uint64
	decimal string
	symbol  string
	record  map[string]any
)

// schema is a node of a parsed Avro schema, twmb/avro's SchemaNode tree,
// with the named types of the whole schema: at resolves references.
type schema struct {
	*avro.SchemaNode
	named map[string]*avro.SchemaNode
}

// readSchema parses the schema JSON in a file.
func readSchema(path string) (schema, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return schema{}, err
	}
	return parseSchema(text)
}

// parseSchema parses schema JSON and returns its root.
func parseSchema(text []byte) (schema, error) {
	parsed, err := avro.Parse(string(text))
	if err != nil {
		return schema{}, err
	}
	root := parsed.Root()
	named := map[string]*avro.SchemaNode{}
	var collect func(n *avro.SchemaNode)
	collect = func(n *avro.SchemaNode) {
		switch n.Type {
		case "record", "error", "enum", "fixed":
			named[fullName(n)] = n
		}
		for i := range n.Fields {
			collect(&n.Fields[i].Type)
		}
		for _, c := range []*avro.SchemaNode{n.Items, n.Values} {
			if c != nil {
				collect(c)
			}
		}
		for i := range n.Branches {
			collect(&n.Branches[i])
		}
	}
	collect(root)
	return schema{root, named}, nil
}

// fullName is the full name of a named type's node.
func fullName(n *avro.SchemaNode) string {
	if strings.Contains(n.Name, ".") || n.Namespace == "" {
		return n.Name
	}
	return n.Namespace + "." + n.Name
}

// at returns node n of s's schema, a reference resolved to the named type.
func (s schema) at(n *avro.SchemaNode) schema {
	if d, ok := s.named[n.Type]; ok {
		return schema{d, s.named}
	}
	for name, d := range s.named { // a name relative to its namespace
		if !strings.Contains(n.Type, ".") && strings.HasSuffix(name, "."+n.Type) {
			return schema{d, s.named}
		}
	}
	return schema{n, s.named}
}

func (s schema) String() string {
	if p, err := s.Schema(); err == nil {
		return p.String()
	}
	return s.Type
}

// nullableBranch returns T of a ["null", T] union, or an error for any
// other union: the derived schemas have no others.
func nullableBranch(u schema) (schema, error) {
	ts := u.Branches
	if len(ts) != 2 || ts[0].Type != "null" || ts[1].Type == "null" {
		return schema{}, fmt.Errorf("union %s is not [\"null\", T]", u)
	}
	return u.at(&ts[1]), nil
}

// expectRecord returns the Avro record that message m must read as, with
// record schema s: what the protobuf message says, field by field, by the
// mapping in docs/mapping.md. The schema decides the shape (union or not,
// map or entry array, int or long, record or timestamp or wrapper), so one
// function serves both profiles and every option.
func expectRecord(s schema, m protoreflect.Message) (record, error) {
	if s.Type != "record" {
		return nil, fmt.Errorf("%s: schema %s is not a record", m.Descriptor().FullName(), s)
	}
	out := record{}
	fds := m.Descriptor().Fields()
	for i := range s.Fields {
		f := &s.Fields[i]
		fd := fds.ByName(protoreflect.Name(f.Name))
		if fd == nil {
			return nil, fmt.Errorf("%s has no field %s", m.Descriptor().FullName(), f.Name)
		}
		v, err := expectField(s.at(&f.Type), m, fd)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fd.FullName(), err)
		}
		out[f.Name] = v
	}
	return out, nil
}

func expectField(t schema, m protoreflect.Message, fd protoreflect.FieldDescriptor) (any, error) {
	switch {
	case fd.IsMap():
		return expectMap(t, fd, m.Get(fd).Map())
	case fd.IsList():
		if t.Type != "array" {
			return nil, fmt.Errorf("repeated field with schema %s", t)
		}
		l := m.Get(fd).List()
		out := make([]any, 0, l.Len())
		for i := range l.Len() {
			v, err := expectValue(t.at(t.Items), fd, l.Get(i))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	if t.Type == "union" {
		b, err := nullableBranch(t)
		if err != nil {
			return nil, err
		}
		if !m.Has(fd) {
			return nil, nil
		}
		return expectValue(b, fd, m.Get(fd))
	}
	// No union: the field has no presence in the schema, and an unset
	// field is written as its protobuf default (Get returns it).
	return expectValue(t, fd, m.Get(fd))
}

func expectMap(t schema, fd protoreflect.FieldDescriptor, mp protoreflect.Map) (any, error) {
	kfd, vfd := fd.MapKey(), fd.MapValue()
	keys := make([]protoreflect.MapKey, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	sortMapKeys(kfd.Kind(), keys)
	switch t.Type {
	case "map":
		out := map[string]any{}
		for _, k := range keys {
			v, err := expectValue(t.at(t.Values), vfd, mp.Get(k))
			if err != nil {
				return nil, err
			}
			out[mapKeyText(kfd.Kind(), k)] = v
		}
		return out, nil
	case "array":
		// Entry records {key, value}, in protobuf's deterministic key order.
		rs := t.at(t.Items)
		if rs.Type != "record" || len(rs.Fields) != 2 || rs.Fields[0].Name != "key" || rs.Fields[1].Name != "value" {
			return nil, fmt.Errorf("map field with schema %s", t)
		}
		out := make([]any, 0, len(keys))
		for _, k := range keys {
			kv, err := expectValue(rs.at(&rs.Fields[0].Type), kfd, k.Value())
			if err != nil {
				return nil, err
			}
			vt := rs.at(&rs.Fields[1].Type)
			if vt.Type == "union" { // a message value: present
				if vt, err = nullableBranch(vt); err != nil {
					return nil, err
				}
			}
			vv, err := expectValue(vt, vfd, mp.Get(k))
			if err != nil {
				return nil, err
			}
			out = append(out, record{"key": kv, "value": vv})
		}
		return out, nil
	}
	return nil, fmt.Errorf("map field with schema %s", t)
}

// sortMapKeys sorts keys the way deterministic protobuf marshalling does.
func sortMapKeys(k protoreflect.Kind, keys []protoreflect.MapKey) {
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i].Value(), keys[j].Value()
		switch k {
		case protoreflect.BoolKind:
			return !a.Bool() && b.Bool()
		case protoreflect.StringKind:
			return a.String() < b.String()
		case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
			return a.Uint() < b.Uint()
		default:
			return a.Int() < b.Int()
		}
	})
}

// mapKeyText is the text form of a map key in an Avro map: the key's
// canonical text (ProtoJSON's map key form).
func mapKeyText(k protoreflect.Kind, key protoreflect.MapKey) string {
	v := key.Value()
	switch k {
	case protoreflect.StringKind:
		return v.String()
	case protoreflect.BoolKind:
		return strconv.FormatBool(v.Bool())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return strconv.FormatUint(v.Uint(), 10)
	default:
		return strconv.FormatInt(v.Int(), 10)
	}
}

// expectValue converts one protobuf value of field fd's kind (a singular
// value, list element, map key or map value) to the Avro value of schema t.
func expectValue(t schema, fd protoreflect.FieldDescriptor, v protoreflect.Value) (any, error) {
	bad := func() (any, error) { return nil, fmt.Errorf("%s value with schema %s", fd.Kind(), t) }
	typ, lt := t.Type, t.LogicalType
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		msg := v.Message()
		switch typ {
		case "record":
			return expectRecord(t, msg)
		case "long":
			if strings.HasPrefix(lt, "timestamp-") && msg.Descriptor().FullName() == "google.protobuf.Timestamp" {
				fds := msg.Descriptor().Fields()
				secs, nanos := msg.Get(fds.ByNumber(1)).Int(), msg.Get(fds.ByNumber(2)).Int()
				switch lt {
				case "timestamp-millis":
					return secs*1e3 + nanos/1e6, nil
				case "timestamp-micros":
					return secs*1e6 + nanos/1e3, nil
				default:
					return secs*1e9 + nanos, nil
				}
			}
		}
		// A wrapper: the wrapped value.
		vfd := msg.Descriptor().Fields().ByNumber(1)
		if !strings.HasPrefix(string(msg.Descriptor().FullName()), "google.protobuf.") || vfd == nil || msg.Descriptor().Fields().Len() != 1 {
			return bad()
		}
		return expectValue(t, vfd, msg.Get(vfd))
	case protoreflect.BoolKind:
		if typ != "boolean" {
			return bad()
		}
		return v.Bool(), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if typ != "int" {
			return bad()
		}
		return v.Int(), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if typ != "long" {
			return bad()
		}
		return v.Int(), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		switch typ {
		case "int": // Java profile: the same 32 bits, signed
			return int64(int32(uint32(v.Uint()))), nil
		case "long":
			return int64(v.Uint()), nil
		}
		return bad()
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		switch {
		case typ == "long": // the same 64 bits, signed
			return int64(v.Uint()), nil
		case typ == "bytes" && lt == "decimal":
			return decimal(strconv.FormatUint(v.Uint(), 10)), nil
		}
		return bad()
	case protoreflect.FloatKind:
		if typ != "float" {
			return bad()
		}
		return f32(math.Float32bits(float32(v.Float()))), nil
	case protoreflect.DoubleKind:
		if typ != "double" {
			return bad()
		}
		return f64(math.Float64bits(v.Float())), nil
	case protoreflect.StringKind:
		if typ != "string" {
			return bad()
		}
		return v.String(), nil
	case protoreflect.BytesKind:
		if typ != "bytes" || lt != "" {
			return bad()
		}
		return append([]byte{}, v.Bytes()...), nil
	case protoreflect.EnumKind:
		if typ != "enum" {
			return bad()
		}
		ev := fd.Enum().Values().ByNumber(v.Enum()) // the first value with the number
		if ev == nil {
			return nil, fmt.Errorf("enum %s has no value %d", fd.Enum().FullName(), v.Enum())
		}
		for _, s := range t.Symbols {
			if s == string(ev.Name()) {
				return symbol(s), nil
			}
		}
		return nil, fmt.Errorf("enum schema %s has no symbol %s", fullName(t.SchemaNode), ev.Name())
	}
	return bad()
}

// Interop JSON output.

func (f f32) MarshalJSON() ([]byte, error) {
	return []byte(floatJSON(float64(math.Float32frombits(uint32(f))))), nil
}

func (f f64) MarshalJSON() ([]byte, error) {
	return []byte(floatJSON(math.Float64frombits(uint64(f)))), nil
}

// floatJSON prints x so that parsing it as a double gives x exactly.
func floatJSON(x float64) string {
	switch {
	case math.IsNaN(x):
		return `"NaN"`
	case math.IsInf(x, 1):
		return `"Infinity"`
	case math.IsInf(x, -1):
		return `"-Infinity"`
	case x == 0 && math.Signbit(x):
		return "-0.0"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// interopJSON encodes a value as interop JSON.
func interopJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(toJSONTree(v)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func toJSONTree(v any) any {
	switch v := v.(type) {
	case []byte:
		return hex.EncodeToString(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = toJSONTree(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = toJSONTree(e)
		}
		return out
	case record:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = toJSONTree(e)
		}
		return out
	}
	return v
}

// Interop JSON input.

// parseInterop converts interop JSON (already decoded by testutil.DecodeJSON) of
// schema t to a value.
func parseInterop(t schema, j any) (any, error) { return jsonDialect{}.parse(t, j) }

// jsonDialect is a variant of interop JSON.
type jsonDialect struct {
	// decimalAsBytes: decimals are their two's-complement bytes, in hex
	// (interop JSON of an implementation without logical types).
	decimalAsBytes bool
	// avroC: Avro C's own JSON (avro_value_to_json, which avrocat
	// prints): a union value is null or {"branch name": value}, bytes are
	// a string of the code points 0 to 255, floats are plain numbers, and
	// decimals are bytes (parsed as []byte, not decimal).
	avroC bool
}

// parseEach parses the elements of an array or the values of a map, each of
// schema item, and gives each to set; an error names the index or key
// (as %#v prints it: 3, "key").
func parseEach[K comparable](d jsonDialect, item schema, elems iter.Seq2[K, any], set func(K, any)) error {
	for k, e := range elems {
		v, err := d.parse(item, e)
		if err != nil {
			return fmt.Errorf("[%#v]: %w", k, err)
		}
		set(k, v)
	}
	return nil
}

func (d jsonDialect) parse(t schema, j any) (any, error) {
	bad := func() (any, error) {
		s, _ := json.Marshal(j)
		if len(s) > 200 {
			s = append(s[:200], "..."...)
		}
		return nil, fmt.Errorf("%s: unexpected JSON %s", t.Type, s)
	}
	switch t.Type {
	case "union":
		b, err := nullableBranch(t)
		if err != nil {
			return nil, err
		}
		if j == nil {
			return nil, nil
		}
		if d.avroC {
			o, ok := j.(map[string]any)
			if !ok || len(o) != 1 {
				return bad()
			}
			for k, v := range o {
				if k != branchName(b) {
					return nil, fmt.Errorf("union branch %q, want %q", k, branchName(b))
				}
				j = v
			}
		}
		return d.parse(b, j)
	case "record", "map":
		o, ok := j.(map[string]any)
		if !ok {
			return bad()
		}
		if t.Type == "map" {
			out := make(map[string]any, len(o))
			if err := parseEach(d, t.at(t.Values), maps.All(o), func(k string, v any) { out[k] = v }); err != nil {
				return nil, err
			}
			return out, nil
		}
		out := record{}
		name := fullName(t.SchemaNode)
		for i := range t.Fields {
			f := &t.Fields[i]
			fj, ok := o[f.Name]
			if !ok {
				return nil, fmt.Errorf("%s: no field %s", name, f.Name)
			}
			v, err := d.parse(t.at(&f.Type), fj)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", name, f.Name, err)
			}
			out[f.Name] = v
		}
		if len(o) != len(t.Fields) {
			return nil, fmt.Errorf("%s: %d fields, want %d", name, len(o), len(t.Fields))
		}
		return out, nil
	case "array":
		a, ok := j.([]any)
		if !ok {
			return bad()
		}
		out := make([]any, len(a))
		if err := parseEach(d, t.at(t.Items), slices.All(a), func(i int, v any) { out[i] = v }); err != nil {
			return nil, err
		}
		return out, nil
	case "enum", "string":
		s, ok := j.(string)
		if !ok {
			return bad()
		}
		if t.Type == "enum" {
			return symbol(s), nil
		}
		return s, nil
	case "null":
		if j != nil {
			return bad()
		}
		return nil, nil
	case "boolean":
		b, ok := j.(bool)
		if !ok {
			return bad()
		}
		return b, nil
	case "int", "long":
		n, ok := j.(json.Number)
		if !ok {
			return bad()
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || t.Type == "int" && int64(int32(i)) != i {
			return bad()
		}
		return i, nil
	case "float", "double":
		x, ok := parseFloatJSON(j)
		if !ok {
			return bad()
		}
		if t.Type == "double" {
			return f64(math.Float64bits(x)), nil
		}
		if float64(float32(x)) != x && !math.IsNaN(x) {
			return nil, fmt.Errorf("float: %v is not a float32 value", j)
		}
		return f32(math.Float32bits(float32(x))), nil
	case "bytes":
		s, ok := j.(string)
		if !ok {
			return bad()
		}
		var b []byte
		if d.avroC {
			for _, r := range s {
				if r > 0xff {
					return bad()
				}
				b = append(b, byte(r))
			}
		} else if t.LogicalType != "decimal" || d.decimalAsBytes {
			var err error
			if b, err = hex.DecodeString(s); err != nil {
				return bad()
			}
		}
		if t.LogicalType == "decimal" && !d.avroC { // Avro C's JSON keeps the bytes
			if b == nil && !d.decimalAsBytes {
				return decimal(s), nil
			}
			return decimal(twosComplement(b).String()), nil
		}
		if b == nil {
			b = []byte{}
		}
		return b, nil
	}
	return bad()
}

// branchName is the name Avro C gives a union branch: the type name, or
// the unqualified name of a named type.
func branchName(s schema) string {
	switch s.Type {
	case "record", "error", "enum", "fixed":
		return fullName(s.SchemaNode)[strings.LastIndexByte(fullName(s.SchemaNode), '.')+1:]
	}
	return s.Type
}

// twosComplement reads big-endian two's-complement bytes.
func twosComplement(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return n
}

// twosComplementBytes is the shortest big-endian two's-complement form of n.
func twosComplementBytes(n *big.Int) []byte {
	for l := 1; ; l++ {
		lim := new(big.Int).Lsh(big.NewInt(1), uint(8*l-1))
		if n.Cmp(lim) < 0 && n.Cmp(new(big.Int).Neg(lim)) >= 0 {
			u := new(big.Int).Set(n)
			if u.Sign() < 0 {
				u.Add(u, new(big.Int).Lsh(big.NewInt(1), uint(8*l)))
			}
			return u.FillBytes(make([]byte, l))
		}
	}
}

// decimalsToBytes replaces every decimal in v by its bytes.
func decimalsToBytes(v any) any {
	return transform(v, func(x any) (any, bool) {
		if d, ok := x.(decimal); ok {
			n, _ := new(big.Int).SetString(string(d), 10)
			return twosComplementBytes(n), true
		}
		return nil, false
	})
}

// transform returns a copy of v in which f replaced the values it accepts.
func transform(v any, f func(any) (any, bool)) any {
	if r, ok := f(v); ok {
		return r
	}
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = transform(e, f)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = transform(e, f)
		}
		return out
	case record:
		out := make(record, len(v))
		for k, e := range v {
			out[k] = transform(e, f)
		}
		return out
	}
	return v
}

// find reports whether f accepts any value in v.
func find(v any, f func(v any) bool) bool {
	if f(v) {
		return true
	}
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			if find(e, f) {
				return true
			}
		}
	case map[string]any:
		for _, e := range v {
			if find(e, f) {
				return true
			}
		}
	case record:
		for _, e := range v {
			if find(e, f) {
				return true
			}
		}
	}
	return false
}

// hasNonFinite reports whether v holds a NaN or an infinity.
func hasNonFinite(v any) bool {
	return find(v, func(x any) bool {
		switch x := x.(type) {
		case f32:
			f := float64(math.Float32frombits(uint32(x)))
			return math.IsNaN(f) || math.IsInf(f, 0)
		case f64:
			f := math.Float64frombits(uint64(x))
			return math.IsNaN(f) || math.IsInf(f, 0)
		}
		return false
	})
}

// truncateAtNUL cuts every string and bytes value of v at its first NUL.
func truncateAtNUL(v any) any {
	return transform(v, func(x any) (any, bool) {
		switch x := x.(type) {
		case string:
			if i := strings.IndexByte(x, 0); i >= 0 {
				return x[:i], true
			}
		case []byte:
			if i := bytes.IndexByte(x, 0); i >= 0 {
				return x[:i], true
			}
		}
		return nil, false
	})
}

// parseFloatJSON reads a JSON number or one of the strings for non-finite
// values.
func parseFloatJSON(j any) (float64, bool) {
	switch j := j.(type) {
	case json.Number:
		x, err := strconv.ParseFloat(string(j), 64)
		return x, err == nil
	case string:
		return jsonfloat.NonFinite(j)
	}
	return 0, false
}

// Comparison.

// diff appends to out the differences between want and got, at most max.
func diff(out []string, path string, want, got any, max int) []string {
	if len(out) >= max {
		return out
	}
	mismatch := func() []string {
		return append(out, fmt.Sprintf("%s: got %s, want %s", path, show(got), show(want)))
	}
	switch w := want.(type) {
	case nil:
		if got != nil {
			return mismatch()
		}
	case f32:
		g, ok := got.(f32)
		wn, gn := math.IsNaN(float64(math.Float32frombits(uint32(w)))), ok && math.IsNaN(float64(math.Float32frombits(uint32(g))))
		if !ok || !(wn && gn) && w != g {
			return mismatch()
		}
	case f64:
		g, ok := got.(f64)
		wn, gn := math.IsNaN(math.Float64frombits(uint64(w))), ok && math.IsNaN(math.Float64frombits(uint64(g)))
		if !ok || !(wn && gn) && w != g {
			return mismatch()
		}
	case []byte:
		g, ok := got.([]byte)
		if !ok || !bytes.Equal(w, g) {
			return mismatch()
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return mismatch()
		}
		for i := range w {
			out = diff(out, fmt.Sprintf("%s[%d]", path, i), w[i], g[i], max)
		}
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return mismatch()
		}
		out = diffObject(out, path, w, g, max, true)
	case record:
		g, ok := got.(record)
		if !ok {
			return mismatch()
		}
		out = diffObject(out, path, w, g, max, false)
	default:
		if want != got {
			return mismatch()
		}
	}
	return out
}

func diffObject(out []string, path string, w, g map[string]any, max int, isMap bool) []string {
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := path + "." + k
		if isMap {
			p = fmt.Sprintf("%s[%q]", path, k)
		}
		gv, ok := g[k]
		if !ok {
			out = append(out, p+": missing")
			continue
		}
		out = diff(out, p, w[k], gv, max)
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			out = append(out, fmt.Sprintf("%s: unexpected key %q", path, k))
		}
	}
	return out
}

// show prints a value briefly for a test failure.
func show(v any) string {
	s, err := interopJSON(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	if len(s) > 300 {
		return string(s[:300]) + "..."
	}
	return fmt.Sprintf("%s (%T)", s, v)
}

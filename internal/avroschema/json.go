package avroschema

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
)

// AppendJSON appends the full JSON form of n: every attribute, compact, with
// "name" first in named types, aliases as full names (written to parse back
// to the same names) and references written as the full name.
// Bytes defaults are already in the specification's form (a string whose code
// points 0-255 are the byte values), since defaults are kept as JSON text.
func (n *Node) AppendJSON(buf *bytes.Buffer) { n.appendJSON(buf, "") }

// appendJSON appends the JSON form of n written in the namespace ns, the
// namespace of the enclosing named type ("" for the null namespace).
func (n *Node) appendJSON(buf *bytes.Buffer, ns string) {
	switch {
	case n.Def != nil:
		writeString(buf, n.Name)
	case n.Type.Primitive():
		if n.Logical == "" && len(n.Props) == 0 {
			writeString(buf, n.Type.String())
			return
		}
		buf.WriteString(`{"type":`)
		writeString(buf, n.Type.String())
		n.appendLogical(buf)
		appendProps(buf, n.Props)
		buf.WriteByte('}')
	case n.Type == Record:
		n.appendNameDoc(buf, ns)
		buf.WriteString(`,"type":"record","fields":[`)
		writeList(buf, len(n.Fields), func(i int) {
			f := &n.Fields[i]
			buf.WriteString(`{"name":`)
			writeString(buf, f.Name)
			if f.Doc != "" {
				buf.WriteString(`,"doc":`)
				writeString(buf, f.Doc)
			}
			appendAliases(buf, f.Aliases, "")
			buf.WriteString(`,"type":`)
			f.Type.appendJSON(buf, namespaceOf(n.Name))
			if f.Default != nil {
				buf.WriteString(`,"default":`)
				buf.Write(f.Default)
			}
			if f.Order != "" {
				buf.WriteString(`,"order":`)
				writeString(buf, f.Order)
			}
			appendProps(buf, f.Props)
			buf.WriteByte('}')
		})
		buf.WriteByte(']')
		appendProps(buf, n.Props)
		buf.WriteByte('}')
	case n.Type == Enum:
		n.appendNameDoc(buf, ns)
		buf.WriteString(`,"type":"enum","symbols":[`)
		writeList(buf, len(n.Symbols), func(i int) { writeString(buf, n.Symbols[i]) })
		buf.WriteByte(']')
		if n.HasEnumDefault {
			buf.WriteString(`,"default":`)
			writeString(buf, n.EnumDefault)
		}
		appendProps(buf, n.Props)
		buf.WriteByte('}')
	case n.Type == Fixed:
		n.appendNameDoc(buf, ns)
		buf.WriteString(`,"type":"fixed","size":` + strconv.Itoa(n.Size))
		n.appendLogical(buf)
		appendProps(buf, n.Props)
		buf.WriteByte('}')
	case n.Type == Array:
		buf.WriteString(`{"type":"array","items":`)
		n.Items.appendJSON(buf, ns)
		appendProps(buf, n.Props)
		buf.WriteByte('}')
	case n.Type == Map:
		buf.WriteString(`{"type":"map","values":`)
		n.Values.appendJSON(buf, ns)
		appendProps(buf, n.Props)
		buf.WriteByte('}')
	case n.Type == Union:
		buf.WriteByte('[')
		writeList(buf, len(n.Branches), func(i int) { n.Branches[i].appendJSON(buf, ns) })
		buf.WriteByte(']')
	}
}

// JSON returns the full JSON form of n (see AppendJSON).
func (n *Node) JSON() []byte {
	var buf bytes.Buffer
	n.AppendJSON(&buf)
	return buf.Bytes()
}

// appendNameDoc writes the opening of a named type defined in namespace
// ns: its full name and, for a name in the null namespace inside a
// namespaced type, "namespace":"", without which the name would take the
// enclosing namespace (as Java and twmb/avro write it). References to it
// stay the bare name, as Java writes them: Java, Python's avro and
// twmb/avro resolve it in the enclosing namespace first, then in the null
// namespace (the specification has no other spelling; docs/mapping.md).
func (n *Node) appendNameDoc(buf *bytes.Buffer, ns string) {
	buf.WriteString(`{"name":`)
	writeString(buf, n.Name)
	if ns != "" && namespaceOf(n.Name) == "" {
		buf.WriteString(`,"namespace":""`)
	}
	if n.Doc != "" {
		buf.WriteString(`,"doc":`)
		writeString(buf, n.Doc)
	}
	appendAliases(buf, n.Aliases, namespaceOf(n.Name))
}

// appendAliases writes an "aliases" attribute, if there are aliases, so that
// they parse back to the same names in namespace ns: an alias in the null
// namespace is written with the leading-dot escape when ns is not null.
func appendAliases(buf *bytes.Buffer, aliases []string, ns string) {
	if len(aliases) == 0 {
		return
	}
	buf.WriteString(`,"aliases":[`)
	writeList(buf, len(aliases), func(i int) {
		a := aliases[i]
		if ns != "" && !strings.Contains(a, ".") {
			a = "." + a
		}
		writeString(buf, a)
	})
	buf.WriteByte(']')
}

func (n *Node) appendLogical(buf *bytes.Buffer) {
	if n.Logical == "" {
		return
	}
	buf.WriteString(`,"logicalType":`)
	writeString(buf, n.Logical)
	if n.Logical == "decimal" {
		buf.WriteString(`,"precision":` + strconv.Itoa(n.Precision))
		if n.Scale > 0 {
			buf.WriteString(`,"scale":` + strconv.Itoa(n.Scale))
		}
	}
}

func appendProps(buf *bytes.Buffer, props []Prop) {
	for _, p := range props {
		buf.WriteByte(',')
		writeString(buf, p.Key)
		buf.WriteByte(':')
		buf.Write(p.Value)
	}
}

// writeList writes n items separated by commas, item i by item(i).
func writeList(w io.ByteWriter, n int, item func(i int)) {
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		item(i)
	}
}

// writeString writes s as a JSON string, escaped as encoding/json does.
func writeString(buf *bytes.Buffer, s string) {
	if isPlain(s) {
		buf.WriteByte('"')
		buf.WriteString(s)
		buf.WriteByte('"')
		return
	}
	raw, _ := json.Marshal(s)
	buf.Write(raw)
}

// isPlain reports whether s needs no escaping in JSON.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// Canonical returns the Parsing Canonical Form of n as the Avro
// specification defines it: primitive types as plain names, full names for
// named types, only the attributes type, name, fields, symbols, items, values
// and size, in that order, and no white space. A named type defined earlier
// in the tree is written as its full name. Logical types are stripped, as the
// specification and Apache Avro Java do.
func (n *Node) Canonical() string {
	var sb strings.Builder
	n.appendCanonical(&sb, map[*Node]bool{})
	return sb.String()
}

func (n *Node) appendCanonical(sb *strings.Builder, seen map[*Node]bool) {
	if n.Def != nil || (n.Type.Named() && seen[n]) {
		sb.WriteString(strconv.Quote(n.Name))
		return
	}
	switch n.Type {
	case Record:
		seen[n] = true
		sb.WriteString(`{"name":` + strconv.Quote(n.Name) + `,"type":"record","fields":[`)
		writeList(sb, len(n.Fields), func(i int) {
			sb.WriteString(`{"name":` + strconv.Quote(n.Fields[i].Name) + `,"type":`)
			n.Fields[i].Type.appendCanonical(sb, seen)
			sb.WriteByte('}')
		})
		sb.WriteString("]}")
	case Enum:
		seen[n] = true
		sb.WriteString(`{"name":` + strconv.Quote(n.Name) + `,"type":"enum","symbols":[`)
		writeList(sb, len(n.Symbols), func(i int) { sb.WriteString(strconv.Quote(n.Symbols[i])) })
		sb.WriteString("]}")
	case Fixed:
		seen[n] = true
		sb.WriteString(`{"name":` + strconv.Quote(n.Name) + `,"type":"fixed","size":` + strconv.Itoa(n.Size) + `}`)
	case Array:
		sb.WriteString(`{"type":"array","items":`)
		n.Items.appendCanonical(sb, seen)
		sb.WriteByte('}')
	case Map:
		sb.WriteString(`{"type":"map","values":`)
		n.Values.appendCanonical(sb, seen)
		sb.WriteByte('}')
	case Union:
		sb.WriteByte('[')
		writeList(sb, len(n.Branches), func(i int) { n.Branches[i].appendCanonical(sb, seen) })
		sb.WriteByte(']')
	default:
		sb.WriteString(`"` + n.Type.String() + `"`)
	}
}

// crcTable is the CRC-64-AVRO (Rabin) table of the specification.
var crcTable = func() (t [256]uint64) {
	for i := range t {
		fp := uint64(i)
		for range 8 {
			fp = fp>>1 ^ (crcEmpty & -(fp & 1))
		}
		t[i] = fp
	}
	return t
}()

const crcEmpty = 0xc15d213aa4d7a795

// Fingerprint64 returns the CRC-64-AVRO fingerprint of s (normally a
// Parsing Canonical Form), the value of Apache Avro Java's
// SchemaNormalization.fingerprint64.
func Fingerprint64(s string) uint64 {
	fp := uint64(crcEmpty)
	for i := 0; i < len(s); i++ {
		fp = fp>>8 ^ crcTable[byte(fp)^s[i]]
	}
	return fp
}

// AmbiguousRef finds a reference whose JSON would name another type: the
// bare name of a type in the null namespace (as AppendJSON writes it) inside
// a namespaced record ns, in a tree that also defines a type ns.name.
// Readers resolve a bare name in the enclosing namespace first, so they may
// take ns.name: Java when ns.name is defined before the reference, twmb/avro
// wherever it is defined. The specification has no other spelling. It
// returns the reference's name and ns, or ok false.
func (n *Node) AmbiguousRef() (name, ns string, ok bool) {
	defined := map[string]bool{}
	n.Walk(func(x *Node) {
		if x.Def == nil && x.Type.Named() {
			defined[x.Name] = true
		}
	})
	var visit func(x *Node, ns string) bool
	visit = func(x *Node, enclosing string) bool {
		if x.Def != nil {
			if enclosing != "" && namespaceOf(x.Name) == "" && defined[enclosing+"."+x.Name] {
				name, ns, ok = x.Name, enclosing, true
			}
			return ok
		}
		if x.Type == Record {
			enclosing = namespaceOf(x.Name)
		}
		for i := range x.Fields {
			if visit(x.Fields[i].Type, enclosing) {
				return true
			}
		}
		for _, c := range []*Node{x.Items, x.Values} {
			if c != nil && visit(c, enclosing) {
				return true
			}
		}
		for _, b := range x.Branches {
			if visit(b, enclosing) {
				return true
			}
		}
		return false
	}
	visit(n, "")
	return name, ns, ok
}

package protoavro

import (
	"strconv"
	"strings"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/pkg/crc64"
)

// Fingerprint64 returns the CRC-64-AVRO fingerprint of the Parsing Canonical
// Form of any schema, such as the writer schema of a container file: the
// value Apache Avro Java's SchemaNormalization.parsingFingerprint64 gives.
func Fingerprint64(s avro.Schema) uint64 {
	return crc64Of(CanonicalForm(s))
}

func crc64Of(canonical string) uint64 {
	sum := crc64.Sum([]byte(canonical))
	var crc uint64
	for _, b := range sum {
		crc = crc<<8 | uint64(b)
	}
	return crc
}

// CanonicalForm returns the Parsing Canonical Form of s as the Avro
// specification defines it: primitive types as plain names, full names for
// named types, only the attributes type, name, fields, symbols, items, values
// and size, in that order, and no white space. A named type defined earlier
// in the same schema is written as its full name.
//
// It differs from hamba/avro's Schema.String, which keeps logicalType
// attributes that the specification (and Apache Avro Java) strip, so that
// fingerprints agree with other implementations whatever logical types a
// schema uses.
func CanonicalForm(s avro.Schema) string {
	var sb strings.Builder
	writeCanonical(&sb, s, map[string]bool{})
	return sb.String()
}

func writeCanonical(sb *strings.Builder, s avro.Schema, seen map[string]bool) {
	switch t := s.(type) {
	case *avro.RefSchema:
		sb.WriteString(strconv.Quote(t.Schema().FullName()))
	case *avro.PrimitiveSchema:
		sb.WriteString(strconv.Quote(string(t.Type())))
	case *avro.NullSchema:
		sb.WriteString(`"null"`)
	case *avro.RecordSchema:
		if writeSeen(sb, t.FullName(), seen) {
			return
		}
		sb.WriteString(`{"name":` + strconv.Quote(t.FullName()) + `,"type":"record","fields":[`)
		for i, f := range t.Fields() {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`{"name":` + strconv.Quote(f.Name()) + `,"type":`)
			writeCanonical(sb, f.Type(), seen)
			sb.WriteByte('}')
		}
		sb.WriteString("]}")
	case *avro.EnumSchema:
		if writeSeen(sb, t.FullName(), seen) {
			return
		}
		sb.WriteString(`{"name":` + strconv.Quote(t.FullName()) + `,"type":"enum","symbols":[`)
		for i, sym := range t.Symbols() {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(strconv.Quote(sym))
		}
		sb.WriteString("]}")
	case *avro.FixedSchema:
		if writeSeen(sb, t.FullName(), seen) {
			return
		}
		sb.WriteString(`{"name":` + strconv.Quote(t.FullName()) + `,"type":"fixed","size":` + strconv.Itoa(t.Size()) + `}`)
	case *avro.ArraySchema:
		sb.WriteString(`{"type":"array","items":`)
		writeCanonical(sb, t.Items(), seen)
		sb.WriteByte('}')
	case *avro.MapSchema:
		sb.WriteString(`{"type":"map","values":`)
		writeCanonical(sb, t.Values(), seen)
		sb.WriteByte('}')
	case *avro.UnionSchema:
		sb.WriteByte('[')
		for i, u := range t.Types() {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeCanonical(sb, u, seen)
		}
		sb.WriteByte(']')
	default:
		sb.WriteString(strconv.Quote(string(s.Type())))
	}
}

// writeSeen writes a reference to a named type already defined and reports
// whether it did; otherwise it marks the name as defined.
func writeSeen(sb *strings.Builder, name string, seen map[string]bool) bool {
	if seen[name] {
		sb.WriteString(strconv.Quote(name))
		return true
	}
	seen[name] = true
	return false
}

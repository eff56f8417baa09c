package protoavro

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/hamba/avro/v2"
)

// writeSchemaJSON writes the full JSON of a schema: the layout of hamba/avro's
// MarshalJSON, except that bytes defaults are written as the specification
// says (a string whose code points 0-255 are the byte values) where hamba
// writes base64.
func writeSchemaJSON(buf *bytes.Buffer, s avro.Schema) error {
	switch t := s.(type) {
	case *avro.RefSchema:
		writeJSONString(buf, t.Schema().FullName())
	case *avro.NullSchema:
		buf.WriteString(`"null"`)
	case *avro.PrimitiveSchema:
		if t.Logical() == nil && len(t.Props()) == 0 {
			writeJSONString(buf, string(t.Type()))
			return nil
		}
		buf.WriteString(`{"type":`)
		writeJSONString(buf, string(t.Type()))
		if l := t.Logical(); l != nil {
			buf.WriteString(`,"logicalType":`)
			writeJSONString(buf, string(l.Type()))
			if d, ok := l.(*avro.DecimalLogicalSchema); ok {
				buf.WriteString(`,"precision":` + strconv.Itoa(d.Precision()))
				if d.Scale() > 0 {
					buf.WriteString(`,"scale":` + strconv.Itoa(d.Scale()))
				}
			}
		}
		if err := writeProps(buf, t.Props()); err != nil {
			return err
		}
		buf.WriteByte('}')
	case *avro.RecordSchema:
		buf.WriteString(`{"name":`)
		writeJSONString(buf, t.FullName())
		if t.Doc() != "" {
			buf.WriteString(`,"doc":`)
			writeJSONString(buf, t.Doc())
		}
		buf.WriteString(`,"type":"record","fields":[`)
		for i, f := range t.Fields() {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeFieldJSON(buf, f); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		if err := writeProps(buf, t.Props()); err != nil {
			return err
		}
		buf.WriteByte('}')
	case *avro.EnumSchema:
		buf.WriteString(`{"name":`)
		writeJSONString(buf, t.FullName())
		if t.Doc() != "" {
			buf.WriteString(`,"doc":`)
			writeJSONString(buf, t.Doc())
		}
		buf.WriteString(`,"type":"enum","symbols":[`)
		for i, sym := range t.Symbols() {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, sym)
		}
		buf.WriteByte(']')
		if t.HasDefault() {
			buf.WriteString(`,"default":`)
			writeJSONString(buf, t.Default())
		}
		if err := writeProps(buf, t.Props()); err != nil {
			return err
		}
		buf.WriteByte('}')
	case *avro.ArraySchema:
		buf.WriteString(`{"type":"array","items":`)
		if err := writeSchemaJSON(buf, t.Items()); err != nil {
			return err
		}
		buf.WriteByte('}')
	case *avro.MapSchema:
		buf.WriteString(`{"type":"map","values":`)
		if err := writeSchemaJSON(buf, t.Values()); err != nil {
			return err
		}
		buf.WriteByte('}')
	case *avro.UnionSchema:
		buf.WriteByte('[')
		for i, u := range t.Types() {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeSchemaJSON(buf, u); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	default:
		return fmt.Errorf("%w: schema type %s", ErrUnsupported, s.Type())
	}
	return nil
}

func writeFieldJSON(buf *bytes.Buffer, f *avro.Field) error {
	buf.WriteString(`{"name":`)
	writeJSONString(buf, f.Name())
	if f.Doc() != "" {
		buf.WriteString(`,"doc":`)
		writeJSONString(buf, f.Doc())
	}
	buf.WriteString(`,"type":`)
	if err := writeSchemaJSON(buf, f.Type()); err != nil {
		return err
	}
	if f.HasDefault() {
		buf.WriteString(`,"default":`)
		def := f.Default()
		if b, ok := def.([]byte); ok {
			def = bytesDefault(b)
		}
		raw, err := json.Marshal(def)
		if err != nil {
			return fmt.Errorf("protoavro: default of field %s: %w", f.Name(), err)
		}
		buf.Write(raw)
	}
	buf.WriteByte('}')
	return nil
}

func writeProps(buf *bytes.Buffer, props map[string]any) error {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		raw, err := json.Marshal(props[k])
		if err != nil {
			return err
		}
		buf.WriteByte(',')
		writeJSONString(buf, k)
		buf.WriteByte(':')
		buf.Write(raw)
	}
	return nil
}

func writeJSONString(buf *bytes.Buffer, s string) {
	raw, _ := json.Marshal(s)
	buf.Write(raw)
}

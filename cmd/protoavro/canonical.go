package main

// The schema of a container file, for inspect, read with encoding/json
// alone: its name, its Parsing Canonical Form and the fingerprint of that.
// (Once protoavro parses schema JSON itself, protoavro.ParseSchema serves.)

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// canonicalSchema returns the full name of a schema given as JSON (the type
// for an unnamed one) and its Parsing Canonical Form as the Avro
// specification defines it: primitive types as names, named types with
// full names, only the attributes type, name, fields, symbols, items,
// values and size, in that order, no white space, and a named type that is
// defined earlier written as its full name.
func canonicalSchema(schemaJSON []byte) (name, canonical string, err error) {
	d := json.NewDecoder(bytes.NewReader(schemaJSON))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", "", err
	}
	if d.More() {
		return "", "", errors.New("data after the schema")
	}
	c := &pcf{defined: map[string]bool{}}
	if err := c.write(v, ""); err != nil {
		return "", "", err
	}
	canonical = c.b.String()
	switch t := v.(type) {
	case string:
		name = t
	case []any:
		name = "union"
	case map[string]any:
		name, _ = t["type"].(string)
		if strings.Contains(" record error enum fixed ", " "+name+" ") {
			name = c.named[0] // the first type defined is this one
		}
	}
	return name, canonical, nil
}

// pcf writes a Parsing Canonical Form.
type pcf struct {
	b       strings.Builder
	defined map[string]bool
	named   []string // full names in order of definition
}

var primitives = map[string]bool{"null": true, "boolean": true, "int": true, "long": true,
	"float": true, "double": true, "bytes": true, "string": true}

// write writes schema v, in namespace ns.
func (c *pcf) write(v any, ns string) error {
	switch t := v.(type) {
	case string:
		return c.ref(t, ns)
	case []any:
		c.b.WriteByte('[')
		for i, branch := range t {
			if i > 0 {
				c.b.WriteByte(',')
			}
			if err := c.write(branch, ns); err != nil {
				return err
			}
		}
		c.b.WriteByte(']')
		return nil
	case map[string]any:
		return c.object(t, ns)
	}
	return fmt.Errorf("not a schema: %v", v)
}

// ref writes a primitive type or a reference to a named type.
func (c *pcf) ref(name, ns string) error {
	if primitives[name] {
		c.str(name)
		return nil
	}
	full := name
	if !strings.Contains(name, ".") && ns != "" && !c.defined[name] {
		full = ns + "." + name
	}
	if !c.defined[full] {
		return fmt.Errorf("unknown type %q", name)
	}
	c.str(full)
	return nil
}

// object writes a schema given as a JSON object.
func (c *pcf) object(t map[string]any, ns string) error {
	typ, ok := t["type"].(string)
	if !ok {
		if inner, has := t["type"]; has {
			return c.write(inner, ns)
		}
		return errors.New(`schema object without "type"`)
	}
	switch typ {
	case "array", "map":
		key := map[string]string{"array": "items", "map": "values"}[typ]
		c.b.WriteString(`{"type":`)
		c.str(typ)
		c.b.WriteString(`,"` + key + `":`)
		if err := c.write(t[key], ns); err != nil {
			return err
		}
		c.b.WriteByte('}')
		return nil
	case "record", "error", "enum", "fixed":
	default:
		return c.ref(typ, ns) // a primitive with attributes, or a reference
	}
	name, _ := t["name"].(string)
	if name == "" {
		return fmt.Errorf("%s without a name", typ)
	}
	full := name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		ns = name[:i]
	} else {
		if space, ok := t["namespace"].(string); ok {
			ns = space
		}
		if ns != "" {
			full = ns + "." + name
		}
	}
	if c.defined[full] {
		return fmt.Errorf("type %s defined twice", full)
	}
	c.defined[full] = true
	c.named = append(c.named, full)
	c.b.WriteString(`{"name":`)
	c.str(full)
	c.b.WriteString(`,"type":`)
	c.str(typ)
	switch typ {
	case "enum":
		symbols, _ := t["symbols"].([]any)
		c.b.WriteString(`,"symbols":[`)
		for i, sym := range symbols {
			s, ok := sym.(string)
			if !ok {
				return fmt.Errorf("enum %s: symbol %v is not a string", full, sym)
			}
			if i > 0 {
				c.b.WriteByte(',')
			}
			c.str(s)
		}
		c.b.WriteByte(']')
	case "fixed":
		size, ok := t["size"].(json.Number)
		if _, err := size.Int64(); !ok || err != nil {
			return fmt.Errorf("fixed %s: size %v", full, t["size"])
		}
		c.b.WriteString(`,"size":` + size.String())
	default:
		fields, _ := t["fields"].([]any)
		c.b.WriteString(`,"fields":[`)
		for i, f := range fields {
			field, _ := f.(map[string]any)
			fname, _ := field["name"].(string)
			if fname == "" {
				return fmt.Errorf("record %s: field %d has no name", full, i)
			}
			if i > 0 {
				c.b.WriteByte(',')
			}
			c.b.WriteString(`{"name":`)
			c.str(fname)
			c.b.WriteString(`,"type":`)
			if err := c.write(field["type"], ns); err != nil {
				return fmt.Errorf("%s.%s: %w", full, fname, err)
			}
			c.b.WriteByte('}')
		}
		c.b.WriteByte(']')
	}
	c.b.WriteByte('}')
	return nil
}

// str writes s as a JSON string.
func (c *pcf) str(s string) {
	b, _ := json.Marshal(s)
	c.b.Write(b)
}

// crc64Avro returns the CRC-64-AVRO (Rabin) fingerprint of s.
func crc64Avro(s string) uint64 {
	const empty = 0xc15d213aa4d7a795
	fp := uint64(empty)
	for i := range len(s) {
		x := (fp ^ uint64(s[i])) & 0xff
		for range 8 {
			x = x>>1 ^ (empty & -(x & 1))
		}
		fp = fp>>8 ^ x
	}
	return fp
}

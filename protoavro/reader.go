package protoavro

// The Avro reader's public API: Codec.TranscodeToProto, Codec.Unmarshal
// and Resolver run a reader program over one datum. A reader program is
// compiled (reader_compile.go) from a writer schema and the reader's
// message type, and interpreted (reader_decode.go) to transcode Avro binary
// into protobuf wire bytes. Unmarshal hands the wire bytes to
// proto.Unmarshal, which measured faster than setting fields one by one
// through protoreflect; Codec.Unmarshal of generated Go types of the
// default profile decodes into the struct directly (reader_struct.go).

import (
	"fmt"

	"google.golang.org/protobuf/proto"
)

// checkEnd is the error of a datum of type name that ends at pos of its n
// bytes: nil at the end, else the count of bytes left after it.
func checkEnd(name string, pos, n int) error {
	if pos == n {
		return nil
	}
	return &DataError{Path: name, Offset: pos, Err: fmt.Errorf("%w: %d bytes left after the datum", ErrMalformed, n-pos)}
}

// transcode runs a reader program over one datum.
func transcodeToProto(rec *decRecord, dst, data []byte, anyOrder bool) ([]byte, error) {
	st := newDecState(newAvroReader(data), anyOrder)
	n := len(dst)
	out, err := st.record(dst, rec)
	pos := st.r.Pos
	st.release()
	if err != nil {
		return dst[:n], inField(err, rec.name)
	}
	if err := checkEnd(rec.name, pos, len(data)); err != nil {
		return dst[:n], err
	}
	return out, nil
}

// TranscodeToProto converts the Avro binary encoding of one record, written
// with the codec's own schema, to the protobuf wire encoding of the message,
// appending to dst. It builds no message.
func (c *Codec) TranscodeToProto(dst, data []byte) ([]byte, error) {
	return transcodeToProto(c.dec, dst, data, false)
}

// Unmarshal decodes the Avro binary encoding of one record, written with the
// codec's own schema, into m, which is reset first. m may be a generated
// message or a dynamicpb message of the codec's type.
func (c *Codec) Unmarshal(data []byte, m proto.Message) error {
	if d := c.seenDirect(m); d != nil && d.readable {
		return c.unmarshalStruct(d.plan, data, m)
	}
	if err := c.check(m); err != nil {
		return err
	}
	if d := c.directPlan(m); d.readable && !isNilPointer(m) {
		return c.unmarshalStruct(d.plan, data, m)
	}
	return unmarshal(c, c.dec, data, m)
}

func unmarshal(c *Codec, rec *decRecord, data []byte, m proto.Message) error {
	if err := c.check(m); err != nil {
		return err
	}
	if isNilPointer(m) {
		return fmt.Errorf("%w: cannot decode into a nil %T", ErrWrongType, m)
	}
	bp := wirePool.Get().(*[]byte)
	wire, err := transcodeToProto(rec, (*bp)[:0], data, true)
	if err == nil {
		err = unmarshalWire(wire, m, string(c.schema.desc.FullName()))
	}
	if cap(wire) <= maxPooledBuffer {
		*bp = wire[:0]
		wirePool.Put(bp)
	}
	return err
}

// Resolver reads data written with another schema, such as an older or newer
// version of the message, into the codec's message type. It is safe for
// concurrent use.
type Resolver struct {
	codec  *Codec
	writer *Schema
	dec    *decRecord
}

// Resolve compiles a reader for data written with the writer schema, by
// Avro's schema resolution rules. It fails with ErrIncompatible when the
// schemas cannot be resolved (a reader field without default missing from the
// writer, a type that does not promote, a record of another name).
func (c *Codec) Resolve(writer *Schema) (*Resolver, error) {
	if writer == nil {
		return nil, fmt.Errorf("%w: nil writer schema", ErrIncompatible)
	}
	dec, err := compileReader(writer.root, c.schema, c.opts)
	if err != nil {
		return nil, err
	}
	return &Resolver{codec: c, writer: writer, dec: dec}, nil
}

// Unmarshal decodes one record written with the resolver's writer schema into m.
func (r *Resolver) Unmarshal(data []byte, m proto.Message) error {
	return unmarshal(r.codec, r.dec, data, m)
}

// TranscodeToProto converts one record written with the resolver's writer
// schema to the protobuf wire encoding of the reader's message type.
func (r *Resolver) TranscodeToProto(dst, data []byte) ([]byte, error) {
	return transcodeToProto(r.dec, dst, data, false)
}

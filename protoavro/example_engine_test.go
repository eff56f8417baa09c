package protoavro_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/protoavro"
)

// ExampleEngineReady derives the schema of a recursive message under the
// engine-ready preset: the first record of the tree is spelled out, and the
// subtrees below it (children, parent) are JSON strings, so the schema is
// finite. A deeper RecursionDepth spells out more levels.
func ExampleEngineReady() {
	s, err := protoavro.EngineReady().Schema((&kitchenpb.Tree{}).ProtoReflect().Descriptor())
	if err != nil {
		panic(err)
	}
	canon := s.Canonical()
	for _, name := range []string{"Tree\"", "Tree_depth1", "Tree_depth2", "Tree_depth3"} {
		fmt.Printf("%s: %v\n", strings.TrimSuffix(name, "\""), strings.Contains(canon, "protoavro.test.kitchen."+name))
	}
	fmt.Println(protoavro.EngineReady())
	// Output:
	// Tree: true
	// Tree_depth1: false
	// Tree_depth2: false
	// Tree_depth3: false
	// profile=default timestamps=micros uint64=decimal mapkeys=text recursion=1 carrier=json dynamic=json empty=placeholder googletypes=logical
}

// ExampleParseSchema parses a schema protoavro did not derive, such as a
// container file's writer schema, for its canonical form and fingerprint.
func ExampleParseSchema() {
	s, err := protoavro.ParseSchema([]byte(`{"type": "record", "name": "Point", "namespace": "geo",
		"fields": [{"name": "x", "type": "long", "doc": "ignored by the canonical form"}]}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(s.FullName())
	fmt.Println(s.Canonical())
	fmt.Printf("%016x\n", s.Fingerprint())
	_, err = protoavro.ParseSchema([]byte(`{"type": "record", "name": "Point", "fields": [{"name": "x", "type": "nope"}]}`))
	fmt.Println(errors.Is(err, protoavro.ErrInvalidSchema), err)
	// Output:
	// geo.Point
	// {"name":"geo.Point","type":"record","fields":[{"name":"x","type":"long"}]}
	// ad97c9279f163dce
	// true protoavro: invalid Avro schema: record Point, field x: unknown type "nope"
}

// ExampleParseSchemaWith parses a schema that uses a named type defined in
// another schema, as a schema registry's references give it: the result
// holds the definition and stands alone.
func ExampleParseSchemaWith() {
	point := []byte(`{"type": "record", "name": "Point", "namespace": "geo", "fields": [{"name": "x", "type": "long"}]}`)
	s, err := protoavro.ParseSchemaWith([]byte(`{"type": "record", "name": "Segment", "namespace": "geo",
		"fields": [{"name": "from", "type": "Point"}, {"name": "to", "type": "Point"}]}`), point)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Canonical())
	_, err = protoavro.ParseSchema([]byte(`{"type": "record", "name": "Segment", "namespace": "geo", "fields": [{"name": "from", "type": "Point"}]}`))
	fmt.Println(err)
	_, err = protoavro.ParseSchemaWith([]byte(`"geo.Point"`), []byte(`{"type": "record", "name": "Point", "namespace": "geo", "fields": [{"name": "x", "type": "geo.Nope"}]}`))
	fmt.Println(err)
	// Output:
	// {"name":"geo.Segment","type":"record","fields":[{"name":"from","type":{"name":"geo.Point","type":"record","fields":[{"name":"x","type":"long"}]}},{"name":"to","type":"geo.Point"}]}
	// protoavro: invalid Avro schema: record geo.Segment, field from: unknown type "Point"
	// protoavro: invalid Avro schema: reference 1 of 1: record geo.Point, field x: unknown type "geo.Nope"
}

// ExampleCheckResolution tells whether a new version of a schema reads the
// data of the old one, as a schema registry's BACKWARD check does.
func ExampleCheckResolution() {
	old, _ := protoavro.ParseSchema([]byte(`{"type":"record","name":"Person","fields":[{"name":"name","type":"string"}]}`))
	next, _ := protoavro.ParseSchema([]byte(`{"type":"record","name":"Person","fields":[
		{"name":"name","type":"string"},
		{"name":"age","type":"int"}]}`))
	for _, p := range protoavro.CheckResolution(next, old) {
		fmt.Println(p)
	}
	// Output:
	// Person.age: reader field missing from the writer and has no default
}

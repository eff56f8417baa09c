package protoload_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/protoavro/protoload"
)

// ExampleLoad compiles a .proto file at run time, reads a JSON message of
// one of its types that holds a google.protobuf.Any of another of its
// types, and writes it back: the loaded types resolve the Any.
func ExampleLoad() {
	types, err := protoload.Load(context.Background(), protoload.Input{
		Protos:      []string{"kitchen/kitchen.proto"},
		ImportPaths: []string{"../../testdata/proto"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	md, err := types.FindMessage("protoavro.test.kitchen.WellKnown")
	if err != nil {
		fmt.Println(err)
		return
	}
	m := dynamicpb.NewMessage(md)
	in := `{"any":{"@type":"type.googleapis.com/protoavro.test.kitchen.Point","x":3,"y":4}}`
	if err := (protojson.UnmarshalOptions{Resolver: types.Resolver()}).Unmarshal([]byte(in), m); err != nil {
		fmt.Println(err)
		return
	}
	out, err := protojson.MarshalOptions{Resolver: types.Resolver()}.Marshal(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(md.FullName(), "from", md.ParentFile().Path())
	fmt.Println(compact.String())
	// Output:
	// protoavro.test.kitchen.WellKnown from kitchen/kitchen.proto
	// {"any":{"@type":"type.googleapis.com/protoavro.test.kitchen.Point","x":3,"y":4}}
}

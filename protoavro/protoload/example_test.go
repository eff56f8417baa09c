package protoload_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
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

// ExampleNewTypes indexes the types of a FileDescriptorSet, as protoc -o
// writes it. This set holds kitchen.proto alone, without the standard
// files it imports (protoc without --include_imports): NewTypes supplies
// them.
func ExampleNewTypes() {
	set := &descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{
		protodesc.ToFileDescriptorProto(kitchenpb.File_kitchen_kitchen_proto),
	}}
	types, err := protoload.NewTypes(set)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(set.File), "file in the set,", len(types.Files()), "loaded")
	md, err := types.FindMessage("protoavro.test.kitchen.Point")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(md.FullName(), "from", md.ParentFile().Path())
	mt, err := types.Resolver().FindMessageByURL("type.googleapis.com/google.protobuf.Duration")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(mt.Descriptor().FullName(), "from", mt.Descriptor().ParentFile().Path())

	// Other imports must be in the set.
	_, err = protoload.NewTypes(&descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{{
		Name:       proto.String("order.proto"),
		Dependency: []string{"shop/item.proto"},
	}}})
	msg := err.Error()
	fmt.Println(msg[strings.Index(msg, "could not"):]) // after protobuf-go's "proto:", whose space varies
	// Output:
	// 1 file in the set, 8 loaded
	// protoavro.test.kitchen.Point from kitchen/kitchen.proto
	// google.protobuf.Duration from google/protobuf/duration.proto
	// could not resolve import "shop/item.proto": not found (the set lacks shop/item.proto: make it with protoc --include_imports; buf build includes imports)
}

// ExampleCompile compiles .proto files named as on a command line, here
// one written to a temporary directory: it is named relative to its
// import path. With sourceInfo, its comments are kept.
func ExampleCompile() {
	dir, err := os.MkdirTemp("", "protoload-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src := `syntax = "proto3";

package shop;

import "google/protobuf/timestamp.proto";

// An order, as the shop records it.
message Order {
  string id = 1;
  google.protobuf.Timestamp placed = 2;
}
`
	if err := os.MkdirAll(filepath.Join(dir, "shop"), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shop", "order.proto"), []byte(src), 0o644); err != nil {
		log.Fatal(err)
	}
	files, err := protoload.Compile(context.Background(),
		[]string{filepath.Join(dir, "shop", "order.proto")}, []string{dir}, nil, true)
	if err != nil {
		log.Fatal(err)
	}
	f := files[0]
	md := f.Messages().ByName("Order")
	fmt.Println(f.Path(), "imports", f.Imports().Get(0).Path())
	fmt.Printf("%s: %q\n", md.FullName(), f.SourceLocations().ByDescriptor(md).LeadingComments)

	// An error says where the input is wrong. A file may also be named
	// relative to an import path.
	bad := strings.Replace(src, "string id", "Item item = 3;\n  string id", 1)
	if err := os.WriteFile(filepath.Join(dir, "shop", "bad.proto"), []byte(bad), 0o644); err != nil {
		log.Fatal(err)
	}
	_, err = protoload.Compile(context.Background(), []string{"shop/bad.proto"}, []string{dir}, nil, false)
	fmt.Println(err)
	// Output:
	// shop/order.proto imports google/protobuf/timestamp.proto
	// shop.Order: " An order, as the shop records it.\n"
	// shop/bad.proto:9:3: field shop.Order.item: unknown type Item
}

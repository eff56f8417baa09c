package protoavro_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/protoavro/protoavro/protoavro"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Deriving the schema of a message type: the result is memoized, so later
// calls for the same type and options return the same *Schema at no cost.
func ExampleOptions_Schema() {
	md := (&wrapperspb.UInt32Value{}).ProtoReflect().Descriptor()
	s, err := protoavro.Options{}.Schema(md)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Canonical())
	fmt.Printf("%016x\n", s.Fingerprint())
	// Output:
	// {"name":"google.protobuf.UInt32Value","type":"record","fields":[{"name":"value","type":"long"}]}
	// ffec4837316b9638
}

// The .avsc text of a schema, with defaults and logical types.
func ExampleSchema_JSON() {
	s, err := protoavro.SchemaOf((&timestamppb.Timestamp{}).ProtoReflect().Descriptor())
	if err != nil {
		log.Fatal(err)
	}
	avsc, err := s.JSON()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(avsc))
	// Output:
	// {
	//   "name": "google.protobuf.Timestamp",
	//   "type": "record",
	//   "fields": [
	//     {
	//       "name": "seconds",
	//       "type": "long",
	//       "default": 0
	//     },
	//     {
	//       "name": "nanos",
	//       "type": "int",
	//       "default": 0
	//     }
	//   ]
	// }
}

// The Java profile names types and maps fields as Apache Avro Java's
// ProtobufData does.
func ExampleOptions_Schema_java() {
	md := (&wrapperspb.UInt32Value{}).ProtoReflect().Descriptor()
	s, err := protoavro.Options{Profile: protoavro.JavaProfile}.Schema(md)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Canonical())
	// Output:
	// {"name":"com.google.protobuf.UInt32Value","type":"record","fields":[{"name":"value","type":"int"}]}
}

// Mapping options given as text, from a flag, a config file or a
// container file's MetaOptions, are read by ParseOptions: the keys left out
// keep their defaults, and String gives the text back in full.
func ExampleParseOptions() {
	o, err := protoavro.ParseOptions("timestamps=micros enums=default")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(o.Timestamps, o.UnknownEnums)
	fmt.Println(o)

	// A key the Java profile would ignore is refused with it.
	_, err = protoavro.ParseOptions("profile=java timestamps=micros")
	fmt.Println(errors.Is(err, protoavro.ErrInvalidOptions))
	fmt.Println(err)
	// Output:
	// micros default
	// profile=default timestamps=micros uint64=long mapkeys=text enums=default
	// true
	// protoavro: invalid options: "timestamps=micros" applies to the default profile only; profile=java ignores it
}

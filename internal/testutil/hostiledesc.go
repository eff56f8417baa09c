package testutil

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// Hostile descriptors, built programmatically (cheaper than compiling
// .proto text) for the tests of the schema limits: each is one file,
// package "hostile", whose first message M0 is the one to derive.

// HostileShape selects the message graph of [HostileFile].
type HostileShape int

const (
	// Chain is M0 → M1 → … → M(n-1): message i has an optional field of
	// type i+1.
	Chain HostileShape = iota
	// Ring is Chain with M(n-1) → M0 too: a cycle of n messages.
	Ring
	// Mesh is n mutually recursive messages: message i has fields of
	// types i+1, i+2 and i+7 (mod n).
	Mesh
	// Wide is one message M0 with n int64 fields.
	Wide
	// Star is M0 with n-1 fields of types M1 … M(n-1), each with one
	// int64 field: many types, nested two deep.
	Star
	// Wheel is Star whose M1 … M(n-1) have a field of type M0 too: every
	// message's schema holds all n, nested at most three deep.
	Wheel
	// MapChain is Chain through map<int64, M(i+1)> fields (int64 keys, so
	// that MapAsEntryArray maps them as arrays of entry records).
	MapChain
)

// HostileFile returns the file of n messages of the given shape.
func HostileFile(shape HostileShape, n int) *descriptorpb.FileDescriptorProto {
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("hostile.proto"),
		Package: proto.String("hostile"),
		Syntax:  proto.String("proto3"),
	}
	msgField := func(name string, num int32, typ int) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{
			Name:     proto.String(name),
			Number:   proto.Int32(num),
			Label:    descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
			Type:     descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(),
			TypeName: proto.String(fmt.Sprintf(".hostile.M%d", typ)),
		}
	}
	if shape == Wide {
		m := &descriptorpb.DescriptorProto{Name: proto.String("M0")}
		for i := range n {
			m.Field = append(m.Field, &descriptorpb.FieldDescriptorProto{
				Name:   proto.String(fmt.Sprintf("f%d", i)),
				Number: proto.Int32(int32(i + 1)),
				Label:  descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				Type:   descriptorpb.FieldDescriptorProto_TYPE_INT64.Enum(),
			})
		}
		fdp.MessageType = []*descriptorpb.DescriptorProto{m}
		return fdp
	}
	for i := range n {
		m := &descriptorpb.DescriptorProto{Name: proto.String(fmt.Sprintf("M%d", i))}
		switch shape {
		case Chain:
			if i+1 < n {
				m.Field = append(m.Field, msgField("next", 1, i+1))
			}
		case Ring:
			m.Field = append(m.Field, msgField("next", 1, (i+1)%n))
		case Mesh:
			for j, d := range []int{1, 2, 7} {
				m.Field = append(m.Field, msgField(fmt.Sprintf("m%d", j), int32(j+1), (i+d)%n))
			}
		case Star, Wheel:
			if i == 0 {
				for j := 1; j < n; j++ {
					m.Field = append(m.Field, msgField(fmt.Sprintf("m%d", j), int32(j), j))
				}
			} else {
				m.Field = append(m.Field, &descriptorpb.FieldDescriptorProto{
					Name:   proto.String("x"),
					Number: proto.Int32(1),
					Label:  descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
					Type:   descriptorpb.FieldDescriptorProto_TYPE_INT64.Enum(),
				})
				if shape == Wheel {
					m.Field = append(m.Field, msgField("hub", 2, 0))
				}
			}
		case MapChain:
			if i+1 < n {
				entry := &descriptorpb.DescriptorProto{
					Name:    proto.String("NextEntry"),
					Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
					Field: []*descriptorpb.FieldDescriptorProto{
						{Name: proto.String("key"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_INT64.Enum()},
						msgField("value", 2, i+1),
					},
				}
				m.NestedType = []*descriptorpb.DescriptorProto{entry}
				f := msgField("next", 1, 0)
				f.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
				f.TypeName = proto.String(fmt.Sprintf(".hostile.M%d.NextEntry", i))
				m.Field = append(m.Field, f)
			}
		}
		fdp.MessageType = append(fdp.MessageType, m)
	}
	return fdp
}

// HostileMessage builds the file of HostileFile and returns its message M0.
func HostileMessage(shape HostileShape, n int) (protoreflect.MessageDescriptor, error) {
	fd, err := protodesc.NewFile(HostileFile(shape, n), nil)
	if err != nil {
		return nil, err
	}
	return fd.Messages().ByName("M0"), nil
}

// GiantNameFile returns a file whose message M0 has a field of a message
// type whose name is size bytes long.
func GiantNameFile(size int) *descriptorpb.FileDescriptorProto {
	name := "N" + strings.Repeat("x", size-1)
	return &descriptorpb.FileDescriptorProto{
		Name:    proto.String("hostile.proto"),
		Package: proto.String("hostile"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("M0"), Field: []*descriptorpb.FieldDescriptorProto{{
				Name:     proto.String("giant"),
				Number:   proto.Int32(1),
				Label:    descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				Type:     descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(),
				TypeName: proto.String(".hostile." + name),
			}}},
			{Name: proto.String(name), Field: []*descriptorpb.FieldDescriptorProto{{
				Name:   proto.String("x"),
				Number: proto.Int32(1),
				Label:  descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				Type:   descriptorpb.FieldDescriptorProto_TYPE_INT64.Enum(),
			}}},
		},
	}
}

// HostileProto returns .proto source text of the same shapes (Chain, Ring
// and Mesh), for the paths that compile source.
func HostileProto(shape HostileShape, n int) string {
	var sb strings.Builder
	sb.WriteString("syntax = \"proto3\";\npackage hostile;\n")
	for i := range n {
		fmt.Fprintf(&sb, "message M%d {", i)
		switch shape {
		case Chain:
			if i+1 < n {
				fmt.Fprintf(&sb, " M%d next = 1;", i+1)
			}
		case Ring:
			fmt.Fprintf(&sb, " M%d next = 1;", (i+1)%n)
		case Mesh:
			for j, d := range []int{1, 2, 7} {
				fmt.Fprintf(&sb, " M%d m%d = %d;", (i+d)%n, j, j+1)
			}
		}
		sb.WriteString(" }\n")
	}
	return sb.String()
}

// ImportChain returns n files, f0.proto … f(n-1).proto of package
// "chain", each importing the one before (publicly when public), in that
// order; the last defines chain.M with one string field s.
func ImportChain(n int, public bool) []*descriptorpb.FileDescriptorProto {
	files := make([]*descriptorpb.FileDescriptorProto, n)
	for i := range n {
		f := &descriptorpb.FileDescriptorProto{
			Name:    proto.String(fmt.Sprintf("f%d.proto", i)),
			Package: proto.String("chain"),
			Syntax:  proto.String("proto3"),
		}
		if i > 0 {
			f.Dependency = []string{fmt.Sprintf("f%d.proto", i-1)}
			if public {
				f.PublicDependency = []int32{0}
			}
		}
		if i == n-1 {
			f.MessageType = []*descriptorpb.DescriptorProto{{Name: proto.String("M"), Field: []*descriptorpb.FieldDescriptorProto{{
				Name:     proto.String("s"),
				Number:   proto.Int32(1),
				Label:    descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				Type:     descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(),
				JsonName: proto.String("s"),
			}}}}
		}
		files[i] = f
	}
	return files
}

// ImportHub returns k files l0.proto … l(k-1).proto, hub.proto importing
// them all (publicly when public), and m files m0.proto … m(m-1).proto
// each importing hub.proto, all of package "hub", in that order.
func ImportHub(k, m int, public bool) []*descriptorpb.FileDescriptorProto {
	file := func(name string) *descriptorpb.FileDescriptorProto {
		return &descriptorpb.FileDescriptorProto{Name: proto.String(name), Package: proto.String("hub"), Syntax: proto.String("proto3")}
	}
	var files []*descriptorpb.FileDescriptorProto
	hub := file("hub.proto")
	for i := range k {
		files = append(files, file(fmt.Sprintf("l%d.proto", i)))
		hub.Dependency = append(hub.Dependency, fmt.Sprintf("l%d.proto", i))
		if public {
			hub.PublicDependency = append(hub.PublicDependency, int32(i))
		}
	}
	files = append(files, hub)
	for i := range m {
		f := file(fmt.Sprintf("m%d.proto", i))
		f.Dependency = []string{"hub.proto"}
		files = append(files, f)
	}
	return files
}

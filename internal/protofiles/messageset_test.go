package protofiles

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protoavro/protoavro/internal/testutil/testcompile"
)

// messageSetSources declare MessageSets, at the top level and nested, with
// extensions of them in the same file and in another, beyond the field
// numbers of a plain message and within them.
var messageSetSources = map[string]string{
	"ms.proto": `syntax = "proto2";
package ms;
// MS is a MessageSet.
message MS {
  option message_set_wire_format = true;
  extensions 4 to 536869999;
  extensions 536870500 to max;
  reserved 536870000 to 536870100;
  message Inner { option message_set_wire_format = true; extensions 1 to max; }
}
message Ext {
  optional int32 v = 1;
  extend MS { optional Ext big = 1000000000; optional Ext small = 100; }
}
message M { optional MS ms = 1; optional MS.Inner inner = 2; optional int32 x = 3; }
`,
	"other.proto": `syntax = "proto2";
package other;
import "ms.proto";
message O { optional ms.M m = 1; }
extend ms.MS { optional ms.Ext far = 2000000000; optional ms.Ext near = 200; }
extend ms.MS.Inner { optional ms.Ext deep = 1500000000; }
`,
}

// messageSetProtos returns the descriptor protos of messageSetSources.
func messageSetProtos(t *testing.T) []*descriptorpb.FileDescriptorProto {
	t.Helper()
	fds := testcompile.Sources(t, messageSetSources, "other.proto")
	return Protos(fds...)
}

// TestNewFilesBuildsMessageSets: a set with MessageSets, which
// protodesc.NewFiles refuses, builds: each MessageSet is a plain message
// without the option, whose extension and reserved ranges stop at the
// largest field number of a plain message; the extensions of it beyond
// that number are dropped, the others kept, and the fields of other types
// are as they were. The set given is not modified.
func TestNewFilesBuildsMessageSets(t *testing.T) {
	set := messageSetProtos(t)
	before := make([]*descriptorpb.FileDescriptorProto, len(set))
	for i, f := range set {
		before[i] = proto.Clone(f).(*descriptorpb.FileDescriptorProto)
	}
	if _, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: set}); err == nil || !strings.Contains(err.Error(), "MessageSet") {
		t.Fatalf("protodesc.NewFiles: %v; want the MessageSet refused", err)
	}
	r, err := NewFiles(set)
	if err != nil {
		t.Fatal(err)
	}
	for i := range set {
		if !proto.Equal(set[i], before[i]) {
			t.Errorf("%s was modified", set[i].GetName())
		}
	}
	for _, name := range []protoreflect.FullName{"ms.MS", "ms.MS.Inner"} {
		d, err := r.FindDescriptorByName(name)
		if err != nil {
			t.Fatal(err)
		}
		md := d.(protoreflect.MessageDescriptor)
		if md.Options().(*descriptorpb.MessageOptions).GetMessageSetWireFormat() {
			t.Errorf("%s keeps message_set_wire_format", name)
		}
		rs := md.ExtensionRanges()
		if rs.Len() == 0 || rs.Get(rs.Len() - 1)[1] != protowire.MaxValidNumber+1 {
			t.Errorf("%s: extension ranges %v, want them to end at %d", name, rs, protowire.MaxValidNumber)
		}
	}
	for _, c := range []struct {
		name protoreflect.FullName
		kept bool
	}{{"ms.Ext.big", false}, {"ms.Ext.small", true}, {"other.far", false}, {"other.near", true}, {"other.deep", false}} {
		if _, err := r.FindDescriptorByName(c.name); (err == nil) != c.kept {
			t.Errorf("%s: found %v, want %v", c.name, err == nil, c.kept)
		}
	}
	d, err := r.FindDescriptorByName("ms.M")
	if err != nil {
		t.Fatal(err)
	}
	if f := d.(protoreflect.MessageDescriptor).Fields(); f.Len() != 3 || f.Get(0).Message().FullName() != "ms.MS" || f.Get(1).Message().FullName() != "ms.MS.Inner" {
		t.Errorf("ms.M's fields changed: %v", f)
	}

	// A set without MessageSets is the set given, not a copy.
	plain := []*descriptorpb.FileDescriptorProto{file("a.proto", "a", "")}
	if got := plainMessageSets(plain); &got[0] != &plain[0] {
		t.Error("a set without MessageSets was copied")
	}
}

// TestNewFilesRefusesMessageSetWithFields: a message with
// message_set_wire_format and fields is no valid MessageSet, and is left
// for protodesc to refuse.
func TestNewFilesRefusesMessageSetWithFields(t *testing.T) {
	f := file("a.proto", "a", "")
	f.Syntax = proto.String("proto2")
	m := f.MessageType[0]
	m.Options = &descriptorpb.MessageOptions{MessageSetWireFormat: proto.Bool(true)}
	m.ExtensionRange = []*descriptorpb.DescriptorProto_ExtensionRange{{Start: proto.Int32(4), End: proto.Int32(1 << 30)}}
	m.Field = []*descriptorpb.FieldDescriptorProto{{
		Name: proto.String("x"), Number: proto.Int32(1), JsonName: proto.String("x"),
		Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum(),
	}}
	if _, err := NewFiles([]*descriptorpb.FileDescriptorProto{f}); err == nil || !strings.Contains(err.Error(), "MessageSet") {
		t.Errorf("NewFiles: %v; want the MessageSet refused", err)
	}
}

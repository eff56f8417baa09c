package protoload_test

import (
	"testing"

	"github.com/protoavro/protoavro/protoavro/protoload"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/apipb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// TestHoldsAny: an Any itself, a message with an Any field, and one that
// reaches an Any through nested messages hold one; messages that reach
// none, recursive ones included, do not.
func TestHoldsAny(t *testing.T) {
	for _, c := range []struct {
		md   protoreflect.MessageDescriptor
		want bool
	}{
		{(&anypb.Any{}).ProtoReflect().Descriptor(), true},
		{(&apipb.Method{}).ProtoReflect().Descriptor(), true}, // options: Option.value is an Any
		{(&apipb.Api{}).ProtoReflect().Descriptor(), true},    // through Method and Option
		{(&structpb.Struct{}).ProtoReflect().Descriptor(), false},
		{(&timestamppb.Timestamp{}).ProtoReflect().Descriptor(), false},
		{(&descriptorpb.DescriptorProto{}).ProtoReflect().Descriptor(), false}, // recursive
	} {
		if got := protoload.HoldsAny(c.md); got != c.want {
			t.Errorf("HoldsAny(%s) = %v, want %v", c.md.FullName(), got, c.want)
		}
	}
}
